//! The Streamable HTTP edge of `fusion serve`, spoken to in raw HTTP:
//! `Origin` and `Host` (DNS rebinding), JSON-RPC 2.0 §5 errors, the body
//! limit, session ends, and the bound on `subscriptions/listen` streams.

use std::io::{Read, Write};
use std::time::Duration;

use crate::raw::{RawHttp, initialize_request, raw_tcp};
use crate::support::{HttpServer, TempDb};
use serde_json::{Value, json};

fn error_of(reply: &crate::raw::Reply) -> (i64, Value) {
    let message = reply.message();
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    assert!(
        message.as_object().is_some_and(|m| m.contains_key("id")),
        "a JSON-RPC error response always has an id: {message}"
    );
    (
        message["error"]["code"].as_i64().expect("an error code"),
        message["id"].clone(),
    )
}

fn init_body() -> String {
    initialize_request(1).to_string()
}

#[tokio::test]
async fn a_foreign_origin_is_refused_before_any_session_is_made() {
    let db = TempDb::new("origin");
    let server = HttpServer::start(&db.0);
    let http = RawHttp::new(&server.url);

    let evil = http
        .post(init_body(), &[("origin", "http://attacker.example")])
        .await;
    assert_eq!(evil.status, 403);
    assert_eq!(evil.header("mcp-session-id"), None);
    assert_eq!(
        evil.body,
        "Forbidden: requests from the browser origin \"http://attacker.example\" are not allowed \
         (DNS rebinding protection). To allow it: fusion serve --allowed-origin \
         http://attacker.example, or HttpOptions::allowed_origins."
    );
    for origin in [
        "null",
        "http://localhost:1",
        &format!("http://localhost:{}", server.port),
        "not an origin",
    ] {
        let reply = http.post(init_body(), &[("origin", origin)]).await;
        assert_eq!(reply.status, 403, "{origin}");
        assert_eq!(reply.header("mcp-session-id"), None, "{origin}");
    }

    // Same origin on loopback, and no Origin at all (any non-browser client).
    let same = format!("http://127.0.0.1:{}", server.port);
    let served = http.post(init_body(), &[("origin", &same)]).await;
    assert_eq!(served.status, 200, "{}", served.body);
    assert!(served.header("mcp-session-id").is_some());
    let plain = http.post(init_body(), &[]).await;
    assert_eq!(plain.status, 200);
}

#[tokio::test]
async fn listed_origins_are_served() {
    let db = TempDb::new("origins");
    let server = HttpServer::start_with(
        &db.0,
        &[
            "--allowed-origin",
            "null",
            "--allowed-origin",
            "https://app.example",
            "--allowed-origin",
            "http://localhost:*",
        ],
    );
    let http = RawHttp::new(&server.url);
    for (origin, status) in [
        ("null", 200),
        ("https://app.example", 200),
        ("https://app.example:443", 200),
        ("https://app.example:8443", 403),
        ("http://app.example", 403),
        ("http://localhost:5173", 200),
        ("https://other.example", 403),
    ] {
        let reply = http.post(init_body(), &[("origin", origin)]).await;
        assert_eq!(reply.status, status, "{origin}: {}", reply.body);
    }
}

#[test]
fn a_bad_allowed_origin_or_host_is_a_usage_error() {
    let db = TempDb::new("bad-origin");
    for (flag, value, message) in [
        (
            "--allowed-origin",
            "example.com",
            "allowed origin \"example.com\" is not scheme://host[:port] (or :* for any port, or null; no wildcard hosts)",
        ),
        (
            "--allowed-host",
            "*",
            "allowed host \"*\" is not a host name or host:port (no wildcards: list each name)",
        ),
    ] {
        let output = std::process::Command::new(crate::support::FUSION)
            .args(["serve", "--port", "0", "--db", db.path(), flag, value])
            .output()
            .expect("run fusion serve");
        assert_eq!(output.status.code(), Some(2), "{flag} {value}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{stderr}");
    }
}

#[test]
fn two_host_headers_get_400_and_a_foreign_host_gets_403_naming_the_flag() {
    let db = TempDb::new("host");
    let server = HttpServer::start(&db.0);
    let body = init_body();
    let request = |head: &str| {
        format!(
            "{head}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let port = server.port;
    let (status, rest) = raw_tcp(
        port,
        request(&format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nhost: 127.0.0.1:{port}"
        ))
        .as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 400 Bad Request", "{rest}");
    assert!(
        rest.ends_with("Bad Request: more than one Host header"),
        "{rest}"
    );

    let (status, rest) = raw_tcp(
        port,
        request(&format!("POST /mcp HTTP/1.1\r\nhost: 192.168.1.5:{port}")).as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 403 Forbidden");
    assert!(
        rest.ends_with(&format!(
            "Forbidden: this server does not answer to the host \"192.168.1.5:{port}\" (DNS rebinding protection). To serve it, allow it: fusion serve --allowed-host 192.168.1.5, or HttpOptions::allowed_hosts."
        )),
        "{rest}"
    );

    // An absolute request target names the host too.
    let (status, _) = raw_tcp(
        port,
        request(&format!(
            "POST http://evil.example/mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}"
        ))
        .as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 403 Forbidden");

    let (status, _) = raw_tcp(
        port,
        request(&format!("POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}")).as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
    // Other spellings of a loopback address are that address.
    for host in ["[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "LOCALHOST"] {
        let (status, rest) = raw_tcp(
            port,
            request(&format!("POST /mcp HTTP/1.1\r\nhost: {host}:{port}")).as_bytes(),
        );
        assert_eq!(status, "HTTP/1.1 200 OK", "{host}: {rest}");
    }

    let allowed = HttpServer::start_with(&db.0, &["--allowed-host", "192.168.1.5"]);
    let port = allowed.port;
    let (status, _) = raw_tcp(
        port,
        request(&format!("POST /mcp HTTP/1.1\r\nhost: 192.168.1.5:{port}")).as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
}

#[test]
fn a_non_loopback_address_without_allowed_host_warns_naming_the_flag() {
    let db = TempDb::new("bind-all");
    let server = HttpServer::start_with(&db.0, &["--host", "0.0.0.0"]);
    let banner = server.banner.join("\n");
    assert!(
        banner.contains(
            "warning: listening on 0.0.0.0 but answering only to the Host names localhost, 127.0.0.1 and ::1;"
        ),
        "{banner}"
    );
    assert!(banner.contains("--allowed-host NAME"), "{banner}");
    let quiet = HttpServer::start_with(
        &db.0,
        &["--host", "0.0.0.0", "--allowed-host", "example.test"],
    );
    assert!(
        !quiet.banner.join("\n").contains("warning"),
        "{:?}",
        quiet.banner
    );
}

#[tokio::test]
async fn malformed_json_rpc_gets_json_rpc_errors_and_the_session_goes_on() {
    let db = TempDb::new("jsonrpc-http");
    let server = HttpServer::start(&db.0);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    let in_session = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];

    let not_json = http.post("hello", &in_session).await;
    assert_eq!(not_json.status, 400);
    assert_eq!(not_json.header("content-type"), Some("application/json"));
    assert_eq!(
        not_json.message(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: the message cannot be read as JSON (expected value at line 1 column 1)"}})
    );
    for (body, code, id) in [
        (r#"{"jsonrpc":"2.0","id":7}"#, -32600, json!(7)),
        (
            r#"{"jsonrpc":"2.0","id":"x","method":5}"#,
            -32600,
            json!("x"),
        ),
        (
            r#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#,
            -32600,
            json!(8),
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        ("[1, 2]", -32600, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{}}}"#,
            -32602,
            json!(9),
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":5}"#,
            -32602,
            json!(10),
        ),
    ] {
        let reply = http.post(body, &in_session).await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.body);
        assert_eq!(error_of(&reply), (code, id), "{body}");
    }
    let missing_name = http
        .post(
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{}}}"#,
            &in_session,
        )
        .await;
    assert_eq!(
        missing_name.message()["error"]["message"],
        "Invalid params for tools/call: missing field `name`"
    );
    // A key given twice in the arguments (a proxy reading the first
    // `action` would see a read-only call, serde_json the last): a field
    // error the model reads, in a 200.
    let twice = http
        .post(
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"billing","arguments":{"action":"get_invoice","id":"inv_2","action":"pay_invoice"}}}"#,
            &in_session,
        )
        .await;
    assert_eq!(twice.status, 200, "{}", twice.body);
    assert_eq!(
        twice.message(),
        crate::edge_stdio::repeated_action_result(12)
    );
    // Params rmcp's types read without a word: -32602, the id kept.
    for (body, id, message) in [
        // A key of the params themselves: which tool is called.
        (
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"billing","name":"billing_health","arguments":{}}}"#,
            14,
            "Invalid params for tools/call: the key \"name\" appears twice in one object; send each key once",
        ),
        // A cursor that is not a string, not read as no cursor.
        (
            r#"{"jsonrpc":"2.0","id":15,"method":"prompts/list","params":{"cursor":{"page":2}}}"#,
            15,
            "Invalid params for prompts/list: \"cursor\" must be a string, the nextCursor of the previous page (you sent {\"page\":2}); omit it for the first page",
        ),
        // A prompt's arguments: which invoice it is about.
        (
            r#"{"jsonrpc":"2.0","id":13,"method":"prompts/get","params":{"name":"payment_reminder","arguments":{"id":"inv_2","id":"inv_1"}}}"#,
            13,
            "Invalid params for prompts/get: the key \"id\" appears twice in one object; send each key once",
        ),
    ] {
        let reply = http.post(body, &in_session).await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.body);
        assert_eq!(
            reply.message(),
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": message}}),
            "{body}"
        );
    }

    // 415 stays for a wrong Content-Type only.
    let plain = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "text/plain")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .body("hello")
        .send()
        .await
        .expect("an answer");
    assert_eq!(plain.status(), 415);

    // The session goes on.
    let reply = http
        .call(
            &session,
            11,
            "billing",
            json!({"action": "get_invoice", "id": "inv_1"}),
        )
        .await;
    assert_eq!(reply.status, 200);
    let message = reply.message();
    assert_eq!(message["id"], 11);
    assert_eq!(message["result"]["isError"], false, "{message}");
}

#[test]
fn a_body_over_the_limit_is_refused() {
    let db = TempDb::new("max-body");
    let server = HttpServer::start_with(&db.0, &["--max-body", "1KiB"]);
    let port = server.port;
    // Refused on its Content-Length alone: no body is sent at all.
    let (status, rest) = raw_tcp(
        port,
        format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 5000000\r\n\r\n"
        )
        .as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 413 Payload Too Large");
    assert!(
        rest.ends_with("Payload Too Large: the request body is over the limit of 1024 bytes"),
        "{rest}"
    );
    // A chunked body that grows past the limit.
    let chunk = "x".repeat(800);
    let (status, _) = raw_tcp(
        port,
        format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n320\r\n{chunk}\r\n320\r\n{chunk}\r\n0\r\n\r\n"
        )
        .as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 413 Payload Too Large");
}

/// A client still sending a body without `Content-Length` when the limit
/// is reached reads its 413: the server reads the rest (up to 1 MiB)
/// before it answers, rather than closing on unread bytes, which resets
/// the connection and loses the answer (RFC 9112 §9.6).
#[test]
fn a_client_still_sending_a_body_over_the_limit_reads_its_413() {
    use std::io::{Read, Write};

    let db = TempDb::new("max-body-sending");
    let server = HttpServer::start_with(&db.0, &["--max-body", "1KiB"]);
    let port = server.port;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .expect("a read timeout");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).expect("write the head");
    let chunk = format!("2000\r\n{}\r\n", "x".repeat(0x2000));
    // 512 KiB in 64 writes, the server reaching the limit after the first.
    for _ in 0..64 {
        stream
            .write_all(chunk.as_bytes())
            .expect("the body is read");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    stream.write_all(b"0\r\n\r\n").expect("the body is read");
    let mut answer = [0u8; 1024];
    let read = stream
        .read(&mut answer)
        .expect("the answer is read, not reset");
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(
        answer.starts_with("HTTP/1.1 413 Payload Too Large\r\n"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_session_is_initialized_once() {
    let db = TempDb::new("initialize-twice");
    let server = HttpServer::start(&db.0);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    let again = http
        .send(Some(&session), &crate::raw::initialize_request(2))
        .await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.message()["error"]["code"], -32600, "{}", again.body);
    assert_eq!(again.message()["id"], 2, "{}", again.body);
    let after = http
        .call(
            &session,
            3,
            "billing",
            json!({"action": "get_invoice", "id": "inv_1"}),
        )
        .await;
    assert_eq!(after.status, 200, "the session goes on: {}", after.body);
}

#[tokio::test]
async fn deleting_an_unknown_session_is_404_and_a_known_one_ends_it() {
    let db = TempDb::new("delete");
    let server = HttpServer::start(&db.0);
    let http = RawHttp::new(&server.url);
    let unknown = http.delete("no-such-session").await;
    assert_eq!(unknown.status, 404);
    assert_eq!(
        unknown.body,
        "Not Found: no such session (it ended, or never existed)"
    );

    let session = http.initialize().await;
    assert_eq!(http.delete(&session).await.status, 204);
    let after = http
        .call(
            &session,
            2,
            "billing",
            json!({"action": "get_invoice", "id": "inv_1"}),
        )
        .await;
    assert_eq!(after.status, 404);
    assert_eq!(http.delete(&session).await.status, 404);
}

#[tokio::test]
async fn odd_but_readable_messages_get_exact_answers() {
    let db = TempDb::new("odd-jsonrpc");
    let server = HttpServer::start(&db.0);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    let in_session = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    // A byte order mark may start a JSON text (RFC 8259 §8.1).
    let bom = http
        .post(
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
            &in_session,
        )
        .await;
    assert_eq!(bom.status, 200, "{}", bom.body);
    assert!(bom.message()["result"]["tools"].is_array());
    // One mark only: a second one is not JSON.
    let two = http
        .post(
            "\u{feff}\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
            &in_session,
        )
        .await;
    assert_eq!(two.status, 400, "{}", two.body);
    assert_eq!(two.message()["error"]["code"], -32700, "{}", two.body);
    assert_eq!(two.message()["id"], Value::Null, "{}", two.body);
    for (body, expected) in [
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or an integer"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or an integer"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the \"id\" member appears more than once"}}"#,
        ),
    ] {
        let reply = http.post(body, &in_session).await;
        assert_eq!(
            (reply.status, reply.body.as_str()),
            (400, expected),
            "{body}"
        );
    }
}

#[tokio::test]
async fn a_large_handshake_is_refused() {
    let db = TempDb::new("fat-initialize");
    let server = HttpServer::start(&db.0);
    let http = RawHttp::new(&server.url);
    let mut request = initialize_request(1);
    request["params"]["capabilities"]["experimental"] = json!({"x": {"y": vec![0; 40_000]}});
    let reply = http.post(request.to_string(), &[]).await;
    assert_eq!(reply.status, 413);
    assert_eq!(
        reply.body,
        "Payload Too Large: an initialize request may be at most 16384 bytes"
    );
    assert_eq!(reply.header("mcp-session-id"), None);
}

#[tokio::test]
async fn a_request_id_in_use_in_its_session_is_refused() {
    let db = TempDb::new("duplicate-id");
    let server = HttpServer::start_with(&db.0, &["--report-ms", "1500ms"]);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    let report = json!({"action": "generate_report", "period": "day"});
    let first = {
        let http = http.clone();
        let session = session.clone();
        let report = report.clone();
        tokio::spawn(async move { http.call(&session, 7, "billing", report).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let second = http.call(&session, 7, "billing", report.clone()).await;
    assert_eq!(second.status, 400);
    assert_eq!(
        second.body,
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: a request with id 7 is already in progress in this session; use a new id"}}"#
    );
    // `"7"` is another id than `7` (JSON-RPC 2.0 §4).
    let mut ping = json!({"jsonrpc": "2.0", "id": "7", "method": "ping"});
    let other = http.send(Some(&session), &ping).await;
    assert_eq!(other.status, 200, "{other:?}");
    assert_eq!(
        other.message(),
        json!({"jsonrpc": "2.0", "id": "7", "result": {}})
    );
    let first = first.await.expect("a task");
    assert_eq!(first.status, 200);
    assert_eq!(first.message()["id"], 7);
    ping["id"] = json!(7);
    assert_eq!(http.send(Some(&session), &ping).await.status, 200);
    // Once answered, the id may be used again.
    assert_eq!(http.call(&session, 7, "billing", report).await.status, 200);
}

#[test]
fn a_body_that_does_not_arrive_in_time_gets_408_and_stalled_headers_are_cut() {
    let db = TempDb::new("read-timeout");
    let server = HttpServer::start_with(&db.0, &["--read-timeout", "1s"]);
    let port = server.port;
    let (status, rest) = raw_tcp(
        port,
        format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{{\"jsonrpc\""
        )
        .as_bytes(),
    );
    assert_eq!(status, "HTTP/1.1 408 Request Timeout", "{rest}");
    assert!(
        rest.ends_with("Request Timeout: the body did not arrive within 1 second"),
        "{rest}"
    );
    // Headers that never end: the connection is closed (hyper answers 408
    // too) instead of being held open.
    let (status, _) = raw_tcp(
        port,
        format!("POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nx-slow: 1").as_bytes(),
    );
    assert!(
        status.is_empty() || status.starts_with("HTTP/1.1 408"),
        "{status:?}"
    );
    // Connections that say nothing, or not enough to be a request, or
    // nothing more after an answered request, are closed too: held open they
    // would use up the server's file descriptors.
    let idle_after_answer = format!("GET /other HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n\r\n");
    for sent in [
        &b""[..],
        b"P",
        b"PRI * HTTP/2.0\r\n",
        idle_after_answer.as_bytes(),
    ] {
        assert!(
            closed_within(port, sent, Duration::from_secs(10)),
            "{:?} stayed open",
            String::from_utf8_lossy(sent)
        );
    }
}

/// Whether the server closes a connection on which `sent` was written
/// within `limit`.
fn closed_within(port: u16, sent: &[u8], limit: Duration) -> bool {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(limit))
        .expect("a read timeout");
    stream.write_all(sent).expect("write");
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) => {
                return !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                );
            }
        }
    }
}

#[tokio::test]
async fn millions_of_bad_items_are_counted_not_phrased() {
    let db = TempDb::new("fat-call");
    let server = HttpServer::start(&db.0);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    let items = vec![0; 50_000];
    let reply = http
        .call(
            &session,
            2,
            "billing",
            json!({"action": "create_invoice", "customer_email": "a@b.co", "amount_cents": 1, "currency": "USD", "items": items}),
        )
        .await;
    assert_eq!(reply.status, 200);
    let message = reply.message();
    let meta = &message["result"]["_meta"]["mcp-fusion/error"];
    let fields = meta["fields"].as_array().expect("fields");
    // A hundred lines, then the count of the rest, which stops at 10 000.
    assert_eq!(fields.len(), 101);
    assert_eq!(
        fields[100],
        json!({"path": "(more)", "message": "At least 10000 more problems are not shown. Fix the fields above and call again to see the rest."})
    );
    assert_eq!(
        meta["message"],
        "The arguments for billing.create_invoice are not valid (at least 10100 problems)."
    );
}

#[test]
fn a_host_name_for_host_and_a_busy_port_are_explained() {
    let db = TempDb::new("host-name");
    let out = std::process::Command::new(crate::support::FUSION)
        .arg("serve")
        .arg("--db")
        .arg(&db.0)
        .args(["--host", "localhost"])
        .output()
        .expect("run fusion");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"localhost\" is not an IP address; give one such as 127.0.0.1, ::1 or 0.0.0.0 (host names are not accepted)"),
        "{stderr}"
    );

    let server = HttpServer::start(&db.0);
    let out = std::process::Command::new(crate::support::FUSION)
        .arg("serve")
        .arg("--db")
        .arg(&db.0)
        .args(["--port", &server.port.to_string()])
        .output()
        .expect("run fusion");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "(another server listens there: stop it, or choose another port with --port N)"
        ),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_body_with_more_json_values_than_the_limit_is_answered_unparsed() {
    let db = TempDb::new("many-values");
    let server = HttpServer::start_with(&db.0, &["--max-json-values", "1000"]);
    let http = RawHttp::new(&server.url);
    let session = http.initialize().await;
    // 1 000 empty items make the call 1 012 JSON values: the model is told
    // so in a tool result it can act on.
    let items = vec![json!({}); 1000];
    let reply = http
        .call(
            &session,
            2,
            "billing",
            json!({"action": "create_invoice", "customer_email": "a@b.co", "amount_cents": 1, "currency": "USD", "items": items}),
        )
        .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let message = reply.message();
    assert_eq!(message["id"], 2);
    assert_eq!(message["result"]["isError"], true);
    assert_eq!(
        message["result"]["content"][0]["text"],
        TOO_MANY_VALUES_ENVELOPE
    );
    assert_eq!(
        message["result"]["_meta"]["mcp-fusion/error"]["code"],
        "VALIDATION_ERROR"
    );
    // Any other request: -32600, with its id.
    let pad = vec![json!({}); 1000];
    let reply = http
        .send(
            Some(&session),
            &json!({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": {"pad": pad}}}),
        )
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.message(),
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "Invalid Request: the message holds more than 1000 JSON values, this server's limit; send less in one message"}})
    );
    // At the limit, the call is read and validated as usual, and the
    // session goes on.
    // 988 items: 1 000 values.
    let items = vec![json!({}); 988];
    let reply = http
        .call(
            &session,
            4,
            "billing",
            json!({"action": "create_invoice", "customer_email": "a@b.co", "amount_cents": 1, "currency": "USD", "items": items}),
        )
        .await;
    let meta = &reply.message()["result"]["_meta"]["mcp-fusion/error"];
    assert_eq!(
        meta["message"],
        "The arguments for billing.create_invoice are not valid (2965 problems)."
    );
}

/// The `<validation_error>` of a call over `--max-json-values 1000`.
pub(crate) const TOO_MANY_VALUES_ENVELOPE: &str = "Fix the fields below and call billing again.\n<validation_error action=\"billing\">\n  <field name=\"(root)\">Too many values. You sent: more than 1000 JSON values in one request. Expected at most 1000 (objects, arrays, strings, numbers, booleans and nulls each count one): send the data in several smaller calls.</field>\n  <recovery>Do not explain the error.</recovery>\n</validation_error>";

/// POSTs a 2026-07-28 `subscriptions/listen` request with id `id`.
async fn listen(url: &str, id: i64) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .json(&json!({
            "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                },
                "notifications": {"toolsListChanged": true}
            }
        }))
        .send()
        .await
        .expect("the server answers")
}

#[tokio::test]
async fn listen_streams_are_bounded_per_caller_by_the_flag() {
    let db = TempDb::new("listen-streams");
    let server = HttpServer::start_with(&db.0, &["--max-listen-streams-per-caller", "1"]);
    let mut first = listen(&server.url, 1).await;
    assert_eq!(first.status(), 200);
    // The acknowledgement has arrived: the stream is open.
    let chunk = first.chunk().await.expect("reads").expect("a first event");
    assert!(
        String::from_utf8_lossy(&chunk).contains("notifications/subscriptions/acknowledged"),
        "{}",
        String::from_utf8_lossy(&chunk)
    );
    let second = listen(&server.url, 2).await;
    assert_eq!(second.status(), 429);
    assert_eq!(
        second
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap()),
        Some("5")
    );
    assert_eq!(
        second.json::<Value>().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "error": {
            "code": -32000,
            "message": "Too many subscriptions/listen streams: this caller holds 1 open, the most allowed; close one or try again in 5 seconds"
        }})
    );
    drop(first);
}
