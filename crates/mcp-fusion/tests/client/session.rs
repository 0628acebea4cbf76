//! `FusionClient` over Streamable HTTP against servers that misbehave, each a
//! few lines of axum that count what they receive:
//!
//! - a server that forgets its sessions (an HTTP 404 for a request carrying
//!   `Mcp-Session-Id`): the client starts one new session and sends the
//!   request again, once; a second 404 is reported, not looped (the recovery
//!   against the real `fusion serve` is in
//!   `crates/fusion-cli/tests/serve/client_session.rs`);
//! - a server that refuses the handshake with an HTTP error status and a
//!   `Retry-After`: the error names the status and the delay, read by the
//!   contract's one `retry_after` rule.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use mcp_fusion::client::{ClientOptions, ConnectCause, FusionClient, FusionClientError, Target};
use serde_json::{Value, json};

/// Every request the server received, as `METHOD what` (the JSON-RPC method
/// of a POST), with how many times.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<BTreeMap<String, usize>>>);

impl Seen {
    fn add(&self, what: String) -> usize {
        let mut seen = self.0.lock().unwrap();
        let count = seen.entry(what).or_default();
        *count += 1;
        *count
    }

    fn counts(&self) -> BTreeMap<String, usize> {
        self.0.lock().unwrap().clone()
    }
}

/// `POST /mcp`: `initialize` opens session `s-N`; `notifications/initialized`
/// is accepted; anything else is answered 404, as by a server that lost the
/// session.
async fn mcp_post(State(seen): State<Seen>, headers: HeaderMap, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let method = message["method"]
        .as_str()
        .unwrap_or("(response)")
        .to_owned();
    let session = headers.get("mcp-session-id").is_some();
    let n = seen.add(format!("POST {method}"));
    match method.as_str() {
        "initialize" if !session => {
            let result = json!({
                "jsonrpc": "2.0",
                "id": message["id"],
                "result": {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "forgetful", "version": "1.0.0"}
                }
            });
            (
                [
                    (header::CONTENT_TYPE, "application/json".to_owned()),
                    (
                        header::HeaderName::from_static("mcp-session-id"),
                        format!("s-{n}"),
                    ),
                ],
                result.to_string(),
            )
                .into_response()
        }
        "notifications/initialized" => StatusCode::ACCEPTED.into_response(),
        _ => (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response(),
    }
}

/// `GET /mcp` (the server-to-client stream): not offered.
async fn mcp_get(State(seen): State<Seen>) -> StatusCode {
    seen.add("GET".to_owned());
    StatusCode::METHOD_NOT_ALLOWED
}

/// `DELETE /mcp` (the client ends its session).
async fn mcp_delete(State(seen): State<Seen>) -> StatusCode {
    seen.add("DELETE".to_owned());
    StatusCode::NO_CONTENT
}

/// Serves the forgetful server on a free local port; returns its URL.
async fn forgetful_server(seen: Seen) -> String {
    let app = Router::new()
        .route("/mcp", post(mcp_post).get(mcp_get).delete(mcp_delete))
        .with_state(seen);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a local port");
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[tokio::test]
async fn a_second_404_is_reported_after_one_new_session_not_looped() {
    let seen = Seen::default();
    let url = forgetful_server(seen.clone()).await;
    // The time limit only keeps a hang from hanging the test: a hang would
    // come back as `Timeout`, which fails the assertion below.
    let options = ClientOptions::default().call_timeout(Duration::from_secs(60));
    let client = FusionClient::connect(&Target::http(&url), options)
        .await
        .expect("the handshake succeeds");
    let handshake = seen.counts();
    assert_eq!(handshake.get("POST initialize"), Some(&1));
    assert_eq!(handshake.get("POST notifications/initialized"), Some(&1));

    let err = client
        .call("echo", json!({"text": "hi"}))
        .await
        .expect_err("the server forgets every session");
    assert!(
        matches!(err, FusionClientError::Transport { .. }),
        "expected a transport error, got {err:?}"
    );
    assert_eq!(
        err.to_string(),
        "transport error: the server no longer knows this session (HTTP 404), even after a new session was started"
    );
    // The words name the cause; the cause itself is kept, down to rmcp's error.
    let source = std::error::Error::source(&err).expect("the cause is kept");
    assert!(source.is::<rmcp::ServiceError>(), "{source:?}");
    let mut after_one_call = seen.counts();
    // The client may or may not have opened the server-to-client stream.
    after_one_call.remove("GET");
    assert_eq!(
        after_one_call,
        counts(&[
            // The handshake, then the one new session.
            ("POST initialize", 2),
            ("POST notifications/initialized", 2),
            // The call, then its one retry on the new session.
            ("POST tools/call", 2),
        ])
    );

    // A later call gets the same single recovery, not more.
    let err = client
        .call("echo", json!({"text": "again"}))
        .await
        .expect_err("still forgotten");
    assert!(
        matches!(err, FusionClientError::Transport { .. }),
        "{err:?}"
    );
    let mut after_two_calls = seen.counts();
    after_two_calls.remove("GET");
    assert_eq!(
        after_two_calls,
        counts(&[
            ("POST initialize", 3),
            ("POST notifications/initialized", 3),
            ("POST tools/call", 4),
        ])
    );
    client.close().await;
}

/// Serves `POST /mcp` answering every request with `status` and, when given,
/// `Retry-After: retry_after`; returns its URL.
async fn refusing_server(status: StatusCode, retry_after: Option<&'static str>) -> String {
    let app = Router::new().route(
        "/mcp",
        post(move || async move {
            match retry_after {
                Some(value) => (status, [(header::RETRY_AFTER, value)], "busy").into_response(),
                None => (status, "busy").into_response(),
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a local port");
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test]
async fn an_http_error_status_is_named_with_the_delay_it_asks_for() {
    let cases = [
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("7"),
            "the server answered HTTP 503 and asks to retry in 7 seconds",
        ),
        (
            StatusCode::TOO_MANY_REQUESTS,
            Some("1"),
            "the server answered HTTP 429 and asks to retry in 1 second",
        ),
        // Not delay-seconds as HTTP writes them, but a plain number: rounded up.
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("1.5"),
            "the server answered HTTP 503 and asks to retry in 2 seconds",
        ),
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("99999999"),
            "the server answered HTTP 503 and asks to retry in 86400 seconds",
        ),
        // Dropped whole, never half-read.
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("-1"),
            "the server answered HTTP 503",
        ),
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("30abc"),
            "the server answered HTTP 503",
        ),
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("Wed, 21 Oct 2015 07:28:00 GMT"),
            "the server answered HTTP 503",
        ),
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Some("0"),
            "the server answered HTTP 503",
        ),
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            None,
            "the server answered HTTP 500",
        ),
    ];
    for (status, retry_after, expected) in cases {
        let url = refusing_server(status, retry_after).await;
        let err = FusionClient::connect(&Target::http(&url), ClientOptions::default())
            .await
            .expect_err("the server refuses");
        match &err {
            FusionClientError::Connect { reason, cause, .. } => {
                assert_eq!(reason, expected, "{status} Retry-After: {retry_after:?}");
                assert_eq!(*cause, ConnectCause::Other);
            }
            other => panic!("expected a connect error, got {other:?}"),
        }
    }
}
