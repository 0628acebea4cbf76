//! Keys an object does not know (`additionalProperties` and
//! `unevaluatedProperties: false`): one line per key, at its own path, naming
//! the known fields and the closest one (wire contract §4).

use serde_json::Value;

use super::line::Line;
use super::lookup::{self, Unions};
use super::path::{self, Seg};
use super::sent::sent;
use crate::suggest::{by_shape, closest_other};

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

/// One line per unrecognized key (`unexpected`, keys of `object`), at that
/// key's own path under `here`.
pub(crate) fn unknown_keys<'a>(
    here: &'a [Seg],
    object: &'a Value,
    unexpected: &'a [String],
    known: &'a Known<'a>,
    keyword: &'static str,
) -> impl Iterator<Item = Line> + 'a {
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
    unexpected.iter().map(move |key| {
        let mut expected = match (known.names.is_empty(), known.patterns.is_empty()) {
            (true, true) => "This object accepts no fields; remove it.".to_owned(),
            (false, true) => format!("Known fields: {listed}. Check for typos."),
            (true, false) => format!("Field names must match {patterns}. Check for typos."),
            (false, false) => {
                format!("Known fields: {listed}, and names matching {patterns}. Check for typos.")
            }
        };
        // A field already sent is no suggestion: renaming onto it would
        // overwrite its value.
        let unsent = known
            .names
            .iter()
            .copied()
            .filter(|name| object.get(*name).is_none());
        // With a suggestion, the list of known fields is left out: the
        // suggestion is the fix, and the tool's schema lists them all.
        if let Some(near) = closest_other(key, unsent) {
            expected = did_you_mean(near).trim_start().to_owned();
        }
        Line::new(
            path::child(here, key),
            keyword,
            &format!("Unrecognized field {}", quoted(key)),
            &sent(object.get(key)),
            &expected,
        )
    })
}

/// ` Did you mean "name"?`, the suggestion of an unknown key's line.
fn did_you_mean(name: &str) -> String {
    format!(" Did you mean {}?", quoted(name))
}

/// The unknown key's `line` with `near` suggested in place of the fields it
/// listed (`… You sent: 1. Did you mean "quantity"?`).
fn suggest(line: &mut Line, near: &str) {
    for list in [" Known fields: ", " Field names must match "] {
        if let Some(at) = line.message.find(list) {
            line.message.truncate(at);
        }
    }
    line.message.push_str(&did_you_mean(near));
}

/// Whether `line` is about an unknown key and suggests no field yet.
fn unsuggested_unknown(line: &Line) -> bool {
    matches!(
        line.keyword,
        "additionalProperties" | "unevaluatedProperties"
    ) && !line.message.contains(" Did you mean ")
}

/// The missing field an unknown key was probably meant to be, in an object
/// that both has unknown keys and misses required fields: the one missing
/// field with the key's shape (`qty` → `quantity`, `invoice_id` → `id`), else
/// the only missing field when the key is the only unknown one there. Its
/// name is added to the key's line as ` Did you mean "quantity"?` — a renamed
/// field (the model's old name) is the usual cause.
pub(crate) fn pair_with_missing(lines: &mut [Line]) {
    // (line index, parent object, key) of the unknown keys still without a
    // suggestion, and (parent object, field) of the missing fields.
    let split = |line: &Line| -> Option<(Vec<Seg>, String)> {
        match line.segs.split_last()? {
            (Seg::Key(key), parent) => Some((parent.to_vec(), key.clone())),
            _ => None,
        }
    };
    let unknown: Vec<(usize, Vec<Seg>, String)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| unsuggested_unknown(l))
        .filter_map(|(i, l)| split(l).map(|(parent, key)| (i, parent, key)))
        .collect();
    let missing: Vec<(Vec<Seg>, String)> = lines
        .iter()
        .filter(|l| l.keyword == "required")
        .filter_map(split)
        .collect();
    for (i, parent, key) in &unknown {
        let missing_here: Vec<&str> = missing
            .iter()
            .filter(|(p, _)| p == parent)
            .map(|(_, name)| name.as_str())
            .collect();
        let alone = unknown.iter().filter(|(_, p, _)| p == parent).count() == 1;
        let near = by_shape(key, missing_here.iter().copied()).or(match missing_here[..] {
            [only] if alone => Some(only),
            _ => None,
        });
        if let Some(near) = near {
            suggest(&mut lines[*i], near);
        }
    }
}
