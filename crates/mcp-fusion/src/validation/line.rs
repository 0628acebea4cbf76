//! What every phrasing file of the validator shares: the [`Ctx`] it reads,
//! the [`Line`] it writes, and the small phrases several keywords use.

use serde_json::Value;

use super::lookup;
use super::path::Seg;
use crate::suggest::{by_description, closest_other};

/// What the phrasing reads besides the error: the action's schema and the
/// arguments as validated.
pub(crate) struct Ctx<'a> {
    /// The whole schema as compiled (the root `$ref`s resolve against).
    pub root: &'a Value,
    /// The whole schema as the user gave it (without the integer ranges
    /// added for compiling): which bounds the user wrote.
    pub given: &'a Value,
    /// The whole arguments object.
    pub instance: &'a Value,
}

/// A field line before ordering.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    /// Where, as instance segments.
    pub segs: Vec<Seg>,
    /// The JSON Schema keyword the line is about.
    pub keyword: &'static str,
    /// `{problem}. You sent: {sent}. {expected}`.
    pub message: String,
}

impl Line {
    pub(crate) fn new(
        segs: Vec<Seg>,
        keyword: &'static str,
        problem: &str,
        sent: &str,
        expected: &str,
    ) -> Self {
        Line {
            segs,
            keyword,
            message: format!("{problem}. You sent: {sent}. {expected}"),
        }
    }
}

/// Keeps schema-given names short and plain.
pub(crate) fn clean(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_graphic())
        .take(60)
        .collect()
}

/// ` Did you mean 'x'?` when the sent string is near one of the string
/// `options`; else ` Did you mean 'x' (its description)?` when a word of it
/// is in the description of one option only (`described`: option →
/// description, for the options the schema describes).
fn did_you_mean(value: &Value, options: &[&Value], described: &[(&str, &str)]) -> String {
    let Some(typed) = value.as_str() else {
        return String::new();
    };
    if let Some(near) = closest_other(typed, options.iter().filter_map(|o| o.as_str())) {
        return format!(" Did you mean '{near}'?");
    }
    by_description(typed, described)
        .and_then(|near| described.iter().find(|(name, _)| *name == near))
        .map(|(near, description)| {
            format!(
                " Did you mean '{near}' ({})?",
                clean_description(description)
            )
        })
        .unwrap_or_default()
}

/// A description shown inside a suggestion: one line, at most 80 characters,
/// without its final period.
fn clean_description(description: &str) -> String {
    let line = description.lines().next().unwrap_or_default().trim();
    let cut: String = line.chars().take(80).collect();
    cut.trim_end_matches('.').to_owned()
}

/// `Expected one of: 'a', 'b'.` / `Expected exactly 'a'.`, then the
/// suggestion (`described`: see [`did_you_mean`]).
pub(crate) fn expected_pinned(
    value: &Value,
    options: &[&Value],
    described: &[(&str, &str)],
) -> String {
    format!(
        "Expected {}.{}",
        lookup::pinned_phrase(options),
        did_you_mean(value, options, described)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn suggestions_only_for_strings() {
        let opts = [&json!("active"), &json!("paid")];
        assert_eq!(
            did_you_mean(&json!("Active"), &opts, &[]),
            " Did you mean 'active'?"
        );
        assert_eq!(did_you_mean(&json!(1), &opts, &[]), "");
        assert_eq!(did_you_mean(&json!("zzz"), &opts, &[]), "");
    }

    #[test]
    fn a_synonym_is_matched_in_the_descriptions() {
        let opts = [&json!("paid"), &json!("void")];
        let described = [
            ("paid", "Paid in full."),
            ("void", "Cancelled; nothing is owed.\nMore."),
        ];
        assert_eq!(
            did_you_mean(&json!("cancelled"), &opts, &described),
            " Did you mean 'void' (Cancelled; nothing is owed)?"
        );
        assert_eq!(did_you_mean(&json!("settled"), &opts, &described), "");
    }
}
