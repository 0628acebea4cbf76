//! Assertions on `CallToolResult`s shared by the runtime tests.

#![allow(dead_code)]

use mcp_fusion::envelope::META_KEY;
use mcp_fusion::pipeline::INTERNAL_RECOVERY;
use quick_xml::XmlVersion;
use quick_xml::events::Event;
use quick_xml::reader::Reader;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

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
    check_well_formed(text).expect("the envelope is well-formed XML");
}

/// [`assert_error`] for a `<validation_error>` (§4).
#[track_caller]
pub fn assert_validation(result: &CallToolResult, text: &str, meta: &Value) {
    assert!(text.starts_with("<validation_error action=\""));
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
    let message = format!("{name} failed with an internal error (error id {id}).");
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

/// Checks that `xml` is one well-formed XML 1.0 element: every event reads,
/// tags balance, one root, no text outside it, only XML 1.0 characters.
pub fn check_well_formed(xml: &str) -> Result<(), String> {
    if let Some(c) = xml.chars().find(|&c| !is_xml_char(c)) {
        return Err(format!("U+{:04X} is not an XML 1.0 character", c as u32));
    }
    let mut reader = Reader::from_str(xml);
    let mut depth = 0usize;
    let mut roots = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.error_position()))?;
        match event {
            Event::Start(ref tag) | Event::Empty(ref tag) => {
                if depth == 0 {
                    roots += 1;
                }
                for attr in tag.attributes() {
                    let attr = attr.map_err(|e| format!("bad attribute: {e}"))?;
                    attr.normalized_value(XmlVersion::Implicit1_0)
                        .map_err(|e| format!("bad attribute value: {e}"))?;
                }
                if matches!(event, Event::Start(_)) {
                    depth += 1;
                }
            }
            Event::End(_) => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| "end tag without start tag".to_owned())?;
            }
            Event::Text(ref text) if depth == 0 => {
                return Err(format!("text outside the root: {:?}", &**text));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    match (depth, roots) {
        (0, 1) => Ok(()),
        (0, n) => Err(format!("{n} root elements")),
        (d, _) => Err(format!("{d} element(s) left open")),
    }
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}
