//! `fusion serve --metrics`: the Prometheus exposition at `/metrics` after
//! real calls (counts by tool, action, outcome and code, durations, the
//! concurrency guard, sessions), its `Host` check, and 404 without the flag;
//! `--log-format json`: one JSON object per line on stderr.

use std::process::Stdio;
use std::time::Duration;

use crate::raw::RawHttp;
use crate::support::*;
use serde_json::{Value, json};

/// The body of `GET /metrics` (status, text).
async fn scrape(port: u16, host: Option<&str>) -> (u16, String) {
    let mut request = reqwest::Client::new().get(format!("http://127.0.0.1:{port}/metrics"));
    if let Some(host) = host {
        request = request.header("host", host);
    }
    let response = request.send().await.expect("an HTTP answer");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// The value of the series `series` (name and labels, exactly as written)
/// in an exposition, if it is there.
fn value_of(exposition: &str, series: &str) -> Option<String> {
    exposition
        .lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_counted_by_outcome_and_code() {
    let db = TempDb::new("metrics");
    let server = HttpServer::start_with(&db.0, &["--metrics", "--max-active", "4"]);
    assert!(
        server
            .banner
            .iter()
            .any(|l| l == &format!("  metrics: http://127.0.0.1:{}/metrics", server.port)),
        "{:?}",
        server.banner
    );
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    let calls = [
        json!({"action": "get_invoice", "id": "inv_1"}),
        json!({"action": "get_invoice", "id": "not-an-id"}),
        json!({"action": "get_invoice", "id": "inv_9999"}),
        json!({"action": "get_invoice", "id": "inv_9998"}),
        json!({"action": "get_invoice_legacy", "id": "inv_1"}),
        json!({"action": "no_such_action"}),
    ];
    for (n, arguments) in calls.into_iter().enumerate() {
        let reply = http
            .call(&session, n as u64 + 2, "billing", arguments)
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert!(reply.message()["result"].is_object(), "{}", reply.body);
    }
    let (status, text) = scrape(server.port, None).await;
    assert_eq!(status, 200, "{text}");
    for (series, value) in [
        (
            r#"mcp_fusion_tool_calls_total{tool="billing",action="get_invoice",outcome="ok",code=""}"#,
            "1",
        ),
        (
            r#"mcp_fusion_tool_calls_total{tool="billing",action="get_invoice",outcome="error",code="VALIDATION_ERROR"}"#,
            "1",
        ),
        (
            r#"mcp_fusion_tool_calls_total{tool="billing",action="get_invoice",outcome="error",code="NOT_FOUND"}"#,
            "2",
        ),
        (
            r#"mcp_fusion_tool_calls_total{tool="billing",action="get_invoice_legacy",outcome="warning",code="DEPRECATED"}"#,
            "1",
        ),
        (
            r#"mcp_fusion_tool_calls_total{tool="billing",action="",outcome="error",code="UNKNOWN_ACTION"}"#,
            "1",
        ),
        // Four calls of get_invoice ran (the unknown action never reached one).
        (
            r#"mcp_fusion_tool_call_duration_seconds_count{tool="billing",action="get_invoice"}"#,
            "4",
        ),
        (
            r#"mcp_fusion_tool_call_duration_seconds_bucket{tool="billing",action="get_invoice",le="+Inf"}"#,
            "4",
        ),
        // Every guarded call is done: none running, none waiting.
        (
            r#"mcp_fusion_guard_active{tool="billing",action="get_invoice"}"#,
            "0",
        ),
        (
            r#"mcp_fusion_guard_queued{tool="billing",action="get_invoice"}"#,
            "0",
        ),
        ("mcp_fusion_sessions_open", "1"),
        ("mcp_fusion_sessions_live", "1"),
        ("mcp_fusion_sessions_parked", "0"),
    ] {
        assert_eq!(
            value_of(&text, series).as_deref(),
            Some(value),
            "{series} in\n{text}"
        );
    }
    assert!(
        text.contains("# TYPE mcp_fusion_tool_calls_total counter"),
        "{text}"
    );
    assert!(
        text.contains("# TYPE mcp_fusion_tool_call_duration_seconds histogram"),
        "{text}"
    );
    // The session ends: the gauge follows (its worker stops in the
    // background; bounded wait).
    assert_eq!(http.delete(&session).await.status, 204);
    let mut open = None;
    for _ in 0..50 {
        let (_, text) = scrape(server.port, None).await;
        open = value_of(&text, "mcp_fusion_sessions_open");
        if open.as_deref() == Some("0") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(open.as_deref(), Some("0"));
    // The Host check of the MCP endpoint applies; its Origin check does not.
    let (status, text) = scrape(server.port, Some("evil.example")).await;
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("--allowed-host"), "{text}");
    let response = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{}/metrics", server.port))
        .header("origin", "https://evil.example")
        .send()
        .await
        .expect("an HTTP answer");
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sheds_and_timeouts_are_counted() {
    let db = TempDb::new("metrics-guards");
    let server = HttpServer::start_with(
        &db.0,
        &[
            "--metrics",
            "--max-active",
            "1",
            "--report-ms",
            "2s",
            "--timeout",
            "1s",
        ],
    );
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    let report = json!({"action": "generate_report", "period": "week"});
    let (first, second) = tokio::join!(http.call(&session, 2, "billing", report.clone()), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        http.call(&session, 3, "billing", report.clone()).await
    });
    let code = |reply: &crate::raw::Reply| {
        reply.message()["result"]["_meta"][META_KEY]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(code(&first), "TIMEOUT", "{}", first.body);
    assert_eq!(code(&second), "SERVER_BUSY", "{}", second.body);
    let (_, text) = scrape(server.port, None).await;
    for (series, value) in [
        (
            r#"mcp_fusion_timeouts_total{tool="billing",action="generate_report"}"#,
            "1",
        ),
        (
            r#"mcp_fusion_sheds_total{tool="billing",action="generate_report"}"#,
            "1",
        ),
        (
            r#"mcp_fusion_tool_calls_total{tool="billing",action="generate_report",outcome="error",code="SERVER_BUSY"}"#,
            "1",
        ),
        (
            r#"mcp_fusion_tool_calls_total{tool="billing",action="generate_report",outcome="error",code="TIMEOUT"}"#,
            "1",
        ),
        (
            r#"mcp_fusion_guard_active{tool="billing",action="generate_report"}"#,
            "0",
        ),
    ] {
        assert_eq!(
            value_of(&text, series).as_deref(),
            Some(value),
            "{series} in\n{text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_counted() {
    let db = TempDb::new("metrics-rate");
    let server = HttpServer::start_with(&db.0, &["--metrics", "--rate-limit", "1/min"]);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    for id in 2..5 {
        http.call(
            &session,
            id,
            "billing",
            json!({"action": "list_invoices", "limit": 1}),
        )
        .await;
    }
    let (_, text) = scrape(server.port, None).await;
    assert_eq!(
        value_of(
            &text,
            r#"mcp_fusion_rate_limited_total{tool="billing",action="list_invoices"}"#
        )
        .as_deref(),
        Some("2"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_flag_there_is_no_metrics_endpoint() {
    let db = TempDb::new("no-metrics");
    let server = HttpServer::start(&db.0);
    assert!(
        !server.banner.iter().any(|l| l.contains("/metrics")),
        "{:?}",
        server.banner
    );
    let (status, _) = scrape(server.port, None).await;
    assert_eq!(status, 404);
}

#[test]
fn metrics_is_for_http_only() {
    let output = std::process::Command::new(FUSION)
        .args(["serve", "--stdio", "--metrics"])
        .stdin(Stdio::null())
        .output()
        .expect("run fusion serve");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--metrics"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_are_one_object_per_line() {
    let db = TempDb::new("json-log");
    let port = free_port();
    let port_text = port.to_string();
    let mut args: Vec<&std::ffi::OsStr> = [
        "serve",
        "--log-format",
        "json",
        "--port",
        &port_text,
        "--db",
    ]
    .into_iter()
    .map(std::ffi::OsStr::new)
    .collect();
    args.push(db.0.as_os_str());
    let (mut child, rx) = spawn_fusion(&args, "info,mcp_fusion=debug,rmcp=warn");
    // Bounded waits, so that a server that never logs fails the test.
    let next = || {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("a stderr line");
        let value: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
        assert!(value.is_object(), "{line}");
        value
    };
    let first = next();
    assert_eq!(first["fields"]["message"], "fusion serve: billing example");
    loop {
        let line = next();
        if line["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("MCP endpoint: "))
        {
            assert_eq!(line["level"], "INFO");
            assert_eq!(line["target"], "fusion::serve");
            assert_eq!(
                line["fields"]["message"],
                format!("MCP endpoint: http://127.0.0.1:{port}/mcp")
            );
            break;
        }
    }
    let http = RawHttp::new(&format!("http://127.0.0.1:{port}/mcp"));
    let session = http.initialize().await;
    http.call(
        &session,
        2,
        "billing",
        json!({"action": "get_invoice", "id": "inv_9999"}),
    )
    .await;
    let finished = loop {
        let line = next();
        if line["fields"]["message"] == "tool call finished" {
            break line;
        }
    };
    let span = &finished["span"];
    assert_eq!(span["name"], "tool_call", "{finished}");
    assert_eq!(span["tool"], "billing", "{finished}");
    assert_eq!(span["action"], "get_invoice", "{finished}");
    assert_eq!(span["outcome"], "error", "{finished}");
    assert_eq!(span["code"], "NOT_FOUND", "{finished}");
    assert!(span["caller"].as_str().is_some(), "{finished}");
    assert!(span["duration_ms"].as_f64().is_some(), "{finished}");
    let _ = child.kill();
    let _ = child.wait();
}
