//! Over Streamable HTTP: a request the edge refuses before reading any
//! JSON-RPC (no bearer token: `401`) is traced by its HTTP span, the child
//! of the request's `traceparent` header; a request that passes has its
//! MCP span linked to that HTTP span.

use mcp_fusion::guard::StaticTokens;
use mcp_fusion::transport::HttpOptions;
use mcp_fusion::{Action, FusionServer, ToolError};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt};

use crate::recorded::{attribute, named, recorded, root};

async fn hello() -> Result<String, ToolError> {
    Ok("hello".into())
}

/// A server that needs a bearer token, on 127.0.0.1: its `/mcp` URL.
async fn serve() -> String {
    let server = FusionServer::builder("guarded", "1.0.0")
        .auth(StaticTokens::new().token("good-token", "alice", Vec::<String>::new()))
        .tool(Action::new("hello", hello))
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(server.serve_http_on(listener, HttpOptions::default(), std::future::pending()));
    url
}

/// `traceparent` of `cx` (W3C Trace Context, sampled).
fn traceparent(cx: &opentelemetry::Context) -> String {
    let span = cx.span();
    let context = span.span_context();
    format!("00-{}-{}-01", context.trace_id(), context.span_id())
}

/// An `initialize` with the JSON-RPC `id` and `protocolVersion` given.
fn initialize_body(id: &str, version: &str) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}},
    })
}

/// POSTs `body` to `url` under `cx`'s `traceparent` header, with `token`
/// as bearer token when given: the answer's status.
async fn post(
    url: &str,
    cx: &opentelemetry::Context,
    token: Option<&str>,
    body: serde_json::Value,
) -> u16 {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("traceparent", traceparent(cx));
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let answer = request.body(body.to_string()).send().await.unwrap();
    answer.status().as_u16()
}

/// POSTs a plain `initialize` (id `1`, 2025-11-25) as [`post`] does.
async fn initialize(url: &str, cx: &opentelemetry::Context, token: Option<&str>) -> u16 {
    post(url, cx, token, initialize_body("1", "2025-11-25")).await
}

#[tokio::test]
async fn a_request_refused_for_want_of_a_token_is_traced_with_its_status() {
    let (cx, trace) = root();
    let url = serve().await;
    assert_eq!(initialize(&url, &cx, None).await, 401);
    let spans = recorded().spans(trace, 1).await;
    let edge = named(&spans, "POST /mcp");
    assert_eq!(edge.span_kind, SpanKind::Server);
    assert_eq!(edge.parent_span_id, cx.span().span_context().span_id());
    let attrs = &edge.attributes;
    assert_eq!(
        attribute(attrs, "http.response.status_code").as_deref(),
        Some("401")
    );
    assert_eq!(
        attribute(attrs, "http.request.method").as_deref(),
        Some("POST")
    );
    assert_eq!(attribute(attrs, "http.route").as_deref(), Some("/mcp"));
    // A refusal is the client's to fix: no server error (HTTP conventions).
    assert_eq!(edge.status, Status::Unset);
    assert_eq!(attribute(attrs, "error.type"), None);
    assert!(
        spans.iter().all(|s| !s.name.starts_with("initialize")),
        "no MCP span: the request never reached the server"
    );
}

#[tokio::test]
async fn an_accepted_request_has_its_mcp_span_under_the_header_and_linked_to_the_http_span() {
    let (cx, trace) = root();
    let url = serve().await;
    assert_eq!(initialize(&url, &cx, Some("good-token")).await, 200);
    let spans = recorded().spans(trace, 2).await;
    let edge = named(&spans, "POST /mcp");
    let served = named(&spans, "initialize");
    assert_eq!(served.span_kind, SpanKind::Server);
    // No `_meta.traceparent`: the header's context is the parent.
    assert_eq!(served.parent_span_id, cx.span().span_context().span_id());
    let linked: Vec<_> = served
        .links
        .iter()
        .map(|l| l.span_context.span_id())
        .collect();
    assert_eq!(linked, [edge.span_context.span_id()]);
    assert_eq!(
        attribute(&served.attributes, "network.transport").as_deref(),
        Some("tcp")
    );
    assert_eq!(
        attribute(&served.attributes, "jsonrpc.request.id").as_deref(),
        Some("1")
    );
}

#[tokio::test]
async fn an_initialize_keeps_neither_a_long_id_nor_an_unknown_version_as_sent() {
    let (cx, trace) = root();
    let url = serve().await;
    let id = "i".repeat(10_000);
    let version = format!("2025-11-25-{}", "v".repeat(1000));
    let body = initialize_body(&id, &version);
    assert_eq!(post(&url, &cx, Some("good-token"), body).await, 200);
    let spans = recorded().spans(trace, 2).await;
    let served = named(&spans, "initialize");
    let kept_id = attribute(&served.attributes, "jsonrpc.request.id").unwrap();
    assert_eq!(kept_id, "i".repeat(256));
    assert_eq!(
        attribute(&served.attributes, "mcp.protocol.version").as_deref(),
        Some("_OTHER")
    );
    let points = recorded().histogram("mcp.server.operation.duration");
    assert!(
        points.iter().all(|p| {
            attribute(p.attributes(), "mcp.protocol.version").is_none_or(|v| v.len() < 20)
        }),
        "no measure has the version the caller sent"
    );
}

#[tokio::test]
async fn a_method_of_the_caller_s_own_is_other_in_a_span_named_http() {
    let (cx, trace) = root();
    let url = serve().await;
    let method = format!("X{}", "M".repeat(2000));
    let answer = reqwest::Client::new()
        .request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            &url,
        )
        .header("traceparent", traceparent(&cx))
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_client_error());
    let spans = recorded().spans(trace, 1).await;
    let edge = named(&spans, "HTTP /mcp");
    assert_eq!(
        attribute(&edge.attributes, "http.request.method").as_deref(),
        Some("_OTHER")
    );
}

#[tokio::test]
async fn an_answered_request_without_a_traceparent_header_has_no_http_span() {
    recorded();
    let url = serve().await;
    let id = format!("no-header-{}", std::process::id());
    let answer = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", "Bearer good-token")
        .body(initialize_body(&id, "2025-11-25").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let mut served = None;
    for _ in 0..100 {
        served = recorded()
            .all_spans()
            .into_iter()
            .find(|s| attribute(&s.attributes, "jsonrpc.request.id").as_deref() == Some(&id));
        if served.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let served = served.expect("the initialize span");
    let trace = served.span_context.trace_id();
    assert_eq!(served.parent_span_id, opentelemetry::trace::SpanId::INVALID);
    assert!(served.links.is_empty(), "no HTTP span to link");
    let in_trace = recorded().spans(trace, 1).await;
    assert_eq!(in_trace.len(), 1, "{:?}", crate::recorded::names(&in_trace));
}
