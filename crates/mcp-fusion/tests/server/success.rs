//! The server runtime end to end: what a successful call sends, through
//! `FusionServer::call`, in process, with the exact text the model reads. A
//! warning after the output, the deprecation warning naming the replacement,
//! and `structuredContent` for an action with an output schema (wire contract
//! §3, §5).

use std::sync::atomic::Ordering;

use serde_json::json;

use crate::server::{call, fixture};
use crate::support::{meta_of, texts};

#[tokio::test]
async fn a_warning_rides_after_the_output_and_is_not_an_error() {
    let (server, _) = fixture();
    let result = call(&server, "warn", json!({})).await;
    assert_eq!(
        texts(&result),
        [
            "3 rows exported",
            "<tool_error code=\"TRUNCATED\" severity=\"warning\">\n  <message>Only the first 3 rows were exported.</message>\n  <recovery>Call again with a cursor to get the rest.</recovery>\n</tool_error>",
        ]
    );
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, None);
    assert_eq!(
        meta_of(&result),
        json!({
            "code": "TRUNCATED",
            "severity": "warning",
            "message": "Only the first 3 rows were exported.",
            "recovery": "Call again with a cursor to get the rest."
        })
    );
}

#[tokio::test]
async fn a_deprecated_action_succeeds_with_a_warning_naming_its_replacement() {
    let (server, calls) = fixture();
    let result = call(
        &server,
        "invoices",
        json!({"action": "legacy_list", "status": "paid"}),
    )
    .await;
    assert_eq!(
        texts(&result),
        [
            "{\"status\":\"paid\",\"count\":2}",
            "<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  <message>invoices.legacy_list is deprecated and will be removed; use invoices.list instead.</message>\n  <recovery>The call succeeded: its result is above. Next time call invoices.list.</recovery>\n  <available_actions>\n    <action>invoices.list</action>\n  </available_actions>\n</tool_error>",
        ]
    );
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, None);
    assert_eq!(
        meta_of(&result),
        json!({
            "code": "DEPRECATED",
            "severity": "warning",
            "message": "invoices.legacy_list is deprecated and will be removed; use invoices.list instead.",
            "recovery": "The call succeeded: its result is above. Next time call invoices.list.",
            "available_actions": ["invoices.list"]
        })
    );
    assert_eq!(calls.list.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_action_with_an_output_schema_also_sends_structured_content() {
    let (server, _) = fixture();
    let result = call(
        &server,
        "invoices",
        json!({"action": "list", "status": "void"}),
    )
    .await;
    assert_eq!(texts(&result), ["{\"status\":\"void\",\"count\":2}"]);
    assert_eq!(
        result.structured_content,
        Some(json!({"status": "void", "count": 2}))
    );
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.meta, None);
}
