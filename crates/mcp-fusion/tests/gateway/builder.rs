//! The gateway from code: `Gateway::install` on a server whose own handler
//! hands the caller over (`State<Gateway>`, `Gateway::handoff`), an upstream
//! mcp-fusion server served over Streamable HTTP in this process, and calls
//! made in-process with `FusionServer::call`.

use std::time::Duration;

use mcp_fusion::Action;
use mcp_fusion::client::Target;
use mcp_fusion::gateway::{Exposure, Gateway, GatewayConfig, Handoff, UpstreamConfig};
use mcp_fusion::model::CallToolResult;
use mcp_fusion::server::FusionServer;
use mcp_fusion::{CallContext, State, ToolError, ToolOutput};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Lookup {
    /// The record.
    id: String,
}

async fn lookup(args: Lookup) -> Result<String, ToolError> {
    Ok(format!("found {}", args.id))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Triage {
    /// What the user asks.
    question: String,
}

/// Hands every question over to the specialist, with the question as state.
async fn triage(
    State(gateway): State<Gateway>,
    ctx: CallContext,
    args: Triage,
) -> Result<ToolOutput, ToolError> {
    let handoff = Handoff::to("specialist")
        .reason("The user asks about a record")
        .state(json!({"question": args.question}));
    gateway.handoff(&ctx, handoff).await
}

/// What the caller's handoff carried over.
async fn carried(State(gateway): State<Gateway>, ctx: CallContext) -> Result<Value, ToolError> {
    Ok(gateway.carried_over(&ctx).unwrap_or(Value::Null))
}

fn text(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn code(result: &CallToolResult) -> Option<String> {
    result
        .meta
        .as_ref()
        .and_then(|m| m.0.get("mcp-fusion/error"))
        .and_then(|e| e["code"].as_str())
        .map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_hands_the_caller_over_to_an_upstream() {
    let upstream = FusionServer::builder("specialist", "1.0.0")
        .tool(Action::new("lookup", lookup).read_only())
        .build()
        .expect("the upstream");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("its address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(upstream.serve_http_on(
        listener,
        mcp_fusion::transport::HttpOptions::default(),
        async move {
            let _ = stopped.await;
        },
    ));

    let config = GatewayConfig::new().upstream(
        UpstreamConfig::new("specialist", Target::http(format!("http://{addr}/mcp")))
            .exposure(Exposure::Handoff),
    );
    let gateway = Gateway::new(config).expect("a valid config");
    let server = gateway
        .install(
            FusionServer::builder("triage", "1.0.0")
                .tool(Action::new("triage", triage))
                .tool(Action::new("carried", carried).read_only()),
        )
        .build()
        .expect("the gateway server");

    let ack = server
        .call("triage", json!({"question": "Where is record 7?"}))
        .await
        .expect("a tool");
    assert_eq!(ack.is_error, Some(false));
    assert_eq!(text(&ack)[0], "Handed over to the specialist tools.");
    assert_eq!(code(&ack).as_deref(), Some("HANDOFF_CONNECTING"));

    let mut found = server
        .call("specialist.lookup", json!({"id": "7"}))
        .await
        .expect("a tool");
    for _ in 0..120 {
        if code(&found).as_deref() != Some("HANDOFF_CONNECTING") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
        found = server
            .call("specialist.lookup", json!({"id": "7"}))
            .await
            .expect("a tool");
    }
    assert_eq!(text(&found), ["found 7"]);
    assert_eq!(found.is_error, Some(false));
    assert_eq!(
        server.call("carried", json!({})).await.map(|r| text(&r)),
        Ok(vec![String::from(r#"{"question":"Where is record 7?"}"#)])
    );

    let back = server
        .call("specialist.return_to_triage", json!({}))
        .await
        .expect("a tool");
    assert_eq!(
        text(&back),
        [
            "The handoff to the specialist tools has ended; they are gone from your tools list and the triage tools remain."
        ]
    );
    let after = server
        .call("specialist.lookup", json!({"id": "7"}))
        .await
        .expect("a tool");
    assert_eq!(code(&after).as_deref(), Some("HANDOFF_NAMESPACE_MISMATCH"));
    // A name without a namespace is still the server's own unknown tool.
    assert!(server.call("nope", json!({})).await.is_err());
    // So is a dotted name that starts with one of the server's own tools:
    // the router's hint, not the gateway's HANDOFF_NAMESPACE_MISMATCH.
    let own = server
        .call("carried.now", json!({}))
        .await
        .expect_err("the server's own unknown tool");
    assert!(
        own.to_string()
            .starts_with("Unknown tool \"carried.now\". Did you mean \"carried\"?"),
        "{own}"
    );

    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
}
