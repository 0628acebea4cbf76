//! MCP sessions of `fusion serve` over Streamable HTTP, in raw HTTP: the
//! session limit, idle sessions, parked workers, a bounded flood, and
//! sessions that survive a server's death through a real Redis.
//!
//! The memory figure of docs/guide/performance.md comes from the flood test:
//! `cargo test --release -p fusion-cli --test serve -- flood --nocapture`.

use std::time::Duration;

use crate::raw::{RawHttp, initialize_request};
use crate::redis_server::Redis;
use crate::support::{HttpServer, TempDb};
use serde_json::{Value, json};

fn get_invoice() -> Value {
    json!({"action": "get_invoice", "id": "inv_1"})
}

/// Calls `billing.get_invoice` in `session` and returns the HTTP status, and
/// the tool result's first text when there is one.
async fn call(http: &RawHttp, session: &str, id: u64) -> (u16, String) {
    let reply = http.call(session, id, "billing", get_invoice()).await;
    if reply.status != 200 {
        return (reply.status, reply.body);
    }
    let message = reply.message();
    assert_eq!(message["id"], id, "{message}");
    let text = message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a tool result: {message}"))
        .to_owned();
    (200, text)
}

#[tokio::test]
async fn past_the_limit_the_least_recently_used_idle_session_is_closed() {
    let db = TempDb::new("lru");
    let server = HttpServer::start_with(
        &db.0,
        &["--max-sessions", "2", "--max-sessions-per-caller", "2"],
    );
    let http = RawHttp::new(&server.url);
    let a = http.initialize().await;
    let b = http.initialize().await;
    assert_eq!(call(&http, &b, 2).await.0, 200);
    assert_eq!(call(&http, &a, 3).await.0, 200);
    // b is now the least recently used idle session: a third one closes it.
    let c = http.initialize().await;
    assert_eq!(call(&http, &b, 4).await.0, 404);
    assert_eq!(call(&http, &a, 5).await.0, 200);
    assert_eq!(call(&http, &c, 6).await.0, 200);
}

#[tokio::test]
async fn when_every_session_is_busy_initialize_gets_503_with_retry_after() {
    let db = TempDb::new("busy-sessions");
    let server = HttpServer::start_with(
        &db.0,
        &["--max-sessions", "2", "--max-sessions-per-caller", "2"],
    );
    let http = RawHttp::new(&server.url);
    let a = http.initialize().await;
    let b = http.initialize().await;
    // An open notification stream keeps a session busy.
    let stream_a = http.listen(&a).await;
    let stream_b = http.listen(&b).await;
    let refused = http.send(None, &initialize_request(1)).await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("retry-after"), Some("5"));
    // The one caller holds them all: its own bound is what it reached.
    assert_eq!(
        refused.body,
        "Service Unavailable: this caller holds 2 sessions, the most one caller may hold, and all of them are busy; end one (DELETE with its Mcp-Session-Id) or try again in 5 seconds"
    );
    assert_eq!(refused.header("mcp-session-id"), None);
    // Both sessions still answer.
    assert_eq!(call(&http, &a, 2).await.0, 200);
    assert_eq!(call(&http, &b, 3).await.0, 200);
    // Once a stream closes, its session is idle again and gives way.
    drop(stream_a);
    let mut status = 0;
    for _ in 0..100 {
        status = http.send(None, &initialize_request(1)).await.status;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, 200);
    assert_eq!(call(&http, &a, 4).await.0, 404);
    assert_eq!(call(&http, &b, 5).await.0, 200);
    drop(stream_b);
}

#[tokio::test]
async fn a_session_unused_for_session_idle_is_closed() {
    let db = TempDb::new("idle");
    let server = HttpServer::start_with(&db.0, &["--session-idle", "1s"]);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    assert_eq!(call(&http, &session, 2).await.0, 200);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(call(&http, &session, 3).await.0, 404);
}

#[tokio::test]
async fn parked_sessions_go_on_without_a_new_handshake() {
    let db = TempDb::new("parked");
    let server = HttpServer::start_with(&db.0, &["--max-live-sessions", "1"]);
    let http = RawHttp::new(&server.url);
    let sessions = [
        http.initialize().await,
        http.initialize().await,
        http.initialize().await,
    ];
    let (_, expected) = call(&http, &sessions[0], 1).await;
    assert!(expected.contains("inv_1"), "{expected}");
    let mut id = 2;
    for _ in 0..3 {
        for session in &sessions {
            // With one live worker, every call here resumes a parked session.
            assert_eq!(call(&http, session, id).await, (200, expected.clone()));
            id += 1;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flood_of_initialize_stays_bounded_and_old_sessions_answer() {
    const FLOOD: usize = 3000;
    let db = TempDb::new("flood");
    // The default limits: 10 000 sessions, 64 of them live.
    let server = HttpServer::start(&db.0);
    let http = RawHttp::new(&server.url);
    let old = http.initialize().await;
    assert_eq!(call(&http, &old, 1).await.0, 200);
    let before = server.rss_kib();
    // A flood from one loop, 8 at a time.
    let mut done = 0;
    while done < FLOOD {
        let batch: Vec<_> = (0..8)
            .map(|_| {
                let http = http.clone();
                tokio::spawn(async move { http.send(None, &initialize_request(1)).await.status })
            })
            .collect();
        for task in batch {
            assert_eq!(task.await.expect("a task"), 200);
        }
        done += 8;
    }
    let after = server.rss_kib();
    let per_session = (after.saturating_sub(before) as f64) / (FLOOD as f64);
    eprintln!(
        "flood: {FLOOD} idle sessions kept: RSS {before} KiB -> {after} KiB, {per_session:.1} KiB per session"
    );
    // The old session, used before the flood, is still there.
    assert_eq!(call(&http, &old, 2).await.0, 200);
    // Parked sessions are small: with a live worker each, 3000 sessions
    // held about 60 KiB each (180 MiB).
    assert!(per_session < 12.0, "{per_session:.1} KiB per idle session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_past_the_limit_closes_flood_sessions_before_working_ones() {
    let db = TempDb::new("flood-cap");
    let server = HttpServer::start_with(
        &db.0,
        &["--max-sessions", "50", "--max-sessions-per-caller", "50"],
    );
    let http = RawHttp::new(&server.url);
    let old = http.initialize().await;
    assert_eq!(call(&http, &old, 1).await.0, 200);
    // 500 handshakes that are never used: each one past the limit closes
    // the least recently used of them, never the session that works.
    for _ in 0..500 {
        assert_eq!(http.send(None, &initialize_request(1)).await.status, 200);
    }
    assert_eq!(call(&http, &old, 2).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_past_the_limit_closes_its_own_sessions_not_anothers() {
    let db = TempDb::new("owner-first");
    let tokens = std::env::temp_dir().join(format!(
        "fusion-e2e-owner-first-{}.json",
        std::process::id()
    ));
    std::fs::write(
        &tokens,
        r#"{"tokens": [{"token": "ada-secret", "subject": "ada", "scopes": ["billing:read"]},
                       {"token": "eve-secret", "subject": "eve", "scopes": ["billing:read"]}]}"#,
    )
    .unwrap();
    let file = tokens.to_str().unwrap();
    let server = HttpServer::start_with(
        &db.0,
        &[
            "--max-sessions",
            "3",
            "--max-sessions-per-caller",
            "3",
            "--auth-tokens",
            file,
        ],
    );
    let http = RawHttp::new(&server.url);
    let (ada, eve) = (
        http.with_bearer("ada-secret"),
        http.with_bearer("eve-secret"),
    );
    let first = ada.initialize().await;
    let second = ada.initialize().await;
    let eves = eve.initialize().await;
    // Eve's session is now the least recently used; but Ada opening more
    // sessions closes Ada's, the oldest first.
    assert_eq!(call(&ada, &first, 2).await.0, 200);
    assert_eq!(call(&ada, &second, 3).await.0, 200);
    let third = ada.initialize().await;
    assert_eq!(call(&eve, &eves, 4).await.0, 200);
    assert_eq!(call(&ada, &first, 5).await.0, 404);
    for _ in 0..20 {
        ada.initialize().await;
    }
    assert_eq!(call(&eve, &eves, 6).await.0, 200);
    assert_eq!(call(&ada, &third, 7).await.0, 404);
    let _ = std::fs::remove_file(&tokens);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_goes_on_on_another_replica_and_after_a_restart_through_redis() {
    let redis = Redis::start();
    let url = redis.url();
    let options = ["--redis", url.as_str()];
    let db = TempDb::new("replicas");
    let mut first = HttpServer::start_with(&db.0, &options);
    let second = HttpServer::start_with(&db.0, &options);
    let to_first = RawHttp::new(&first.url);
    let to_second = RawHttp::new(&second.url);

    let session = to_first.initialize().await;
    let (status, expected) = call(&to_first, &session, 1).await;
    assert_eq!(status, 200);
    // The first replica dies; the next request reaches the second one.
    first.kill();
    assert_eq!(call(&to_second, &session, 2).await, (200, expected.clone()));
    // The first one comes back on its port and takes the session up again.
    let port = first.port;
    let restarted = HttpServer::start_on(&db.0, port, &options);
    let to_restarted = RawHttp::new(&restarted.url);
    assert_eq!(
        call(&to_restarted, &session, 3).await,
        (200, expected.clone())
    );
    // An ended session is gone from Redis: a replica that never held it
    // does not know it either.
    assert_eq!(to_restarted.delete(&session).await.status, 204);
    assert_eq!(call(&to_restarted, &session, 4).await.0, 404);
    let third = HttpServer::start_with(&db.0, &options);
    let to_third = RawHttp::new(&third.url);
    assert_eq!(call(&to_third, &session, 5).await.0, 404);
    assert_eq!(to_third.delete(&session).await.status, 404);
}

#[tokio::test]
async fn with_redis_down_sessions_still_work_on_their_server() {
    let dead = format!("redis://127.0.0.1:{}/0", crate::support::free_port());
    let db = TempDb::new("redis-down");
    let server = HttpServer::start_with(&db.0, &["--redis", &dead]);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    assert_eq!(call(&http, &session, 2).await.0, 200);
    assert_eq!(call(&http, &session, 3).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_longer_than_session_idle_keeps_its_answer_and_its_session() {
    let db = TempDb::new("idle-long-call");
    let server = HttpServer::start_with(&db.0, &["--session-idle", "1s", "--report-ms", "2500ms"]);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    let report = http
        .call(
            &session,
            2,
            "billing",
            json!({"action": "generate_report", "period": "day"}),
        )
        .await;
    assert_eq!(report.status, 200);
    assert_eq!(
        report.message()["result"]["isError"],
        false,
        "{}",
        report.body
    );
    assert_eq!(call(&http, &session, 3).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_on_parked_sessions_are_all_answered() {
    let db = TempDb::new("restore-race");
    let server = HttpServer::start_with(&db.0, &["--max-live-sessions", "1"]);
    let http = RawHttp::new(&server.url);
    let mut sessions = Vec::new();
    for _ in 0..12 {
        sessions.push(http.initialize().await);
    }
    let mut calls = Vec::new();
    for round in 0..4u64 {
        for (i, session) in sessions.iter().enumerate() {
            let http = http.clone();
            let session = session.clone();
            let id = 100 + round * 100 + i as u64;
            calls.push(tokio::spawn(
                async move { call(&http, &session, id).await.0 },
            ));
        }
    }
    let mut statuses = Vec::new();
    for task in calls {
        statuses.push(task.await.expect("a task"));
    }
    assert_eq!(statuses, vec![200; 48]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ended_on_one_replica_is_ended_on_the_others() {
    let redis = Redis::start();
    let url = redis.url();
    let options = ["--redis", url.as_str()];
    let db = TempDb::new("redis-delete");
    let a = HttpServer::start_with(&db.0, &options);
    let b = HttpServer::start_with(&db.0, &options);
    let (to_a, to_b) = (RawHttp::new(&a.url), RawHttp::new(&b.url));
    let session = to_a.initialize().await;
    assert_eq!(call(&to_a, &session, 1).await.0, 200);
    assert_eq!(call(&to_b, &session, 2).await.0, 200);
    assert_eq!(to_a.delete(&session).await.status, 204);
    assert_eq!(call(&to_b, &session, 3).await.0, 404);
    assert_eq!(call(&to_a, &session, 4).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn making_room_on_one_replica_keeps_the_session_for_the_others() {
    let redis = Redis::start();
    let url = redis.url();
    let db = TempDb::new("redis-evict");
    let a = HttpServer::start_with(
        &db.0,
        &[
            "--redis",
            url.as_str(),
            "--max-sessions",
            "2",
            "--max-sessions-per-caller",
            "2",
        ],
    );
    let b = HttpServer::start_with(&db.0, &["--redis", url.as_str()]);
    let (to_a, to_b) = (RawHttp::new(&a.url), RawHttp::new(&b.url));
    let session = to_a.initialize().await;
    assert_eq!(call(&to_b, &session, 1).await.0, 200);
    // Five more sessions on A: it drops its copy of the first one.
    for _ in 0..5 {
        to_a.initialize().await;
    }
    assert_eq!(call(&to_b, &session, 2).await.0, 200);
    let c = HttpServer::start_with(&db.0, &["--redis", url.as_str()]);
    assert_eq!(call(&RawHttp::new(&c.url), &session, 3).await.0, 200);
    // A takes it up again from Redis.
    assert_eq!(call(&to_a, &session, 4).await.0, 200);
}

#[tokio::test]
async fn with_redis_down_an_unknown_session_is_404_not_a_server_error() {
    let dead = format!("redis://127.0.0.1:{}/0", crate::support::free_port());
    let db = TempDb::new("redis-down-404");
    let server = HttpServer::start_with(&db.0, &["--redis", &dead]);
    let http = RawHttp::new(&server.url);
    assert_eq!(call(&http, "no-such-session", 1).await.0, 404);
}

/// A tokens file for `--auth-tokens`: ada and bob, both with `billing:read`.
fn two_users(test: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "fusion-e2e-users-{test}-{}.json",
        std::process::id()
    ));
    std::fs::write(
        &path,
        r#"{"tokens": [
            {"token": "ada-secret", "subject": "ada", "scopes": ["billing:read"]},
            {"token": "bob-secret", "subject": "bob", "scopes": ["billing:read"]}
        ]}"#,
    )
    .unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_serves_only_its_owner_on_every_replica_even_with_redis_down() {
    let redis = Redis::start();
    let url = redis.url();
    let tokens = two_users("replicas");
    let options = [
        "--redis",
        url.as_str(),
        "--auth-tokens",
        tokens.to_str().unwrap(),
    ];
    let db = TempDb::new("owner-replicas");
    let a = HttpServer::start_with(&db.0, &options);
    let b = HttpServer::start_with(&db.0, &options);
    let (ada_a, ada_b) = (
        RawHttp::new(&a.url).with_bearer("ada-secret"),
        RawHttp::new(&b.url).with_bearer("ada-secret"),
    );
    let (bob_a, bob_b) = (
        RawHttp::new(&a.url).with_bearer("bob-secret"),
        RawHttp::new(&b.url).with_bearer("bob-secret"),
    );
    let session = ada_a.initialize().await;
    assert_eq!(call(&ada_b, &session, 1).await.0, 200);
    assert_eq!(call(&bob_b, &session, 2).await.0, 404);
    // With Redis gone, each replica that served ada still knows her, and
    // nobody else is let in for want of the record.
    redis.stop();
    assert_eq!(call(&ada_a, &session, 3).await.0, 200);
    assert_eq!(call(&ada_b, &session, 4).await.0, 200);
    assert_eq!(call(&bob_a, &session, 5).await.0, 404);
    assert_eq!(call(&bob_b, &session, 6).await.0, 404);
    assert_eq!(bob_b.delete(&session).await.status, 404);
    assert_eq!(call(&ada_a, &session, 7).await.0, 200);
    let _ = std::fs::remove_file(tokens);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_whose_owner_is_not_recorded_is_refused_to_everyone_else() {
    let redis = Redis::start();
    let url = redis.url();
    let tokens = two_users("no-owner");
    let options = [
        "--redis",
        url.as_str(),
        "--auth-tokens",
        tokens.to_str().unwrap(),
    ];
    let db = TempDb::new("owner-lost");
    let a = HttpServer::start_with(&db.0, &options);
    let b = HttpServer::start_with(&db.0, &options);
    let ada_a = RawHttp::new(&a.url).with_bearer("ada-secret");
    let session = ada_a.initialize().await;
    // The record of its owner is lost (evicted, or never written while
    // Redis was down); the session itself is still there.
    let key = format!("mcp-fusion:session:{session}:owner");
    let deleted = std::process::Command::new("redis-cli")
        .args(["-u", &redis.url(), "del", &key])
        .output()
        .expect("redis-cli comes with redis-server");
    assert_eq!(String::from_utf8_lossy(&deleted.stdout).trim(), "1");
    let bob_b = RawHttp::new(&b.url).with_bearer("bob-secret");
    assert_eq!(call(&bob_b, &session, 1).await.0, 404);
    assert_eq!(bob_b.delete(&session).await.status, 404);
    // Its owner goes on where it opened it.
    assert_eq!(call(&ada_a, &session, 2).await.0, 200);
    let _ = std::fs::remove_file(tokens);
}
