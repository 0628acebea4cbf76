//! The Redis rate-limit store against a real `redis-server` started here:
//! one limit shared by several servers, atomic under concurrency, bounded and
//! fail-open/fail-closed while Redis is down or slow, and recovery.

use std::time::Duration;

use mcp_fusion::guard::{FailMode, RateLimit, RateLimitScope, RedisRateLimitStore};
use mcp_fusion::{Action, CallContext, FusionServer, Group, NoArgs, ToolError};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use crate::redis_server::{Redis, free_port};

fn server(store: RedisRateLimitStore, limit: RateLimit) -> FusionServer {
    async fn ping(_ctx: CallContext, _args: NoArgs) -> Result<&'static str, ToolError> {
        Ok("pong")
    }
    FusionServer::builder("t", "1")
        .rate_limit_store(store)
        .group(Group::new("api").action(Action::new("ping", ping).rate_limit(limit)))
        .build()
        .unwrap()
}

fn meta(result: &CallToolResult) -> Value {
    result
        .meta
        .as_ref()
        .and_then(|m| m.0.get("mcp-fusion/error").cloned())
        .unwrap_or(Value::Null)
}

/// `OK`, or the envelope's code. A hang fails the test instead of blocking it.
async fn outcome(server: &FusionServer) -> String {
    let result = tokio::time::timeout(
        Duration::from_secs(5),
        server.call("api", json!({"action": "ping"})),
    )
    .await
    .expect("a rate-limit check never hangs")
    .unwrap();
    if result.is_error == Some(true) {
        meta(&result)["code"].as_str().unwrap().to_owned()
    } else {
        String::from("OK")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_one_limit() {
    let redis = Redis::start();
    let limit = RateLimit::per_hour(3).scope(RateLimitScope::Global);
    let a = server(
        RedisRateLimitStore::new(&redis.url())
            .unwrap()
            .prefix("shared:"),
        limit,
    );
    let b = server(
        RedisRateLimitStore::new(&redis.url())
            .unwrap()
            .prefix("shared:"),
        limit,
    );
    let mut seen = Vec::new();
    for i in 0..6 {
        seen.push(outcome(if i % 2 == 0 { &a } else { &b }).await);
    }
    assert_eq!(
        seen,
        [
            "OK",
            "OK",
            "OK",
            "RATE_LIMITED",
            "RATE_LIMITED",
            "RATE_LIMITED"
        ]
    );
    let limited = a.call("api", json!({"action": "ping"})).await.unwrap();
    let wait = meta(&limited)["retry_after_seconds"].as_u64().unwrap();
    assert!(
        (1_190..=1_200).contains(&wait),
        "the next call passes in about 20 minutes, got {wait} s"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_across_servers_admit_exactly_the_limit() {
    let redis = Redis::start();
    let limit = RateLimit::per_hour(5).scope(RateLimitScope::Global);
    let servers = [
        server(
            RedisRateLimitStore::new(&redis.url())
                .unwrap()
                .timeout(Duration::from_secs(2)),
            limit,
        ),
        server(
            RedisRateLimitStore::new(&redis.url())
                .unwrap()
                .timeout(Duration::from_secs(2)),
            limit,
        ),
    ];
    let calls: Vec<_> = (0..60)
        .map(|i| {
            let server = servers[i % 2].clone();
            tokio::spawn(async move { outcome(&server).await })
        })
        .collect();
    let mut ok = 0;
    for call in calls {
        match call.await.unwrap().as_str() {
            "OK" => ok += 1,
            "RATE_LIMITED" => {}
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(ok, 5);
}

#[tokio::test]
async fn redis_down_fails_open_or_closed_without_hanging() {
    let nobody = format!("redis://127.0.0.1:{}/0", free_port());
    let open = server(
        RedisRateLimitStore::new(&nobody).unwrap(),
        RateLimit::per_hour(1),
    );
    assert_eq!(outcome(&open).await, "OK");
    assert_eq!(
        outcome(&open).await,
        "OK",
        "fail-open lets every call through"
    );
    let closed = server(
        RedisRateLimitStore::new(&nobody)
            .unwrap()
            .fail_mode(FailMode::Closed),
        RateLimit::per_hour(1),
    );
    let refused = closed.call("api", json!({"action": "ping"})).await.unwrap();
    assert_eq!(
        refused.content[0].as_text().unwrap().text,
        "Call api.ping again with the same arguments: this refusal is about timing, not about them.\n<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n  <message>api.ping cannot be checked against its rate limit right now, so the call was refused.</message>\n  <recovery>Wait a few seconds and call again; if this keeps happening, tell the user the server's rate-limit store is down.</recovery>\n  <retry_after>5 seconds</retry_after>\n</tool_error>"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_redis_is_cut_off_by_the_time_limit() {
    let redis = Redis::start();
    let closed = server(
        RedisRateLimitStore::new(&redis.url())
            .unwrap()
            .fail_mode(FailMode::Closed),
        RateLimit::per_hour(100),
    );
    assert_eq!(outcome(&closed).await, "OK");
    // Block the Redis server for a second from another connection.
    let url = redis.url();
    let blocker = std::thread::spawn(move || {
        let mut conn = redis::Client::open(url).unwrap().get_connection().unwrap();
        let _: redis::RedisResult<String> =
            redis::cmd("DEBUG").arg("SLEEP").arg("1").query(&mut conn);
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        outcome(&closed).await,
        "RATE_LIMITED",
        "no answer within 100 ms: refused"
    );
    // For a second after a failure the fail mode answers without asking
    // Redis (a dead Redis costs nothing per call).
    assert_eq!(outcome(&closed).await, "RATE_LIMITED");
    blocker.join().unwrap();
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(
        outcome(&closed).await,
        "OK",
        "answers again once Redis does"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recovers_when_redis_comes_back() {
    let redis = Redis::start();
    let closed = server(
        RedisRateLimitStore::new(&redis.url())
            .unwrap()
            .fail_mode(FailMode::Closed),
        RateLimit::per_hour(2),
    );
    assert_eq!(outcome(&closed).await, "OK");
    let port = redis.stop();
    assert_eq!(outcome(&closed).await, "RATE_LIMITED");
    let _redis = Redis::start_on(port);
    let mut back = String::new();
    for _ in 0..40 {
        back = outcome(&closed).await;
        if back == "OK" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(back, "OK", "the store reconnects on its own");
    // The new Redis is empty: one more call passes, the next is limited.
    assert_eq!(outcome(&closed).await, "OK");
    assert_eq!(outcome(&closed).await, "RATE_LIMITED");
}
