//! `FusionServer::connect_in_memory`: a `FusionClient` connected to a server
//! of the same process, with no process and no port. Every MCP method goes
//! over the pipe as it would over stdio: the handshake, tools, resources,
//! prompts, completion, the server's notifications (tools list changed after
//! `add_tool`, resources updated after a subscription, log messages,
//! progress) and its requests to the client (elicitation, sampling, roots),
//! answered by the `ClientOptions` handlers; with rmcp's 2026-07-28 lifecycle too. Closing the client ends the
//! server's task.

// Sampling, roots, logging and resource subscriptions are MCP 2025-11-25
// features that rmcp marks deprecated (SEP-2577, 2026-07-28).
#![allow(deprecated)]

use std::collections::HashMap;
use std::time::Duration;

use mcp_fusion::client::{
    ClientOptions, ElicitationHandler, FusionClient, ProtocolRevision, SamplingHandler,
};
use mcp_fusion::handler::LogLevel;
use mcp_fusion::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitResult, ElicitationAction,
    ElicitationSchema, LoggingLevel, Reference, Root, SamplingMessage, ServerNotification,
};
use mcp_fusion::{
    Action, CallContext, ErrorCode, FusionClientError, FusionServer, Prompt, Resource,
    ResourceTemplate, ToolError,
};
use serde_json::{Value, json};
use tokio::sync::broadcast;

/// The longest a test waits for a notification it expects.
const WAIT: Duration = Duration::from_secs(5);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Echo {
    /// The text to send back.
    text: String,
}

async fn echo(args: Echo) -> Result<String, ToolError> {
    Ok(format!("echo: {}", args.text))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct InvoiceId {
    id: String,
}

async fn get_invoice(args: InvoiceId) -> Result<String, ToolError> {
    Err(
        ToolError::not_found(format!("There is no invoice {}.", args.id))
            .suggest("List the invoices first."),
    )
}

async fn work(ctx: CallContext) -> Result<String, ToolError> {
    let info = ctx.log(LogLevel::Info, "starting the job").await;
    let first = ctx.progress(1.0, Some(2.0), Some("first step")).await;
    let second = ctx.progress(2.0, Some(2.0), None).await;
    let debug = ctx.log(LogLevel::Debug, json!({"steps": 2})).await;
    Ok(format!("sent: {info}, {first}, {second}, {debug}"))
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
        serde_json::to_string(&result.action).map_err(ToolError::internal)?,
        result
            .content
            .map_or_else(|| String::from("none"), |c| c.to_string())
    ))
}

async fn ask(ctx: CallContext) -> Result<String, ToolError> {
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("2+2?")], 20);
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

async fn roots(ctx: CallContext) -> Result<String, ToolError> {
    let roots = ctx.roots().await?;
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("roots: {}", uris.join(", ")))
}

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Item {
    id: String,
}

async fn item(args: Item) -> Result<String, ToolError> {
    Ok(format!("item {}", args.id))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greeting {
    /// Whom to greet.
    name: String,
}

async fn greet(args: Greeting) -> Result<String, ToolError> {
    Ok(format!("Greet {} warmly.", args.name))
}

fn server() -> FusionServer {
    FusionServer::builder("memory", "1.2.3")
        .tool(Action::new("echo", echo))
        .tool(Action::new("get_invoice", get_invoice))
        .tool(Action::new("work", work))
        .tool(Action::new("confirm", confirm))
        .tool(Action::new("ask", ask))
        .tool(Action::new("roots", roots))
        .resource(
            Resource::text("memo://readme", "readme", "Read me first.").mime_type("text/plain"),
        )
        .resource_template(ResourceTemplate::new("memo://items/{id}", "item", item))
        .prompt(Prompt::new("greet", greet).complete_values("name", ["Ada", "Alan", "Grace"]))
        .build()
        .expect("the server builds")
}

async fn connect(server: &FusionServer, options: ClientOptions) -> FusionClient {
    server
        .connect_in_memory(options)
        .await
        .expect("the in-memory handshake succeeds")
}

/// The names of the tools the client lists, in the server's order.
async fn tool_names(client: &FusionClient) -> Vec<String> {
    client
        .list_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// The text of a tool result's first content block.
fn first_text(result: &mcp_fusion::model::CallToolResult) -> String {
    result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .expect("a text block")
}

/// The next notification as JSON (`method` and `params`), without the
/// empty `_meta` (and then empty `params`) rmcp's model gives every
/// notification.
async fn next(notifications: &mut broadcast::Receiver<ServerNotification>) -> Value {
    let notification = tokio::time::timeout(WAIT, notifications.recv())
        .await
        .expect("a notification arrives")
        .expect("the connection is open");
    let mut json = serde_json::to_value(&notification).expect("a notification serializes");
    if let Some(params) = json.get_mut("params").and_then(Value::as_object_mut)
        && params.get("_meta") == Some(&json!({}))
    {
        params.remove("_meta");
    }
    if json.get("params") == Some(&json!({})) {
        json.as_object_mut().expect("an object").remove("params");
    }
    json
}

#[tokio::test]
async fn tools_are_listed_and_called_over_the_whole_protocol() {
    let server = server();
    let client = connect(&server, ClientOptions::default()).await;
    assert_eq!(
        client.server_name(),
        Some((String::from("memory"), String::from("1.2.3")))
    );
    client.ping().await.expect("the server answers ping");
    assert_eq!(
        tool_names(&client).await,
        ["echo", "get_invoice", "work", "confirm", "ask", "roots"]
    );

    let result = client
        .call("echo", json!({"text": "hi"}))
        .await
        .expect("tools/call");
    assert_eq!(result.is_error, Some(false));
    assert_eq!(first_text(&result), "echo: hi");

    let failure = client
        .call_checked("get_invoice", json!({"id": "inv_9"}))
        .await
        .expect_err("the tool fails");
    let FusionClientError::Tool(failure) = failure else {
        panic!("a tool failure, got {failure:?}");
    };
    assert_eq!(failure.code, ErrorCode::NotFound);
    assert_eq!(failure.message, "There is no invoice inv_9.");
    assert_eq!(
        failure.recovery.as_deref(),
        Some("List the invoices first.")
    );

    // The input is validated on the server, and the answer is phrased.
    let invalid = client
        .call_checked("echo", json!({}))
        .await
        .expect_err("`text` is missing");
    assert_eq!(
        invalid.code(),
        Some(&ErrorCode::ValidationError),
        "{invalid:?}"
    );
    client.close().await;
}

#[tokio::test]
async fn resources_prompts_and_completion_are_served() {
    let server = server();
    let client = connect(&server, ClientOptions::default()).await;

    let resources = client.list_resources().await.expect("resources/list");
    assert_eq!(
        serde_json::to_value(&resources).expect("JSON"),
        json!([{"uri": "memo://readme", "name": "readme", "mimeType": "text/plain"}])
    );
    let templates = client
        .list_resource_templates()
        .await
        .expect("resources/templates/list");
    assert_eq!(
        serde_json::to_value(&templates).expect("JSON"),
        json!([{"uriTemplate": "memo://items/{id}", "name": "item"}])
    );
    let readme = client
        .read_resource("memo://readme")
        .await
        .expect("resources/read");
    assert_eq!(
        serde_json::to_value(&readme).expect("JSON")["contents"],
        json!([{"uri": "memo://readme", "mimeType": "text/plain", "text": "Read me first."}])
    );
    let item = client
        .read_resource("memo://items/7")
        .await
        .expect("resources/read of a template");
    assert_eq!(
        serde_json::to_value(&item).expect("JSON")["contents"][0]["text"],
        "item 7"
    );

    let prompts = client.list_prompts().await.expect("prompts/list");
    assert_eq!(
        prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["greet"]
    );
    let prompt = client
        .get_prompt("greet", json!({"name": "Ada"}))
        .await
        .expect("prompts/get");
    assert_eq!(
        serde_json::to_value(&prompt.messages).expect("JSON"),
        json!([{"role": "user", "content": {"type": "text", "text": "Greet Ada warmly."}}])
    );
    let missing = client
        .get_prompt("greet", json!({}))
        .await
        .expect_err("`name` is required");
    assert!(
        matches!(missing, FusionClientError::JsonRpc { code: -32602, .. }),
        "{missing:?}"
    );

    let completion = client
        .complete(Reference::for_prompt("greet"), "name", "a", HashMap::new())
        .await
        .expect("completion/complete");
    assert_eq!(completion.values, ["Ada", "Alan"]);
    client.close().await;
}

#[tokio::test]
async fn a_tool_added_at_run_time_is_announced_and_listed() {
    let server = server();
    let client = connect(&server, ClientOptions::default()).await;
    let mut notifications = client.notifications();
    server
        .add_tool(Action::new("ping", ping))
        .await
        .expect("the tool is added");
    assert_eq!(
        next(&mut notifications).await,
        json!({"method": "notifications/tools/list_changed"})
    );
    assert_eq!(
        tool_names(&client).await,
        [
            "echo",
            "get_invoice",
            "work",
            "confirm",
            "ask",
            "roots",
            "ping"
        ]
    );
    let result = client.call("ping", Value::Null).await.expect("tools/call");
    assert_eq!(first_text(&result), "pong");
    client.close().await;
}

#[tokio::test]
async fn log_messages_and_progress_reach_the_client_in_order() {
    let server = server();
    let client = connect(&server, ClientOptions::default()).await;
    let mut notifications = client.notifications();
    let result = client.call("work", Value::Null).await.expect("tools/call");
    assert_eq!(first_text(&result), "sent: true, true, true, true");

    // The progress token is the one rmcp's client gave the request.
    let seen = [
        next(&mut notifications).await,
        next(&mut notifications).await,
        next(&mut notifications).await,
        next(&mut notifications).await,
    ];
    let token = seen[1]["params"]["progressToken"].clone();
    assert!(token.is_number(), "{token}");
    assert_eq!(
        seen,
        [
            json!({"method": "notifications/message", "params": {"level": "info", "logger": "work", "data": "starting the job"}}),
            json!({"method": "notifications/progress", "params": {"progressToken": token, "progress": 1.0, "total": 2.0, "message": "first step"}}),
            json!({"method": "notifications/progress", "params": {"progressToken": token, "progress": 2.0, "total": 2.0}}),
            json!({"method": "notifications/message", "params": {"level": "debug", "logger": "work", "data": {"steps": 2}}}),
        ]
    );

    // Above the level the client set, messages are dropped.
    client
        .set_logging_level(LoggingLevel::Warning)
        .await
        .expect("logging/setLevel");
    let result = client.call("work", Value::Null).await.expect("tools/call");
    assert_eq!(first_text(&result), "sent: false, true, true, false");
    assert_eq!(
        next(&mut notifications).await["method"],
        "notifications/progress"
    );
    assert_eq!(
        next(&mut notifications).await["method"],
        "notifications/progress"
    );
    client.close().await;
}

#[tokio::test]
async fn a_subscribed_resource_update_is_announced() {
    let server = server();
    let client = connect(&server, ClientOptions::default()).await;
    let mut notifications = client.notifications();
    client
        .subscribe_resource("memo://readme")
        .await
        .expect("resources/subscribe");
    assert_eq!(server.notify_resource_updated("memo://readme").await, 1);
    assert_eq!(
        next(&mut notifications).await,
        json!({"method": "notifications/resources/updated", "params": {"uri": "memo://readme"}})
    );
    client
        .unsubscribe_resource("memo://readme")
        .await
        .expect("resources/unsubscribe");
    assert_eq!(server.notify_resource_updated("memo://readme").await, 0);
    client.close().await;
}

#[tokio::test]
async fn resource_and_prompt_list_changes_are_announced() {
    let server = server();
    let client = connect(&server, ClientOptions::default()).await;
    let mut notifications = client.notifications();
    server
        .add_resource(Resource::text("memo://new", "new", "New."))
        .await
        .expect("the resource is added");
    assert_eq!(
        next(&mut notifications).await,
        json!({"method": "notifications/resources/list_changed"})
    );
    assert!(server.remove_prompt("greet").await);
    assert_eq!(
        next(&mut notifications).await,
        json!({"method": "notifications/prompts/list_changed"})
    );
    client.close().await;
}

#[tokio::test]
async fn the_server_asks_the_client_and_its_handlers_answer() {
    let server = server();
    let options = ClientOptions::default()
        .elicitation(ElicitationHandler::new(|_request| async {
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Ada"}))
        }))
        .sampling(SamplingHandler::new(|_request| async {
            Ok(CreateMessageResult::new(
                SamplingMessage::assistant_text("4"),
                String::from("test-model"),
            ))
        }))
        .roots([Root::new("file:///work")]);
    let client = connect(&server, options).await;
    let confirmed = client
        .call("confirm", Value::Null)
        .await
        .expect("tools/call");
    assert_eq!(
        first_text(&confirmed),
        r#"action="accept", content={"name":"Ada"}"#
    );
    let asked = client.call("ask", Value::Null).await.expect("tools/call");
    assert_eq!(first_text(&asked), "the model (test-model) said: 4");
    let rooted = client.call("roots", Value::Null).await.expect("tools/call");
    assert_eq!(first_text(&rooted), "roots: file:///work");
    client.close().await;
}

#[tokio::test]
async fn without_a_handler_the_server_is_told_the_capability_is_missing() {
    let server = server();
    let client = connect(&server, ClientOptions::default()).await;
    let failure = client
        .call_checked("confirm", Value::Null)
        .await
        .expect_err("no elicitation handler");
    assert_eq!(
        failure.code(),
        Some(&ErrorCode::ClientCapabilityMissing),
        "{failure:?}"
    );
    client.close().await;
}

#[tokio::test]
async fn the_2026_07_28_revision_works_in_memory_too() {
    let server = server();
    let options = ClientOptions::default()
        .protocol(ProtocolRevision::V2026_07_28)
        .elicitation(ElicitationHandler::new(|_request| async {
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Grace"}))
        }));
    let client = connect(&server, options).await;
    let result = client
        .call("echo", json!({"text": "new"}))
        .await
        .expect("tools/call");
    assert_eq!(first_text(&result), "echo: new");
    // An input-required round, answered by the handler.
    let confirmed = client
        .call("confirm", Value::Null)
        .await
        .expect("tools/call");
    assert_eq!(
        first_text(&confirmed),
        r#"action="accept", content={"name":"Grace"}"#
    );
    client.close().await;
}

#[tokio::test]
async fn closing_the_client_ends_the_server_task() {
    let server = server();
    let weak = server.downgrade();
    let client = connect(&server, ClientOptions::default()).await;
    drop(server);
    // The serving task holds the server while the client is connected.
    assert!(weak.upgrade().is_some());
    client.close().await;
    assert!(
        weak.upgrade().is_none(),
        "the serving task ended and dropped the server"
    );
}

#[tokio::test]
async fn a_dropped_client_ends_the_server_task_too() {
    let server = server();
    let weak = server.downgrade();
    let client = connect(&server, ClientOptions::default()).await;
    drop(server);
    drop(client);
    // Dropping closes in the background: wait (bounded) for the end.
    let ended = tokio::time::timeout(WAIT, async {
        while weak.upgrade().is_some() {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(ended.is_ok(), "the serving task ended");
}
