//! [`Names`]: a mounted server's tool names and the names the mounting
//! server lists them under, and a mounted tool's failure told with the
//! latter.

use std::collections::HashMap;

use rmcp::model::{CallToolResult, ContentBlock};

use crate::envelope::{self, ParsedEnvelope};
use crate::error::ToolError;
use crate::handler::ToolOutput;

/// A mounted server's tool names (`charge`) and the names the model calls
/// them by (`billing.bill`); a tool the mount does not show has none.
#[derive(Debug, Default)]
pub(crate) struct Names {
    outer: HashMap<String, String>,
}

impl Names {
    /// The names of `shown` (a mount's or an upstream's tools as its
    /// transforms show them), listed under `namespace`.
    pub(crate) fn of(namespace: &str, shown: &[crate::capability::Transformed]) -> Names {
        let mut names = Names::default();
        for tool in shown {
            names.insert(
                tool.source.clone(),
                tool.namespaced(namespace).name.into_owned(),
            );
        }
        names
    }

    /// Records that the mounted tool `inner` is listed as `outer`.
    pub(crate) fn insert(&mut self, inner: String, outer: String) {
        self.outer.insert(inner, outer);
    }

    /// The listed name of `name`, a mounted tool's (`charge`) or one of its
    /// group's actions (`invoices.list`); `None` for a name no shown tool has.
    fn outer(&self, name: &str) -> Option<String> {
        if let Some(outer) = self.outer.get(name) {
            return Some(outer.clone());
        }
        let (tool, action) = name.split_once('.')?;
        self.outer
            .get(tool)
            .map(|outer| format!("{outer}.{action}"))
    }

    /// `text` with each mounted tool's name replaced by its listed name,
    /// where it reads as a name: a word (a run of letters, digits, `_`, `-`
    /// and inner `.`) that is a tool's name and is quoted (`"charge"`,
    /// `` `charge` ``), holds `_`, `-` or `.` (`get_invoice`,
    /// `invoices.list`), follows `call ` or begins the text (`billing has no
    /// action "x".`); never one that touches `@`,
    /// `/` or `:` (an address, a path, a URL). A plain English word that
    /// happens to be a tool's name (`open`) is left alone.
    fn in_text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        let mut before = '\0';
        let is_word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
        for c in text.chars().chain(std::iter::once('\0')) {
            if is_word(c) {
                if word.is_empty() {
                    before = out.chars().next_back().unwrap_or('\0');
                }
                word.push(c);
                continue;
            }
            // A sentence's full stop is not part of the name.
            let stem = word.trim_end_matches('.');
            let touches = |c: char| matches!(c, '@' | '/' | ':');
            let named = matches!(before, '"' | '`' | '\'')
                || stem.contains(['_', '-', '.'])
                || out.ends_with("call ")
                || out.is_empty();
            match self.outer(stem) {
                Some(outer) if named && !touches(before) && !touches(c) => {
                    out.push_str(&outer);
                    out.push_str(&word[stem.len()..]);
                }
                _ => out.push_str(&word),
            }
            word.clear();
            if c != '\0' {
                out.push(c);
            }
        }
        out
    }

    /// `error` as the mounting server tells it: the tools it names
    /// (`available_actions`, the words of its message, recovery and next
    /// step) by their listed names; an available action the mount does not
    /// show left out.
    fn failure(&self, mut error: ToolError) -> ToolError {
        error.available_actions = error
            .available_actions
            .iter()
            .filter_map(|name| self.outer(name))
            .collect();
        error.message = self.in_text(&error.message);
        error.recovery = error.recovery.map(|text| self.in_text(&text));
        error.next_step = error.next_step.map(|text| self.in_text(&text));
        error
    }

    /// The mounted tool's `result` as the mounting server answers it: a
    /// failure's envelope (`isError`, an envelope in its first text) with
    /// the names it holds replaced ([`failure`](Self::failure), the
    /// `<validation_error>`'s action and next step); a success, a warning
    /// and a failure without an envelope as they are.
    pub(crate) fn answer(&self, result: CallToolResult) -> Result<ToolOutput, ToolError> {
        if result.is_error != Some(true) {
            return Ok(ToolOutput::result(result));
        }
        let parsed = result
            .content
            .iter()
            .find_map(ContentBlock::as_text)
            .and_then(|text| envelope::parse(&text.text).ok());
        match parsed {
            Some(ParsedEnvelope::Tool(error)) => Err(self.failure(error)),
            Some(ParsedEnvelope::Validation(mut failure)) => {
                // Its next step, the default one too, names the tool: the
                // default of a listed (dotted) name would name its namespace.
                failure.next_step = Some(self.in_text(&failure.next_step()));
                if let Some(outer) = self.outer(&failure.action) {
                    failure.action = outer;
                }
                Ok(ToolOutput::result(envelope::validation_result(&failure)))
            }
            _ => Ok(ToolOutput::result(result)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        let mut names = Names::default();
        names.insert("open".into(), "in.open".into());
        names.insert("admin".into(), "in.admin".into());
        names.insert("get_invoice".into(), "in.invoice".into());
        names.insert("charge".into(), "billing.bill".into());
        names
    }

    #[test]
    fn names_are_rewritten_where_they_read_as_names_only() {
        let names = names();
        assert_eq!(
            names.in_text("Customer admin@open.com: the open door is closed."),
            "Customer admin@open.com: the open door is closed."
        );
        assert_eq!(
            names
                .in_text("Unknown action \"open\"; see https://x.test/admin or call charge again."),
            "Unknown action \"in.open\"; see https://x.test/admin or call billing.bill again."
        );
        assert_eq!(
            names.in_text("Use get_invoice first. Then `admin`."),
            "Use in.invoice first. Then `in.admin`."
        );
        assert_eq!(
            names.in_text("charge has no action \"x\"."),
            "billing.bill has no action \"x\"."
        );
    }
}
