//! `completion/complete` through rmcp's client over an in-process pipe:
//! prompt arguments and template variables, fixed lists matched by prefix
//! ignoring case, async completers with the context's arguments, the
//! 100-value cut, and unknown references.

use mcp_fusion::model::CompleteRequestParams;
use mcp_fusion::{
    Action, CompletionRequest, FusionServer, Prompt, Resource, ResourceTemplate, ToolError,
};
use serde_json::{Value, json};

use crate::connection::{Connected, answer, connect, error_json, from_json};

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Trip {
    /// The country.
    country: String,
    /// The city.
    city: String,
    /// Free text.
    note: Option<String>,
}

async fn trip(args: Trip) -> Result<String, ToolError> {
    Ok(format!(
        "Plan a trip to {}, {} ({})",
        args.city,
        args.country,
        args.note.unwrap_or_default()
    ))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Numbered {
    n: String,
}

async fn numbered(args: Numbered) -> Result<String, ToolError> {
    Ok(format!("number {}", args.n))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Item {
    id: String,
}

async fn item(args: Item) -> Result<String, ToolError> {
    Ok(format!("item {}", args.id))
}

fn server() -> FusionServer {
    FusionServer::builder("completion", "1.0.0")
        .tool(Action::new("ping", ping))
        .prompt(
            Prompt::new("trip", trip)
                .complete_values("country", ["France", "Finland", "fiji", "Germany"])
                .complete("city", |request: CompletionRequest| async move {
                    let cities: &[&str] = match request.arguments.get("country").map(String::as_str)
                    {
                        Some("France") => &["Paris", "Lyon", "Lille"],
                        Some("Germany") => &["Berlin", "Bonn"],
                        _ => &[],
                    };
                    Ok::<Vec<String>, ToolError>(
                        cities
                            .iter()
                            .filter(|c| c.starts_with(&request.value))
                            .map(|c| (*c).to_owned())
                            .collect(),
                    )
                }),
        )
        .prompt(Prompt::new("numbered", numbered).complete(
            "n",
            |_request: CompletionRequest| async {
                Ok::<Vec<String>, ToolError>((0..250).map(|i| format!("n{i}")).collect())
            },
        ))
        .resource(Resource::text("test://fixed", "fixed", "Fixed."))
        .resource_template(
            ResourceTemplate::new("test://items/{id}", "item", item)
                .complete_values("id", ["apple", "apricot", "banana"]),
        )
        .build()
        .unwrap()
}

async fn complete(connected: &Connected, request: Value) -> Result<Value, rmcp::ErrorData> {
    let params: CompleteRequestParams = from_json(request);
    answer(connected.client.complete(params).await)
}

fn prompt_ref(name: &str, argument: &str, value: &str) -> Value {
    json!({
        "ref": {"type": "ref/prompt", "name": name},
        "argument": {"name": argument, "value": value}
    })
}

fn completion(values: &[&str], total: usize, has_more: bool) -> Value {
    json!({"completion": {"values": values, "total": total, "hasMore": has_more}})
}

#[tokio::test]
async fn a_prompt_argument_completes_from_its_values_by_prefix_ignoring_case() {
    let connected = connect(&server()).await;
    assert_eq!(
        complete(&connected, prompt_ref("trip", "country", "f"))
            .await
            .unwrap(),
        completion(&["France", "Finland", "fiji"], 3, false)
    );
    assert_eq!(
        complete(&connected, prompt_ref("trip", "country", "FI"))
            .await
            .unwrap(),
        completion(&["Finland", "fiji"], 2, false)
    );
    // Nothing typed: every value.
    assert_eq!(
        complete(&connected, prompt_ref("trip", "country", ""))
            .await
            .unwrap(),
        completion(&["France", "Finland", "fiji", "Germany"], 4, false)
    );
    assert_eq!(
        complete(&connected, prompt_ref("trip", "country", "x"))
            .await
            .unwrap(),
        completion(&[], 0, false)
    );
    connected.close().await;
}

#[tokio::test]
async fn a_completer_reads_the_arguments_already_given() {
    let connected = connect(&server()).await;
    let mut request = prompt_ref("trip", "city", "L");
    request["context"] = json!({"arguments": {"country": "France"}});
    assert_eq!(
        complete(&connected, request).await.unwrap(),
        completion(&["Lyon", "Lille"], 2, false)
    );
    // Without the context: the completer has nothing to go on.
    assert_eq!(
        complete(&connected, prompt_ref("trip", "city", "L"))
            .await
            .unwrap(),
        completion(&[], 0, false)
    );
    connected.close().await;
}

#[tokio::test]
async fn a_template_variable_completes() {
    let connected = connect(&server()).await;
    let request = json!({
        "ref": {"type": "ref/resource", "uri": "test://items/{id}"},
        "argument": {"name": "id", "value": "ap"}
    });
    assert_eq!(
        complete(&connected, request).await.unwrap(),
        completion(&["apple", "apricot"], 2, false)
    );
    connected.close().await;
}

#[tokio::test]
async fn an_argument_without_a_completer_gets_no_values() {
    let connected = connect(&server()).await;
    assert_eq!(
        complete(&connected, prompt_ref("trip", "note", "any"))
            .await
            .unwrap(),
        completion(&[], 0, false)
    );
    connected.close().await;
}

#[tokio::test]
async fn an_argument_the_prompt_or_template_does_not_have_is_invalid_params() {
    let connected = connect(&server()).await;
    let error = complete(&connected, prompt_ref("trip", "cuntry", "f"))
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({
            "code": -32602,
            "message": "Prompt \"trip\" has no argument named \"cuntry\". Did you mean \"country\"? Valid: country, city, note.",
            "data": {"argument": "cuntry", "closest": "country", "valid": ["country", "city", "note"]}
        })
    );
    let request = json!({
        "ref": {"type": "ref/resource", "uri": "test://items/{id}"},
        "argument": {"name": "colour", "value": "r"}
    });
    let error = complete(&connected, request).await.unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({
            "code": -32602,
            "message": "Resource template \"test://items/{id}\" has no argument named \"colour\". Valid: id.",
            "data": {"argument": "colour", "closest": null, "valid": ["id"]}
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn more_than_a_hundred_values_are_cut_to_a_hundred_and_counted() {
    let connected = connect(&server()).await;
    let result = complete(&connected, prompt_ref("numbered", "n", ""))
        .await
        .unwrap();
    let expected: Vec<String> = (0..100).map(|i| format!("n{i}")).collect();
    assert_eq!(
        result,
        json!({"completion": {"values": expected, "total": 250, "hasMore": true}})
    );
    connected.close().await;
}

#[tokio::test]
async fn an_unknown_prompt_reference_is_invalid_params() {
    let connected = connect(&server()).await;
    let error = complete(&connected, prompt_ref("trp", "country", "f"))
        .await
        .unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({
            "code": -32602,
            "message": "There is no prompt named \"trp\". Did you mean \"trip\"? Valid: trip, numbered.",
            "data": {"prompt": "trp", "closest": "trip", "valid": ["trip", "numbered"]}
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn an_unknown_template_reference_is_invalid_params() {
    let connected = connect(&server()).await;
    // A fixed resource's URI is not a template.
    let error = complete(
        &connected,
        json!({
            "ref": {"type": "ref/resource", "uri": "test://fixed"},
            "argument": {"name": "id", "value": ""}
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error_json(&error),
        json!({
            "code": -32602,
            "message": "There is no resource template named \"test://fixed\". Valid: test://items/{id}.",
            "data": {"resource_template": "test://fixed", "closest": null, "valid": ["test://items/{id}"]}
        })
    );
    // A concrete URI the template matches names that template (MCP: the
    // reference's `uri` is "the URI or URI template of the resource").
    let completed = complete(
        &connected,
        json!({
            "ref": {"type": "ref/resource", "uri": "test://items/7"},
            "argument": {"name": "id", "value": ""}
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        completed,
        json!({"completion": {"values": ["apple", "apricot", "banana"], "total": 3, "hasMore": false}})
    );
    connected.close().await;
}

/// A completer that panics should be answered like a prompt or resource
/// handler that panics: JSON-RPC -32603 with the masked `INTERNAL_ERROR`
/// envelope, no panic text; the connection goes on serving.
#[tokio::test]
async fn a_panicking_completer_is_an_internal_error() {
    let server = FusionServer::builder("completion", "1.0.0")
        .tool(Action::new("ping", ping))
        .prompt(Prompt::new("numbered", numbered).complete(
            "n",
            |_request: CompletionRequest| async {
                panic!("secret in the completer");
                #[allow(unreachable_code)]
                Ok::<Vec<String>, ToolError>(Vec::new())
            },
        ))
        .build()
        .unwrap();
    let connected = connect(&server).await;
    let answer = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        complete(&connected, prompt_ref("numbered", "n", "")),
    )
    .await
    .expect("completion/complete is answered");
    let error = answer.unwrap_err();
    assert_eq!(error.code.0, -32603);
    assert!(
        error
            .message
            .starts_with("<tool_error code=\"INTERNAL_ERROR\"")
    );
    assert!(!error.message.contains("secret"));
    connected.close().await;
}
