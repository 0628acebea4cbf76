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

    /// `text` with each word that is a mounted tool's name (a run of
    /// letters, digits, `_`, `-` and inner `.`) replaced by its listed name.
    fn in_text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        let is_word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
        for c in text.chars().chain(std::iter::once('\0')) {
            if is_word(c) {
                word.push(c);
                continue;
            }
            // A sentence's full stop is not part of the name.
            let stem = word.trim_end_matches('.');
            match self.outer(stem) {
                Some(outer) => {
                    out.push_str(&outer);
                    out.push_str(&word[stem.len()..]);
                }
                None => out.push_str(&word),
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
