//! What the library's test programs share: assertions on `CallToolResult`s
//! (the `server` and `surface` programs), the XML well-formedness check of
//! `xml.rs` (those two, `envelope` and `contract`) and where proptest keeps
//! its regressions (`envelope`, `contract`, `client`, `validation`). Each
//! takes it as its `support` module
//! (`use fusion_test_support::library as support;`).

pub mod xml;

pub use xml::check_envelope;

use mcp_fusion::envelope::META_KEY;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// What every masked `INTERNAL_ERROR` message says after its error id (wire
/// contract §5, §6): the failure is this call's, not the server's.
pub const INTERNAL_STILL_RUNNING: &str = "The server is still running and its other actions work.";

/// The recovery line of every `INTERNAL_ERROR` (§5: retry once, never blindly).
pub const INTERNAL_RECOVERY: &str = "Retry this call once. If it fails again, do not retry it: call another action, or tell the user the action failed and give them the error id.";

/// The text of every content block, in order (a non-text block fails the test).
pub fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|block| {
            block
                .as_text()
                .unwrap_or_else(|| panic!("a text block, got {block:?}"))
                .text
                .clone()
        })
        .collect()
}

/// `_meta["mcp-fusion/error"]` of `result` (fails the test when absent).
pub fn meta_of(result: &CallToolResult) -> Value {
    result
        .meta
        .as_ref()
        .and_then(|meta| meta.0.get(META_KEY))
        .cloned()
        .unwrap_or_else(|| panic!("no _meta[{META_KEY}] in {result:?}"))
}

/// Asserts a failed result (§1): exactly one text block equal to `text`,
/// `isError` true, no `structuredContent`, `_meta` equal to `meta`, and an
/// envelope that is well-formed XML.
#[track_caller]
pub fn assert_error(result: &CallToolResult, text: &str, meta: &Value) {
    assert_eq!(texts(result), [text], "envelope text");
    assert_eq!(result.is_error, Some(true), "isError");
    assert_eq!(result.structured_content, None, "structuredContent");
    assert_eq!(&meta_of(result), meta, "_meta");
    check_envelope(text).expect("the envelope is well-formed XML");
}

/// [`assert_error`] for a `<validation_error>` (§4).
#[track_caller]
pub fn assert_validation(result: &CallToolResult, text: &str, meta: &Value) {
    assert!(
        text.starts_with("Fix the fields below and ") || text.starts_with("Replace \""),
        "{text}"
    );
    assert!(
        text.contains(" again.\n<validation_error action=\""),
        "{text}"
    );
    assert_eq!(meta["code"], "VALIDATION_ERROR");
    assert_error(result, text, meta);
}

/// The `error_id` detail of an `INTERNAL_ERROR` result: 12 lowercase hex digits.
#[track_caller]
pub fn error_id_of(result: &CallToolResult) -> String {
    let meta = meta_of(result);
    assert_eq!(meta["code"], "INTERNAL_ERROR", "{meta}");
    let id = meta["details"]["error_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no error_id detail in {meta}"))
        .to_owned();
    assert_eq!(id.len(), 12, "error id {id:?}");
    assert!(
        id.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "error id {id:?}"
    );
    id
}

/// The `INTERNAL_ERROR` envelope and `_meta` for action `name` with error `id`,
/// and the `internal_error` detail when internal errors are exposed (§6).
pub fn internal_envelope(name: &str, id: &str, internal: Option<&str>) -> (String, Value) {
    let message =
        format!("{name} failed with an internal error (error id {id}). {INTERNAL_STILL_RUNNING}");
    let mut text = format!(
        "<tool_error code=\"INTERNAL_ERROR\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{INTERNAL_RECOVERY}</recovery>\n  <details>\n    <detail key=\"error_id\">{id}</detail>\n"
    );
    let mut details = json!({"error_id": id});
    if let Some(internal) = internal {
        let escaped = internal.replace('&', "&amp;").replace('<', "&lt;");
        text.push_str(&format!(
            "    <detail key=\"internal_error\">{escaped}</detail>\n"
        ));
        details["internal_error"] = json!(internal);
    }
    text.push_str("  </details>\n</tool_error>");
    let meta = json!({
        "code": "INTERNAL_ERROR",
        "severity": "error",
        "message": message,
        "recovery": INTERNAL_RECOVERY,
        "details": details,
    });
    (text, meta)
}

/// `config`, with the failures proptest finds saved next to the test's
/// source file, as they were when each test file was a binary of its own:
/// `tests/envelope/properties.rs` keeps them in
/// `tests/envelope/properties.proptest-regressions`. (proptest's default
/// looks for the nearest `main.rs`, here the binary's, and would keep them in
/// `tests/proptest-regressions/properties.txt`.) Nothing is saved when
/// `PROPTEST_DISABLE_FAILURE_PERSISTENCE` is set.
pub fn beside_source(mut config: ProptestConfig) -> ProptestConfig {
    if config.failure_persistence.is_some() {
        config.failure_persistence = Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        )));
    }
    config
}
