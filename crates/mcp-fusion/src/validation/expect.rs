//! The sentences of a field line that follow from the schema alone: the
//! expectation for a bound, a length, a type, a pattern, a format, pinned
//! values and a missing field (wire contract §4; the table is in
//! `docs/validation.md`). The phrasing of a failure ([`super::phrase`]) and
//! the plan resolved when the validator is built ([`super::plan`]) both write
//! them here, so that the two give the same text.

use std::borrow::Cow;

use serde_json::Value;

use super::format::format_phrase;
use super::lookup;
use crate::json::compact;
use crate::suggest::{by_description, closest_other};

/// The two phrased parts of a line about a single value, borrowed from the
/// plan when it holds them, and the one value the line names as the fix.
pub(crate) struct Parts<'a> {
    pub problem: Cow<'a, str>,
    pub expected: Cow<'a, str>,
    /// The value to send instead, when the line names one (see
    /// [`super::line::Line::fix`]).
    pub fix: Option<Value>,
}

/// [`Parts`] from anything that becomes text, naming no fix.
pub(crate) fn parts<'a>(
    problem: impl Into<Cow<'a, str>>,
    expected: impl Into<Cow<'a, str>>,
) -> Option<Parts<'a>> {
    Some(Parts {
        problem: problem.into(),
        expected: expected.into(),
        fix: None,
    })
}

/// A `Wrong type` line's [`Parts`]: `expected`, and as the fix the sent
/// string read as the one type of `types` it spells (`'1500'` for an
/// `integer` is `1500`, `'true'` for a `boolean` is `true`), if it spells one.
pub(crate) fn wrong_type<'a>(
    expected: impl Into<Cow<'a, str>>,
    value: &Value,
    types: &[&str],
) -> Option<Parts<'a>> {
    Some(Parts {
        problem: Cow::Borrowed("Wrong type"),
        expected: expected.into(),
        fix: spelled(value, types),
    })
}

/// The type names of a `type` failure's `kind` (`integer`, `null`).
pub(crate) fn type_kind_names(kind: &jsonschema::error::TypeKind) -> Vec<String> {
    match kind {
        jsonschema::error::TypeKind::Single(t) => vec![t.to_string()],
        jsonschema::error::TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
    }
}

/// The value the string `value` spells, when `types` takes it and not
/// strings: an integer for `integer`, a finite number for `number`, `true`
/// or `false` for `boolean`.
pub(crate) fn spelled(value: &Value, types: &[&str]) -> Option<Value> {
    let text = value.as_str()?.trim();
    if types.contains(&"string") {
        return None;
    }
    if (types.contains(&"integer") || types.contains(&"number"))
        && let Ok(n) = text.parse::<i64>()
    {
        return Some(Value::from(n));
    }
    if types.contains(&"number") {
        let n = text.parse::<f64>().ok().filter(|n| n.is_finite())?;
        return serde_json::Number::from_f64(n).map(Value::Number);
    }
    if types.contains(&"boolean") {
        return match text {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        };
    }
    None
}

/// `n thing` / `n things`.
pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `Expected a string or null.` for the names of a `type`.
pub(crate) fn type_expected(names: &[&str]) -> String {
    sentence(&lookup::type_phrase(names))
}

/// `Expected {what}.`
fn sentence(what: &str) -> String {
    let mut out = String::with_capacity(what.len() + 10);
    out.push_str("Expected ");
    out.push_str(what);
    out.push('.');
    out
}

/// `Expected at least 3 characters.` for a length or item-count `limit`;
/// `exactly` in place of `plain` when the other side of the range (`other`,
/// its value in the same schema) is the same number.
pub(crate) fn limit_expected(
    limit: u64,
    other: Option<u64>,
    plain: &str,
    one: &str,
    many: &str,
) -> String {
    let bound = if other == Some(limit) {
        "exactly"
    } else {
        plain
    };
    format!("Expected {bound} {}.", count(limit, one, many))
}

/// `Expected a string matching the pattern '^a$'.`
pub(crate) fn pattern_expected(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 45);
    out.push_str("Expected a string matching the pattern '");
    out.push_str(pattern);
    out.push_str("'.");
    out
}

/// `Invalid email format` and its expectation with an example.
pub(crate) fn format_parts(format: &str) -> (String, String) {
    let (label, expected) = format_phrase(format);
    let mut problem = String::with_capacity(label.len() + 15);
    problem.push_str("Invalid ");
    problem.push_str(&label);
    problem.push_str(" format");
    (problem, expected)
}

/// `Not a multiple of 5` and `Expected a multiple of 5.`
pub(crate) fn multiple_of_parts(m: &Value) -> (String, String) {
    let m = compact(m);
    (
        format!("Not a multiple of {m}"),
        format!("Expected a multiple of {m}."),
    )
}

/// `Expected one of: 'a', 'b'.` / `Expected exactly 'a'.`, without the
/// suggestion that may follow.
pub(crate) fn pinned_expected(options: &[&Value]) -> String {
    sentence(&lookup::pinned_phrase(options))
}

/// What a line suggests for a sent value: the sentence (` Did you mean
/// 'x'?`) and, when the sent string is near it, the option it names as the
/// fix; empty and `None` when nothing is near.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Suggestion {
    pub text: String,
    pub option: Option<Value>,
}

impl Suggestion {
    /// The expectation of a line that offers this suggestion after
    /// `expected` (`Expected one of: 'a', 'b'.`, made only when it is
    /// shown): a near option is the fix and stands alone (`Did you mean
    /// 'b'?`, wire contract §4: the options are in the tool's
    /// `inputSchema`, and the list cost up to 60 tokens beside the one the
    /// model should send); a guess from a description follows the options;
    /// `expected` alone when nothing is suggested.
    pub(crate) fn after<'e>(&self, expected: impl FnOnce() -> Cow<'e, str>) -> Cow<'e, str> {
        if self.option.is_some() {
            Cow::Owned(self.text.trim_start().to_owned())
        } else if self.text.is_empty() {
            expected()
        } else {
            Cow::Owned(format!("{}{}", expected(), self.text))
        }
    }
}

/// ` Did you mean 'x'?` when the sent string is near one of the string
/// `options`; else ` Did you mean 'x' (its description)?` when a word of it
/// is in the description of one option only (`described`: option →
/// description, for the options the schema describes).
pub(crate) fn did_you_mean(
    value: &Value,
    options: &[&Value],
    described: &[(&str, &str)],
) -> Suggestion {
    let Some(typed) = value.as_str() else {
        return Suggestion::default();
    };
    if let Some(near) = closest_other(typed, options.iter().filter_map(|o| o.as_str())) {
        return Suggestion {
            text: format!(" Did you mean '{near}'?"),
            option: Some(Value::from(near)),
        };
    }
    by_description(typed, described)
        .and_then(|near| described.iter().find(|(name, _)| *name == near))
        .map(|(near, description)| Suggestion {
            text: format!(
                " Did you mean '{near}' ({})?",
                clean_description(description)
            ),
            // A word shared with a description is a guess the line offers,
            // not a fix to name ("unpaid" is in the description of
            // "overdue", and open invoices are unpaid too).
            option: None,
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

/// The expectation of a missing field `name` of an object: the bounds or the
/// string shape the user's schema states for it (`given`: its schema in the
/// schema as given, read against `given_root`), else what its compiled
/// schema (`prop`, read against `root`) accepts, else `Expected a value.`
pub(crate) fn required_expected(
    given_root: &Value,
    given: Option<&Value>,
    root: &Value,
    prop: Option<&Value>,
) -> String {
    given
        .and_then(|g| stated_bounds(given_root, g).or_else(|| stated_string(given_root, g)))
        .or_else(|| {
            prop.and_then(|p| lookup::describe(root, p))
                .map(|d| sentence(&d))
        })
        .unwrap_or_else(|| "Expected a value.".to_owned())
}

/// `Expected an integer >= 1 and <= 10000.` for a number schema that states
/// a bound (the lower one first); `None` for any other schema.
fn stated_bounds(root: &Value, schema: &Value) -> Option<String> {
    let number = lookup::members(root, schema).into_iter().find(|m| {
        matches!(
            m.get("type").and_then(Value::as_str),
            Some("integer" | "number")
        )
    })?;
    let failed = [
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
    ]
    .into_iter()
    .find_map(|(kw, op)| {
        number
            .get(kw)
            .filter(|v| v.is_number() && !is_64_bit_limit(v))
            .map(|v| (op, v))
    })?;
    Some(bounds_phrase(Some(number), Some(number), failed))
}

/// What a missing string must look like, from the user's schema: its
/// `format`'s expectation with an example, else its `pattern`; `None` for a
/// string with neither, or a value that is not a string.
fn stated_string(root: &Value, schema: &Value) -> Option<String> {
    let string = lookup::members(root, schema)
        .into_iter()
        .find(|m| m.get("type").and_then(Value::as_str) == Some("string"))?;
    if let Some(format) = string.get("format").and_then(Value::as_str) {
        return Some(format_phrase(format).1);
    }
    string
        .get("pattern")
        .and_then(Value::as_str)
        .map(pattern_expected)
}

/// Whether `v` is `i64::MIN`, `i64::MAX` or `u64::MAX`.
fn is_64_bit_limit(v: &Value) -> bool {
    v.as_i64().is_some_and(|n| n == i64::MIN || n == i64::MAX) || v.as_u64() == Some(u64::MAX)
}

/// `Expected an integer >= 0.` / `Expected a number > 0 and <= 100.`: the
/// failing bound `failed` (operator, limit), with the other side's bound
/// when `owner` (the schema as the user gave it) states one; the noun from
/// `noun_owner`'s `type` (the schema as compiled).
pub(crate) fn bounds_phrase(
    noun_owner: Option<&Value>,
    owner: Option<&Value>,
    failed: (&str, &Value),
) -> String {
    let lower_ops = [("minimum", ">="), ("exclusiveMinimum", ">")];
    let upper_ops = [("maximum", "<="), ("exclusiveMaximum", "<")];
    let failed_is_lower = failed.0.starts_with('>');
    let other_side = if failed_is_lower {
        upper_ops
    } else {
        lower_ops
    };
    // The other side is left out when it is only a 64-bit type's limit
    // (`u64`'s maximum, written out by the derived schemas): it tells the
    // model nothing.
    let other = owner.and_then(|o| {
        other_side.iter().find_map(|(kw, op)| {
            o.get(*kw)
                .filter(|v| v.is_number() && !is_64_bit_limit(v))
                .map(|v| (*op, v))
        })
    });
    let noun = match noun_owner.map(|o| o.get("type")) {
        Some(Some(Value::String(t))) if t == "integer" => "an integer",
        Some(Some(Value::Array(ts)))
            if ts.iter().any(|t| t == "integer") && !ts.iter().any(|t| t == "number") =>
        {
            "an integer"
        }
        _ => "a number",
    };
    let (lo, hi) = if failed_is_lower {
        (Some(failed), other)
    } else {
        (other, Some(failed))
    };
    let bounds: Vec<String> = [lo, hi]
        .into_iter()
        .flatten()
        .map(|(op, v)| format!("{op} {}", compact(v)))
        .collect();
    format!("Expected {noun} {}.", bounds.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_are_singular_or_plural() {
        assert_eq!(count(1, "character", "characters"), "1 character");
        assert_eq!(count(0, "item", "items"), "0 items");
        assert_eq!(count(2, "field", "fields"), "2 fields");
    }

    #[test]
    fn limits_say_exactly_when_both_sides_are_equal() {
        assert_eq!(
            limit_expected(3, Some(3), "at least", "character", "characters"),
            "Expected exactly 3 characters."
        );
        assert_eq!(
            limit_expected(1, Some(4), "at most", "item", "items"),
            "Expected at most 1 item."
        );
        assert_eq!(
            limit_expected(2, None, "at least", "item", "items"),
            "Expected at least 2 items."
        );
    }

    #[test]
    fn ranges_name_both_bounds_when_the_schema_has_them() {
        fn range(o: Option<&Value>, failed: (&str, &Value)) -> String {
            bounds_phrase(o, o, failed)
        }
        let o = json!({"type": "integer", "minimum": 1, "maximum": 100});
        assert_eq!(
            range(Some(&o), (">=", &json!(1))),
            "Expected an integer >= 1 and <= 100."
        );
        assert_eq!(
            range(Some(&o), ("<=", &json!(100))),
            "Expected an integer >= 1 and <= 100."
        );
        let o = json!({"exclusiveMinimum": 0.5});
        assert_eq!(
            range(Some(&o), (">", &json!(0.5))),
            "Expected a number > 0.5."
        );
        assert_eq!(range(None, ("<", &json!(10))), "Expected a number < 10.");
        let o = json!({"type": ["integer", "null"], "maximum": 3});
        assert_eq!(
            range(Some(&o), ("<=", &json!(3))),
            "Expected an integer <= 3."
        );
        let checked = json!({"type": "integer", "minimum": 0, "maximum": 255});
        let given = json!({"type": "integer", "minimum": 0});
        assert_eq!(
            bounds_phrase(Some(&checked), Some(&given), (">=", &json!(0))),
            "Expected an integer >= 0.",
            "a bound the user did not write is not shown beside the failing one"
        );
    }

    #[test]
    fn suggestions_only_for_strings() {
        let opts = [&json!("active"), &json!("paid")];
        assert_eq!(
            did_you_mean(&json!("Active"), &opts, &[]),
            Suggestion {
                text: String::from(" Did you mean 'active'?"),
                option: Some(json!("active"))
            }
        );
        assert_eq!(did_you_mean(&json!(1), &opts, &[]), Suggestion::default());
        assert_eq!(
            did_you_mean(&json!("zzz"), &opts, &[]),
            Suggestion::default()
        );
    }

    #[test]
    fn a_synonym_is_matched_in_the_descriptions() {
        let opts = [&json!("paid"), &json!("void")];
        let described = [
            ("paid", "Paid in full."),
            ("void", "Cancelled; nothing is owed.\nMore."),
        ];
        let suggested = did_you_mean(&json!("cancelled"), &opts, &described);
        assert_eq!(
            suggested.text,
            " Did you mean 'void' (Cancelled; nothing is owed)?"
        );
        assert_eq!(suggested.option, None, "a guess, not a fix");
        assert_eq!(
            did_you_mean(&json!("settled"), &opts, &described),
            Suggestion::default()
        );
    }

    #[test]
    fn a_string_that_spells_the_expected_type_is_the_fix() {
        let fix = |value: Value, types: &[&str]| spelled(&value, types);
        assert_eq!(fix(json!("1500"), &["integer", "null"]), Some(json!(1500)));
        assert_eq!(fix(json!(" 2.5 "), &["number"]), Some(json!(2.5)));
        assert_eq!(fix(json!("7"), &["number"]), Some(json!(7)));
        assert_eq!(fix(json!("true"), &["boolean"]), Some(json!(true)));
        assert_eq!(fix(json!("2.5"), &["integer"]), None);
        assert_eq!(fix(json!("NaN"), &["number"]), None);
        assert_eq!(fix(json!("yes"), &["boolean"]), None);
        assert_eq!(fix(json!("5"), &["string", "integer"]), None);
        assert_eq!(fix(json!(5), &["string"]), None);
    }
}
