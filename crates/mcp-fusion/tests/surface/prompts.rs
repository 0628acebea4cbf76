//! `prompts/list` and `prompts/get` through rmcp's client over an in-process
//! pipe: arguments listed from the Rust type, a handler with extractors, and
//! every failure as the JSON-RPC error the wire contract gives it (the
//! envelope text as the message, its JSON twin as the data).

use mcp_fusion::error::VALIDATION_RECOVERY;
use mcp_fusion::handler::PromptMessages;
use mcp_fusion::model::{GetPromptRequestParams, PromptMessage, Role};
use mcp_fusion::{Action, CallContext, FusionServer, Prompt, State, ToolError};
use serde_json::{Value, json};

use crate::connection::{Connected, answer, connect, error_json, from_json, to_json};
use crate::support::{check_envelope, internal_envelope};

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

/// The house style reviews follow (a state).
#[derive(Clone)]
struct Style(&'static str);

/// `code_review`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Review {
    /// The code to review.
    code: String,
    /// The language the code is written in.
    language: Option<String>,
    /// How strict to be.
    #[serde(default)]
    strictness: String,
    #[allow(dead_code)] // listed only
    focus: Option<String>,
}

async fn code_review(
    State(style): State<Style>,
    ctx: CallContext,
    args: Review,
) -> Result<PromptMessages, ToolError> {
    Ok(PromptMessages(vec![
        PromptMessage::new_text(
            Role::User,
            format!(
                "[{} via {}/{}] Review this {} code ({}): {}",
                style.0,
                ctx.tool(),
                ctx.name(),
                args.language.as_deref().unwrap_or("unknown"),
                if args.strictness.is_empty() {
                    "normal"
                } else {
                    &args.strictness
                },
                args.code
            ),
        ),
        PromptMessage::new_text(Role::Assistant, "I will review it."),
    ]))
}

async fn simple() -> Result<&'static str, ToolError> {
    Ok("A simple prompt.")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Lookup {
    /// The invoice to explain.
    invoice_id: String,
}

async fn explain_invoice(args: Lookup) -> Result<String, ToolError> {
    Err(
        ToolError::not_found(format!("There is no invoice {}.", args.invoice_id))
            .suggest("List the invoices first and use one of their ids."),
    )
}

async fn crash() -> Result<&'static str, ToolError> {
    panic!("secret database password in the panic text")
}

fn server() -> FusionServer {
    FusionServer::builder("prompts", "1.0.0")
        .tool(Action::new("ping", ping))
        .state(Style("house style"))
        .prompt(
            Prompt::new("code_review", code_review)
                .title("Code review")
                .description("Asks for a code review."),
        )
        .prompt(Prompt::new("simple", simple))
        .prompt(Prompt::new("explain_invoice", explain_invoice))
        .prompt(Prompt::new("crash", crash))
        .build()
        .unwrap()
}

async fn get(connected: &Connected, request: Value) -> Result<Value, rmcp::ErrorData> {
    let params: GetPromptRequestParams = from_json(request);
    answer(connected.client.get_prompt(params).await)
}

#[tokio::test]
async fn prompts_list_gives_arguments_from_the_type_in_declaration_order() {
    let connected = connect(&server()).await;
    let listed = connected.client.list_prompts(None).await.unwrap();
    assert_eq!(listed.next_cursor, None);
    assert_eq!(
        to_json(&listed.prompts),
        json!([
            {
                "name": "code_review",
                "title": "Code review",
                "description": "Asks for a code review.",
                "arguments": [
                    {"name": "code", "description": "The code to review.", "required": true},
                    {"name": "language", "description": "The language the code is written in.", "required": false},
                    {"name": "strictness", "description": "How strict to be.", "required": false},
                    {"name": "focus", "required": false}
                ]
            },
            {"name": "simple"},
            {
                "name": "explain_invoice",
                "arguments": [
                    {"name": "invoice_id", "description": "The invoice to explain.", "required": true}
                ]
            },
            {"name": "crash"}
        ])
    );
    connected.close().await;
}

#[tokio::test]
async fn prompts_get_runs_the_handler_with_its_extractors() {
    let connected = connect(&server()).await;
    let result = get(
        &connected,
        json!({"name": "code_review", "arguments": {"code": "fn main() {}", "language": "rust"}}),
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        json!({
            "description": "Asks for a code review.",
            "messages": [
                {
                    "role": "user",
                    "content": {
                        "type": "text",
                        "text": "[house style via code_review/code_review] Review this rust code (normal): fn main() {}"
                    }
                },
                {
                    "role": "assistant",
                    "content": {"type": "text", "text": "I will review it."}
                }
            ]
        })
    );

    // A prompt without arguments, and a handler returning a string.
    let result = get(&connected, json!({"name": "simple"})).await.unwrap();
    assert_eq!(
        result,
        json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "A simple prompt."}}
            ]
        })
    );
    connected.close().await;
}

fn validation(action: &str, lines: &[(&str, &str)]) -> (String, Value) {
    let mut text = format!(
        "Fix the fields below and call {action} again.\n<validation_error action=\"{action}\">\n"
    );
    for (path, message) in lines {
        text.push_str(&format!("  <field name=\"{path}\">{message}</field>\n"));
    }
    text.push_str("  <recovery>Do not explain the error.</recovery>\n</validation_error>");
    let n = lines.len();
    let problems = if n == 1 { "problem" } else { "problems" };
    let data = json!({
        "code": "VALIDATION_ERROR",
        "severity": "error",
        "message": format!("The arguments for {action} are not valid ({n} {problems})."),
        "recovery": format!("Fix the fields below and call {action} again. {VALIDATION_RECOVERY}"),
        "action": action,
        "fields": lines.iter().map(|(p, m)| json!({"path": p, "message": m})).collect::<Vec<_>>(),
    });
    (text, data)
}

#[tokio::test]
async fn a_missing_argument_is_invalid_params_with_the_validation_envelope() {
    let connected = connect(&server()).await;
    let error = get(
        &connected,
        json!({"name": "code_review", "arguments": {"language": "rust"}}),
    )
    .await
    .unwrap_err();
    let (text, data) = validation(
        "code_review",
        &[(
            "code",
            "Missing required field. You sent: (missing). Expected a string.",
        )],
    );
    assert_eq!(
        error_json(&error),
        json!({"code": -32602, "message": text, "data": data})
    );
    check_envelope(&error.message).unwrap();

    // No arguments at all: the same.
    let error = get(&connected, json!({"name": "code_review"}))
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({"code": -32602, "message": text, "data": data})
    );

    // An argument the type does not have.
    let error = get(
        &connected,
        json!({"name": "code_review", "arguments": {"code": "x", "colour": "red"}}),
    )
    .await
    .unwrap_err();
    let (text, data) = validation(
        "code_review",
        &[(
            "colour",
            "Unrecognized field \"colour\". You sent: 'red'. Known fields: \"code\", \"language\", \"strictness\", \"focus\". Check for typos.",
        )],
    );
    assert_eq!(
        error_json(&error),
        json!({"code": -32602, "message": text, "data": data})
    );
    connected.close().await;
}

#[tokio::test]
async fn an_unknown_prompt_is_invalid_params_with_the_closest_name() {
    let connected = connect(&server()).await;
    let error = get(&connected, json!({"name": "code_reveiw"}))
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({
            "code": -32602,
            "message": "There is no prompt named \"code_reveiw\". Did you mean \"code_review\"? Valid: code_review, simple, explain_invoice, crash.",
            "data": {
                "prompt": "code_reveiw",
                "closest": "code_review",
                "valid": ["code_review", "simple", "explain_invoice", "crash"]
            }
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn a_not_found_from_the_handler_is_invalid_params_with_the_tool_error() {
    let connected = connect(&server()).await;
    let error = get(
        &connected,
        json!({"name": "explain_invoice", "arguments": {"invoice_id": "inv_9"}}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({
            "code": -32602,
            "message": "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>There is no invoice inv_9.</message>\n  <recovery>List the invoices first and use one of their ids.</recovery>\n</tool_error>",
            "data": {
                "code": "NOT_FOUND",
                "severity": "error",
                "message": "There is no invoice inv_9.",
                "recovery": "List the invoices first and use one of their ids."
            }
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn a_panicking_handler_is_a_masked_internal_error_and_the_server_goes_on() {
    let connected = connect(&server()).await;
    let error = get(&connected, json!({"name": "crash"})).await.unwrap_err();
    assert_eq!(error.code.0, -32603);
    let data = error.data.clone().expect("the envelope's JSON twin");
    let id = data["details"]["error_id"]
        .as_str()
        .expect("an error id")
        .to_owned();
    assert_eq!(id.len(), 12);
    let (text, meta) = internal_envelope("crash", &id, None);
    assert_eq!(error.message, text);
    assert_eq!(data, meta);
    assert!(!error.message.contains("secret"));
    assert!(!data.to_string().contains("secret"));

    // The connection and the server still serve.
    let result = get(&connected, json!({"name": "simple"})).await.unwrap();
    assert_eq!(
        result["messages"][0]["content"]["text"],
        json!("A simple prompt.")
    );
    let listed = connected.client.list_prompts(None).await.unwrap();
    assert_eq!(listed.prompts.len(), 4);
    connected.close().await;
}
