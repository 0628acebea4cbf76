//! The `You sent: X` clause of a field line (wire contract §4).
//!
//! Strings in single quotes, cut to [`MAX_SENT_CHARS`] characters (47 + `...`);
//! numbers and booleans bare, integers exact; `null`; arrays as `array(N)`;
//! objects as compact JSON cut to [`MAX_SENT_CHARS`] characters, `...` appended
//! when cut; an absent value as `(missing)`.

use serde_json::Value;

use crate::json::compact;
use crate::text::{cut_chars, first_chars};

/// The longest `You sent:` rendering of a string or object, in characters
/// (Unicode scalar values, never bytes).
pub(crate) const MAX_SENT_CHARS: usize = 50;

/// What `You sent:` says for an absent value.
pub(crate) const MISSING: &str = "(missing)";

const ELLIPSIS: &str = "...";

/// Renders `value` for the `You sent:` clause; `None` is an absent value:
/// `'abc'`, `9007199254740993`, `array(3)`, `{"a":1}`, `(missing)`.
pub(crate) fn sent(value: Option<&Value>) -> String {
    let mut out = String::new();
    sent_into(&mut out, value);
    out
}

/// [`sent`], appended to `out`.
pub(crate) fn sent_into(out: &mut String, value: Option<&Value>) {
    use std::fmt::Write as _;
    match value {
        None => out.push_str(MISSING),
        Some(Value::Null) => out.push_str("null"),
        Some(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        // Writing to a `String` cannot fail.
        Some(Value::Number(n)) => {
            let _ = write!(out, "{n}");
        }
        Some(Value::String(s)) => {
            out.push('\'');
            out.push_str(&cut_chars(s, MAX_SENT_CHARS, ELLIPSIS));
            out.push('\'');
        }
        Some(Value::Array(items)) => {
            let _ = write!(out, "array({})", items.len());
        }
        Some(object @ Value::Object(_)) => {
            let json = compact(object);
            match first_chars(&json, MAX_SENT_CHARS) {
                Some(head) => {
                    out.push_str(head);
                    out.push_str(ELLIPSIS);
                }
                None => out.push_str(&json),
            }
        }
    }
}

/// `s` in single quotes, cut to [`MAX_SENT_CHARS`] characters in all: the first
/// 47 characters then `...` when longer. Cuts on a character boundary.
pub(crate) fn quote_cut(s: &str) -> String {
    format!("'{}'", cut_chars(s, MAX_SENT_CHARS, ELLIPSIS))
}

/// A schema value (an enum option, a `const`) as the model should type it:
/// strings in single quotes and never cut, anything else as compact JSON.
pub(crate) fn quote_option(value: &Value) -> String {
    match value {
        Value::String(s) => format!("'{s}'"),
        other => compact(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars() {
        assert_eq!(sent(Some(&json!(null))), "null");
        assert_eq!(sent(Some(&json!(true))), "true");
        assert_eq!(sent(Some(&json!(false))), "false");
        assert_eq!(sent(Some(&json!(-0.5))), "-0.5");
        assert_eq!(sent(Some(&json!(10))), "10");
        assert_eq!(
            sent(Some(&json!(-9007199254740993i64))),
            "-9007199254740993"
        );
        assert_eq!(sent(Some(&json!(u64::MAX))), "18446744073709551615");
        assert_eq!(sent(Some(&json!(""))), "''");
        assert_eq!(sent(None), "(missing)");
    }

    #[test]
    fn strings_cut_at_fifty_characters() {
        let fifty = "a".repeat(50);
        assert_eq!(sent(Some(&json!(fifty))), format!("'{fifty}'"));
        let fifty_one = "b".repeat(51);
        assert_eq!(
            sent(Some(&json!(fifty_one))),
            format!("'{}...'", "b".repeat(47))
        );
    }

    #[test]
    fn multibyte_strings_cut_on_character_boundaries() {
        let s = "é".repeat(60);
        assert_eq!(sent(Some(&json!(s))), format!("'{}...'", "é".repeat(47)));
        let emoji = "😀".repeat(50);
        assert_eq!(sent(Some(&json!(emoji))), format!("'{emoji}'"));
        let emoji = "😀".repeat(51);
        assert_eq!(
            sent(Some(&json!(emoji))),
            format!("'{}...'", "😀".repeat(47))
        );
    }

    #[test]
    fn arrays_show_their_length_only() {
        assert_eq!(sent(Some(&json!([]))), "array(0)");
        assert_eq!(sent(Some(&json!([{"a": 1}, 2]))), "array(2)");
    }

    #[test]
    fn objects_are_compact_json_cut_at_fifty() {
        assert_eq!(sent(Some(&json!({}))), "{}");
        assert_eq!(
            sent(Some(&json!({"a": 1, "b": "two"}))),
            r#"{"a":1,"b":"two"}"#
        );
        let long = json!({"description": "x".repeat(60)});
        let text = compact(&long);
        let head: String = text.chars().take(50).collect();
        assert_eq!(sent(Some(&long)), format!("{head}..."));
        assert_eq!(head, format!("{{\"description\":\"{}", "x".repeat(34)));
    }

    #[test]
    fn options_are_quoted_and_never_cut() {
        assert_eq!(quote_option(&json!("active")), "'active'");
        assert_eq!(quote_option(&json!(3)), "3");
        assert_eq!(quote_option(&json!(null)), "null");
        let long = "x".repeat(70);
        assert_eq!(quote_option(&json!(long)), format!("'{long}'"));
    }
}
