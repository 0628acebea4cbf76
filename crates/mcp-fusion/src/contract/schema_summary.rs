//! Short readable forms of schemas and values for the `old` / `new` of a
//! [`Delta`](super::Delta): `enum day|week`, `string (format email)`,
//! `array of integer`.

use std::borrow::Cow;

use serde_json::Value;

use crate::json::value_text;
use crate::text::cut_chars;

/// The longest `old` / `new` text, in characters.
pub(crate) const MAX_VALUE_CHARS: usize = 160;

/// How many `$ref` hops are followed before giving up (a loop).
const MAX_REF_HOPS: usize = 32;

/// `schema` with its local `$ref` (`#/…`, a JSON pointer into `root`)
/// followed: the target's keywords, overridden by the ones written next to
/// the `$ref`. A reference that does not resolve is left as it is.
pub(crate) fn resolve<'a>(schema: &'a Value, root: &'a Value) -> Cow<'a, Value> {
    let mut current = Cow::Borrowed(schema);
    for _ in 0..MAX_REF_HOPS {
        let Some(pointer) = current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
        else {
            break;
        };
        let Some(Value::Object(target)) = root.pointer(pointer) else {
            break;
        };
        let mut merged = target.clone();
        if let Value::Object(siblings) = current.as_ref() {
            for (key, value) in siblings {
                if key != "$ref" {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
        current = Cow::Owned(Value::Object(merged));
    }
    current
}

/// The JSON types a schema allows, sorted; `None` when it says no `type`.
pub(crate) fn type_set(schema: &Value) -> Option<Vec<String>> {
    let mut types: Vec<String> = match schema.get("type")? {
        Value::String(t) => vec![t.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return None,
    };
    types.sort();
    types.dedup();
    Some(types)
}

/// The values a schema is limited to: its `enum`, its `const`, or the
/// constants of a `oneOf` / `anyOf` whose every branch is one constant (the
/// form `schemars` gives a Rust enum whose variants are documented).
pub(crate) fn enum_values(schema: &Value, root: &Value) -> Option<Vec<Value>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    if let Some(value) = schema.get("const") {
        return Some(vec![value.clone()]);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let values: Option<Vec<Value>> = branches
                .iter()
                .map(|branch| {
                    let branch = resolve(branch, root);
                    match (
                        branch.get("const"),
                        branch.get("enum").and_then(Value::as_array),
                    ) {
                        (Some(value), _) => Some(value.clone()),
                        (None, Some(values)) if values.len() == 1 => Some(values[0].clone()),
                        _ => None,
                    }
                })
                .collect();
            if let Some(values) = values.filter(|v| !v.is_empty()) {
                return Some(values);
            }
        }
    }
    None
}

/// Values joined with `|` (`day|week`).
pub(crate) fn values_text(values: &[Value]) -> String {
    values.iter().map(value_text).collect::<Vec<_>>().join("|")
}

/// A schema in a few words: `enum day|week`, `const x`, `string`,
/// `string|null`, `string (format email)`, `array of integer`, `object`,
/// `one of string | integer`, `any`.
pub(crate) fn summarize(schema: &Value, root: &Value) -> String {
    summarize_at(schema, root, 0)
}

fn summarize_at(schema: &Value, root: &Value, depth: usize) -> String {
    let schema = resolve(schema, root);
    let schema = schema.as_ref();
    if let Some(value) = schema.get("const") {
        return cut(&format!("const {}", value_text(value)));
    }
    if let Some(values) = enum_values(schema, root) {
        return cut(&format!("enum {}", values_text(&values)));
    }
    if let Some(types) = type_set(schema) {
        let mut text = types.join("|");
        if types.iter().any(|t| t == "array")
            && let Some(items) = schema.get("items").filter(|i| i.is_object())
            && depth < 4
        {
            text = text.replace(
                "array",
                &format!("array of {}", summarize_at(items, root, depth + 1)),
            );
        }
        if let Some(format) = schema.get("format").and_then(Value::as_str) {
            text.push_str(&format!(" (format {format})"));
        }
        return cut(&text);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array)
            && depth < 4
        {
            let parts: Vec<String> = branches
                .iter()
                .map(|b| summarize_at(b, root, depth + 1))
                .collect();
            return cut(&format!("one of {}", parts.join(" | ")));
        }
    }
    if schema.get("properties").is_some() {
        return String::from("object");
    }
    String::from("any")
}

/// The fields of an object schema in one line: `period (required): enum
/// day|week; limit: integer`, or `no fields`.
pub(crate) fn fields_summary(schema: &Value) -> String {
    let resolved = resolve(schema, schema);
    let required: Vec<&str> = resolved
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = resolved.get("properties").and_then(Value::as_object) else {
        return String::from("no fields");
    };
    if properties.is_empty() {
        return String::from("no fields");
    }
    let mut names: Vec<&String> = properties.keys().collect();
    names.sort();
    let parts: Vec<String> = names
        .iter()
        .map(|name| {
            let flag = if required.contains(&name.as_str()) {
                " (required)"
            } else {
                ""
            };
            format!("{name}{flag}: {}", summarize(&properties[*name], schema))
        })
        .collect();
    cut(&parts.join("; "))
}

/// `text` cut to [`MAX_VALUE_CHARS`] characters, ending with `…` when cut.
pub(crate) fn cut(text: &str) -> String {
    cut_chars(text, MAX_VALUE_CHARS, "…").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries() {
        let root = json!({"$defs": {"P": {"type": "string", "enum": ["day", "week"]}}});
        assert_eq!(
            summarize(&json!({"$ref": "#/$defs/P"}), &root),
            "enum day|week"
        );
        assert_eq!(
            summarize(&json!({"type": ["null", "string"]}), &root),
            "null|string"
        );
        assert_eq!(
            summarize(
                &json!({"type": "array", "items": {"type": "integer"}}),
                &root
            ),
            "array of integer"
        );
        assert_eq!(
            summarize(&json!({"type": "string", "format": "email"}), &root),
            "string (format email)"
        );
        assert_eq!(
            summarize(
                &json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                &root
            ),
            "one of string | null"
        );
        assert_eq!(summarize(&json!({}), &root), "any");
        assert_eq!(cut(&"é".repeat(200)), format!("{}…", "é".repeat(159)));
        assert_eq!(cut(&"é".repeat(160)), "é".repeat(160));
        assert_eq!(summarize(&json!({"const": 3}), &root), "const 3");
        assert_eq!(
            summarize(
                &json!({"oneOf": [{"const": "USD", "description": "US dollars."}, {"const": "EUR"}]}),
                &root
            ),
            "enum USD|EUR"
        );
        assert_eq!(
            fields_summary(
                &json!({"type": "object", "required": ["period"], "properties": {
                "period": {"enum": ["day", "week"]}, "limit": {"type": "integer"}}})
            ),
            "limit: integer; period (required): enum day|week"
        );
    }

    #[test]
    fn loops_of_refs_end() {
        let root = json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}});
        assert_eq!(summarize(&json!({"$ref": "#/$defs/A"}), &root), "any");
    }
}
