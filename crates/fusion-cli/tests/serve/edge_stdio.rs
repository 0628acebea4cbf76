//! `fusion serve --stdio` spoken to in raw lines: every message it cannot
//! read gets the JSON-RPC 2.0 §5 answer, and the session goes on.

use crate::raw::{RawStdio, call_request};
use crate::support::TempDb;
use serde_json::{Value, json};

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
    // Params that are not an object are named in JSON's terms, not Rust's.
    server.line(r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":[1]}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 13, "error": {"code": -32602, "message": "Invalid params for tools/call: params must be an object: {\"name\": the tool's name, \"arguments\": an object}"}})
    );
    // A key given twice in the arguments: a field error the model reads.
    server.line(r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"billing","arguments":{"action":"get_invoice","id":"inv_2","action":"pay_invoice"}}}"#);
    assert_eq!(server.read(), repeated_action_result(14));
    // A key of the params themselves, which rmcp cannot read: named too.
    server.line(r#"{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"billing","name":"billing_health","arguments":{}}}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 15, "error": {"code": -32602, "message": "Invalid params for tools/call: the key \"name\" appears twice in one object; send each key once"}})
    );
    // A cursor that is not a string is refused, not read as no cursor.
    server.line(r#"{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{"cursor":5}}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 16, "error": {"code": -32602, "message": "Invalid params for tools/list: \"cursor\" must be a string, the nextCursor of the previous page (you sent 5); omit it for the first page"}})
    );
    // A repeated key anywhere, for every standard method: a cursor given
    // twice would otherwise be read as none.
    for (id, line, method, key) in [
        (
            18,
            r#"{"jsonrpc":"2.0","id":18,"method":"tools/list","params":{"cursor":"x","cursor":"y"}}"#,
            "tools/list",
            "cursor",
        ),
        (
            19,
            r#"{"jsonrpc":"2.0","id":19,"method":"ping","params":{"x":1,"x":1}}"#,
            "ping",
            "x",
        ),
        (
            20,
            r#"{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"billing_health","_meta":{},"_meta":{},"arguments":{}}}"#,
            "tools/call",
            "_meta",
        ),
    ] {
        server.line(line);
        assert_eq!(
            server.read(),
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!("Invalid params for {method}: the key \"{key}\" appears twice in one object; send each key once")}}),
            "{line}"
        );
    }
    // A connection is initialized once.
    server.line(r#"{"jsonrpc":"2.0","id":17,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"again","version":"1"}}}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 17, "error": {"code": -32600, "message": "Invalid Request: this session is already initialized; initialize is sent once, as a session's first request (start a new session to initialize again)"}})
    );
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

#[test]
fn a_request_id_in_use_or_cancelled_is_refused_and_an_answered_one_is_free() {
    let db = TempDb::new("duplicate-id-stdio");
    let mut server = RawStdio::start(db.path(), &["--report-ms", "1s"]);
    server.initialize();
    let report = call_request(
        1,
        "billing",
        json!({"action": "generate_report", "period": "day"}),
    )
    .to_string();
    server.line(&report);
    server.line(&report);
    // `"1"` is another id than `1` (JSON-RPC 2.0 §4).
    server.line(r#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "Invalid Request: a request with id 1 is already in progress in this session; use a new id"}})
    );
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": "1", "result": {}})
    );
    let answer = server.read();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    // Answered: the id is free again.
    server.line(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}})
    );
    // Cancelled: rmcp never answers it, and the id stays in use.
    server.line(&report.replace("\"id\":1", "\"id\":2"));
    server.line(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#);
    server.line(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    server.line(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    assert_eq!(server.read()["error"]["code"], -32600);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 3, "result": {}})
    );
    assert_eq!(server.finish().code(), Some(0));
}

#[test]
fn a_line_with_more_json_values_than_the_limit_is_answered_unparsed() {
    let db = TempDb::new("many-values-stdio");
    let mut server = RawStdio::start(db.path(), &["--max-json-values", "1000"]);
    server.initialize();
    let items = vec![json!({}); 1000];
    server.line(
        &call_request(
            2,
            "billing",
            json!({"action": "create_invoice", "customer_email": "a@b.co", "amount_cents": 1, "currency": "USD", "items": items}),
        )
        .to_string(),
    );
    let answer = server.read();
    assert_eq!(answer["id"], 2);
    assert_eq!(answer["result"]["isError"], true);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        crate::edge_http::TOO_MANY_VALUES_ENVELOPE
    );
    let pad = vec![json!({}); 1000];
    server.line(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": {"pad": pad}}})
            .to_string(),
    );
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "Invalid Request: the message holds more than 1000 JSON values, this server's limit; send less in one message"}})
    );
    // A notification over the limit is not answered: the next line read is
    // the answer to the ping after it.
    let pad = vec![json!({}); 1000];
    server.line(
        &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"_meta": {"pad": pad}}})
            .to_string(),
    );
    server.line(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
    assert_eq!(
        server.read(),
        json!({"jsonrpc": "2.0", "id": 4, "result": {}})
    );
}

/// The tool result of a `billing` call whose arguments give `action` twice
/// (wire contract §4), answering request `id`.
pub(crate) fn repeated_action_result(id: u64) -> Value {
    let line = "Repeated key. You sent: \"action\" twice in one object. Expected each key once: readers disagree on which of the two values counts.";
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": format!(
            "Fix the fields below and call billing again.\n<validation_error action=\"billing\">\n  <field name=\"(root)\">{line}</field>\n  <recovery>Do not explain the error.</recovery>\n</validation_error>"
        )}],
        "isError": true,
        "_meta": {"mcp-fusion/error": {
            "code": "VALIDATION_ERROR",
            "severity": "error",
            "message": "The arguments for billing are not valid (1 problem).",
            "recovery": "Fix the fields below and call billing again. Do not explain the error.",
            "action": "billing",
            "fields": [{"path": "(root)", "message": line}]
        }}
    }})
}
