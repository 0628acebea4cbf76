//! Who a per-caller rate limit counts: an anonymous HTTP client by its
//! address (a new MCP session is not a new budget), or by the proxy's
//! `X-Forwarded-For` with `--trust-forwarded-for`; a stdio client is one
//! caller.

use crate::raw::{RawHttp, RawStdio, call_request};
use crate::support::{FUSION, HttpServer, TempDb};
use serde_json::{Value, json};

const LIMIT: [&str; 6] = [
    "--rate-limit",
    "2/min",
    "--rate-limit-scope",
    "caller",
    "--report-ms",
    "1ms",
];

fn list() -> Value {
    json!({"action": "list_invoices", "limit": 1})
}

/// The envelope code of a `tools/call` answer (`OK` for a success).
fn code(message: &Value) -> String {
    let result = &message["result"];
    if result["isError"] != true {
        return String::from("OK");
    }
    result["_meta"]["mcp-fusion/error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("an envelope: {message}"))
        .to_owned()
}

/// One call in a session of its own, as a new client would.
async fn call_in_new_session(http: &RawHttp, forwarded_for: Option<&str>) -> String {
    let session = http.initialize().await;
    let mut headers = vec![
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    if let Some(address) = forwarded_for {
        headers.push(("x-forwarded-for", address));
    }
    let reply = http
        .post(call_request(2, "billing", list()).to_string(), &headers)
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    code(&reply.message())
}

#[test]
fn five_fusion_call_runs_share_one_budget() {
    let db = TempDb::new("callers-cli");
    let server = HttpServer::start_with(&db.0, &LIMIT);
    let mut codes = Vec::new();
    for _ in 0..5 {
        let output = std::process::Command::new(FUSION)
            .args([
                "call",
                "--json",
                &server.url,
                "billing.list_invoices",
                r#"{"limit": 1}"#,
            ])
            .output()
            .expect("run fusion call");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let parsed: Value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
        codes.push((
            output.status.code(),
            parsed["error"]["code"].as_str().unwrap_or("OK").to_owned(),
        ));
    }
    assert_eq!(
        codes,
        [
            (Some(0), String::from("OK")),
            (Some(0), String::from("OK")),
            (Some(1), String::from("RATE_LIMITED")),
            (Some(1), String::from("RATE_LIMITED")),
            (Some(1), String::from("RATE_LIMITED")),
        ]
    );
}

#[tokio::test]
async fn forwarded_for_is_ignored_unless_trusted() {
    let db = TempDb::new("callers-xff");
    let server = HttpServer::start_with(&db.0, &LIMIT);
    let http = RawHttp::new(&server.url);
    let mut codes = Vec::new();
    for address in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        codes.push(call_in_new_session(&http, Some(address)).await);
    }
    assert_eq!(codes, ["OK", "OK", "RATE_LIMITED"]);
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_address_has_its_budget() {
    let db = TempDb::new("callers-proxy");
    let mut options = LIMIT.to_vec();
    options.push("--trust-forwarded-for");
    let server = HttpServer::start_with(&db.0, &options);
    assert!(
        server
            .banner
            .iter()
            .any(|l| l.contains("the last X-Forwarded-For address")),
        "{:?}",
        server.banner
    );
    let http = RawHttp::new(&server.url);
    let mut codes = Vec::new();
    for address in [
        "198.51.100.7, 203.0.113.1",
        "203.0.113.1",
        "203.0.113.2",
        "203.0.113.1",
    ] {
        codes.push(call_in_new_session(&http, Some(address)).await);
    }
    assert_eq!(codes, ["OK", "OK", "OK", "RATE_LIMITED"]);
}

#[test]
fn a_stdio_client_is_one_caller() {
    let db = TempDb::new("callers-stdio");
    let mut server = RawStdio::start(db.path(), &LIMIT);
    server.initialize();
    let mut codes = Vec::new();
    for id in 1..=3 {
        server.line(&call_request(id, "billing", list()).to_string());
        codes.push(code(&server.read()));
    }
    assert_eq!(codes, ["OK", "OK", "RATE_LIMITED"]);
}
