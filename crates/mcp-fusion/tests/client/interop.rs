//! `FusionClient` against FOREIGN servers built with the official TypeScript
//! SDK (`tests/interop/` at the repository root; install with `scripts/npm-install tests/interop`):
//!
//! - `plain-errors.mjs`: low-level `Server`, plain-text `isError` failures,
//!   JSON-RPC errors for unknown tools, stdio and Streamable HTTP;
//! - `structured-errors.mjs`: `McpServer`, `isError` with `structuredContent`;
//! - `@modelcontextprotocol/server-everything` in stdio mode;
//! - a 2025-11-25 server met by `ProtocolRevision::Negotiate` (falls back to
//!   the handshake) and by `V2026_07_28` (refused, the server's reason given).
//!
//! Every test skips, saying why on stderr, when `node` is not installed. When
//! node is there but the packages are not, the tests fail with the command to
//! run: CI installs them.

use std::time::{Duration, Instant};

use mcp_fusion::client::{
    BatchMode, ClientOptions, ConnectCause, FailureSource, FusionClient, FusionClientError,
    ProtocolRevision, RetryPolicy, ServerStderr, Target, ToolCall, ToolFailure,
};
use mcp_fusion::{ErrorCode, Severity};
use serde_json::{Value, json};

use crate::interop_server::{PlainErrorsHttp, interop_dir};

/// The code of a failure that holds no envelope (wire contract §8).
const UNKNOWN_CODE: &str = "UNKNOWN";
/// The message of a failure the server sent nothing to explain.
const EMPTY_ERROR_MESSAGE: &str =
    "The server reported an error (isError: true) but sent no content to explain it.";

fn node_target(dir: &std::path::Path, script: &str, args: &[&str]) -> Target {
    let mut all = vec![dir.join(script).display().to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    Target::stdio("node", all)
}

fn options() -> ClientOptions {
    ClientOptions::default()
        .stderr(ServerStderr::Capture)
        .call_timeout(Duration::from_secs(30))
}

async fn connect(target: Target) -> FusionClient {
    FusionClient::connect(&target, options())
        .await
        .unwrap_or_else(|e| panic!("connect to {target}: {e}"))
}

fn tool_failure(outcome: Result<impl std::fmt::Debug, FusionClientError>) -> ToolFailure {
    match outcome {
        Err(FusionClientError::Tool(failure)) => *failure,
        other => panic!("expected a tool failure, got {other:?}"),
    }
}

fn assert_unknown(failure: &ToolFailure, message: &str) {
    assert_eq!(failure.code.as_str(), UNKNOWN_CODE);
    assert_eq!(failure.severity, Severity::Error);
    assert_eq!(failure.message, message);
    assert_eq!(failure.raw.is_error, Some(true));
}

/// Plain-text failures, the hand-written envelope, warnings and protocol
/// errors of the low-level TypeScript server, over `client`.
async fn exercise_plain_server(client: &FusionClient) {
    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert!(names.contains(&"echo".to_owned()), "{names:?}");
    assert_eq!(
        client.server_name(),
        Some(("plain-errors".to_owned(), "1.0.0".to_owned()))
    );

    let ok = client
        .call_checked("echo", json!({"message": "hi"}))
        .await
        .expect("echo succeeds");
    assert_eq!(ok.text(), "Echo: hi");
    assert!(ok.warnings.is_empty());

    let raw = client
        .call("fail_plain", Value::Null)
        .await
        .expect("a result");
    assert_eq!(raw.is_error, Some(true));
    let failure = tool_failure(client.call_checked("fail_plain", json!({})).await);
    assert_unknown(&failure, "Database connection refused: db.internal:5432");
    assert_eq!(failure.source, FailureSource::Text);

    let failure = tool_failure(client.call_checked("fail_multi", Value::Null).await);
    assert_unknown(
        &failure,
        "first line of the failure\nsecond line of the failure",
    );

    let failure = tool_failure(client.call_checked("fail_empty", Value::Null).await);
    assert_unknown(&failure, EMPTY_ERROR_MESSAGE);
    assert_eq!(failure.source, FailureSource::Empty);

    let failure = tool_failure(client.call_checked("fail_envelope", Value::Null).await);
    assert_eq!(failure.code, ErrorCode::RateLimited);
    assert_eq!(failure.message, "Too many exports & imports this minute");
    assert_eq!(
        failure.recovery.as_deref(),
        Some("Wait, then call export again")
    );
    assert_eq!(
        failure.available_actions,
        ["reports.export", "reports.status"]
    );
    assert_eq!(failure.details, [("limit".to_owned(), "10".to_owned())]);
    assert_eq!(failure.retry_after, Some(7));
    assert_eq!(failure.source, FailureSource::Envelope);

    let warned = client
        .call_checked("warn", Value::Null)
        .await
        .expect("a warning is not an error");
    assert_eq!(warned.text(), r#"{"done":true}"#);
    assert_eq!(warned.value(), json!({"done": true}));
    assert_eq!(warned.warnings.len(), 1);
    assert_eq!(warned.warnings[0].code, ErrorCode::Deprecated);
    assert_eq!(warned.warnings[0].message, "warn is deprecated");

    match client.call_checked("nope", json!({})).await {
        Err(FusionClientError::JsonRpc { code, message, .. }) => {
            assert_eq!(code, -32602);
            assert_eq!(message, "MCP error -32602: Unknown tool: nope");
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
    match client.call("crash", json!({})).await {
        Err(FusionClientError::JsonRpc { code, message, .. }) => {
            assert_eq!(code, -32603);
            assert_eq!(message, "handler exploded");
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn plain_text_server_over_stdio() {
    let Some(dir) = interop_dir() else { return };
    let client = connect(node_target(&dir, "plain-errors.mjs", &[])).await;
    exercise_plain_server(&client).await;
    client.close().await;
}

#[tokio::test]
async fn plain_text_server_over_streamable_http() {
    let Some(dir) = interop_dir() else { return };
    let server = PlainErrorsHttp::start(&dir);
    let client = connect(Target::http(&server.url)).await;
    exercise_plain_server(&client).await;
    client.close().await;
    drop(server);
}

#[tokio::test]
async fn a_2025_11_25_server_is_reached_by_negotiating_and_refuses_2026_07_28() {
    let Some(dir) = interop_dir() else { return };
    let server = PlainErrorsHttp::start(&dir);
    // `auto`: server/discover is refused, the 2025-11-25 handshake follows.
    let client = FusionClient::connect(
        &Target::http(&server.url),
        options().protocol(ProtocolRevision::Negotiate),
    )
    .await
    .expect("negotiated down to 2025-11-25");
    exercise_plain_server(&client).await;
    client.close().await;
    // 2026-07-28 only: the server's refusal is the reason given.
    let Err(err) = FusionClient::connect(
        &Target::http(&server.url),
        options().protocol(ProtocolRevision::V2026_07_28),
    )
    .await
    else {
        panic!("a 2025-11-25 server refuses 2026-07-28");
    };
    match &err {
        FusionClientError::Connect { reason, .. } => assert!(
            reason.starts_with(
                "MCP handshake failed: JSON-RPC error: -32000: Bad Request: Unsupported protocol version: 2026-07-28"
            ),
            "{reason}"
        ),
        other => panic!("expected a connect error, got {other:?}"),
    }
    drop(server);
}

#[tokio::test]
async fn unreachable_url_and_missing_program_are_connect_errors() {
    let err = FusionClient::connect(
        &Target::http("http://127.0.0.1:9/mcp"),
        ClientOptions::default().connect_timeout(Duration::from_secs(10)),
    )
    .await
    .unwrap_err();
    match &err {
        FusionClientError::Connect { reason, cause, .. } => {
            assert_eq!(
                reason,
                "connection refused: nothing is listening on 127.0.0.1:9 (is the server running?)"
            );
            assert_eq!(*cause, ConnectCause::Refused);
        }
        other => panic!("expected a connect error, got {other:?}"),
    }
    assert_eq!(err.to_json()["cause"], "refused");
    let err = FusionClient::connect(
        &Target::stdio("/nonexistent/fusion-server", ["--x"]),
        ClientOptions::default(),
    )
    .await
    .unwrap_err();
    match err {
        FusionClientError::Connect {
            target,
            reason,
            cause,
            ..
        } => {
            assert_eq!(cause, ConnectCause::NotStarted);
            assert_eq!(target, "/nonexistent/fusion-server --x");
            assert!(
                reason.starts_with("cannot start `/nonexistent/fusion-server`"),
                "{reason}"
            );
        }
        other => panic!("expected a connect error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_server_that_dies_at_start_shows_its_stderr() {
    let Some(_dir) = interop_dir() else { return };
    let target = Target::stdio(
        "node",
        [
            "-e",
            "console.error('config file missing: /etc/x.toml'); process.exit(3)",
        ],
    );
    match FusionClient::connect(&target, options()).await {
        Err(FusionClientError::Connect { server_stderr, .. }) => {
            assert_eq!(
                server_stderr.as_deref(),
                Some("config file missing: /etc/x.toml")
            );
        }
        other => panic!("expected a connect error, got {other:?}"),
    }
}

#[tokio::test]
async fn dotted_names_route_to_groups_and_listed_names_win() {
    let Some(dir) = interop_dir() else { return };
    let client = connect(node_target(&dir, "plain-errors.mjs", &[])).await;
    let echoed = client
        .call_checked("group.show", json!({"action": "delete_all", "id": 7}))
        .await
        .expect("group call");
    assert_eq!(echoed.value(), json!({"action": "show", "id": 7}));
    let special = client
        .call_checked("group.special", Value::Null)
        .await
        .expect("dotted tool name");
    assert_eq!(special.text(), "special tool");
    let err = client.call("echo", json!(["not", "an", "object"])).await;
    assert_eq!(err.unwrap_err().kind(), "invalid_arguments");
    client.close().await;

    let client = FusionClient::connect(
        &node_target(&dir, "plain-errors.mjs", &[]),
        options().discriminator("op"),
    )
    .await
    .expect("connect");
    let echoed = client
        .call_checked("group.list", Value::Null)
        .await
        .expect("group call");
    assert_eq!(echoed.value(), json!({"op": "list"}));
    client.close().await;
}

#[tokio::test]
async fn call_many_returns_every_outcome_in_order() {
    let Some(dir) = interop_dir() else { return };
    let client = connect(node_target(&dir, "plain-errors.mjs", &[])).await;
    let calls = || {
        vec![
            ToolCall::new("echo", json!({"message": "a"})),
            ToolCall::new("fail_plain", Value::Null),
            ToolCall::new("nope", Value::Null),
            ToolCall::new("echo", json!({"message": "b"})),
        ]
    };
    for mode in [
        BatchMode::concurrent(),
        BatchMode::Sequential,
        BatchMode::Concurrent { max_in_flight: 0 },
    ] {
        let outcomes = client.call_many(calls(), mode).await;
        assert_eq!(outcomes.len(), 4);
        assert_eq!(outcomes[0].as_ref().unwrap().text(), "Echo: a");
        assert_eq!(outcomes[1].as_ref().unwrap_err().kind(), "tool");
        assert_eq!(outcomes[2].as_ref().unwrap_err().kind(), "jsonrpc");
        assert_eq!(outcomes[3].as_ref().unwrap().text(), "Echo: b");
    }
    client.close().await;
}

#[tokio::test]
async fn retry_policy_waits_retry_after_then_succeeds() {
    let Some(dir) = interop_dir() else { return };
    let policy = RetryPolicy::new(3).with_jitter(0.0);
    let client = FusionClient::connect(
        &node_target(&dir, "plain-errors.mjs", &[]),
        options().retry(policy.clone()),
    )
    .await
    .expect("connect");
    let started = Instant::now();
    let ok = client
        .call_checked("flaky", Value::Null)
        .await
        .expect("the second call succeeds");
    assert_eq!(ok.text(), "served on call 2");
    assert!(started.elapsed() >= Duration::from_secs(1));
    // RATE_LIMITED with retry_after 7 s over a 5 s cap: returned at once.
    let capped = FusionClient::connect(
        &node_target(&dir, "plain-errors.mjs", &[]),
        options().retry(policy.with_max_delay(Duration::from_secs(5))),
    )
    .await
    .expect("connect");
    let started = Instant::now();
    let failure = tool_failure(capped.call_checked("fail_envelope", Value::Null).await);
    assert_eq!(failure.retry_after, Some(7));
    assert!(started.elapsed() < Duration::from_secs(5));
    client.close().await;
    capped.close().await;
}

#[tokio::test]
async fn without_retry_the_first_failure_is_returned() {
    let Some(dir) = interop_dir() else { return };
    let client = connect(node_target(&dir, "plain-errors.mjs", &[])).await;
    let failure = tool_failure(client.call_checked("flaky", Value::Null).await);
    assert_eq!(failure.code, ErrorCode::ServerBusy);
    assert_eq!(failure.retry_after, Some(1));
    assert_eq!(
        failure.message,
        "All 2 slots are busy and the queue is full"
    );
    client.close().await;
}

#[tokio::test]
async fn structured_content_server_keeps_its_error() {
    let Some(dir) = interop_dir() else { return };
    let client = connect(node_target(&dir, "structured-errors.mjs", &[])).await;

    let ok = client
        .call_checked("get_user", json!({"id": "u1"}))
        .await
        .expect("u1 exists");
    assert_eq!(ok.structured(), Some(&json!({"id": "u1", "name": "Ada"})));
    assert_eq!(ok.value(), json!({"id": "u1", "name": "Ada"}));

    let failure = tool_failure(client.call_checked("get_user", json!({"id": "u2"})).await);
    assert_unknown(&failure, "User u2 does not exist");
    assert_eq!(
        failure.raw.structured_content,
        Some(json!({"error": {"kind": "not_found", "id": "u2", "hint": "try u1"}}))
    );

    let failure = tool_failure(client.call_checked("quota", Value::Null).await);
    assert_unknown(&failure, r#"{"error":"quota exceeded","limit":100}"#);
    assert_eq!(failure.source, FailureSource::Empty);

    // This SDK reports invalid arguments and unknown tools as isError text.
    let failure = tool_failure(client.call_checked("get_user", json!({"id": "x"})).await);
    assert_eq!(failure.code.as_str(), UNKNOWN_CODE);
    assert!(
        failure.message.starts_with(
            "MCP error -32602: Input validation error: Invalid arguments for tool get_user"
        ),
        "{}",
        failure.message
    );
    let failure = tool_failure(client.call_checked("nope", json!({})).await);
    assert_unknown(&failure, "MCP error -32602: Tool nope not found");
    client.close().await;
}

#[tokio::test]
async fn server_everything_over_stdio() {
    let Some(dir) = interop_dir() else { return };
    let client = connect(node_target(
        &dir,
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        &["stdio"],
    ))
    .await;
    let tools = client.tool_listings().await.expect("tools/list");
    let echo = tools
        .iter()
        .find(|t| t.name == "echo")
        .expect("server-everything has echo");
    assert_eq!(echo.required(), ["message"]);

    let ok = client
        .call_checked("echo", json!({"message": "hello"}))
        .await
        .expect("echo");
    assert_eq!(ok.text(), "Echo: hello");

    let failure = tool_failure(client.call_checked("echo", json!({})).await);
    assert_eq!(failure.code.as_str(), UNKNOWN_CODE);
    assert!(
        failure
            .message
            .starts_with("MCP error -32602: Input validation error"),
        "{}",
        failure.message
    );
    let failure = tool_failure(client.call_checked("no_such_tool", json!({})).await);
    assert_unknown(&failure, "MCP error -32602: Tool no_such_tool not found");
    client.close().await;
}
