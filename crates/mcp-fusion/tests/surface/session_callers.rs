//! The sessions of the 2025-11-25 handshake over Streamable HTTP, per
//! caller (its token's subject, else its address): a caller holds at most
//! `HttpOptions::max_sessions_per_caller`, busy ones included, so that one
//! caller cannot fill the table; and a caller without credentials never
//! closes a signed-in caller's idle session to make room.

use mcp_fusion::guard::StaticTokens;
use mcp_fusion::transport::HttpOptions;
use mcp_fusion::{Action, FusionServer, ToolError};

use crate::connection::HttpServed;
use crate::listen_callers::try_session;

async fn ok() -> Result<&'static str, ToolError> {
    Ok("ok")
}

/// Ada and bob by bearer token, anyone without one.
fn server() -> FusionServer {
    FusionServer::builder("sessions", "1.0.0")
        .auth(
            StaticTokens::new()
                .token("ada-token", "ada", Vec::<String>::new())
                .token("bob-token", "bob", Vec::<String>::new()),
        )
        .allow_anonymous(true)
        .tool(Action::new("a", ok))
        .build()
        .unwrap()
}

/// Opens the `GET` stream of session `id` (which keeps it busy while the
/// response is held).
async fn get_stream(url: &str, id: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let stream = request.send().await.unwrap();
    assert_eq!(stream.status(), 200);
    stream
}

/// A ping on session `id`; its HTTP status (404 once the session is gone).
async fn ping(url: &str, id: &str, token: &str) -> u16 {
    let ping = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
    let answer = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(token)
        .json(&ping)
        .send()
        .await
        .unwrap();
    answer.status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_holding_its_most_busy_sessions_gets_503_and_others_get_theirs() {
    // Five sessions in all: a quarter of them, one, per caller.
    let options = HttpOptions::default().max_sessions(5);
    let served = HttpServed::start_with(&server(), options).await;
    let url = &served.url;
    let first = try_session(url, None).await.unwrap();
    let _busy = get_stream(url, &first, None).await;
    for _ in 0..4 {
        assert_eq!(
            try_session(url, None).await,
            Err((
                503,
                String::from(
                    "Service Unavailable: this caller holds 1 session, the most one caller may hold, and it is busy; end one (DELETE with its Mcp-Session-Id) or try again in 5 seconds"
                )
            ))
        );
    }
    // Signed-in callers from the same address are callers of their own.
    assert!(try_session(url, Some("ada-token")).await.is_ok());
    assert!(try_session(url, Some("bob-token")).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_without_credentials_does_not_close_a_signed_in_callers_session() {
    let options = HttpOptions::default()
        .max_sessions(2)
        .max_sessions_per_caller(2);
    let served = HttpServed::start_with(&server(), options).await;
    let url = &served.url;
    let ada = try_session(url, Some("ada-token")).await.unwrap();
    let bob = try_session(url, Some("bob-token")).await.unwrap();
    assert_eq!(ping(url, &ada, "ada-token").await, 200);
    assert_eq!(ping(url, &bob, "bob-token").await, 200);
    // The table is full of idle sessions of signed-in callers.
    assert_eq!(
        try_session(url, None).await,
        Err((
            503,
            String::from(
                "Service Unavailable: all 2 sessions of this server are busy; try again in 5 seconds"
            )
        ))
    );
    assert_eq!(ping(url, &ada, "ada-token").await, 200);
    assert_eq!(ping(url, &bob, "bob-token").await, 200);
    // A signed-in caller still makes room, closing its own first.
    assert!(try_session(url, Some("bob-token")).await.is_ok());
    assert_eq!(ping(url, &bob, "bob-token").await, 404);
    assert_eq!(ping(url, &ada, "ada-token").await, 200);
}
