//! The contract changes as a table for a person (`fusion diff`, `fusion lock
//! --check`): grouped by tool and action, severities coloured.

use mcp_fusion::contract::ContractDiff;
use mcp_fusion::error::ChangeSeverity;

use crate::output::Paint;

/// The widest field column, in characters; longer fields push the
/// description to the right on their own line.
const MAX_FIELD_COLUMN: usize = 28;

/// The changes for a person: a title line, the counts per severity, then one
/// group per tool-wide set and per action (`tool.action`), each change on a
/// line `SEVERITY  field  description` with its `before:` / `now:` values
/// below. Severities are coloured when `paint` is enabled.
pub fn table(changes: &ContractDiff, title: &str, paint: &Paint) -> String {
    let mut out = format!("{}\n", paint.bold(&format!("Contract changes: {title}")));
    if changes.is_empty() {
        out.push_str("No contract changes.\n");
        return out;
    }
    let n = changes.deltas.len();
    let counts: Vec<String> = ChangeSeverity::ALL
        .iter()
        .filter_map(|s| {
            let count = changes.count(*s);
            (count > 0).then(|| format!("{count} {}", colour(paint, *s, s.as_str())))
        })
        .collect();
    out.push_str(&format!(
        "{n} {}: {}\n",
        if n == 1 { "change" } else { "changes" },
        counts.join(", ")
    ));
    let field_width = changes
        .deltas
        .iter()
        .map(|d| d.field.chars().count())
        .max()
        .unwrap_or(0)
        .min(MAX_FIELD_COLUMN);
    let indent = " ".repeat(2 + 8 + 2 + field_width + 2);
    let mut group: Option<(String, bool)> = None;
    for delta in &changes.deltas {
        let key = (delta.location(), delta.action.is_none());
        if group.as_ref() != Some(&key) {
            let heading = if delta.action.is_none() {
                format!("{} {}", paint.bold(&delta.tool), paint.dim("(whole tool)"))
            } else {
                paint.bold(&key.0)
            };
            out.push_str(&format!("\n{heading}\n"));
            group = Some(key);
        }
        let severity = format!("{:<8}", delta.severity.as_str());
        let field_len = delta.field.chars().count();
        let field = if field_len > field_width {
            format!("{}\n{indent}", paint.cyan(&delta.field))
        } else {
            format!(
                "{}{}  ",
                paint.cyan(&delta.field),
                " ".repeat(field_width - field_len)
            )
        };
        out.push_str(&format!(
            "  {}  {field}{}\n",
            colour(paint, delta.severity, &severity),
            delta.description
        ));
        if let Some(old) = &delta.old {
            out.push_str(&format!("{indent}{} {old}\n", paint.dim("before:")));
        }
        if let Some(new) = &delta.new {
            out.push_str(&format!("{indent}{}    {new}\n", paint.dim("now:")));
        }
    }
    out
}

fn colour(paint: &Paint, severity: ChangeSeverity, text: &str) -> String {
    match severity {
        ChangeSeverity::Breaking => paint.red_bold(text),
        ChangeSeverity::Risky => paint.yellow_bold(text),
        ChangeSeverity::Safe => paint.green(text),
        ChangeSeverity::Cosmetic => paint.dim(text),
    }
}
