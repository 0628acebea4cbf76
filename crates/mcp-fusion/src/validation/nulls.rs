//! `null` for an optional property means "not given": such keys are removed
//! before validation, so the handler sees them absent. A `null` for a
//! required property is left for the validator to report (`You sent: null.`).

use serde_json::Value;

use super::lookup::{self, Unions};

/// How deep into nested arguments the removal goes.
const MAX_DEPTH: usize = 128;

/// Removes, in place and at every depth, each key of an object whose value is
/// `null` and which the object's schema declares in `properties` but not in
/// `required` (through `$ref`, `allOf`, and the union branch that applies:
/// the one a tag selects, or the only one accepting objects).
/// Keys the schema does not declare are kept (they are reported as unknown).
pub(crate) fn remove_optional_nulls(root: &Value, args: &mut Value) {
    // Most calls hold no `null` at all: nothing to look up in the schema.
    if has_null(args, 0) {
        walk(root, root, args, 0);
    }
}

/// Whether `value` holds a `null` inside an object, at most [`MAX_DEPTH`] deep.
fn has_null(value: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match value {
        Value::Object(map) => map.values().any(|v| v.is_null() || has_null(v, depth + 1)),
        Value::Array(items) => items.iter().any(|v| has_null(v, depth + 1)),
        _ => false,
    }
}

fn walk(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(_) => {
            let view = lookup::object_view(root, schema, Unions::Selected(value));
            let extra = lookup::extra_props_schema(root, schema);
            let Value::Object(map) = value else { return };
            map.retain(|key, v| {
                !(v.is_null() && view.prop(key).is_some() && !view.required.contains(&key.as_str()))
            });
            for (key, v) in map.iter_mut() {
                if let Some(sub) = view.prop(key).or(extra) {
                    walk(root, sub, v, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                if let Some(sub) = lookup::item_schema(root, schema, i) {
                    walk(root, sub, item, depth + 1);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_nulls_go_required_and_unknown_nulls_stay() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
            "required": ["a"]
        });
        let mut args = json!({"a": null, "b": null, "c": null});
        remove_optional_nulls(&schema, &mut args);
        assert_eq!(args, json!({"a": null, "c": null}));
    }

    #[test]
    fn nested_objects_refs_and_arrays_are_walked() {
        let schema = json!({
            "properties": {"lines": {"type": "array", "items": {"$ref": "#/$defs/L"}}},
            "$defs": {"L": {"properties": {"sku": {}, "note": {}}, "required": ["sku"]}}
        });
        let mut args = json!({"lines": [{"sku": null, "note": null}, {"sku": "x", "note": "n"}]});
        remove_optional_nulls(&schema, &mut args);
        assert_eq!(
            args,
            json!({"lines": [{"sku": null}, {"sku": "x", "note": "n"}]})
        );
    }

    #[test]
    fn tagged_union_branches_are_followed() {
        let schema = json!({
            "properties": {"p": {"oneOf": [
                {"properties": {"model": {"const": "flat"}, "amount": {}, "memo": {}}, "required": ["model", "amount"]},
                {"properties": {"model": {"const": "tiered"}, "tiers": {}}, "required": ["model", "tiers"]}
            ]}}
        });
        let mut args = json!({"p": {"model": "flat", "amount": null, "memo": null}});
        remove_optional_nulls(&schema, &mut args);
        assert_eq!(args, json!({"p": {"model": "flat", "amount": null}}));
    }
}
