//! The runtime guards of wire contract §5: SERVER_BUSY, RATE_LIMITED, TIMEOUT,
//! DEPRECATED — through the whole call path, with exact envelopes and counts
//! (auth's codes are in `auth`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_fusion::guard::{RateLimit, RateLimitScope};
use mcp_fusion::{Action, BuildError, CallContext, FusionServer, Group, NoArgs, ToolError};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

pub(crate) fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn meta(result: &CallToolResult) -> Value {
    result
        .meta
        .as_ref()
        .and_then(|m| m.0.get("mcp-fusion/error").cloned())
        .unwrap_or(Value::Null)
}

pub(crate) fn code(result: &CallToolResult) -> String {
    meta(result)["code"].as_str().unwrap_or("").to_owned()
}

/// A server whose `work.hold` handler waits on `gate` and counts entries.
fn held_server(
    max_active: usize,
    max_queue: usize,
    gate: Arc<Semaphore>,
    entered: Arc<AtomicUsize>,
) -> FusionServer {
    let hold = move |_ctx: CallContext, _args: NoArgs| {
        let gate = Arc::clone(&gate);
        let entered = Arc::clone(&entered);
        async move {
            entered.fetch_add(1, Ordering::SeqCst);
            let _permit = gate.acquire().await.map_err(ToolError::internal)?;
            Ok::<_, ToolError>("done")
        }
    };
    FusionServer::builder("t", "1")
        .group(
            Group::new("work").action(Action::new("hold", hold).concurrency(max_active, max_queue)),
        )
        .build()
        .unwrap()
}

async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storm_of_500_admits_exactly_25_and_sheds_475() {
    let gate = Arc::new(Semaphore::new(0));
    let entered = Arc::new(AtomicUsize::new(0));
    let server = held_server(5, 20, Arc::clone(&gate), Arc::clone(&entered));
    let calls: Vec<_> = (0..500)
        .map(|_| {
            let server = server.clone();
            tokio::spawn(async move {
                server
                    .call("work", json!({"action": "hold"}))
                    .await
                    .unwrap()
            })
        })
        .collect();
    // Every shed call answers without waiting for the held ones: wait until
    // the number of answers stops growing.
    let mut finished = 0;
    for _ in 0..500 {
        settle().await;
        let now = calls.iter().filter(|c| c.is_finished()).count();
        if now == finished && now > 0 {
            break;
        }
        finished = now;
    }
    let mut busy = 0;
    let mut still = Vec::new();
    for call in calls {
        if call.is_finished() {
            let result = call.await.unwrap();
            assert_eq!(code(&result), "SERVER_BUSY", "{}", text(&result));
            assert!(meta(&result)["retry_after_seconds"].as_u64().unwrap() >= 1);
            busy += 1;
        } else {
            still.push(call);
        }
    }
    assert_eq!(busy, 475);
    assert_eq!(still.len(), 25);
    let stats = server.concurrency_stats("work.hold").unwrap();
    assert_eq!((stats.active, stats.queued, stats.shed), (5, 20, 475));
    assert_eq!(entered.load(Ordering::SeqCst), 5);
    gate.add_permits(25);
    for call in still {
        let result = call.await.unwrap();
        assert_eq!(result.is_error, Some(false), "{}", text(&result));
        assert_eq!(text(&result), "done");
    }
    assert_eq!(entered.load(Ordering::SeqCst), 25);
    let stats = server.concurrency_stats("work.hold").unwrap();
    assert_eq!((stats.active, stats.queued), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fourth_call_is_shed_with_retry_after_and_never_runs() {
    let gate = Arc::new(Semaphore::new(0));
    let entered = Arc::new(AtomicUsize::new(0));
    let server = held_server(2, 1, Arc::clone(&gate), Arc::clone(&entered));
    let held: Vec<_> = (0..3)
        .map(|_| {
            let server = server.clone();
            tokio::spawn(async move {
                server
                    .call("work", json!({"action": "hold"}))
                    .await
                    .unwrap()
            })
        })
        .collect();
    settle().await;
    let fourth = server
        .call("work", json!({"action": "hold"}))
        .await
        .unwrap();
    assert_eq!(fourth.is_error, Some(true));
    assert_eq!(
        text(&fourth),
        "Call work.hold again with the same arguments: this refusal is about timing, not about them.\n<tool_error code=\"SERVER_BUSY\" severity=\"error\">\n  <message>work.hold is at capacity: all 2 of its slots are taken and its queue of 1 call is full.</message>\n  <recovery>Wait about 1 second, then call work.hold again; no call of it has finished yet, so that wait is a guess: if it is still at capacity then, wait twice as long. Calls beyond what it runs and queues are turned away at once; send fewer calls in parallel.</recovery>\n  <details>\n    <detail key=\"max_active\">2</detail>\n    <detail key=\"max_queue\">1</detail>\n  </details>\n  <retry_after>1 second</retry_after>\n</tool_error>"
    );
    assert_eq!(meta(&fourth)["retry_after_seconds"], json!(1));
    gate.add_permits(3);
    for call in held {
        assert_eq!(text(&call.await.unwrap()), "done");
    }
    assert_eq!(
        entered.load(Ordering::SeqCst),
        3,
        "the shed call's handler never ran"
    );
}

/// A server whose `work.sleep` action sleeps `secs` seconds, one call at a
/// time and none queued, with the time limit `timeout`.
fn sleeping_server(secs: f64, timeout: Option<Duration>) -> FusionServer {
    let sleep = move |_ctx: CallContext, _args: NoArgs| async move {
        tokio::time::sleep(Duration::from_secs_f64(secs)).await;
        Ok::<_, ToolError>("slept")
    };
    let mut action = Action::new("sleep", sleep).concurrency(1, 0);
    if let Some(limit) = timeout {
        action = action.timeout(limit);
    }
    FusionServer::builder("t", "1")
        .group(Group::new("work").action(action))
        .build()
        .unwrap()
}

/// The `retry_after_seconds` of a call shed `into` seconds after a 5-second
/// call of `server` started.
async fn hint_into_a_running_call(server: &FusionServer, into: f64) -> u64 {
    let running = {
        let server = server.clone();
        tokio::spawn(async move { server.call("work", json!({"action": "sleep"})).await })
    };
    tokio::time::sleep(Duration::from_secs_f64(into)).await;
    let shed = server
        .call("work", json!({"action": "sleep"}))
        .await
        .unwrap();
    assert_eq!(code(&shed), "SERVER_BUSY", "{}", text(&shed));
    let secs = meta(&shed)["retry_after_seconds"].as_u64().unwrap();
    assert!(
        text(&shed).contains(&format!(
            "Wait about {secs} seconds, then call work.sleep again"
        )),
        "{}",
        text(&shed)
    );
    assert_eq!(text(&running.await.unwrap().unwrap()), "slept");
    secs
}

#[tokio::test(start_paused = true)]
async fn busy_hint_counts_down_what_the_running_call_has_left() {
    let server = sleeping_server(5.0, None);
    // One call observed: calls take 5 s. 1.5 s into the next, 3.5 s are
    // left (4 s with the margin, rounded up).
    let first = server
        .call("work", json!({"action": "sleep"}))
        .await
        .unwrap();
    assert_eq!(text(&first), "slept");
    assert_eq!(hint_into_a_running_call(&server, 1.5).await, 4);
    assert_eq!(hint_into_a_running_call(&server, 3.9).await, 2);
}

#[tokio::test(start_paused = true)]
async fn busy_hint_of_a_fresh_server_uses_the_time_limit() {
    let server = sleeping_server(5.0, Some(Duration::from_secs(6)));
    // Nothing observed yet: the call ends by its 6 s time limit.
    assert_eq!(hint_into_a_running_call(&server, 1.5).await, 5);
}

#[tokio::test(start_paused = true)]
async fn busy_hint_with_nothing_known_guesses_as_long_again_and_says_so() {
    let server = sleeping_server(5.0, None);
    let running = {
        let server = server.clone();
        tokio::spawn(async move { server.call("work", json!({"action": "sleep"})).await })
    };
    tokio::time::sleep(Duration::from_secs_f64(2.5)).await;
    let shed = server
        .call("work", json!({"action": "sleep"}))
        .await
        .unwrap();
    assert_eq!(meta(&shed)["retry_after_seconds"], json!(3));
    assert_eq!(
        meta(&shed)["recovery"],
        json!(
            "Wait about 3 seconds, then call work.sleep again; no call of it has finished yet, so that wait is a guess: if it is still at capacity then, wait twice as long. Calls beyond what it runs and queues are turned away at once; send fewer calls in parallel."
        )
    );
    assert_eq!(text(&running.await.unwrap().unwrap()), "slept");
}

#[tokio::test(start_paused = true)]
async fn waiting_exactly_the_hint_finds_a_free_slot() {
    let server = sleeping_server(5.0, None);
    server
        .call("work", json!({"action": "sleep"}))
        .await
        .unwrap();
    let running = {
        let server = server.clone();
        tokio::spawn(async move { server.call("work", json!({"action": "sleep"})).await })
    };
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let shed = server
        .call("work", json!({"action": "sleep"}))
        .await
        .unwrap();
    let secs = meta(&shed)["retry_after_seconds"].as_u64().unwrap();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let retried = server
        .call("work", json!({"action": "sleep"}))
        .await
        .unwrap();
    assert_eq!(retried.is_error, Some(false), "{}", text(&retried));
    running.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_slot_leaks_after_thousands_of_mixed_calls() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Mixed {
        kind: String,
    }
    async fn mixed(_ctx: CallContext, args: Mixed) -> Result<String, ToolError> {
        match args.kind.as_str() {
            "ok" => Ok("ok".into()),
            "err" => Err(ToolError::conflict("no")),
            "panic" => panic!("boom"),
            "slow" => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok("late".into())
            }
            _ => Err(ToolError::internal("?")),
        }
    }
    let server = FusionServer::builder("t", "1")
        .tool(
            Action::new("mixed", mixed)
                .concurrency(4, 8)
                .timeout(Duration::from_millis(20)),
        )
        .build()
        .unwrap();
    let kinds = ["ok", "err", "panic", "slow", "bad"];
    let mut tasks = Vec::new();
    for i in 0..2000 {
        let server = server.clone();
        let kind = kinds[i % kinds.len()];
        let task =
            tokio::spawn(async move { server.call("mixed", json!({"kind": kind})).await.unwrap() });
        if i % 7 == 0 {
            // Cancelled while queued or running: the future is dropped.
            task.abort();
        }
        tasks.push(task);
    }
    let mut codes = std::collections::BTreeMap::<String, usize>::new();
    for task in tasks {
        if let Ok(result) = task.await {
            let code = if result.is_error == Some(true) {
                code(&result)
            } else {
                "OK".into()
            };
            *codes.entry(code).or_default() += 1;
        }
    }
    let stats = server.concurrency_stats("mixed").unwrap();
    assert_eq!(
        (stats.active, stats.queued),
        (0, 0),
        "codes seen: {codes:?}"
    );
    assert!(
        codes.contains_key("SERVER_BUSY") && codes.contains_key("TIMEOUT"),
        "{codes:?}"
    );
    // The server still serves.
    let after = server.call("mixed", json!({"kind": "ok"})).await.unwrap();
    assert_eq!(text(&after), "ok");
}

#[tokio::test]
async fn timeout_drops_the_handler_and_says_so() {
    struct Flag(Arc<AtomicUsize>);
    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&dropped);
    let slow = move |_ctx: CallContext, _args: NoArgs| {
        let flag = Flag(Arc::clone(&seen));
        async move {
            tokio::time::sleep(Duration::from_secs(60)).await;
            drop(flag);
            Ok::<_, ToolError>("late")
        }
    };
    let server = FusionServer::builder("t", "1")
        .tool(
            Action::new("slow", slow)
                .timeout(Duration::from_millis(50))
                .concurrency(1, 0),
        )
        .build()
        .unwrap();
    let result = server.call("slow", json!({})).await.unwrap();
    assert_eq!(
        text(&result),
        "<tool_error code=\"TIMEOUT\" severity=\"error\">\n  <message>slow took longer than its limit of 50 ms and was stopped.</message>\n  <recovery>Its changes may have been made before it was stopped: check whether they were (read the item) before calling it again, so as not to make them twice.</recovery>\n  <details>\n    <detail key=\"limit_ms\">50</detail>\n  </details>\n</tool_error>"
    );
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        1,
        "the handler's future was dropped"
    );
    let stats = server.concurrency_stats("slow").unwrap();
    assert_eq!(
        (stats.active, stats.queued),
        (0, 0),
        "the slot was released"
    );
}

fn limited_server(limit: RateLimit) -> FusionServer {
    async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("pong")
    }
    FusionServer::builder("t", "1")
        .group(Group::new("api").action(Action::new("ping", ping).rate_limit(limit)))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_against_a_limit_of_one_admit_exactly_one() {
    let server = limited_server(RateLimit::per_hour(1));
    let calls: Vec<_> = (0..200)
        .map(|_| {
            let server = server.clone();
            tokio::spawn(
                async move { server.call("api", json!({"action": "ping"})).await.unwrap() },
            )
        })
        .collect();
    let mut passed = 0;
    let mut limited = 0;
    for call in calls {
        let result = call.await.unwrap();
        match result.is_error {
            Some(false) => passed += 1,
            Some(true) if code(&result) == "RATE_LIMITED" => limited += 1,
            other => panic!("unexpected {other:?}: {}", text(&result)),
        }
    }
    assert_eq!((passed, limited), (1, 199));
}

#[tokio::test]
async fn rate_limited_says_when_the_next_call_passes() {
    let server = limited_server(RateLimit::per_minute(2));
    for _ in 0..2 {
        let ok = server.call("api", json!({"action": "ping"})).await.unwrap();
        assert_eq!(text(&ok), "pong");
    }
    let third = server.call("api", json!({"action": "ping"})).await.unwrap();
    assert_eq!(
        text(&third),
        "Call api.ping again with the same arguments: this refusal is about timing, not about them.\n<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n  <message>Too many calls to api.ping: the limit is 2 per minute.</message>\n  <recovery>Wait 30 seconds, then call api.ping again.</recovery>\n  <details>\n    <detail key=\"limit\">2 per minute</detail>\n  </details>\n  <retry_after>30 seconds</retry_after>\n</tool_error>"
    );
    assert_eq!(meta(&third)["retry_after_seconds"], json!(30));
    assert!(
        !text(&third).contains("anonymous"),
        "the key never reaches the model"
    );
}

pub(crate) fn http_parts(headers: &[(&str, &str)]) -> axum::http::request::Parts {
    let mut request = axum::http::Request::builder().uri("/mcp");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(()).unwrap().into_parts().0
}

/// The head of an HTTP request from `peer` in MCP session `session`.
fn http_parts_from(peer: &str, session: &str) -> axum::http::request::Parts {
    let request = axum::http::Request::builder()
        .uri("/mcp")
        .header("mcp-session-id", session);
    let (mut parts, ()) = request.body(()).unwrap().into_parts();
    parts.extensions.insert(axum::extract::ConnectInfo(
        peer.parse::<std::net::SocketAddr>().unwrap(),
    ));
    parts
}

#[tokio::test]
async fn per_caller_limits_count_each_address_apart_and_global_counts_all() {
    let server = limited_server(RateLimit::per_hour(1));
    let a = || Some(http_parts_from("10.0.0.1:40000", "session-a"));
    // The same client in a new session, from another port: the same budget.
    let a_again = || Some(http_parts_from("10.0.0.1:40001", "session-c"));
    let b = || Some(http_parts_from("10.0.0.2:40000", "session-b"));
    let ping = json!({"action": "ping"});
    assert_eq!(
        server
            .call_with_http("api", ping.clone(), a())
            .await
            .unwrap()
            .is_error,
        Some(false)
    );
    assert_eq!(
        server
            .call_with_http("api", ping.clone(), b())
            .await
            .unwrap()
            .is_error,
        Some(false)
    );
    let again = server
        .call_with_http("api", ping.clone(), a_again())
        .await
        .unwrap();
    assert_eq!(code(&again), "RATE_LIMITED");
    assert!(!text(&again).contains("10.0.0.1"));

    let global = limited_server(RateLimit::per_hour(1).scope(RateLimitScope::Global));
    assert_eq!(
        global
            .call_with_http("api", ping.clone(), a())
            .await
            .unwrap()
            .is_error,
        Some(false)
    );
    assert_eq!(
        code(
            &global
                .call_with_http("api", ping.clone(), b())
                .await
                .unwrap()
        ),
        "RATE_LIMITED"
    );
}

#[tokio::test]
async fn deprecated_field_succeeds_with_a_warning() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Search {
        /// Old name.
        q: Option<String>,
        query: Option<String>,
    }
    async fn search(_ctx: CallContext, args: Search) -> Result<String, ToolError> {
        Ok(args.query.or(args.q).unwrap_or_default())
    }
    let server = FusionServer::builder("t", "1")
        .tool(Action::new("search", search).deprecated_field("q", "query"))
        .build()
        .unwrap();
    let result = server.call("search", json!({"q": "cats"})).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        text(&result),
        "cats\n<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  <message>The field \"q\" of search is deprecated and will be removed; use \"query\" instead.</message>\n  <recovery>The call succeeded: its result is above. Next time send \"query\" instead of \"q\".</recovery>\n</tool_error>"
    );
    let clean = server
        .call("search", json!({"query": "dogs"}))
        .await
        .unwrap();
    assert_eq!(text(&clean), "dogs");
    let listing = &server.listings()[0];
    assert_eq!(
        listing.input_schema["properties"]["q"]["deprecated"],
        json!(true)
    );
    assert_eq!(
        listing.input_schema["properties"]["q"]["description"],
        json!("Old name. Deprecated: use \"query\" instead.")
    );
}

#[test]
fn impossible_limits_are_build_errors() {
    async fn noop(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("")
    }
    let build = |action: Action| {
        FusionServer::builder("t", "1")
            .tool(action)
            .build()
            .unwrap_err()
    };
    assert_eq!(
        build(Action::new("a", noop).concurrency(0, 3)).to_string(),
        "a: max_active must be at least 1"
    );
    assert_eq!(
        build(Action::new("a", noop).rate_limit(RateLimit::per_minute(0))).to_string(),
        "a: a rate limit must allow at least 1 call per period"
    );
    assert_eq!(
        build(Action::new("a", noop).rate_limit(RateLimit::new(5, Duration::ZERO))).to_string(),
        "a: a rate limit's period must be longer than zero"
    );
    assert_eq!(
        build(Action::new("a", noop).timeout(Duration::ZERO)).to_string(),
        "a: a time limit must be longer than zero"
    );
    assert!(matches!(
        build(Action::new("a", noop).requires_scopes(["x"])),
        BuildError::BadGuard { .. }
    ));
}

#[tokio::test]
async fn stateless_calls_cannot_pick_their_own_rate_limit_bucket() {
    // In the 2026-07-28 protocol a session id is only the client's word: it
    // must not give a caller a fresh budget.
    let server = limited_server(RateLimit::per_hour(1));
    let ping = json!({"action": "ping"});
    let stateless = |session: &str| {
        Some(http_parts(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-session-id", session),
        ]))
    };
    let first = server
        .call_with_http("api", ping.clone(), stateless("one"))
        .await
        .unwrap();
    assert_eq!(first.is_error, Some(false));
    let second = server
        .call_with_http("api", ping.clone(), stateless("two"))
        .await
        .unwrap();
    assert_eq!(code(&second), "RATE_LIMITED");
}
