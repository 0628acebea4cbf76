//! [`Delta`] and [`ContractDiff`]: what changed between two contracts.

use serde_json::{Value, json};

use crate::error::ChangeSeverity;

/// One change between two contracts, at field level (`docs/contracts.md`
/// lists every rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delta {
    /// The MCP tool.
    pub tool: String,
    /// The action (the tool name for an ungrouped tool); `None` for a change
    /// of the tool as a whole (tool added or removed, its description or
    /// discriminator changed), which concerns every action of the tool.
    pub action: Option<String>,
    /// What changed: an input field path (`period`, `address.city`,
    /// `lines[].amount`, `tags.*` for the values of a map; `(root)` for the
    /// input as a whole), an output field (`(output)`, `(output).total`), or a
    /// marker in parentheses: `(tool)`, `(action)`, `(description)`,
    /// `(discriminator)`, `(readOnlyHint)`, `(destructiveHint)`,
    /// `(idempotentHint)`, `(deprecated)`, `(requiredScopes)`,
    /// `(guards.timeoutMs)` and the other guard settings.
    pub field: String,
    /// How much the change can hurt a caller of the old contract.
    pub severity: ChangeSeverity,
    /// The old value, in short readable form (`enum day|week`, `3`,
    /// `string`), when there was one.
    pub old: Option<String>,
    /// The new value, in the same form, when there is one.
    pub new: Option<String>,
    /// One line saying what changed, e.g. `Field "period" was renamed to
    /// "time_range".`
    pub description: String,
}

impl Delta {
    /// Where the change is: `tool.action`, the tool name for an ungrouped
    /// tool's action, or the tool name for a tool-wide change.
    pub fn location(&self) -> String {
        match &self.action {
            Some(action) if action != &self.tool => format!("{}.{action}", self.tool),
            _ => self.tool.clone(),
        }
    }

    /// The description followed by `Before: OLD.` and `Now: NEW.` for the
    /// values there are: the text of a `<delta>` line (§4.1).
    pub fn sentence(&self) -> String {
        let mut text = self.description.clone();
        if let Some(old) = &self.old {
            text.push_str(&format!(" Before: {old}."));
        }
        if let Some(new) = &self.new {
            text.push_str(&format!(" Now: {new}."));
        }
        text
    }

    /// `{"tool", "action", "field", "severity", "old", "new",
    /// "description"}`; `action`, `old` and `new` are `null` when absent.
    pub fn to_json(&self) -> Value {
        json!({
            "tool": self.tool,
            "action": self.action,
            "field": self.field,
            "severity": self.severity.as_str(),
            "old": self.old,
            "new": self.new,
            "description": self.description,
        })
    }
}

/// Every change between two server contracts
/// ([`diff`](super::diff::diff)), ordered by tool, then action (tool-wide
/// changes first), then severity (most severe first).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContractDiff {
    /// The changes.
    pub deltas: Vec<Delta>,
}

impl ContractDiff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.deltas.is_empty()
    }

    /// The most severe change, `None` when nothing changed.
    pub fn max_severity(&self) -> Option<ChangeSeverity> {
        self.deltas.iter().map(|d| d.severity).max()
    }

    /// Whether any change is BREAKING.
    pub fn is_breaking(&self) -> bool {
        self.max_severity() == Some(ChangeSeverity::Breaking)
    }

    /// How many changes have `severity`.
    pub fn count(&self, severity: ChangeSeverity) -> usize {
        self.deltas
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    /// `{"changes": N, "max_severity": "BREAKING" | null, "counts":
    /// {"BREAKING", "RISKY", "SAFE", "COSMETIC"}, "deltas": [Delta::to_json]}`.
    pub fn to_json(&self) -> Value {
        let counts: serde_json::Map<String, Value> = ChangeSeverity::ALL
            .iter()
            .map(|s| (s.as_str().to_owned(), json!(self.count(*s))))
            .collect();
        json!({
            "changes": self.deltas.len(),
            "max_severity": self.max_severity().map(ChangeSeverity::as_str),
            "counts": counts,
            "deltas": self.deltas.iter().map(Delta::to_json).collect::<Vec<_>>(),
        })
    }
}
