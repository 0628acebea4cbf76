//! What a handler asks of the client during a call, through rmcp's client
//! over an in-process pipe: log messages filtered by `logging/setLevel`,
//! progress notifications for the request's progress token, sampling and
//! elicitation, and the `CLIENT_CAPABILITY_MISSING` / `CLIENT_REQUEST_FAILED`
//! envelopes when the client cannot answer.

// Logging and sampling are MCP 2025-11-25 features rmcp marks deprecated.
#![allow(deprecated)]

use mcp_fusion::handler::LogLevel;
use mcp_fusion::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, CreateMessageRequestParams,
    ElicitationSchema, SamplingMessage, SetLevelRequestParams,
};
use mcp_fusion::{Action, CallContext, FusionServer, Group, Prompt, ToolError};
use serde_json::{Value, json};

use crate::connection::{
    ClientSetup, Connected, connect, connect_raw, connect_with, from_json, to_json,
};
use crate::support::{assert_error, texts};
use rmcp::service::PeerRequestOptions;

const LOG: &str = "notifications/message";
const PROGRESS: &str = "notifications/progress";

async fn chatty(ctx: CallContext) -> Result<String, ToolError> {
    let debug = ctx.log(LogLevel::Debug, "debugging").await;
    let info = ctx.log(LogLevel::Info, "starting the job").await;
    let warning = ctx
        .log(
            LogLevel::Warning,
            json!({"disk": "almost full", "free_mb": 12}),
        )
        .await;
    let error = ctx.log(LogLevel::Error, "one step failed").await;
    Ok(format!(
        "debug sent: {debug}, info sent: {info}, warning sent: {warning}, error sent: {error}"
    ))
}

async fn slow(ctx: CallContext) -> Result<String, ToolError> {
    let first = ctx.progress(1.0, Some(3.0), Some("first step")).await;
    let second = ctx.progress(2.0, Some(3.0), None).await;
    let third = ctx.progress(3.5, None, Some("done")).await;
    Ok(format!("sent: {first}, {second}, {third}"))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Ask {
    question: String,
}

async fn ask(ctx: CallContext, args: Ask) -> Result<String, ToolError> {
    let params =
        CreateMessageRequestParams::new(vec![SamplingMessage::user_text(args.question)], 50);
    let result = ctx.create_message(params).await?;
    let text = result
        .message
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    Ok(format!("the model ({}) said: {text}", result.model))
}

async fn confirm(ctx: CallContext) -> Result<String, ToolError> {
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {"name": {"type": "string", "description": "Your name"}},
        "required": ["name"]
    }))
    .map_err(ToolError::internal)?;
    let result = ctx.elicit("Who are you?", schema).await?;
    Ok(format!(
        "action={}, content={}",
        to_json(&result.action),
        result
            .content
            .map_or_else(|| String::from("none"), |c| c.to_string())
    ))
}

async fn roots(ctx: CallContext) -> Result<String, ToolError> {
    let roots = ctx.roots().await?;
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("roots: {}", uris.join(", ")))
}

async fn pay(ctx: CallContext) -> Result<String, ToolError> {
    let result = ctx
        .elicit_url("Pay the invoice", "https://pay.example.com/i/42")
        .await?;
    Ok(format!("action={}", to_json(&result.action)))
}

async fn logged_prompt(ctx: CallContext) -> Result<&'static str, ToolError> {
    ctx.log(LogLevel::Notice, "prompt rendered").await;
    Ok("A prompt that logs.")
}

fn server() -> FusionServer {
    FusionServer::builder("client", "1.0.0")
        .group(
            Group::new("jobs")
                .action(Action::new("run", chatty))
                .action(Action::new("slow", slow))
                .action(Action::new("ask", ask))
                .action(Action::new("confirm", confirm))
                .action(Action::new("roots", roots))
                .action(Action::new("pay", pay)),
        )
        .prompt(Prompt::new("logged", logged_prompt))
        .build()
        .unwrap()
}

async fn call(connected: &Connected, request: Value) -> CallToolResult {
    let params: CallToolRequestParams = from_json(request);
    connected.client.call_tool(params).await.unwrap()
}

async fn run(connected: &Connected, action: &str, extra: Value) -> CallToolResult {
    let mut arguments = json!({"action": action});
    if let Value::Object(extra) = extra {
        arguments.as_object_mut().unwrap().extend(extra);
    }
    call(connected, json!({"name": "jobs", "arguments": arguments})).await
}

async fn set_level(connected: &Connected, level: &str) {
    let params: SetLevelRequestParams = from_json(json!({"level": level}));
    connected.client.set_level(params).await.unwrap();
}

#[tokio::test]
async fn every_level_is_sent_until_the_client_sets_one() {
    let connected = connect(&server()).await;
    let result = run(&connected, "run", json!({})).await;
    assert_eq!(
        texts(&result),
        ["debug sent: true, info sent: true, warning sent: true, error sent: true"]
    );
    let logs = connected.recorder.wait_for(LOG, 4).await;
    assert_eq!(
        logs,
        [
            json!({"level": "debug", "logger": "jobs.run", "data": "debugging"}),
            json!({"level": "info", "logger": "jobs.run", "data": "starting the job"}),
            json!({"level": "warning", "logger": "jobs.run", "data": {"disk": "almost full", "free_mb": 12}}),
            json!({"level": "error", "logger": "jobs.run", "data": "one step failed"}),
        ]
    );
    connected.close().await;
}

#[tokio::test]
async fn set_level_warning_drops_info_and_keeps_warning() {
    let server = server();
    let connected = connect(&server).await;
    let other = connect(&server).await;
    set_level(&connected, "warning").await;

    let result = run(&connected, "run", json!({})).await;
    assert_eq!(
        texts(&result),
        ["debug sent: false, info sent: false, warning sent: true, error sent: true"]
    );
    connected.settle().await;
    assert_eq!(
        connected.recorder.seen_of(LOG),
        [
            json!({"level": "warning", "logger": "jobs.run", "data": {"disk": "almost full", "free_mb": 12}}),
            json!({"level": "error", "logger": "jobs.run", "data": "one step failed"}),
        ]
    );

    // The level is the connection's own: another client still gets all.
    let result = run(&other, "run", json!({})).await;
    assert_eq!(
        texts(&result),
        ["debug sent: true, info sent: true, warning sent: true, error sent: true"]
    );
    assert_eq!(other.recorder.wait_for(LOG, 4).await.len(), 4);

    // Lowered again: info comes back.
    set_level(&connected, "info").await;
    let result = run(&connected, "run", json!({})).await;
    assert_eq!(
        texts(&result),
        ["debug sent: false, info sent: true, warning sent: true, error sent: true"]
    );
    connected.close().await;
    other.close().await;
}

#[tokio::test]
async fn a_prompt_handler_logs_under_the_prompt_name() {
    let connected = connect(&server()).await;
    connected
        .client
        .get_prompt(from_json(json!({"name": "logged"})))
        .await
        .unwrap();
    assert_eq!(
        connected.recorder.wait_for(LOG, 1).await,
        [json!({"level": "notice", "logger": "logged", "data": "prompt rendered"})]
    );
    connected.close().await;
}

#[tokio::test]
async fn progress_is_sent_for_the_request_token() {
    // rmcp's client gives every request its own progress token: read it
    // from the request handle.
    let connected = connect(&server()).await;
    let request: ClientRequest = from_json(json!({
        "method": "tools/call",
        "params": {"name": "jobs", "arguments": {"action": "slow"}}
    }));
    let handle = connected
        .client
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = to_json(&handle.progress_token);
    let response = handle.await_response().await.unwrap();
    assert_eq!(
        to_json(&response)["content"],
        json!([{"type": "text", "text": "sent: true, true, true"}])
    );
    assert_eq!(
        connected.recorder.wait_for(PROGRESS, 3).await,
        [
            json!({"progressToken": token, "progress": 1.0, "total": 3.0, "message": "first step"}),
            json!({"progressToken": token, "progress": 2.0, "total": 3.0}),
            json!({"progressToken": token, "progress": 3.5, "message": "done"}),
        ]
    );
    connected.settle().await;
    assert_eq!(connected.recorder.seen().len(), 3);
    connected.close().await;
}

#[tokio::test]
async fn progress_is_sent_on_the_wire_before_the_response() {
    let mut raw = connect_raw(&server()).await;
    let (before, response) = raw
        .request(
            2,
            "tools/call",
            json!({
                "name": "jobs",
                "arguments": {"action": "slow"},
                "_meta": {"progressToken": "job-7"}
            }),
        )
        .await;
    let progress = |params: Value| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params});
    assert_eq!(
        before,
        [
            progress(
                json!({"progressToken": "job-7", "progress": 1.0, "total": 3.0, "message": "first step"})
            ),
            progress(json!({"progressToken": "job-7", "progress": 2.0, "total": 3.0})),
            progress(json!({"progressToken": "job-7", "progress": 3.5, "message": "done"})),
        ]
    );
    assert_eq!(
        response["result"]["content"],
        json!([{"type": "text", "text": "sent: true, true, true"}])
    );
}

#[tokio::test]
async fn no_progress_is_sent_without_a_token() {
    let mut raw = connect_raw(&server()).await;
    let (before, response) = raw
        .request(
            2,
            "tools/call",
            json!({"name": "jobs", "arguments": {"action": "slow"}}),
        )
        .await;
    assert_eq!(before, Vec::<Value>::new());
    assert_eq!(
        response["result"]["content"],
        json!([{"type": "text", "text": "sent: false, false, false"}])
    );
}

#[tokio::test]
async fn sampling_reaches_the_client_and_its_answer_the_handler() {
    let setup = ClientSetup {
        sampling_reply: Some(String::from("Paris.")),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(
        &connected,
        "ask",
        json!({"question": "What is the capital of France?"}),
    )
    .await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(texts(&result), ["the model (test-model) said: Paris."]);
    let asked = connected.recorder.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].method, "sampling/createMessage");
    assert_eq!(
        asked[0].params,
        json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}
            ],
            "maxTokens": 50
        })
    );
    connected.close().await;
}

fn capability_missing(method: &str, capability: &str) -> (String, Value) {
    let article = if method.starts_with('e') { "an" } else { "a" };
    let message = format!(
        "This tool needs to send the client {article} {method} request, and the client did not declare the {capability} capability."
    );
    let recovery = format!(
        "Tell the user this tool needs an MCP client that supports {capability}; calling it again from this client fails the same way."
    );
    let text = format!(
        "<tool_error code=\"CLIENT_CAPABILITY_MISSING\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n  <details>\n    <detail key=\"capability\">{capability}</detail>\n  </details>\n</tool_error>"
    );
    let meta = json!({
        "code": "CLIENT_CAPABILITY_MISSING",
        "severity": "error",
        "message": message,
        "recovery": recovery,
        "details": {"capability": capability}
    });
    (text, meta)
}

#[tokio::test]
async fn sampling_without_the_capability_is_client_capability_missing() {
    let connected = connect(&server()).await;
    let result = run(&connected, "ask", json!({"question": "Anyone there?"})).await;
    let (text, meta) = capability_missing("sampling/createMessage", "sampling");
    assert_error(&result, &text, &meta);
    // The client was never asked.
    assert_eq!(connected.recorder.asked(), []);
    connected.close().await;
}

#[tokio::test]
async fn a_sampling_error_from_the_client_is_client_request_failed() {
    let setup = ClientSetup {
        sampling_error: Some(String::from("the user refused")),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(&connected, "ask", json!({"question": "May I?"})).await;
    let message = "The sampling/createMessage request this tool sent to the client failed: the client answered with error -32603: the user refused.";
    let recovery =
        "Tell the user what the client answered; call the tool again only if the user asks to.";
    assert_error(
        &result,
        &format!(
            "<tool_error code=\"CLIENT_REQUEST_FAILED\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n  <details>\n    <detail key=\"method\">sampling/createMessage</detail>\n  </details>\n</tool_error>"
        ),
        &json!({
            "code": "CLIENT_REQUEST_FAILED",
            "severity": "error",
            "message": message,
            "recovery": recovery,
            "details": {"method": "sampling/createMessage"}
        }),
    );
    connected.close().await;
}

#[tokio::test]
async fn elicitation_accept_returns_the_content() {
    let setup = ClientSetup {
        elicit_reply: Some(json!({"action": "accept", "content": {"name": "Ada"}})),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(&connected, "confirm", json!({})).await;
    assert_eq!(
        texts(&result),
        ["action=\"accept\", content={\"name\":\"Ada\"}"]
    );
    let asked = connected.recorder.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].method, "elicitation/create");
    assert_eq!(
        asked[0].params,
        json!({
            "mode": "form",
            "message": "Who are you?",
            "requestedSchema": {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "Your name"}},
                "required": ["name"]
            }
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn elicitation_decline_is_a_result_not_an_error() {
    let setup = ClientSetup {
        elicit_reply: Some(json!({"action": "decline"})),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(&connected, "confirm", json!({})).await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(texts(&result), ["action=\"decline\", content=none"]);
    connected.close().await;
}

#[tokio::test]
async fn elicitation_without_the_capability_is_client_capability_missing() {
    let connected = connect(&server()).await;
    let result = run(&connected, "confirm", json!({})).await;
    let (text, meta) = capability_missing("elicitation/create", "elicitation");
    assert_error(&result, &text, &meta);
    assert_eq!(connected.recorder.asked(), []);
    connected.close().await;
}

/// A client that declares URL-mode elicitation only
/// (`{"elicitation": {"url": {}}}`) cannot answer a form: MCP 2025-11-25
/// ("Elicitation", capabilities) says servers MUST NOT send a mode the client
/// does not support, so `ctx.elicit` (always form mode) should fail with
/// `CLIENT_CAPABILITY_MISSING` without asking.
#[tokio::test]
async fn a_url_only_client_is_not_sent_a_form_elicitation() {
    let setup = ClientSetup {
        elicit_reply: Some(json!({"action": "cancel"})),
        capabilities: Some(json!({"elicitation": {"url": {}}})),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(&connected, "confirm", json!({})).await;
    assert_eq!(connected.recorder.asked(), []);
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        crate::support::meta_of(&result)["code"],
        json!("CLIENT_CAPABILITY_MISSING")
    );
    connected.close().await;
}

/// An empty `elicitation` capability means form mode (MCP 2025-11-25, for
/// backwards compatibility): the form request is sent.
#[tokio::test]
async fn an_empty_elicitation_capability_means_form_mode() {
    let setup = ClientSetup {
        elicit_reply: Some(json!({"action": "cancel"})),
        capabilities: Some(json!({"elicitation": {}})),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(&connected, "confirm", json!({})).await;
    assert_eq!(texts(&result), ["action=\"cancel\", content=none"]);
    assert_eq!(connected.recorder.asked().len(), 1);
    connected.close().await;
}

#[tokio::test]
async fn in_process_calls_have_no_client() {
    let server = server();
    let result = server.call("jobs", json!({"action": "run"})).await.unwrap();
    assert_eq!(
        texts(&result),
        ["debug sent: false, info sent: false, warning sent: false, error sent: false"]
    );
    let result = server
        .call("jobs", json!({"action": "ask", "question": "?"}))
        .await
        .unwrap();
    let (text, meta) = capability_missing("sampling/createMessage", "sampling");
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn roots_reach_the_client_and_its_answer_the_handler() {
    let setup = ClientSetup {
        roots_reply: Some(json!({"roots": [{"uri": "file:///work", "name": "work"}]})),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(&connected, "roots", json!({})).await;
    assert_eq!(texts(&result), ["roots: file:///work"]);
    let asked = connected.recorder.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].method, "roots/list");
    connected.close().await;
}

#[tokio::test]
async fn roots_without_the_capability_is_client_capability_missing() {
    let connected = connect(&server()).await;
    let result = run(&connected, "roots", json!({})).await;
    let (text, meta) = capability_missing("roots/list", "roots");
    assert_error(&result, &text, &meta);
    assert_eq!(connected.recorder.asked(), []);
    connected.close().await;
}

#[tokio::test]
async fn a_url_elicitation_goes_to_a_client_that_declared_url_mode() {
    let setup = ClientSetup {
        elicit_reply: Some(json!({"action": "accept"})),
        capabilities: Some(json!({"elicitation": {"url": {}}})),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(&connected, "pay", json!({})).await;
    assert_eq!(texts(&result), ["action=\"accept\""]);
    let asked = connected.recorder.asked();
    assert_eq!(asked.len(), 1);
    let mut params = asked[0].params.clone();
    let id = params["elicitationId"].take();
    assert_eq!(id.as_str().map(str::len), Some(36), "a UUID: {id}");
    assert_eq!(
        params,
        json!({
            "mode": "url",
            "message": "Pay the invoice",
            "url": "https://pay.example.com/i/42",
            "elicitationId": null
        })
    );
    connected.close().await;
}

#[tokio::test]
async fn a_form_only_client_is_not_sent_a_url_elicitation() {
    let setup = ClientSetup {
        elicit_reply: Some(json!({"action": "accept"})),
        ..ClientSetup::default()
    };
    let connected = connect_with(&server(), setup).await;
    let result = run(&connected, "pay", json!({})).await;
    let (text, meta) = capability_missing("elicitation/create", "elicitation (url mode)");
    assert_error(&result, &text, &meta);
    assert_eq!(connected.recorder.asked(), []);
    connected.close().await;
}
