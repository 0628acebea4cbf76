//! The declared fields of a value: what a presenter's schema does not
//! declare is taken out, nested objects and arrays included. This reads the
//! schema's `properties`, `items`, `additionalProperties`, branches
//! (`anyOf`, `oneOf`, `allOf`) and local `$ref`s (a recursive type's
//! `{"$ref": "#"}`) to find where each value belongs; whether the result
//! matches the schema is `jsonschema`'s to say afterwards.

use serde_json::{Map, Value};

/// How many `$ref`s one look at a schema follows: a chain of references
/// that only point at each other ends there.
const MAX_REFS: usize = 32;

/// Removes from `value`, in place, every object member `schema` does not
/// declare, at every depth. An object whose schema declares no
/// `properties` keeps its members (a map, `additionalProperties`, or any
/// JSON), each taken through its `additionalProperties` schema when there
/// is one. `schema` is the root its local `$ref`s point into.
pub(crate) fn keep_declared(value: &mut Value, schema: &Value) {
    keep(value, schema, schema);
}

/// [`keep_declared`] at `schema`, a part of `root`.
fn keep(value: &mut Value, schema: &Value, root: &Value) {
    match value {
        Value::Object(object) => keep_declared_members(object, schema, root),
        Value::Array(items) => {
            let item_schemas = branches(schema, root)
                .filter_map(|s| s.get("items"))
                .collect::<Vec<_>>();
            for item in items {
                for item_schema in &item_schemas {
                    keep(item, item_schema, root);
                }
            }
        }
        _ => {}
    }
}

fn keep_declared_members(object: &mut Map<String, Value>, schema: &Value, root: &Value) {
    let declaring: Vec<&Map<String, Value>> = branches(schema, root)
        .filter_map(|s| s.get("properties").and_then(Value::as_object))
        .collect();
    if declaring.is_empty() {
        let extra: Vec<&Value> = branches(schema, root)
            .filter_map(|s| s.get("additionalProperties"))
            .filter(|s| s.is_object())
            .collect();
        for member in object.values_mut() {
            for member_schema in &extra {
                keep(member, member_schema, root);
            }
        }
        return;
    }
    object.retain(|key, _| declaring.iter().any(|p| p.contains_key(key)));
    for (key, member) in object.iter_mut() {
        for properties in &declaring {
            if let Some(member_schema) = properties.get(key) {
                keep(member, member_schema, root);
            }
        }
    }
}

/// `schema`, the subschemas of its `anyOf`, `oneOf` and `allOf`, and the
/// schemas its local `$ref`s (`#`, `#/$defs/Name`) point to in `root`, at
/// every depth: the places a value's members may be declared.
fn branches<'s>(schema: &'s Value, root: &'s Value) -> impl Iterator<Item = &'s Value> {
    let mut stack = vec![schema];
    let mut refs = 0;
    std::iter::from_fn(move || {
        let next = stack.pop()?;
        for keyword in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(subs)) = next.get(keyword) {
                stack.extend(subs.iter());
            }
        }
        if let Some(target) = next.get("$ref").and_then(Value::as_str)
            && let Some(pointer) = target.strip_prefix('#')
            && refs < MAX_REFS
            && let Some(referred) = root.pointer(pointer)
        {
            refs += 1;
            stack.push(referred);
        }
        Some(next)
    })
}

/// The schema `path` (dotted member names) leads to inside `schema`,
/// through objects' `properties` and arrays' `items`; `None` when a name is
/// not declared.
pub(crate) fn declared_at<'s>(schema: &'s Value, path: &str) -> Option<&'s Value> {
    let mut at = schema;
    for name in path.split('.') {
        at = through_items(at, schema);
        at = branches(at, schema).find_map(|s| s.get("properties").and_then(|p| p.get(name)))?;
    }
    Some(at)
}

/// The items' schema when `schema` (a part of `root`) is an array's, else
/// `schema`.
fn through_items<'s>(schema: &'s Value, root: &'s Value) -> &'s Value {
    let mut at = schema;
    // Bounded: a recursive array type's items may be the array itself.
    for _ in 0..MAX_REFS {
        match branches(at, root).find_map(|s| s.get("items")) {
            Some(items) => at = items,
            None => break,
        }
    }
    at
}

/// The top-level members `schema` declares, in schema order.
pub(crate) fn top_level(schema: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for properties in
        branches(schema, schema).filter_map(|s| s.get("properties").and_then(Value::as_object))
    {
        for name in properties.keys() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn undeclared_members_leave_at_every_depth() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "lines": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}},
                "customer": {"anyOf": [{"type": "object", "properties": {"name": {"type": "string"}}}, {"type": "null"}]},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}}
            }
        });
        let mut value = json!({
            "id": "inv_1", "note": "internal",
            "lines": [{"sku": "A", "cost": 3}],
            "customer": {"name": "Ada", "card": "4111"},
            "tags": {"a": "b"}
        });
        keep_declared(&mut value, &schema);
        assert_eq!(
            value,
            json!({"id": "inv_1", "lines": [{"sku": "A"}], "customer": {"name": "Ada"}, "tags": {"a": "b"}})
        );
        assert_eq!(
            declared_at(&schema, "lines.sku"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            declared_at(&schema, "customer.name"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(declared_at(&schema, "customer.card"), None);
        assert_eq!(top_level(&schema), ["id", "lines", "customer", "tags"]);
    }
}
