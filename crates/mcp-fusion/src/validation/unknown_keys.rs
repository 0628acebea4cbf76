//! Keys an object does not know (`additionalProperties` and
//! `unevaluatedProperties: false`): one line per key, at its own path, naming
//! the known fields and the closest one (wire contract §4).

use serde_json::Value;

use super::line::Line;
use super::lookup::{self, Unions};
use super::path::{self, Seg};
use super::sent::sent;
use crate::suggest::closest_other;

/// The field names an object schema knows: declared names, in schema
/// order, and `patternProperties` patterns.
#[derive(Default)]
pub(crate) struct Known<'s> {
    pub names: Vec<&'s str>,
    pub patterns: Vec<&'s str>,
}

impl<'s> Known<'s> {
    /// What `additionalProperties` compares against: the `properties` and
    /// `patternProperties` of the schema holding it.
    pub(crate) fn declared_by(owner: Option<&'s Value>) -> Self {
        let keys = |kw: &str| -> Vec<&'s str> {
            owner
                .and_then(|o| o.get(kw))
                .and_then(Value::as_object)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default()
        };
        Known {
            names: keys("properties"),
            patterns: keys("patternProperties"),
        }
    }

    /// What `unevaluatedProperties` compares against: whatever the schema and
    /// its `$ref`, `allOf` and union branches declare.
    pub(crate) fn evaluated_by(root: &'s Value, owner: &'s Value) -> Self {
        let view = lookup::object_view(root, owner, Unions::All);
        let mut patterns = Vec::new();
        for m in lookup::members(root, owner) {
            if let Some(pp) = m.get("patternProperties").and_then(Value::as_object) {
                patterns.extend(pp.keys().map(String::as_str));
            }
        }
        Known {
            names: view.props.iter().map(|(n, _)| *n).collect(),
            patterns,
        }
    }
}

/// A field name as the phrases write it: a JSON string, so that a quote or a
/// backslash inside the name cannot end it early (`"a\"b"`).
fn quoted(name: &str) -> String {
    Value::String(name.to_owned()).to_string()
}

/// One line per unrecognized key, at that key's own path.
pub(crate) fn unknown_keys(
    here: &[Seg],
    object: &Value,
    unexpected: &[String],
    known: &Known,
    keyword: &'static str,
    out: &mut Vec<Line>,
) {
    let listed = known
        .names
        .iter()
        .map(|k| quoted(k))
        .collect::<Vec<_>>()
        .join(", ");
    let patterns = known
        .patterns
        .iter()
        .map(|p| format!("'{p}'"))
        .collect::<Vec<_>>()
        .join(", ");
    for key in unexpected {
        let mut expected = match (known.names.is_empty(), known.patterns.is_empty()) {
            (true, true) => "This object accepts no fields; remove it.".to_owned(),
            (false, true) => format!("Known fields: {listed}. Check for typos."),
            (true, false) => format!("Field names must match {patterns}. Check for typos."),
            (false, false) => {
                format!("Known fields: {listed}, and names matching {patterns}. Check for typos.")
            }
        };
        if let Some(near) = closest_other(key, known.names.iter().copied()) {
            expected.push_str(&format!(" Did you mean {}?", quoted(near)));
        }
        out.push(Line::new(
            path::child(here, key),
            keyword,
            &format!("Unrecognized field {}", quoted(key)),
            &sent(object.get(key)),
            &expected,
        ));
    }
}
