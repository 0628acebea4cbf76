//! Argument validation against JSON Schema (wire contract §4): item counts,
//! `uniqueItems`, `contains`, tuples, and the numeric indices of paths into
//! arrays. Every test asserts the exact field lines: path and message.

use serde_json::json;

use crate::lines::{field, line, lines, one};

#[test]
fn array_lengths_count_items() {
    one(
        json!({"minItems": 1}),
        json!([]),
        "Too few items. You sent: array(0). Expected at least 1 item.",
    );
    one(
        json!({"minItems": 2}),
        json!([1]),
        "Too few items. You sent: array(1). Expected at least 2 items.",
    );
    one(
        json!({"maxItems": 2}),
        json!([1, 2, 3]),
        "Too many items. You sent: array(3). Expected at most 2 items.",
    );
    one(
        json!({"minItems": 2, "maxItems": 2}),
        json!([1, 2, 3]),
        "Too many items. You sent: array(3). Expected exactly 2 items.",
    );
}

#[test]
fn unique_items_points_at_the_first_duplicate() {
    one(
        json!({"uniqueItems": true}),
        json!([1, 2, 1]),
        "Duplicate items. You sent: array(3). Expected every item to be different (items 0 and 2 are equal).",
    );
}

#[test]
fn contains_describes_the_wanted_item() {
    one(
        json!({"contains": {"type": "string"}}),
        json!([1, 2]),
        "No matching item. You sent: array(2). Expected at least one item that is a string.",
    );
    one(
        json!({"contains": {"const": "admin"}, "minContains": 2}),
        json!(["admin", "user"]),
        "Wrong number of matching items. You sent: array(2). Expected at least 2 items that are each exactly 'admin'.",
    );
    one(
        json!({"contains": {"type": "string"}, "maxContains": 1}),
        json!(["a", "b"]),
        "Wrong number of matching items. You sent: array(2). Expected exactly 1 item that is a string.",
    );
    one(
        json!({"contains": {"type": "string"}, "minContains": 2, "maxContains": 3}),
        json!(["a", 1]),
        "Wrong number of matching items. You sent: array(2). Expected from 2 to 3 items that are each a string.",
    );
}

#[test]
fn unevaluated_items_past_a_tuple_are_too_many() {
    one(
        json!({"prefixItems": [{"type": "string"}], "unevaluatedItems": false}),
        json!(["a", 2, 3]),
        "Too many items. You sent: array(3). Expected at most 1 item.",
    );
}

#[test]
fn extra_tuple_items_are_reported() {
    assert_eq!(
        field(
            json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}),
            json!(["a", 1, true])
        ),
        vec![line(
            "f.2",
            "Not allowed. You sent: true. Remove this item."
        )]
    );
}

#[test]
fn paths_use_numeric_indices() {
    let schema = json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {
            "type": "object",
            "properties": {"price": {"type": "number"}},
            "required": ["price"]
        }}}
    });
    assert_eq!(
        lines(
            &schema,
            json!({"items": [{"price": 1}, {}, {"price": "9.99"}]})
        ),
        vec![
            line(
                "items.1.price",
                "Missing required field. You sent: (missing). Expected a number."
            ),
            line(
                "items.2.price",
                "Wrong type. You sent: '9.99'. Expected a number."
            ),
        ]
    );
}
