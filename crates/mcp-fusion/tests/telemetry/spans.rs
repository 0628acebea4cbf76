//! The spans and the histogram of calls over an in-memory connection: the
//! client's CLIENT span is the parent of the server's SERVER span, carried
//! in `params._meta.traceparent`.

use mcp_fusion::{Action, ClientOptions, FusionServer, Group, ToolError};
use opentelemetry::context::FutureExt as _;
use opentelemetry::trace::{SpanKind, Status};
use serde_json::json;

use crate::recorded::{attribute, id, keys, of_kind, recorded, root};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct InvoiceId {
    /// The invoice's id, e.g. `inv_1`.
    invoice_id: String,
}

async fn echo(input: Text) -> Result<String, ToolError> {
    Ok(input.text)
}

async fn get_invoice(input: InvoiceId) -> Result<String, ToolError> {
    Err(ToolError::not_found(format!(
        "No invoice {}.",
        input.invoice_id
    )))
}

async fn wait() -> Result<String, ToolError> {
    std::future::pending().await
}

/// A client of [`server`], in memory.
async fn connect() -> mcp_fusion::client::FusionClient {
    server()
        .connect_in_memory(ClientOptions::default())
        .await
        .unwrap()
}

fn server() -> FusionServer {
    FusionServer::builder("traced", "1.0.0")
        .resource(mcp_fusion::Resource::text(
            "notes://readme",
            "readme",
            "Read me.",
        ))
        .tool(Action::new("echo", echo))
        .tool(Action::new("wait", wait))
        .group(Group::new("billing").action(Action::new("get_invoice", get_invoice)))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_call_is_a_client_span_whose_context_parents_the_server_span() {
    let (cx, trace) = root();
    let client = connect().await;
    let result = client
        .call("echo", json!({"text": "secret-value"}))
        .with_context(cx.clone())
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    let spans = recorded().spans(trace, 2).await;
    let sent = of_kind(&spans, SpanKind::Client);
    let served = of_kind(&spans, SpanKind::Server);
    assert_eq!(sent.name, "tools/call echo");
    assert_eq!(sent.span_kind, SpanKind::Client);
    assert_eq!(sent.parent_span_id, id_of_root(&cx));
    assert_eq!(served.name, "tools/call echo");
    assert_eq!(served.parent_span_id, id(sent));
    assert!(served.parent_span_is_remote, "the parent came in `_meta`");
    assert_eq!(served.status, Status::Unset);
    assert_eq!(
        keys(served),
        [
            "gen_ai.operation.name",
            "gen_ai.tool.name",
            "jsonrpc.request.id",
            "mcp.method.name",
            "mcp.protocol.version",
            "network.transport",
        ]
    );
    let expected = [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("network.transport", "pipe"),
        ("mcp.protocol.version", "2025-11-25"),
    ];
    for (key, value) in expected {
        assert_eq!(
            attribute(&served.attributes, key).as_deref(),
            Some(value),
            "{key}"
        );
    }
    for (key, value) in [
        ("network.transport", "pipe"),
        ("mcp.protocol.version", "2025-11-25"),
    ] {
        assert_eq!(
            attribute(&sent.attributes, key).as_deref(),
            Some(value),
            "{key}"
        );
    }
    for span in &spans {
        for kv in &span.attributes {
            assert!(!kv.value.to_string().contains("secret-value"), "{kv:?}");
        }
    }
}

fn id_of_root(cx: &opentelemetry::Context) -> opentelemetry::trace::SpanId {
    use opentelemetry::trace::TraceContextExt;
    cx.span().span_context().span_id()
}

#[tokio::test]
async fn a_tool_error_is_error_type_tool_error_with_the_envelope_code_and_the_action() {
    let (cx, trace) = root();
    let client = connect().await;
    let args = json!({"action": "get_invoice", "invoice_id": "inv_secret"});
    let result = client.call("billing", args).with_context(cx).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let spans = recorded().spans(trace, 2).await;
    for kind in [SpanKind::Client, SpanKind::Server] {
        let span = of_kind(&spans, kind);
        assert_eq!(span.name, "tools/call billing");
        assert_eq!(
            attribute(&span.attributes, "error.type").as_deref(),
            Some("tool_error")
        );
        assert_eq!(
            attribute(&span.attributes, "mcp_fusion.error.code").as_deref(),
            Some("NOT_FOUND")
        );
        assert_eq!(span.status, Status::error("tool_error"));
    }
    let served = of_kind(&spans, SpanKind::Server);
    assert_eq!(
        attribute(&served.attributes, "mcp_fusion.action").as_deref(),
        Some("get_invoice")
    );
    let text = format!("{spans:?}");
    assert!(
        !text.contains("inv_secret"),
        "an argument value was recorded"
    );
}

#[tokio::test]
async fn a_validation_failure_is_a_tool_error_with_the_code_validation_error() {
    let (cx, trace) = root();
    let client = connect().await;
    let args = json!({"action": "get_invoice", "invoice_id": 42});
    let result = client.call("billing", args).with_context(cx).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let spans = recorded().spans(trace, 2).await;
    let served = of_kind(&spans, SpanKind::Server);
    assert_eq!(
        attribute(&served.attributes, "error.type").as_deref(),
        Some("tool_error")
    );
    assert_eq!(
        attribute(&served.attributes, "mcp_fusion.error.code").as_deref(),
        Some("VALIDATION_ERROR")
    );
}

#[tokio::test]
async fn an_unknown_tool_is_error_type_the_json_rpc_code_and_not_named() {
    let (cx, trace) = root();
    let client = connect().await;
    let error = client
        .call("nope-7f3a", json!({}))
        .with_context(cx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), "jsonrpc");
    let spans = recorded().spans(trace, 2).await;
    let served = of_kind(&spans, SpanKind::Server);
    // A name no tool has is the caller's text: neither in the span's name
    // nor in the measure (each would be a new value).
    assert_eq!(served.name, "tools/call");
    assert_eq!(attribute(&served.attributes, "gen_ai.tool.name"), None);
    let points = recorded().histogram("mcp.server.operation.duration");
    let seen = format!(
        "{:?}",
        points
            .iter()
            .map(|p| p.attributes().collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );
    assert!(
        !seen.contains("nope-7f3a"),
        "the unknown name reached the histogram"
    );
    assert_eq!(
        attribute(&served.attributes, "error.type").as_deref(),
        Some("-32602")
    );
    assert_eq!(
        attribute(&served.attributes, "rpc.response.status_code").as_deref(),
        Some("-32602")
    );
    assert_eq!(served.status, Status::error("-32602"));
}

#[tokio::test]
async fn a_cancelled_call_ends_its_server_span_as_cancelled() {
    let (cx, trace) = root();
    let client = connect().await;
    let call = client.call("wait", json!({})).with_context(cx);
    // The call never answers: dropping it cancels it (rmcp sends
    // `notifications/cancelled`).
    let timed_out = tokio::time::timeout(std::time::Duration::from_millis(300), call).await;
    assert!(timed_out.is_err());
    // The test's root, the client's span, the server's span.
    let spans = recorded().spans(trace, 3).await;
    for kind in [SpanKind::Client, SpanKind::Server] {
        let span = of_kind(&spans, kind);
        assert_eq!(span.name, "tools/call wait");
        assert_eq!(
            attribute(&span.attributes, "error.type").as_deref(),
            Some("cancelled")
        );
    }
}

#[tokio::test]
async fn the_server_duration_histogram_has_the_conventions_attributes_and_buckets() {
    let (cx, _) = root();
    let client = connect().await;
    let args = json!({"action": "get_invoice", "invoice_id": "inv_9"});
    client.call("billing", args).with_context(cx).await.unwrap();
    let points = recorded().histogram("mcp.server.operation.duration");
    let failed = points
        .iter()
        .find(|p| {
            attribute(p.attributes(), "gen_ai.tool.name").as_deref() == Some("billing")
                && attribute(p.attributes(), "error.type").as_deref() == Some("tool_error")
        })
        .expect("a data point of the failed billing call");
    assert!(failed.count() >= 1);
    assert_eq!(
        failed.bounds().collect::<Vec<_>>(),
        [
            0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0
        ]
    );
    let mut keys: Vec<String> = failed.attributes().map(|kv| kv.key.to_string()).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "error.type",
            "gen_ai.operation.name",
            "gen_ai.tool.name",
            "mcp.method.name",
            "mcp.protocol.version",
            "network.transport",
        ]
    );
    let client_points = recorded().histogram("mcp.client.operation.duration");
    assert!(
        client_points
            .iter()
            .any(|p| attribute(p.attributes(), "mcp.method.name").as_deref() == Some("tools/call")),
        "the client's histogram has the call"
    );
}

#[tokio::test]
async fn a_resource_uri_the_caller_sent_is_kept_to_256_characters() {
    let (cx, trace) = root();
    let client = connect().await;
    let uri = format!("notes://{}", "é".repeat(1000));
    let error = client
        .read_resource(&uri)
        .with_context(cx)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), "jsonrpc");
    let spans = recorded().spans(trace, 2).await;
    let served = of_kind(&spans, SpanKind::Server);
    assert_eq!(served.name, "resources/read");
    let kept = attribute(&served.attributes, "mcp.resource.uri").unwrap();
    assert_eq!(kept, uri.chars().take(256).collect::<String>());
}
