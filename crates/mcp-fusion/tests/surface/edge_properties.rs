//! The HTTP router's header and body handling under random requests
//! (`http_router`, spoken to in process): any method, any of the headers a
//! client sends with random values, and a body of random bytes or a
//! JSON-RPC message with random members, is answered, never with a 5xx,
//! and a JSON answer is JSON.

use std::sync::LazyLock;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use mcp_fusion::transport::HttpOptions;
use mcp_fusion::{Action, FusionServer, NoArgs, ToolError};
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

async fn ping(_args: NoArgs) -> Result<&'static str, ToolError> {
    Ok("pong")
}

/// One runtime for every case (proptest's cases are synchronous).
static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
});

/// The router of a one-tool server with a 4 KiB body limit.
fn router() -> axum::Router {
    let _entered = RUNTIME.enter();
    let server = FusionServer::builder("edge-properties", "1.0.0")
        .tool(Action::new("ping", ping))
        .build()
        .expect("a valid server");
    let options = HttpOptions::default().max_body_bytes(4096);
    server
        .http_router(&options, CancellationToken::new())
        .expect("usable options")
}

/// A header value: mostly the first of `well_formed` (what a client
/// sends, so that the request gets past the checks before), else another,
/// random text, or none.
fn header_value(well_formed: &'static [&'static str]) -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        6 => Just(Some(well_formed[0].to_owned())),
        1 => proptest::sample::select(well_formed).prop_map(|v| Some(v.to_owned())),
        1 => "[ -~]{0,40}".prop_map(Some),
        1 => Just(None),
    ]
}

/// A request: method, headers and body.
fn any_request() -> impl Strategy<Value = Request<Body>> {
    let method = prop_oneof![
        4 => Just("POST"),
        1 => proptest::sample::select(&["GET", "DELETE", "PUT", "OPTIONS"][..]),
    ];
    let headers = (
        header_value(&[
            "application/json, text/event-stream",
            "application/json",
            "*/*",
        ]),
        header_value(&[
            "application/json",
            "text/plain",
            "application/json; charset=utf-8",
        ]),
        header_value(&["2025-11-25", "2026-07-28", "1999-01-01"]),
        proptest::option::of(proptest::sample::select(
            &["00000000-0000-0000-0000-000000000000", "x"][..],
        )),
        header_value(&["localhost", "evil.example"]),
        proptest::option::of(proptest::sample::select(
            &["http://localhost", "https://evil.example", "null"][..],
        )),
    );
    let message = (
        proptest::sample::select(&["initialize", "tools/call", "tools/list", "ping", "x"][..]),
        prop_oneof![Just(json!(1)), Just(json!("a")), Just(Value::Null), Just(json!([]))],
        prop_oneof![
            Just(json!({"name": "ping", "arguments": {}})),
            Just(json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}})),
            Just(json!({"cursor": 5})),
            Just(json!("params")),
        ],
    )
        .prop_map(|(method, id, params)| {
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                .to_string()
                .into_bytes()
        });
    let body = prop_oneof![
        1 => vec(any::<u8>(), 0..600),
        4 => message,
        1 => vec(Just(b'['), 0..6000),
    ];
    (method, headers, body).prop_map(|(method, headers, body)| {
        let (accept, content_type, version, session, host, origin) = headers;
        let mut request = Request::builder().method(method).uri("/mcp");
        for (name, value) in [
            ("accept", accept),
            ("content-type", content_type),
            ("mcp-protocol-version", version),
            ("mcp-session-id", session.map(str::to_owned)),
            ("host", host),
            ("origin", origin.map(str::to_owned)),
        ] {
            if let Some(value) = value {
                request = request.header(name, value);
            }
        }
        request.body(Body::from(body)).expect("a request")
    })
}

/// The answer's status, content type and (up to 64 KiB, at most 2 s of a
/// stream) body.
async fn answer(router: &axum::Router, request: Request<Body>) -> (u16, String, Vec<u8>) {
    let response = router.clone().oneshot(request).await.expect("an answer");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let body = tokio::time::timeout(
        Duration::from_secs(2),
        axum::body::to_bytes(response.into_body(), 1 << 16),
    )
    .await;
    let body = match body {
        Ok(Ok(bytes)) => bytes.to_vec(),
        // An event stream still open, or a body over 64 KiB.
        _ => Vec::new(),
    };
    (status, content_type, body)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_request_is_answered_without_a_server_error(request in any_request()) {
        let router = router();
        let (status, content_type, body) = RUNTIME.block_on(answer(&router, request));
        prop_assert!(status < 500, "{status} {content_type} {}", String::from_utf8_lossy(&body));
        if content_type.starts_with("application/json") && !body.is_empty() {
            let parsed: Result<Value, _> = serde_json::from_slice(&body);
            prop_assert!(parsed.is_ok(), "{status}: {}", String::from_utf8_lossy(&body));
        }
    }
}
