//! The canonical XML of `<tool_error>` (§2) and `<validation_error>` (§4),
//! written into one buffer.

use super::escape::{attr_into, text_into};
use super::json_text::{json_into, xml_attr_into, xml_text_into};
use super::limits::{is_normal, normalize, normalize_validation};
use crate::error::{
    ContractAwareness, ToolError, VALIDATION_RECOVERY, ValidationFailure, envelope_secs,
    seconds_text,
};

/// Where an envelope is written: its fixed markup, and its texts with the
/// escapes of wire contract §2.
pub(super) trait Xml {
    /// Appends markup (`<`, `>`, quotes and line ends included) as it is.
    fn markup(&mut self, s: &str);
    /// Appends element text, escaped.
    fn text(&mut self, s: &str);
    /// Appends an attribute value (without its quotes), escaped.
    fn attr(&mut self, s: &str);
}

/// The XML itself.
impl Xml for String {
    fn markup(&mut self, s: &str) {
        self.push_str(s);
    }
    fn text(&mut self, s: &str) {
        text_into(self, s);
    }
    fn attr(&mut self, s: &str) {
        attr_into(self, s);
    }
}

/// The XML as the contents of a JSON string, escaped for XML and JSON in
/// one pass ([`super::json_text`]).
pub(super) struct InJson<'a>(pub &'a mut String);

impl Xml for InJson<'_> {
    fn markup(&mut self, s: &str) {
        json_into(self.0, s);
    }
    fn text(&mut self, s: &str) {
        xml_text_into(self.0, s);
    }
    fn attr(&mut self, s: &str) {
        xml_attr_into(self.0, s);
    }
}

/// Renders `err` as the canonical `<tool_error>` envelope of wire contract §2,
/// byte for byte: two-space indentation, one element per line, `\n` line ends,
/// no trailing newline; sections in the order message, recovery,
/// available_actions, details, retry_after, each only when set and non-empty.
/// A [`next_step`](ToolError::next_step) comes first, on its own line before
/// the envelope (§2.1).
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
    tool_error_into(&mut out, err);
    out
}

/// Writes the envelope of `err`, a failure [`normalize`] already returned,
/// into `out`.
pub(super) fn tool_error_into(out: &mut impl Xml, err: &ToolError) {
    if let Some(step) = &err.next_step {
        out.text(step);
        out.markup("\n");
    }
    out.markup("<tool_error code=\"");
    out.attr(err.code.as_str());
    out.markup("\" severity=\"");
    out.markup(err.severity.as_str());
    out.markup("\">\n  <message>");
    out.text(&err.message);
    out.markup("</message>\n");
    if let Some(recovery) = &err.recovery {
        out.markup("  <recovery>");
        out.text(recovery);
        out.markup("</recovery>\n");
    }
    if !err.available_actions.is_empty() {
        out.markup("  <available_actions>\n");
        for action in &err.available_actions {
            out.markup("    <action>");
            out.text(action);
            out.markup("</action>\n");
        }
        out.markup("  </available_actions>\n");
    }
    if !err.details.is_empty() {
        out.markup("  <details>\n");
        for (key, value) in &err.details {
            out.markup("    <detail key=\"");
            out.attr(key);
            out.markup("\">");
            out.text(value);
            out.markup("</detail>\n");
        }
        out.markup("  </details>\n");
    }
    if let Some(secs) = envelope_secs(err.retry_after) {
        out.markup("  <retry_after>");
        out.markup(&seconds_text(secs));
        out.markup("</retry_after>\n");
    }
    out.markup("</tool_error>");
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
    validation_into(&mut out, failure);
    out
}

/// Writes the envelope of `failure`, a failure [`normalize_validation`]
/// already returned, into `out`.
pub(super) fn validation_into(out: &mut impl Xml, failure: &ValidationFailure) {
    out.text(&failure.next_step());
    out.markup("\n<validation_error action=\"");
    out.attr(&failure.action);
    out.markup("\">\n");
    for field in &failure.fields {
        out.markup("  <field name=\"");
        out.attr(&field.path);
        out.markup("\">");
        out.text(&field.message);
        out.markup("</field>\n");
    }
    out.markup("  <recovery>");
    out.markup(VALIDATION_RECOVERY);
    out.markup("</recovery>\n");
    if let Some(awareness) = &failure.contract_awareness {
        awareness_into(out, awareness);
    }
    out.markup("</validation_error>");
}

/// Appends the `<contract_awareness>` section of wire contract §4.1
/// (`docs/contracts.md`): the action, how many changes concern it, how many
/// are shown when fewer (`shown`), the most severe level, then one `<delta>`
/// per change shown.
fn awareness_into(out: &mut impl Xml, awareness: &ContractAwareness) {
    out.markup("  <contract_awareness action=\"");
    out.attr(&awareness.action);
    out.markup(&format!("\" changes=\"{}\"", awareness.changes));
    if awareness.deltas.len() < awareness.changes {
        out.markup(&format!(" shown=\"{}\"", awareness.deltas.len()));
    }
    out.markup(" max_severity=\"");
    out.markup(awareness.max_severity.as_str());
    out.markup("\">\n");
    for delta in &awareness.deltas {
        out.markup("    <delta severity=\"");
        out.markup(delta.severity.as_str());
        out.markup("\" field=\"");
        out.attr(&delta.field);
        out.markup("\">");
        out.text(&delta.text);
        out.markup("</delta>\n");
    }
    out.markup("  </contract_awareness>\n");
}
