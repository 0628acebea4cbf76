//! The client's reading of tool results (wire contract §8), without a network:
//! every `CallToolResult` here is built by hand or by the envelope renderer.

use std::time::Duration;

use mcp_fusion::client::{
    FailureSource, FusionClientError, RetryPolicy, Success, ToolFailure, check_result,
};
use mcp_fusion::envelope::{
    META_KEY, attach_warning, render, to_call_tool_result, validation_result,
};
use mcp_fusion::error::{FieldError, ValidationFailure};
use mcp_fusion::model::CallToolResult;
use mcp_fusion::{ErrorCode, Severity, ToolError};
use serde_json::{Value, json};

/// The code of a failure that holds no envelope (wire contract §8).
const UNKNOWN_CODE: &str = "UNKNOWN";
/// The message of a failure the server sent nothing to explain.
const EMPTY_ERROR_MESSAGE: &str =
    "The server reported an error (isError: true) but sent no content to explain it.";

fn result(value: Value) -> CallToolResult {
    serde_json::from_value(value).expect("a valid CallToolResult")
}

fn failure_of(result: CallToolResult) -> ToolFailure {
    match check_result(result) {
        Err(FusionClientError::Tool(failure)) => *failure,
        other => panic!("expected a tool failure, got {other:?}"),
    }
}

fn success_of(result: CallToolResult) -> Success {
    match check_result(result) {
        Ok(success) => success,
        Err(err) => panic!("expected a success, got {err:?}"),
    }
}

fn not_found() -> ToolError {
    ToolError::not_found("No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions(["billing.list_invoices"])
        .detail("requestedId", "inv_2026_9999")
        .retry_after(30)
}

fn assert_not_found(f: &ToolFailure) {
    assert_eq!(f.code, ErrorCode::NotFound);
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.message, "No invoice with that ID");
    assert_eq!(
        f.recovery.as_deref(),
        Some("List invoices first, then retry with a real ID")
    );
    assert_eq!(f.available_actions, ["billing.list_invoices"]);
    assert_eq!(
        f.details,
        [("requestedId".to_owned(), "inv_2026_9999".to_owned())]
    );
    assert_eq!(f.retry_after, Some(30));
    assert_eq!(f.retry_after_duration(), Some(Duration::from_secs(30)));
    assert!(f.fields.is_empty());
}

#[test]
fn our_own_result_reads_from_meta() {
    let raw = to_call_tool_result(&not_found());
    let f = failure_of(raw.clone());
    assert_not_found(&f);
    assert_eq!(f.source, FailureSource::Meta);
    assert_eq!(f.raw, raw);
}

#[test]
fn meta_only_result_without_text() {
    let mut raw = to_call_tool_result(&not_found());
    raw.content.clear();
    let f = failure_of(raw);
    assert_not_found(&f);
    assert_eq!(f.source, FailureSource::Meta);
}

#[test]
fn meta_wins_over_the_text() {
    let f = failure_of(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": "<tool_error code=\"CONFLICT\"><message>xml</message></tool_error>"}],
        "_meta": {META_KEY: {"code": "FORBIDDEN", "severity": "critical", "message": "from meta"}}
    })));
    assert_eq!(f.code, ErrorCode::Forbidden);
    assert_eq!(f.severity, Severity::Critical);
    assert_eq!(f.message, "from meta");
}

#[test]
fn xml_only_result_is_parsed() {
    let mut raw = to_call_tool_result(&not_found());
    raw.meta = None;
    let f = failure_of(raw);
    assert_not_found(&f);
    assert_eq!(f.source, FailureSource::Envelope);
}

#[test]
fn xml_envelope_after_prose_and_nested_actions_do_not_count() {
    let text = "The call failed:\n<tool_error code=\"UNKNOWN_ACTION\" severity=\"error\">\n  <message>No action &quot;pya&quot; &amp; friends</message>\n  <recovery>Did you mean pay?</recovery>\n  <available_actions>\n    <action>billing.pay</action>\n  </available_actions>\n  <contract_awareness><action>billing.stale</action></contract_awareness>\n</tool_error>";
    let f = failure_of(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": text}]
    })));
    assert_eq!(f.code, ErrorCode::UnknownAction);
    assert_eq!(f.message, "No action \"pya\" & friends");
    assert_eq!(f.available_actions, ["billing.pay"]);
    // The line just before a failing envelope is its next step (§2.1).
    assert_eq!(f.next_step.as_deref(), Some("The call failed:"));
}

#[test]
fn plain_text_is_unknown_with_the_whole_text() {
    let f = failure_of(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": "Database connection refused: db.internal:5432"}]
    })));
    assert_eq!(f.code.as_str(), UNKNOWN_CODE);
    assert_eq!(f.code, ErrorCode::Custom("UNKNOWN".into()));
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.message, "Database connection refused: db.internal:5432");
    assert_eq!(f.source, FailureSource::Text);
    assert_eq!(f.recovery, None);
    assert!(f.available_actions.is_empty());
}

#[test]
fn only_text_blocks_are_joined_with_newlines() {
    let f = failure_of(result(json!({
        "isError": true,
        "content": [
            {"type": "text", "text": "first"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "text", "text": "second"}
        ]
    })));
    assert_eq!(f.message, "first\nsecond");
}

#[test]
fn empty_error_result_says_the_server_sent_nothing() {
    let f = failure_of(result(json!({"isError": true, "content": []})));
    assert_eq!(f.code.as_str(), UNKNOWN_CODE);
    assert_eq!(f.message, EMPTY_ERROR_MESSAGE);
    assert_eq!(f.source, FailureSource::Empty);
    let f = failure_of(result(json!({"isError": true})));
    assert_eq!(f.message, EMPTY_ERROR_MESSAGE);
    let f = failure_of(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": "  \n "}]
    })));
    assert_eq!(f.message, EMPTY_ERROR_MESSAGE);
}

fn invalid_email() -> ValidationFailure {
    ValidationFailure::new(
        "billing.create_invoice",
        vec![
            FieldError::new(
                "email",
                "Invalid email format. You sent: 'not-an-email'. Expected a valid email address.",
            ),
            FieldError::new("items.2.price", "Too small. You sent: -1. Expected >= 0."),
        ],
    )
}

fn assert_validation(f: &ToolFailure) {
    assert_eq!(f.code, ErrorCode::ValidationError);
    assert!(f.is_validation());
    assert_eq!(f.action.as_deref(), Some("billing.create_invoice"));
    assert_eq!(f.fields, invalid_email().fields);
    assert_eq!(
        f.message,
        "The arguments for billing.create_invoice are not valid (2 problems)."
    );
    assert_eq!(
        f.recovery.as_deref(),
        Some("Fix the fields below and call billing again. Do not explain the error.")
    );
}

#[test]
fn validation_failure_from_meta_and_from_xml() {
    let raw = validation_result(&invalid_email());
    let f = failure_of(raw.clone());
    assert_validation(&f);
    assert_eq!(f.source, FailureSource::Meta);

    let mut xml_only = raw;
    xml_only.meta = None;
    let f = failure_of(xml_only);
    assert_validation(&f);
    assert_eq!(f.source, FailureSource::Envelope);
}

#[test]
fn warning_after_success_is_not_an_error() {
    let ok = CallToolResult::success(vec![rmcp::model::ContentBlock::text(r#"{"id":"inv_1"}"#)]);
    let warning = ToolError::deprecated("get_invoice_v1 is deprecated")
        .suggest("Call billing.get_invoice instead");
    let raw = attach_warning(ok, &warning);
    let s = success_of(raw.clone());
    assert_eq!(s.text(), r#"{"id":"inv_1"}"#);
    assert_eq!(s.value(), json!({"id": "inv_1"}));
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].code, ErrorCode::Deprecated);
    assert_eq!(s.warnings[0].severity, Severity::Warning);
    assert_eq!(s.warnings[0].message, "get_invoice_v1 is deprecated");
    assert!(s.is_warning_block(1));

    // The same without `_meta`: the XML block alone is enough.
    let mut xml_only = raw.clone();
    xml_only.meta = None;
    assert_eq!(success_of(xml_only).warnings, s.warnings);

    // And with `_meta` alone.
    let mut meta_only = raw;
    meta_only.content.truncate(1);
    let s = success_of(meta_only);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].code, ErrorCode::Deprecated);
    assert_eq!(
        s.warnings[0].recovery.as_deref(),
        Some("Call billing.get_invoice instead")
    );
}

#[test]
fn plain_success_has_no_warnings() {
    let s = success_of(result(json!({
        "content": [{"type": "text", "text": "Echo: hi"}],
        "isError": false
    })));
    assert_eq!(s.text(), "Echo: hi");
    assert_eq!(s.value(), json!("Echo: hi"));
    assert!(s.warnings.is_empty());
    let s = success_of(result(json!({
        "content": [{"type": "text", "text": "{\"a\":1}"}],
        "structuredContent": {"a": 1}
    })));
    assert_eq!(s.structured(), Some(&json!({"a": 1})));
}

#[test]
fn is_error_decides_not_the_envelope_severity() {
    // isError true with a warning envelope: still a failure, severity kept.
    let f = failure_of(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": render(&ToolError::deprecated("old"))}]
    })));
    assert_eq!(f.code, ErrorCode::Deprecated);
    assert_eq!(f.severity, Severity::Warning);
    // isError absent with an error envelope: a success carrying it as a warning.
    let s = success_of(result(json!({
        "content": [{"type": "text", "text": render(&ToolError::conflict("odd"))}]
    })));
    assert_eq!(s.warnings[0].code, ErrorCode::Conflict);
    assert_eq!(s.text(), "");
}

#[test]
fn foreign_meta_with_malformed_retry_after_is_clamped_or_ignored() {
    let cases = [
        (json!(-5), None),
        (json!(0), None),
        (json!(2.01), Some(3)),
        (json!(1e308), Some(86_400)),
        (json!("NaN"), None),
        (json!("30"), Some(30)),
        (json!("1.5 seconds"), Some(2)),
        (json!("30abc"), None),
        (json!("-1"), None),
        (json!("1e3x"), None),
        (json!({"secs": 3}), None),
        (json!(45), Some(45)),
    ];
    for (value, expected) in cases {
        let f = failure_of(result(json!({
            "isError": true,
            "content": [{"type": "text", "text": "slow down"}],
            "_meta": {META_KEY: {"code": "RATE_LIMITED", "retry_after_seconds": value}}
        })));
        assert_eq!(f.retry_after, expected, "retry_after_seconds = {value}");
        assert_eq!(f.message, "slow down");
        // The retry schedule never panics on it either.
        let _ = RetryPolicy::default().delay(&f, 1);
    }
}

/// A foreign server's `<tool_error>` whose `<retry_after>` is not a whole
/// number of seconds keeps its code and every other part (§8); the delay is
/// clamped by the contract's rules or dropped, and read the same way as the
/// `_meta` member.
#[test]
fn foreign_xml_with_malformed_retry_after_keeps_the_failure() {
    let cases = [
        ("1.5 seconds", Some(2)),
        ("0.2", Some(1)),
        ("30", Some(30)),
        ("0 seconds", None),
        ("-1 seconds", None),
        ("NaN", None),
        ("inf seconds", None),
        ("99999999999999999999 seconds", Some(86_400)),
        ("30abc", None),
        ("1e3x", None),
        ("thirty", None),
    ];
    for (value, expected) in cases {
        let text = format!(
            "Slow down.\n<tool_error code=\"RATE_LIMITED\" severity=\"error\">\n  \
             <message>Too many calls</message>\n  \
             <recovery>Wait, then call again</recovery>\n  \
             <details><detail key=\"limit\">2/min</detail></details>\n  \
             <retry_after>{value}</retry_after>\n</tool_error>"
        );
        let f = failure_of(result(json!({
            "isError": true,
            "content": [{"type": "text", "text": text}]
        })));
        assert_eq!(f.code, ErrorCode::RateLimited, "{value}");
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(f.message, "Too many calls");
        assert_eq!(f.recovery.as_deref(), Some("Wait, then call again"));
        assert_eq!(f.next_step.as_deref(), Some("Slow down."));
        assert_eq!(f.details, [("limit".to_owned(), "2/min".to_owned())]);
        assert_eq!(
            f.retry_after, expected,
            "<retry_after>{value}</retry_after>"
        );
        assert_eq!(f.source, FailureSource::Envelope);
        // The same value in `_meta` reads the same.
        let from_meta = failure_of(result(json!({
            "isError": true,
            "content": [],
            "_meta": {META_KEY: {"code": "RATE_LIMITED", "retry_after_seconds": value}}
        })));
        assert_eq!(
            from_meta.retry_after, expected,
            "retry_after_seconds = {value:?}"
        );
    }
}

/// Other malformed parts of a foreign envelope cost only themselves.
#[test]
fn foreign_xml_with_other_bad_parts_keeps_the_good_ones() {
    let text = "<tool_error code=\"NOT_FOUND\" severity=\"fatal\">\
                <message>No invoice &amp; no luck</message>\
                <message>second message</message>\
                <details><detail>no key</detail><detail key=\"id\">inv_9</detail></details>\
                <telemetry trace=\"abc\">ignored</telemetry>\
                </tool_error>";
    let f = failure_of(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": text}]
    })));
    assert_eq!(f.code, ErrorCode::NotFound);
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.message, "No invoice & no luck");
    assert_eq!(f.details, [("id".to_owned(), "inv_9".to_owned())]);
    assert_eq!(f.source, FailureSource::Envelope);
    // No <message> at all: the code's default sentence.
    let f = failure_of(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": "<tool_error code=\"NOT_FOUND\"/>"}]
    })));
    assert_eq!(f.code, ErrorCode::NotFound);
    assert_eq!(f.message, ErrorCode::NotFound.default_message());
    assert_eq!(f.source, FailureSource::Envelope);
    // A root without a code is no envelope the client can use.
    let text = "<tool_error severity=\"error\"><message>m</message></tool_error>";
    let f = failure_of(result(json!({
        "isError": true,
        "content": [{"type": "text", "text": text}]
    })));
    assert_eq!(f.code.as_str(), UNKNOWN_CODE);
    assert_eq!(f.message, text);
    assert_eq!(f.source, FailureSource::Text);
}

#[test]
fn garbage_never_panics() {
    let texts = [
        "<tool_error",
        "<tool_error code=\"X\">",
        "<tool_error><message>m</message></tool_error>",
        "<validation_error><field>no name</field></validation_error>",
        "<tool_error code=\"X\"><message>m</message><retry_after>-1 seconds</retry_after></tool_error>",
        "<tool_error code=\"X\"><message>m</message><retry_after>99999999999999999999 seconds</retry_after></tool_error>",
        "\u{0}\u{1}<<>>&&;",
        "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"b\">]><tool_error code=\"&a;\"><message>&a;</message></tool_error>",
    ];
    for text in texts {
        for is_error in [true, false] {
            let r = result(json!({
                "isError": is_error,
                "content": [{"type": "text", "text": text}],
                "_meta": {META_KEY: [1, 2, 3]}
            }));
            match check_result(r) {
                Ok(success) => {
                    let _ = success.value();
                }
                Err(FusionClientError::Tool(f)) => {
                    assert!(!f.message.is_empty());
                    let _ = f.to_json();
                }
                Err(other) => panic!("unexpected {other:?}"),
            }
        }
    }
}

#[test]
fn failure_json_has_the_meta_shape() {
    let f = failure_of(to_call_tool_result(&not_found()));
    assert_eq!(
        f.to_json(),
        json!({
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No invoice with that ID",
            "recovery": "List invoices first, then retry with a real ID",
            "available_actions": ["billing.list_invoices"],
            "details": {"requestedId": "inv_2026_9999"},
            "retry_after_seconds": 30
        })
    );
    let err = FusionClientError::from(f);
    assert_eq!(err.kind(), "tool");
    assert_eq!(err.to_json()["kind"], "tool");
    assert_eq!(err.to_string(), "NOT_FOUND: No invoice with that ID");
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn xml_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("<tool_error code=\"RATE_LIMITED\" severity=\"error\">".to_owned()),
            Just("<tool_error>".to_owned()),
            Just("</tool_error>".to_owned()),
            Just("<message>".to_owned()),
            Just("</message>".to_owned()),
            Just("<available_actions><action>".to_owned()),
            Just("</action></available_actions>".to_owned()),
            Just("<retry_after>".to_owned()),
            Just("</retry_after>".to_owned()),
            Just(
                "Fix the fields below and call a again.\n<validation_error action=\"a.b\">"
                    .to_owned()
            ),
            Just("<field name=\"x\">".to_owned()),
            Just("</field></validation_error>".to_owned()),
            Just("&amp;&lt;&#0;&#xFFFFFF;&bogus;".to_owned()),
            "[^<&]{0,12}",
            ".{0,12}",
        ]
    }

    proptest! {
        #![proptest_config(crate::support::beside_source(ProptestConfig::default()))]

        #[test]
        fn any_foreign_result_is_read_without_panicking(
            pieces in prop::collection::vec(xml_piece(), 0..16),
            retry in any::<f64>(),
            severity in ".{0,8}",
            is_error in any::<bool>(),
            with_meta in any::<bool>(),
        ) {
            let text: String = pieces.concat();
            let mut value = json!({
                "isError": is_error,
                "content": [{"type": "text", "text": text}],
            });
            if with_meta {
                value["_meta"] = json!({META_KEY: {
                    "code": "RATE_LIMITED",
                    "severity": severity,
                    "retry_after_seconds": retry,
                    "fields": [{"path": 1, "message": ["x"]}, {}],
                    "details": {"k": {"nested": true}},
                }});
            }
            match check_result(result(value)) {
                Ok(success) => {
                    let _ = (success.text(), success.value());
                }
                Err(FusionClientError::Tool(failure)) => {
                    prop_assert!(!failure.message.trim().is_empty());
                    prop_assert!(failure.retry_after.is_none_or(|s| (1..=86_400).contains(&s)));
                    let _ = failure.to_json();
                    for attempts in [0, 1, 2, u32::MAX] {
                        let _ = RetryPolicy::default().delay(&failure, attempts);
                    }
                }
                Err(other) => prop_assert!(false, "unexpected {other:?}"),
            }
        }
    }
}
