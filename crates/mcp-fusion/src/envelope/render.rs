//! The canonical XML of `<tool_error>` (§2) and `<validation_error>` (§4),
//! written into one buffer.

use super::escape::{attr_into, text_into};
use super::limits::{is_normal, normalize, normalize_validation};
use crate::error::{
    ContractAwareness, ToolError, VALIDATION_RECOVERY, ValidationFailure, envelope_secs,
    seconds_text,
};

/// Renders `err` as the canonical `<tool_error>` envelope of wire contract §2,
/// byte for byte: two-space indentation, one element per line, `\n` line ends,
/// no trailing newline; sections in the order message, recovery,
/// available_actions, details, retry_after, each only when set and non-empty.
///
/// The failure is first passed through [`normalize`](super::normalize)
/// (forbidden characters, cuts, size budget), so the result is always
/// well-formed XML with exactly one root and smaller than 16 KiB.
///
/// ```
/// let err = mcp_fusion::ToolError::conflict("Invoice already paid");
/// assert_eq!(
///     mcp_fusion::envelope::render(&err),
///     "<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>Invoice already paid</message>\n</tool_error>"
/// );
/// ```
pub fn render(err: &ToolError) -> String {
    if is_normal(err) {
        return render_normalized(err);
    }
    render_normalized(&normalize(err))
}

/// [`render`] of a failure [`normalize`] already returned.
pub(super) fn render_normalized(err: &ToolError) -> String {
    let mut out = String::with_capacity(256 + err.message.len());
    out.push_str("<tool_error code=\"");
    attr_into(&mut out, err.code.as_str());
    out.push_str("\" severity=\"");
    out.push_str(err.severity.as_str());
    out.push_str("\">\n  <message>");
    text_into(&mut out, &err.message);
    out.push_str("</message>\n");
    if let Some(recovery) = &err.recovery {
        out.push_str("  <recovery>");
        text_into(&mut out, recovery);
        out.push_str("</recovery>\n");
    }
    if !err.available_actions.is_empty() {
        out.push_str("  <available_actions>\n");
        for action in &err.available_actions {
            out.push_str("    <action>");
            text_into(&mut out, action);
            out.push_str("</action>\n");
        }
        out.push_str("  </available_actions>\n");
    }
    if !err.details.is_empty() {
        out.push_str("  <details>\n");
        for (key, value) in &err.details {
            out.push_str("    <detail key=\"");
            attr_into(&mut out, key);
            out.push_str("\">");
            text_into(&mut out, value);
            out.push_str("</detail>\n");
        }
        out.push_str("  </details>\n");
    }
    if let Some(secs) = envelope_secs(err.retry_after) {
        out.push_str("  <retry_after>");
        out.push_str(&seconds_text(secs));
        out.push_str("</retry_after>\n");
    }
    out.push_str("</tool_error>");
    out
}

/// Renders `failure` as the `<validation_error>` envelope of wire contract §4:
/// one `<field name="path">` line per problem, then the fixed recovery line,
/// then, when the failure carries one, the `<contract_awareness>` section of
/// §4.1 (just before `</validation_error>`).
/// Normalized first ([`normalize_validation`](super::normalize_validation)),
/// so it is always well-formed and smaller than 16 KiB.
pub fn render_validation(failure: &ValidationFailure) -> String {
    render_validation_normalized(&normalize_validation(failure))
}

/// [`render_validation`] of a failure [`normalize_validation`] already returned.
pub(super) fn render_validation_normalized(failure: &ValidationFailure) -> String {
    let lines: usize = failure
        .fields
        .iter()
        .map(|f| 32 + f.path.len() + f.message.len())
        .sum();
    let mut out = String::with_capacity(256 + lines);
    out.push_str("<validation_error action=\"");
    attr_into(&mut out, &failure.action);
    out.push_str("\">\n");
    for field in &failure.fields {
        out.push_str("  <field name=\"");
        attr_into(&mut out, &field.path);
        out.push_str("\">");
        text_into(&mut out, &field.message);
        out.push_str("</field>\n");
    }
    out.push_str("  <recovery>");
    out.push_str(VALIDATION_RECOVERY);
    out.push_str("</recovery>\n");
    if let Some(awareness) = &failure.contract_awareness {
        awareness_into(&mut out, awareness);
    }
    out.push_str("</validation_error>");
    out
}

/// Appends the `<contract_awareness>` section of wire contract §4.1
/// (`docs/contracts.md`): the action, how many changes concern it, how many
/// are shown when fewer (`shown`), the most severe level, then one `<delta>`
/// per change shown.
fn awareness_into(out: &mut String, awareness: &ContractAwareness) {
    out.push_str("  <contract_awareness action=\"");
    attr_into(out, &awareness.action);
    out.push_str(&format!("\" changes=\"{}\"", awareness.changes));
    if awareness.deltas.len() < awareness.changes {
        out.push_str(&format!(" shown=\"{}\"", awareness.deltas.len()));
    }
    out.push_str(" max_severity=\"");
    out.push_str(awareness.max_severity.as_str());
    out.push_str("\">\n");
    for delta in &awareness.deltas {
        out.push_str("    <delta severity=\"");
        out.push_str(delta.severity.as_str());
        out.push_str("\" field=\"");
        attr_into(out, &delta.field);
        out.push_str("\">");
        text_into(out, &delta.text);
        out.push_str("</delta>\n");
    }
    out.push_str("  </contract_awareness>\n");
}
