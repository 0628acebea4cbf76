//! Envelopes as MCP `CallToolResult`s (wire contract §1, §3).

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde_json::Value;

use super::limits::{is_normal, normalize, normalize_validation};
use super::meta::{META_KEY, meta_of_normalized, validation_meta_of_normalized};
use super::render::{render_normalized, render_validation_normalized};
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
    let normalized = normalize_validation(failure);
    (
        render_validation_normalized(&normalized),
        validation_meta_of_normalized(normalized),
    )
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
