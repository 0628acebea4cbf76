//! `HttpOptions::metrics` in process: many servers of one process share the
//! one Prometheus exporter (installed once, no panic), `GET /metrics` shows
//! what every server recorded, and a server without it has no `/metrics`.

use mcp_fusion::transport::HttpOptions;
use mcp_fusion::{Action, CallContext, FusionServer, NoArgs, ToolError};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
    Ok("pong")
}

async fn gone(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
    Err(ToolError::not_found("Nothing here."))
}

/// A server, and the HTTP options it is served with: `/metrics` on or off.
fn server(metrics: bool) -> (FusionServer, HttpOptions) {
    let server = FusionServer::builder("metrics-test", "1.0.0")
        .tool(Action::new("metrics_ping", ping))
        .tool(Action::new("metrics_gone", gone))
        .build()
        .expect("a valid server");
    (server, HttpOptions::default().metrics(metrics))
}

/// `GET path` on `server`'s router with `host`: status and body.
async fn get(served: &(FusionServer, HttpOptions), path: &str, host: &str) -> (u16, String) {
    let (server, options) = served;
    let router = server
        .http_router(options, CancellationToken::new())
        .expect("usable options");
    let request = axum::http::Request::get(path)
        .header("host", host)
        .body(axum::body::Body::empty())
        .expect("a request");
    let response = router.oneshot(request).await.expect("an answer");
    let status = response.status().as_u16();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .expect("a body");
    (status, String::from_utf8_lossy(&body).into_owned())
}

fn value_of(exposition: &str, series: &str) -> Option<String> {
    exposition
        .lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(str::to_owned)
}

#[tokio::test]
async fn servers_of_one_process_share_one_exporter() {
    let first = server(true);
    let second = server(true);
    // Routers built (and the exporter installed) before the calls.
    let _ = get(&first, "/metrics", "localhost").await;
    let _ = get(&second, "/metrics", "localhost").await;
    first
        .0
        .call("metrics_ping", serde_json::json!({}))
        .await
        .expect("a result");
    second
        .0
        .call("metrics_ping", serde_json::json!({}))
        .await
        .expect("a result");
    second
        .0
        .call("metrics_gone", serde_json::json!({}))
        .await
        .expect("a result");
    let (status, text) = get(&first, "/metrics", "127.0.0.1").await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        value_of(
            &text,
            r#"mcp_fusion_tool_calls_total{tool="metrics_ping",action="",outcome="ok",code=""}"#
        )
        .as_deref(),
        Some("2"),
        "{text}"
    );
    assert_eq!(
        value_of(
            &text,
            r#"mcp_fusion_tool_calls_total{tool="metrics_gone",action="",outcome="error",code="NOT_FOUND"}"#
        )
        .as_deref(),
        Some("1"),
        "{text}"
    );
    let (status, _) = get(&second, "/metrics", "rebound.example").await;
    assert_eq!(status, 403);
    let (status, _) = get(&server(false), "/metrics", "localhost").await;
    assert_eq!(status, 404);
}
