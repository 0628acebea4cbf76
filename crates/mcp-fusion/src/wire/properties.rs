//! Properties of reading untrusted messages (random bytes, and JSON-RPC
//! messages whose members are random JSON): the walk and the parse never
//! panic, a message that does not parse gets one line of JSON that is a
//! JSON-RPC 2.0 error response (§5), and a message over the value limit
//! gets an answer whatever it holds.

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::jsonrpc::{reject_unreadable, too_many_values};
use super::message_text::MessageText;

/// The value limit of these reads: small, so that generated messages cross it.
const MAX_VALUES: usize = 24;

/// Any JSON value, up to three levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z_/\\\\\"\u{0}-\u{7f}é]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::from),
            btree_map("[a-z_]{0,6}", inner, 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A JSON-RPC message of MCP, its members each there or not, each well
/// formed or random.
fn any_message() -> impl Strategy<Value = Value> {
    let method = prop_oneof![
        Just(json!("tools/call")),
        Just(json!("tools/list")),
        Just(json!("initialize")),
        Just(json!("resources/read")),
        Just(json!("notifications/cancelled")),
        any_json(),
    ];
    let params = prop_oneof![
        Just(json!({"name": "billing", "arguments": {"action": "list"}})),
        Just(json!({"cursor": 5})),
        any_json(),
    ];
    (
        proptest::option::of(prop_oneof![Just(json!("2.0")), any_json()]),
        proptest::option::of(prop_oneof![Just(json!(1)), Just(json!("a")), any_json()]),
        proptest::option::of(method),
        proptest::option::of(params),
    )
        .prop_map(|(jsonrpc, id, method, params)| {
            let mut message = Map::new();
            for (key, value) in [
                ("jsonrpc", jsonrpc),
                ("id", id),
                ("method", method),
                ("params", params),
            ] {
                if let Some(value) = value {
                    message.insert(key.to_owned(), value);
                }
            }
            Value::Object(message)
        })
}

/// Asserts that `answer` is one line of JSON, a JSON-RPC 2.0 error response
/// with a standard code.
fn assert_error_line(answer: &str) -> Result<(), TestCaseError> {
    prop_assert!(!answer.contains('\n'), "{answer}");
    let answer: Value = serde_json::from_str(answer)
        .map_err(|e| TestCaseError::fail(format!("not JSON ({e}): {answer}")))?;
    prop_assert_eq!(&answer["jsonrpc"], "2.0");
    prop_assert!(answer.get("id").is_some(), "{answer}");
    let code = answer["error"]["code"].as_i64();
    prop_assert!(
        matches!(code, Some(-32700 | -32600 | -32601 | -32602)),
        "{answer}"
    );
    prop_assert!(answer["error"]["message"].is_string(), "{answer}");
    Ok(())
}

/// Reads `bytes` as the transports do: the walk, then the parse, and the
/// answer to what does not parse or holds too many values.
fn read(bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = MessageText::read(bytes, MAX_VALUES);
    let _ = (text.odd_cursor(), text.repeated_key());
    if let Some(too_many) = too_many_values(&text, true) {
        prop_assert!(!too_many.answer.contains('\n'));
        let answer: Value = serde_json::from_str(&too_many.answer)
            .map_err(|e| TestCaseError::fail(format!("not JSON ({e})")))?;
        prop_assert_eq!(&answer["jsonrpc"], "2.0");
        return Ok(());
    }
    if text.message().is_err() {
        assert_error_line(&reject_unreadable(bytes, text.repeated_key()).answer)?;
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_bytes_are_read_or_answered_with_an_error_line(
        bytes in vec(any::<u8>(), 0..200),
    ) {
        read(&bytes)?;
    }

    #[test]
    fn any_message_is_read_or_answered_with_an_error_line(message in any_message()) {
        read(message.to_string().as_bytes())?;
    }

    #[test]
    fn a_message_with_bytes_changed_is_read_or_answered(
        message in any_message(),
        edits in vec((any::<usize>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = message.to_string().into_bytes();
        for (at, byte) in edits {
            let len = bytes.len();
            bytes[at % len] = byte;
        }
        read(&bytes)?;
    }
}
