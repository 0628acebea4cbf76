//! Envelopes as MCP `CallToolResult`s (wire contract §1, §3).

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde_json::Value;

use super::meta::{META_KEY, to_meta, validation_to_meta};
use super::render::{render, render_validation};
use crate::error::{ToolError, ValidationFailure};

/// `err` as a tool result (§1): `content` is exactly one text block holding the
/// `<tool_error>` envelope, `isError` follows the severity (§3: true for `error`
/// and `critical`, false for `warning`), `_meta["mcp-fusion/error"]` holds
/// [`to_meta`]'s twin, and `structuredContent` is not set.
pub fn to_call_tool_result(err: &ToolError) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(render(err))]);
    result.is_error = Some(err.is_error());
    result.meta = Some(meta_with(None, to_meta(err)));
    result
}

/// `failure` as a tool result (§4): one text block with the
/// `<validation_error>` envelope, `isError` true, `_meta` code `VALIDATION_ERROR`
/// with its `fields`, no `structuredContent`.
pub fn validation_result(failure: &ValidationFailure) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(render_validation(failure))]);
    result.is_error = Some(true);
    result.meta = Some(meta_with(None, validation_to_meta(failure)));
    result
}

/// Attaches `warning` to a successful `result` (§3): the envelope is appended as
/// a text block after the normal content, `_meta["mcp-fusion/error"]` is set
/// (other `_meta` keys are kept), and `isError` is false. The warning's own
/// severity is rendered as given; pass a [`Severity::Warning`](crate::Severity)
/// failure (e.g. [`ToolError::deprecated`]).
pub fn attach_warning(mut result: CallToolResult, warning: &ToolError) -> CallToolResult {
    result.content.push(ContentBlock::text(render(warning)));
    result.is_error = Some(false);
    result.meta = Some(meta_with(result.meta.take(), to_meta(warning)));
    result
}

fn meta_with(meta: Option<MetaObject>, envelope: Value) -> MetaObject {
    let mut meta = meta.unwrap_or_default();
    meta.0.insert(META_KEY.to_owned(), envelope);
    meta
}
