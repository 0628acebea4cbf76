//! Argument validation against JSON Schema (wire contract §4): the keywords
//! that choose a branch. Tagged unions inside arrays, other `anyOf`/`oneOf`
//! unions, and `if`/`then`. Every test asserts the exact field lines: path and
//! message.

use serde_json::{Value, json};

use crate::lines::{field, line, lines, one};

// ---------------------------------------------------------------------------
// Tagged unions inside arrays

fn orders_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "orders": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}}
                    },
                    "required": ["id", "lines"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["orders"],
        "additionalProperties": false,
        "$defs": {
            "Line": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "minLength": 1},
                    "pricing": {"$ref": "#/$defs/Pricing"}
                },
                "required": ["sku", "pricing"],
                "additionalProperties": false
            },
            "Pricing": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "model": {"type": "string", "const": "flat"},
                            "amount": {"type": "integer", "minimum": 1}
                        },
                        "required": ["model", "amount"],
                        "additionalProperties": false
                    },
                    {
                        "type": "object",
                        "properties": {
                            "model": {"type": "string", "const": "tiered"},
                            "tiers": {"type": "array", "minItems": 1, "items": {"type": "integer"}}
                        },
                        "required": ["model", "tiers"],
                        "additionalProperties": false
                    }
                ]
            }
        }
    })
}

fn orders_with_pricing(pricing: Value) -> Value {
    json!({"orders": [
        {"id": "o1", "lines": [{"sku": "a", "pricing": {"model": "flat", "amount": 5}}]},
        {"id": "o2", "lines": [
            {"sku": "b", "pricing": {"model": "tiered", "tiers": [1, 2]}},
            {"sku": "c", "pricing": pricing}
        ]}
    ]})
}

#[test]
fn unknown_union_tag_is_one_line_at_the_tag_listing_the_options() {
    assert_eq!(
        lines(
            &orders_schema(),
            orders_with_pricing(json!({"model": "volume", "amount": 3}))
        ),
        vec![line(
            "orders.1.lines.1.pricing.model",
            "Invalid value. You sent: 'volume'. Expected one of: 'flat', 'tiered'."
        )]
    );
}

#[test]
fn near_union_tag_is_suggested() {
    assert_eq!(
        lines(
            &orders_schema(),
            orders_with_pricing(json!({"model": "Tiered", "tiers": [1]}))
        ),
        vec![line(
            "orders.1.lines.1.pricing.model",
            "Invalid value. You sent: 'Tiered'. Did you mean 'tiered'?"
        )]
    );
}

#[test]
fn missing_union_tag_is_one_line_at_the_tag() {
    assert_eq!(
        lines(&orders_schema(), orders_with_pricing(json!({"amount": 3}))),
        vec![line(
            "orders.1.lines.1.pricing.model",
            "Missing required field. You sent: (missing). Expected one of: 'flat', 'tiered'."
        )]
    );
}

#[test]
fn known_union_tag_reports_that_branch_errors_at_their_paths() {
    assert_eq!(
        lines(
            &orders_schema(),
            orders_with_pricing(json!({"model": "tiered", "tiers": [], "amount": 3}))
        ),
        vec![
            line(
                "orders.1.lines.1.pricing.tiers",
                "Too few items. You sent: array(0). Expected at least 1 item."
            ),
            line(
                "orders.1.lines.1.pricing.amount",
                "Unrecognized field \"amount\". You sent: 3. Known fields: \"model\", \"tiers\". Check for typos."
            ),
        ]
    );
    assert_eq!(
        lines(
            &orders_schema(),
            orders_with_pricing(json!({"model": "flat"}))
        ),
        vec![line(
            "orders.1.lines.1.pricing.amount",
            "Missing required field. You sent: (missing). Expected an integer >= 1."
        )]
    );
}

#[test]
fn union_with_three_tagged_branches_behaves_the_same() {
    let schema = json!({
        "type": "object",
        "properties": {"shape": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
            {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]},
            {"type": "object", "properties": {"kind": {"enum": ["rect", "rectangle"]}, "w": {"type": "number"}}, "required": ["kind", "w"]}
        ]}}
    });
    assert_eq!(
        lines(&schema, json!({"shape": {"kind": "triangle", "r": 1}})),
        vec![line(
            "shape.kind",
            "Invalid value. You sent: 'triangle'. Expected one of: 'circle', 'square', 'rect', 'rectangle'."
        )]
    );
    assert_eq!(
        lines(
            &schema,
            json!({"shape": {"kind": "rectangle", "w": "wide"}})
        ),
        vec![line(
            "shape.w",
            "Wrong type. You sent: 'wide'. Expected a number."
        )]
    );
}

#[test]
fn several_problems_across_the_tree_come_in_schema_order() {
    let args = json!({"orders": [
        {"id": 7, "lines": [{"sku": "", "pricing": {"model": "flat", "amount": 0}}], "note": "x"},
        {"lines": [{"pricing": {"model": "zzz"}}]}
    ], "extra": true});
    assert_eq!(
        lines(&orders_schema(), args),
        vec![
            line("orders.0.id", "Wrong type. You sent: 7. Expected a string."),
            line(
                "orders.0.lines.0.sku",
                "Too short. You sent: ''. Expected at least 1 character."
            ),
            line(
                "orders.0.lines.0.pricing.amount",
                "Too small. You sent: 0. Expected an integer >= 1."
            ),
            line(
                "orders.0.note",
                "Unrecognized field \"note\". You sent: 'x'. Known fields: \"id\", \"lines\". Check for typos."
            ),
            line(
                "orders.1.id",
                "Missing required field. You sent: (missing). Expected a string."
            ),
            line(
                "orders.1.lines.0.sku",
                "Missing required field. You sent: (missing). Expected a string."
            ),
            line(
                "orders.1.lines.0.pricing.model",
                "Invalid value. You sent: 'zzz'. Expected one of: 'flat', 'tiered'."
            ),
            line(
                "extra",
                "Unrecognized field \"extra\". You sent: true. Known fields: \"orders\". Check for typos."
            ),
        ]
    );
}

// ---------------------------------------------------------------------------
// Other unions

#[test]
fn union_whose_types_all_misfit_is_one_line_describing_the_branches() {
    one(
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        json!(1.5),
        "Wrong type. You sent: 1.5. Expected a string or an integer.",
    );
    one(
        json!({"oneOf": [{"type": "object", "properties": {"a": {}}}, {"type": "null"}]}),
        json!("x"),
        "Wrong type. You sent: 'x'. Expected an object or null.",
    );
}

#[test]
fn union_picks_the_fitting_branch_with_the_fewest_errors() {
    let sub = json!({"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "string"}}, "required": ["a", "c"]},
        {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
        {"type": "null"}
    ]});
    assert_eq!(
        field(sub.clone(), json!({"b": "x"})),
        vec![line(
            "f.b",
            "Wrong type. You sent: 'x'. Expected an integer."
        )]
    );
    // A tie goes to the first branch.
    assert_eq!(
        field(sub, json!({"a": "x", "b": "y"})),
        vec![line(
            "f.c",
            "Missing required field. You sent: (missing). Expected a string."
        )]
    );
}

#[test]
fn union_of_constants_reads_like_an_enum() {
    one(
        json!({"oneOf": [
            {"type": "string", "const": "active", "description": "a"},
            {"type": "string", "const": "paid", "description": "p"}
        ]}),
        json!("PAID"),
        "Invalid value. You sent: 'PAID'. Did you mean 'paid'?",
    );
}

#[test]
fn one_of_matching_several_branches_says_so() {
    one(
        json!({"oneOf": [{"type": "integer"}, {"type": "number"}]}),
        json!(1),
        "Matches more than one allowed shape. You sent: 1. Expected a value that matches exactly one of the allowed shapes (one of: an integer, a number).",
    );
}

// ---------------------------------------------------------------------------
// Conditional schemas

#[test]
fn conditional_schemas_report_the_branch_taken() {
    let sub = json!({
        "type": "object",
        "properties": {"country": {"type": "string"}, "zip": {"type": "string"}},
        "if": {"properties": {"country": {"const": "US"}}},
        "then": {"properties": {"zip": {"pattern": "^[0-9]{5}$"}}}
    });
    assert_eq!(
        field(sub, json!({"country": "US", "zip": "ABC"})),
        vec![line(
            "f.zip",
            "Does not match the pattern. You sent: 'ABC'. Expected a string matching the pattern '^[0-9]{5}$'."
        )]
    );
}
