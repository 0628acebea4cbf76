//! The same surface over Streamable HTTP (`serve_http_on` on 127.0.0.1 and
//! rmcp's HTTP client): each HTTP session is its own connection, told of list
//! changes and resource updates on its standing GET stream; log messages,
//! progress and sampling ride on the call's own response stream.

// Logging, sampling and subscriptions are MCP 2025-11-25; rmcp marks them
// deprecated.
#![allow(deprecated)]

use mcp_fusion::handler::LogLevel;
use mcp_fusion::model::{CreateMessageRequestParams, SamplingMessage};
use mcp_fusion::{Action, CallContext, FusionServer, Prompt, Resource, ToolError};
use serde_json::json;

use crate::connection::{ClientSetup, HttpServed, from_json};
use crate::support::texts;

async fn hello() -> Result<&'static str, ToolError> {
    Ok("Say hello.")
}

async fn work(ctx: CallContext) -> Result<String, ToolError> {
    ctx.log(LogLevel::Info, "working").await;
    ctx.log(LogLevel::Warning, "almost out of space").await;
    ctx.progress(1.0, Some(2.0), Some("half")).await;
    let answer = ctx
        .create_message(CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text("Summarize.")],
            20,
        ))
        .await?;
    let text = answer
        .message
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    Ok(format!("summary: {text}"))
}

fn server() -> FusionServer {
    FusionServer::builder("http", "1.0.0")
        .tool(Action::new("work", work))
        .prompt(Prompt::new("hello", hello))
        .resource(Resource::text("test://a", "a", "A"))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changes_and_updates_reach_each_http_session() {
    let server = server();
    let served = HttpServed::start(&server).await;
    let first = served.connect_with(ClientSetup::default()).await;
    let second = served.connect_with(ClientSetup::default()).await;
    assert_eq!(
        first.server_capabilities(),
        json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "logging": {}
        })
    );

    first
        .client
        .subscribe(from_json(json!({"uri": "test://a"})))
        .await
        .unwrap();

    server.add_prompt(Prompt::new("bye", hello)).await.unwrap();
    for connected in [&first, &second] {
        connected
            .recorder
            .wait_for("notifications/prompts/list_changed", 1)
            .await;
    }
    let names: Vec<String> = second
        .client
        .list_prompts(None)
        .await
        .unwrap()
        .prompts
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["hello", "bye"]);

    assert_eq!(server.notify_resource_updated("test://a").await, 1);
    assert_eq!(
        first
            .recorder
            .wait_for("notifications/resources/updated", 1)
            .await,
        [json!({"uri": "test://a"})]
    );
    second.settle().await;
    assert!(
        second
            .recorder
            .seen_of("notifications/resources/updated")
            .is_empty()
    );

    first.client.cancel().await.unwrap();
    second.client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_logs_reports_progress_and_samples_over_http() {
    let server = server();
    let served = HttpServed::start(&server).await;
    let connected = served
        .connect_with(ClientSetup {
            sampling_reply: Some(String::from("All good.")),
            ..ClientSetup::default()
        })
        .await;
    connected
        .client
        .set_level(from_json(json!({"level": "warning"})))
        .await
        .unwrap();
    let result = connected
        .client
        .call_tool(from_json(json!({"name": "work", "arguments": {}})))
        .await
        .unwrap();
    assert_eq!(texts(&result), ["summary: All good."]);
    assert_eq!(
        connected
            .recorder
            .wait_for("notifications/message", 1)
            .await,
        [json!({"level": "warning", "logger": "work", "data": "almost out of space"})]
    );
    let progress = connected
        .recorder
        .wait_for("notifications/progress", 1)
        .await;
    assert_eq!(progress.len(), 1);
    assert_eq!(progress[0]["progress"], json!(1.0));
    assert_eq!(progress[0]["total"], json!(2.0));
    assert_eq!(progress[0]["message"], json!("half"));
    assert_eq!(connected.recorder.asked().len(), 1);
    connected.client.cancel().await.unwrap();
    served.stop().await;
}
