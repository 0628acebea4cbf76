//! The runtime guards from a real client, through `fusion serve`'s flags:
//! SERVER_BUSY (`--max-active`/`--max-queue`), TIMEOUT (`--timeout`),
//! RATE_LIMITED shared by two server processes through one real Redis
//! (`--rate-limit`, `--redis`), and AUTH_REQUIRED / UNAUTHORIZED / FORBIDDEN
//! (`--auth-tokens`) over Streamable HTTP — wire contract §5.

use std::time::Duration;

use crate::redis_server::Redis;
use crate::support::*;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

fn code(result: &CallToolResult) -> String {
    if result.is_error != Some(true) {
        return String::from("OK");
    }
    meta_of(result)
        .and_then(|m| m["code"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn report() -> Value {
    json!({"action": "generate_report", "period": "week"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_report_while_one_runs_is_shed() {
    let db = TempDb::new("busy");
    let s = Session::start_with(
        Transport::Stdio,
        &db,
        &["--max-active", "1", "--max-queue", "0", "--report-ms", "3s"],
        None,
    )
    .await;
    let (first, second) = tokio::join!(s.billing(report()), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        s.billing(report()).await
    });
    assert_eq!(code(&first), "OK", "{:?}", texts(&first));
    assert_eq!(code(&second), "SERVER_BUSY");
    let meta = meta_of(&second).unwrap();
    assert!(meta["retry_after_seconds"].as_u64().unwrap() >= 1);
    assert_eq!(
        meta["message"],
        json!(
            "billing.generate_report is at capacity: its only slot is taken and it keeps no queue."
        )
    );
    // The slot is free again once the first report is done.
    assert_eq!(
        code(
            &s.billing(json!({"action": "list_invoices", "limit": 1}))
                .await
        ),
        "OK"
    );
    s.close().await;
}

#[tokio::test]
async fn a_report_past_its_time_limit_times_out() {
    let db = TempDb::new("timeout");
    let s = Session::start_with(
        Transport::Stdio,
        &db,
        &["--timeout", "100ms", "--report-ms", "10s"],
        None,
    )
    .await;
    let result = s.billing(report()).await;
    assert_eq!(
        texts(&result),
        [
            "<tool_error code=\"TIMEOUT\" severity=\"error\">\n  <message>billing.generate_report took longer than its limit of 100 ms and was stopped.</message>\n  <recovery>Ask for less (a narrower request: fewer items, a shorter period); the same request may take as long again. If it cannot be narrowed, retry it once later or tell the user it did not finish in time.</recovery>\n  <details>\n    <detail key=\"limit_ms\">100</detail>\n  </details>\n</tool_error>"
        ]
    );
    assert_eq!(result.is_error, Some(true));
    s.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_server_processes_share_one_rate_limit_in_redis() {
    let redis = Redis::start();
    let url = redis.url();
    let options = [
        "--rate-limit",
        "2/min",
        "--rate-limit-scope",
        "global",
        "--redis",
        &url,
    ];
    let (db_a, db_b) = (TempDb::new("redis-a"), TempDb::new("redis-b"));
    let a = Session::start_with(Transport::Stdio, &db_a, &options, None).await;
    let b = Session::start_with(Transport::Stdio, &db_b, &options, None).await;
    let ping = || json!({"action": "list_invoices", "limit": 1});
    let mut seen = Vec::new();
    for i in 0..4 {
        let session = if i % 2 == 0 { &a } else { &b };
        seen.push(code(&session.billing(ping()).await));
    }
    assert_eq!(seen, ["OK", "OK", "RATE_LIMITED", "RATE_LIMITED"]);
    let limited = b.billing(ping()).await;
    let meta = meta_of(&limited).unwrap();
    let wait = meta["retry_after_seconds"].as_u64().unwrap();
    assert!((1..=30).contains(&wait), "one call every 30 s: {wait}");
    assert_eq!(
        meta["message"],
        json!("Too many calls to billing.list_invoices: the limit is 2 per minute.")
    );
    a.close().await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_tokens_over_http() {
    let db = TempDb::new("auth");
    let tokens =
        std::env::temp_dir().join(format!("fusion-e2e-tokens-{}.json", std::process::id()));
    std::fs::write(
        &tokens,
        r#"{"tokens": [{"token": "reader-secret", "subject": "ada", "scopes": ["billing:read"]}]}"#,
    )
    .unwrap();
    let file = tokens.to_str().unwrap();
    let options = ["--auth-tokens", file];
    let reader = Session::start_with(Transport::Http, &db, &options, Some("reader-secret")).await;
    assert_eq!(
        code(
            &reader
                .billing(json!({"action": "get_invoice", "id": "inv_2"}))
                .await
        ),
        "OK"
    );
    let forbidden = reader
        .billing(json!({"action": "pay_invoice", "id": "inv_2"}))
        .await;
    assert_eq!(code(&forbidden), "FORBIDDEN");
    assert!(!texts(&forbidden)[0].contains("reader-secret"));
    assert_eq!(code(&reader.call("billing_health", json!({})).await), "OK");
    reader.close().await;

    // Without a token, or with a wrong one, the handshake itself is
    // refused: 401 with the Bearer challenge, before any JSON-RPC is read.
    let Err(anonymous) = Session::try_start_http(&db, &options, None).await else {
        panic!("an anonymous client got a session");
    };
    assert!(
        anonymous.contains(r#"www_authenticate_header: "Bearer realm=\"mcp\"""#),
        "{anonymous}"
    );
    let Err(wrong) = Session::try_start_http(&db, &options, Some("guess")).await else {
        panic!("a wrong token got a session");
    };
    assert!(
        wrong.contains(
            r#"error=\"invalid_token\", error_description=\"The bearer token is not valid.\""#
        ),
        "{wrong}"
    );
    assert!(!wrong.contains("guess"), "{wrong}");

    // With --allow-anonymous an anonymous client is served, sees only what
    // needs no credentials, and a protected action says AUTH_REQUIRED.
    let open = ["--auth-tokens", file, "--allow-anonymous"];
    let anonymous = Session::start_with(Transport::Http, &db, &open, None).await;
    let listed: Vec<String> = anonymous
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(listed, ["billing_health"]);
    assert_eq!(
        code(
            &anonymous
                .billing(json!({"action": "get_invoice", "id": "inv_2"}))
                .await
        ),
        "AUTH_REQUIRED"
    );
    assert_eq!(
        code(&anonymous.call("billing_health", json!({})).await),
        "OK"
    );
    anonymous.close().await;
    let Err(wrong) = Session::try_start_http(&db, &open, Some("guess")).await else {
        panic!("a wrong token got a session");
    };
    assert!(wrong.contains("invalid_token"), "{wrong}");
    let _ = std::fs::remove_file(tokens);
}

#[test]
fn a_redis_that_does_not_answer_is_named_at_start_without_its_password() {
    let db = TempDb::new("redis-down");
    let server = HttpServer::start_with(
        &db.0,
        &[
            "--redis",
            "redis://user:secret@127.0.0.1:1/0",
            "--rate-limit",
            "2/min",
        ],
    );
    let banner = server.banner.join("\n");
    assert!(!banner.contains("secret"), "{banner}");
    let warning = banner
        .lines()
        .find(|l| l.contains("warning: Redis"))
        .unwrap_or_else(|| panic!("no warning: {banner}"));
    assert!(
        warning.starts_with("  warning: Redis at redis://user:***@127.0.0.1:1/0 does not answer ("),
        "{warning}"
    );
    assert!(
        warning.ends_with(
            "); rate-limited calls are let through (--redis-fail open), sessions stay on this server, until it does"
        ),
        "{warning}"
    );
}
