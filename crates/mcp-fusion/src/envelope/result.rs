//! Envelopes as MCP `CallToolResult`s (wire contract §1, §3).

use std::borrow::Cow;

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde_json::Value;

use super::limits::{is_normal, is_normal_validation, normalize, normalize_validation};
use super::meta::{
    META_KEY, meta_json_into, meta_of_normalized, validation_meta_json_into,
    validation_meta_of_normalized,
};
use super::render::{
    InJson, render_normalized, render_validation_normalized, tool_error_into, validation_into,
};
use crate::error::{ToolError, ValidationFailure};

/// The `<tool_error>` envelope of `err` and its `_meta` twin, normalized once.
pub(crate) fn envelope_and_meta(err: &ToolError) -> (String, Value) {
    if is_normal(err) {
        return (render_normalized(err), meta_of_normalized(err));
    }
    let normalized = normalize(err);
    (
        render_normalized(&normalized),
        meta_of_normalized(&normalized),
    )
}

/// The `<validation_error>` envelope of `failure` and its `_meta` twin,
/// normalized once.
pub(crate) fn validation_envelope_and_meta(failure: &ValidationFailure) -> (String, Value) {
    let normalized = normalized_validation(failure);
    (
        render_validation_normalized(&normalized),
        validation_meta_of_normalized(normalized.into_owned()),
    )
}

/// `failure` as its envelope carries it ([`normalize_validation`]), copied
/// only when that changes it.
fn normalized_validation(failure: &ValidationFailure) -> Cow<'_, ValidationFailure> {
    if is_normal_validation(failure) {
        Cow::Borrowed(failure)
    } else {
        Cow::Owned(normalize_validation(failure))
    }
}

/// `err` as a tool result (§1): `content` is exactly one text block holding the
/// `<tool_error>` envelope, `isError` follows the severity (§3: true for `error`
/// and `critical`, false for `warning`), `_meta["mcp-fusion/error"]` holds
/// [`to_meta`](super::to_meta)'s twin, and `structuredContent` is not set.
pub fn to_call_tool_result(err: &ToolError) -> CallToolResult {
    let (text, meta) = envelope_and_meta(err);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.is_error = Some(err.is_error());
    result.meta = Some(meta_with(None, meta));
    result
}

/// `failure` as a tool result (§4): one text block with the
/// `<validation_error>` envelope, `isError` true, `_meta` code `VALIDATION_ERROR`
/// with its `fields`, no `structuredContent`.
pub fn validation_result(failure: &ValidationFailure) -> CallToolResult {
    let (text, meta) = validation_envelope_and_meta(failure);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.is_error = Some(true);
    result.meta = Some(meta_with(None, meta));
    result
}

/// Attaches `warning` to a successful `result` (§3): the envelope is appended as
/// a text block after the normal content, `_meta["mcp-fusion/error"]` is set
/// (other `_meta` keys are kept), and `isError` is false. The warning's own
/// severity is rendered as given; pass a [`Severity::Warning`](crate::Severity)
/// failure (e.g. [`ToolError::deprecated`]).
pub fn attach_warning(mut result: CallToolResult, warning: &ToolError) -> CallToolResult {
    let (text, meta) = envelope_and_meta(warning);
    result.content.push(ContentBlock::text(text));
    result.is_error = Some(false);
    result.meta = Some(meta_with(result.meta.take(), meta));
    result
}

fn meta_with(meta: Option<MetaObject>, envelope: Value) -> MetaObject {
    let mut meta = meta.unwrap_or_default();
    meta.0.insert(META_KEY.to_owned(), envelope);
    meta
}

/// The `_meta` key of a result made by [`written_result`] or
/// [`written_validation_result`]: its members as JSON text. Reserved: a
/// result whose only `_meta` member has this key, with no content, is
/// written as that text.
const WRITTEN_KEY: &str = "mcp-fusion/written";

/// A request extension, put there by a transport that writes a result of
/// [`written_result`] or [`written_validation_result`] as its text
/// ([`written_members`]): the rmcp adapter writes the envelope results of
/// its `tools/call`s in that form for it (dispatch itself knows nothing of
/// the transport).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WritesEnvelopes;

/// [`to_call_tool_result`] of `err` as the transport writes it: the
/// members of the result after `resultType`, as the JSON text serde_json
/// writes for [`to_call_tool_result`]'s result (`"content":[…],"isError":…,
/// "_meta":{…}`), written in one pass without building the result's
/// `Value`s. For a transport that writes [`written_members`] as they are.
pub(crate) fn written_result(err: &ToolError) -> CallToolResult {
    let err = if is_normal(err) {
        Cow::Borrowed(err)
    } else {
        Cow::Owned(normalize(err))
    };
    let mut out = String::with_capacity(768 + 3 * err.message.len());
    out.push_str("\"content\":[{\"type\":\"text\",\"text\":\"");
    tool_error_into(&mut InJson(&mut out), &err);
    out.push_str(if err.is_error() {
        "\"}],\"isError\":true,\"_meta\":{\"mcp-fusion/error\":"
    } else {
        "\"}],\"isError\":false,\"_meta\":{\"mcp-fusion/error\":"
    });
    if !meta_json_into(&mut out, &err) {
        let meta = meta_of_normalized(&err);
        out.push_str(&meta.to_string());
    }
    out.push('}');
    written(out, err.is_error())
}

/// [`validation_result`] of `failure` as the transport writes it; see
/// [`written_result`].
pub(crate) fn written_validation_result(failure: &ValidationFailure) -> CallToolResult {
    let failure = normalized_validation(failure);
    let texts: usize = failure
        .fields
        .iter()
        .map(|f| 48 + 2 * (f.path.len() + f.message.len()))
        .sum();
    let mut out = String::with_capacity(768 + texts);
    out.push_str("\"content\":[{\"type\":\"text\",\"text\":\"");
    validation_into(&mut InJson(&mut out), &failure);
    out.push_str("\"}],\"isError\":true,\"_meta\":{\"mcp-fusion/error\":");
    validation_meta_json_into(&mut out, &failure);
    out.push('}');
    written(out, true)
}

/// The result carrying `members` for the transport.
fn written(members: String, is_error: bool) -> CallToolResult {
    let mut result = CallToolResult::success(Vec::new());
    result.is_error = Some(is_error);
    let mut meta = MetaObject::default();
    meta.0
        .insert(WRITTEN_KEY.to_owned(), Value::String(members));
    result.meta = Some(meta);
    result
}

/// The members (after `resultType`) of a result made by [`written_result`]
/// or [`written_validation_result`], as JSON text; `None` for any other
/// result, which is serialized as usual.
pub(crate) fn written_members(result: &CallToolResult) -> Option<&str> {
    if !result.content.is_empty() || result.structured_content.is_some() {
        return None;
    }
    let meta = &result.meta.as_ref()?.0;
    if meta.len() != 1 {
        return None;
    }
    meta.get(WRITTEN_KEY)?.as_str()
}

/// How the `_meta` twin of a result made by [`written_result`] or
/// [`written_validation_result`] begins, up to its code's first character
/// (the code is the twin's first member in both forms).
#[cfg(feature = "otel")]
const WRITTEN_TWIN_CODE: &str = "\"_meta\":{\"mcp-fusion/error\":{\"code\":\"";

/// The envelope's code of a result made by [`written_result`] or
/// [`written_validation_result`], read back from its written members (the
/// text escapes every quote, so the first unescaped match is the twin);
/// `None` for any other result, or for a code written with escapes.
#[cfg(feature = "otel")]
pub(crate) fn written_code(result: &CallToolResult) -> Option<&str> {
    let (_, twin) = written_members(result)?.split_once(WRITTEN_TWIN_CODE)?;
    let code = &twin[..twin.find('"')?];
    (!code.contains('\\')).then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{
        AwarenessDelta, ChangeSeverity, ContractAwareness, ErrorCode, FieldError, Severity,
    };

    /// `result` as serde_json writes it, without `resultType` (the
    /// transport writes that member itself).
    fn serialized(mut result: CallToolResult) -> String {
        result.result_type = None;
        serde_json::to_string(&result).expect("a result serializes")
    }

    fn members(result: &CallToolResult) -> String {
        format!("{{{}}}", written_members(result).expect("a written result"))
    }

    #[test]
    fn written_tool_errors_are_the_bytes_of_their_results() {
        let tricky =
            "a \"quote\", a <tag>, a & b, ]]> end, \\ back, tab\there,\nline, é 漢 👍 \u{7f}";
        let mut repeated = ToolError::not_found("Invoice inv_9 was not found.");
        repeated.details = vec![
            ("id".into(), "1".into()),
            ("other".into(), "2".into()),
            ("id".into(), "3".into()),
        ];
        let mut forbidden = ToolError::conflict("bell \u{7} and nul \0 and ok");
        forbidden.recovery = Some("x".repeat(20_000));
        let errors = [
            ToolError::conflict("Invoice already paid"),
            ToolError::new(ErrorCode::NotFound, tricky)
                .suggest(tricky)
                .actions(["billing.list", tricky])
                .detail("id", tricky)
                .detail(tricky, 42)
                .retry_after(7),
            ToolError::server_busy("Busy.").retry_after(1).critical(),
            ToolError::deprecated("Old action.").suggest("Use the new one."),
            ToolError::new(ErrorCode::Custom("MY_CODE".into()), "custom"),
            repeated,
            forbidden,
        ];
        for err in &errors {
            let written = written_result(err);
            assert_eq!(written.is_error, Some(err.is_error()));
            assert_eq!(written.result_type, to_call_tool_result(err).result_type);
            assert_eq!(
                members(&written),
                serialized(to_call_tool_result(err)),
                "{err:?}"
            );
        }
    }

    #[cfg(feature = "otel")]
    #[test]
    fn the_code_of_a_written_result_is_read_back() {
        let mut repeated = ToolError::not_found("Invoice inv_9 was not found.");
        repeated.details = vec![("id".into(), "1".into()), ("id".into(), "3".into())];
        let quoted = "\"_meta\":{\"mcp-fusion/error\":{\"code\":\"FAKE\"";
        let errors = [
            ToolError::conflict("Invoice already paid"),
            ToolError::new(ErrorCode::NotFound, quoted).detail("id", quoted),
            ToolError::new(ErrorCode::Custom("MY_CODE".into()), "custom"),
            repeated,
        ];
        for err in &errors {
            let written = written_result(err);
            assert_eq!(written_code(&written), Some(err.code.as_str()), "{err:?}");
        }
        let failure = ValidationFailure::new("billing.get_invoice", vec![]);
        let written = written_validation_result(&failure);
        assert_eq!(written_code(&written), Some("VALIDATION_ERROR"));
        let escaped = ToolError::new(ErrorCode::Custom("A\"B".into()), "custom");
        assert_eq!(written_code(&written_result(&escaped)), None);
        assert_eq!(written_code(&to_call_tool_result(&errors[0])), None);
        assert_eq!(written_code(&CallToolResult::success(Vec::new())), None);
    }

    #[test]
    fn written_validation_failures_are_the_bytes_of_their_results() {
        let fields = vec![
            FieldError::new("id", "Does not match the pattern. You sent: 'bad'."),
            FieldError::new("items.2.\"name\"", "Has <b> & \"quotes\"\nand a line."),
            FieldError::new("(root)", "é 漢 👍 ]]> \\"),
        ];
        let plain = ValidationFailure::new("billing.get_invoice", fields.clone());
        let aware = ValidationFailure::new("reports.summary", fields).with_contract_awareness(
            ContractAwareness {
                action: "reports.summary".into(),
                changes: 3,
                max_severity: ChangeSeverity::Breaking,
                deltas: vec![AwarenessDelta {
                    severity: ChangeSeverity::Risky,
                    field: "period".into(),
                    text: "Field \"period\" changed. Before: <a>. Now: b & c.".into(),
                }],
            },
        );
        let many = ValidationFailure::new(
            "t",
            (0..400)
                .map(|i| FieldError::new(format!("f{i}"), "x".repeat(200)))
                .collect(),
        );
        for failure in [plain, aware, many] {
            let written = written_validation_result(&failure);
            assert_eq!(written.is_error, Some(true));
            assert_eq!(
                members(&written),
                serialized(validation_result(&failure)),
                "{failure:?}"
            );
        }
        assert_eq!(Severity::Error.as_str(), "error");
        assert_eq!(META_KEY, "mcp-fusion/error");
    }

    #[test]
    fn only_written_results_have_members() {
        let err = ToolError::conflict("Invoice already paid");
        assert!(written_members(&to_call_tool_result(&err)).is_none());
        let mut extra = written_result(&err);
        extra
            .meta
            .as_mut()
            .expect("meta")
            .0
            .insert("other".into(), Value::Null);
        assert!(written_members(&extra).is_none());
    }
}
