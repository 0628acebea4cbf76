//! The declared fields of a value: what a presenter's schema does not
//! declare is taken out, nested objects and arrays included. This reads the
//! schema's `properties`, `items`, `additionalProperties` and branches
//! (`anyOf`, `oneOf`, `allOf`) to find where each value belongs; whether the
//! result matches the schema is `jsonschema`'s to say afterwards.

use serde_json::{Map, Value};

/// Removes from `value`, in place, every object member `schema` does not
/// declare, at every depth. An object whose schema declares no
/// `properties` keeps its members (a map, `additionalProperties`, or any
/// JSON), each taken through its `additionalProperties` schema when there
/// is one.
pub(crate) fn keep_declared(value: &mut Value, schema: &Value) {
    match value {
        Value::Object(object) => keep_declared_members(object, schema),
        Value::Array(items) => {
            let item_schemas = branches(schema)
                .filter_map(|s| s.get("items"))
                .collect::<Vec<_>>();
            for item in items {
                for item_schema in &item_schemas {
                    keep_declared(item, item_schema);
                }
            }
        }
        _ => {}
    }
}

fn keep_declared_members(object: &mut Map<String, Value>, schema: &Value) {
    let declaring: Vec<&Map<String, Value>> = branches(schema)
        .filter_map(|s| s.get("properties").and_then(Value::as_object))
        .collect();
    if declaring.is_empty() {
        let extra: Vec<&Value> = branches(schema)
            .filter_map(|s| s.get("additionalProperties"))
            .filter(|s| s.is_object())
            .collect();
        for member in object.values_mut() {
            for member_schema in &extra {
                keep_declared(member, member_schema);
            }
        }
        return;
    }
    object.retain(|key, _| declaring.iter().any(|p| p.contains_key(key)));
    for (key, member) in object.iter_mut() {
        for properties in &declaring {
            if let Some(member_schema) = properties.get(key) {
                keep_declared(member, member_schema);
            }
        }
    }
}

/// `schema` and the subschemas of its `anyOf`, `oneOf` and `allOf`, at
/// every depth: the places a value's members may be declared.
fn branches(schema: &Value) -> impl Iterator<Item = &Value> {
    let mut stack = vec![schema];
    std::iter::from_fn(move || {
        let next = stack.pop()?;
        for keyword in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(subs)) = next.get(keyword) {
                stack.extend(subs.iter());
            }
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
        at = through_items(at);
        at = branches(at).find_map(|s| s.get("properties").and_then(|p| p.get(name)))?;
    }
    Some(at)
}

/// The items' schema when `schema` is an array's, else `schema`.
fn through_items(schema: &Value) -> &Value {
    let mut at = schema;
    while let Some(items) = branches(at).find_map(|s| s.get("items")) {
        at = items;
    }
    at
}

/// The top-level members `schema` declares, in schema order.
pub(crate) fn top_level(schema: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for properties in
        branches(schema).filter_map(|s| s.get("properties").and_then(Value::as_object))
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
