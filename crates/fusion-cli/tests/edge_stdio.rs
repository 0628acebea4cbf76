//! `fusion serve --stdio` spoken to in raw lines: every message it cannot
//! read gets the JSON-RPC 2.0 §5 answer, and the session goes on.

mod support;

use serde_json::{Value, json};
use support::TempDb;
use support::raw::{RawStdio, call_request};

#[test]
fn unreadable_lines_get_json_rpc_errors_and_the_session_goes_on() {
    let db = TempDb::new("jsonrpc-stdio");
    let mut server = RawStdio::start(db.path(), &[]);
    // Before the handshake too.
    server.line("hello");
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: the message cannot be read as JSON (expected value at line 1 column 1)"}})
    );
    server.initialize();
    for (line, code, id) in [
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
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        ("[1, 2]", -32600, Value::Null),
        ("42", -32600, Value::Null),
        ("{\"jsonrpc\": \"2.0\", \"id\": 1,", -32700, Value::Null),
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
        server.line(line);
        let answer = server.read();
        assert!(
            answer.as_object().is_some_and(|a| a.contains_key("id")),
            "{line}: {answer}"
        );
        assert_eq!(
            (answer["error"]["code"].as_i64(), answer["id"].clone()),
            (Some(code), id),
            "{line}: {answer}"
        );
    }
    // A notification is never answered, even an invalid one: the next line
    // read is the answer to the ping after it.
    server.line(r#"{"jsonrpc":"1.0","method":"notifications/whatever"}"#);
    server.line(r#"{"jsonrpc":"2.0","id":11,"method":"ping"}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 11, "result": {}})
    );

    server.line(
        &call_request(
            12,
            "billing",
            json!({"action": "get_invoice", "id": "inv_1"}),
        )
        .to_string(),
    );
    let answer = server.read();
    assert_eq!(answer["id"], 12);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn an_over_long_line_is_refused_without_being_kept() {
    let db = TempDb::new("long-line");
    let mut server = RawStdio::start(db.path(), &[]);
    server.initialize();
    // 17 MiB on one line, over the 16 MiB limit.
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}\n",
        "a".repeat(17 * 1024 * 1024)
    );
    server.write(long.as_bytes());
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request: the message is longer than 16777216 bytes"}})
    );
    server.line(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
}
