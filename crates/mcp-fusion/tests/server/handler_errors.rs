//! The server runtime end to end: what a handler's error becomes, through
//! `FusionServer::call`, in process, with the exact text the model reads. A
//! returned or propagated `ToolError` reaches the wire intact; a panic or any
//! other error is the masked `INTERNAL_ERROR` with an error id, its text shown
//! only when internal errors are exposed (wire contract §2, §5, §6). Every test
//! asserts the whole envelope, `isError` and `_meta`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_fusion::envelope::{ParsedEnvelope, parse};
use serde_json::json;

use crate::server::{Calls, builder, call, fixture};
use crate::support::{assert_error, check_envelope, error_id_of, internal_envelope, texts};

#[tokio::test]
async fn empty_message_becomes_the_codes_default_sentence() {
    let (server, _) = fixture();
    let result = call(&server, "empty_message", json!({})).await;
    assert_error(
        &result,
        "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>The requested item was not found.</message>\n</tool_error>",
        &json!({"code": "NOT_FOUND", "severity": "error", "message": "The requested item was not found."}),
    );

    // A message emptied after construction (the fields are public) too.
    let result = call(&server, "cleared_message", json!({})).await;
    assert_error(
        &result,
        "<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>The request conflicts with the current state.</message>\n  <recovery>Reload it first.</recovery>\n</tool_error>",
        &json!({
            "code": "CONFLICT",
            "severity": "error",
            "message": "The request conflicts with the current state.",
            "recovery": "Reload it first."
        }),
    );
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error_and_the_server_keeps_serving() {
    let (server, calls) = fixture();
    let result = call(&server, "crash", json!({"panic": true})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("crash", &id, None);
    assert_error(&result, &text, &meta);
    assert!(!text.contains("hunter2") && !text.contains("panic"));
    assert!(!meta.to_string().contains("hunter2"));

    let next = call(&server, "crash", json!({"panic": false})).await;
    assert_eq!(texts(&next), ["survived"]);
    assert_eq!(next.is_error, Some(false));
    // Another panic gets a new id.
    let again = call(&server, "crash", json!({"panic": true})).await;
    assert_ne!(error_id_of(&again), id);
    assert_eq!(calls.crash.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_panic_text_is_shown_only_when_internal_errors_are_exposed() {
    let calls = Arc::new(Calls::default());
    let server = builder(&calls)
        .expose_internal_errors(true)
        .build()
        .unwrap();
    let result = call(&server, "crash", json!({"panic": true})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope(
        "crash",
        &id,
        Some("panic: secret panic text: password=hunter2"),
    );
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn a_non_tool_error_is_an_internal_error_without_its_text() {
    let (server, _) = fixture();
    let result = call(&server, "io_fail", json!({})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("io_fail", &id, None);
    assert_error(&result, &text, &meta);
    assert!(!text.contains("disk full") && !text.contains("/var/lib"));

    // The same through a user error enum: still unmarked.
    let result = call(&server, "wrapped_io", json!({})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("wrapped_io", &id, None);
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn exposed_internal_errors_carry_their_text_in_a_detail() {
    let calls = Arc::new(Calls::default());
    let server = builder(&calls)
        .expose_internal_errors(true)
        .build()
        .unwrap();
    let result = call(&server, "io_fail", json!({})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("io_fail", &id, Some("disk full at /var/lib/secret"));
    assert_error(&result, &text, &meta);

    let result = call(&server, "wrapped_io", json!({})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope(
        "wrapped_io",
        &id,
        Some("storage failed: permission denied: /etc/shadow"),
    );
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn a_tool_error_propagated_through_a_user_error_enum_stays_marked() {
    let (server, _) = fixture();
    let result = call(&server, "wrapped", json!({})).await;
    assert_error(
        &result,
        "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>No such project.</message>\n  <recovery>List projects first.</recovery>\n  <available_actions>\n    <action>projects.list</action>\n  </available_actions>\n  <details>\n    <detail key=\"requestedId\">p_9</detail>\n  </details>\n  <retry_after>30 seconds</retry_after>\n</tool_error>",
        &json!({
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No such project.",
            "recovery": "List projects first.",
            "available_actions": ["projects.list"],
            "details": {"requestedId": "p_9"},
            "retry_after_seconds": 30
        }),
    );
}

#[tokio::test]
async fn control_characters_and_lossy_text_still_give_a_well_formed_envelope() {
    let (server, _) = fixture();
    let result = call(&server, "control", json!({})).await;
    let message =
        "Row r\u{fffd}w: NUL \u{fffd} bell \u{fffd} escape \u{fffd}[31m in <row> & \"quotes\"";
    let text = "<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>Row r\u{fffd}w: NUL \u{fffd} bell \u{fffd} escape \u{fffd}[31m in &lt;row> &amp; \"quotes\"</message>\n  <details>\n    <detail key=\"raw\u{fffd}key\">tab\there\u{fffd}</detail>\n  </details>\n</tool_error>";
    assert_error(
        &result,
        text,
        &json!({
            "code": "CONFLICT",
            "severity": "error",
            "message": message,
            "details": {"raw\u{fffd}key": "tab\there\u{fffd}"}
        }),
    );
    check_envelope(text).expect("well-formed XML");
    let Ok(ParsedEnvelope::Tool(parsed)) = parse(text) else {
        panic!("the envelope parses back")
    };
    assert_eq!(parsed.message, message);
    assert_eq!(
        parsed.details,
        [("raw\u{fffd}key".to_owned(), "tab\there\u{fffd}".to_owned())]
    );
}
