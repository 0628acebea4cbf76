//! Argument validation against JSON Schema (wire contract §4): `enum`, `const`
//! and `not`, with the options listed and the closest one suggested. Every test
//! asserts the exact field lines: path and message.

use serde_json::{Value, json};

use crate::lines::{field, line, lines, one};

fn status_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["active", "paid", "void", "draft", "overdue"]}
        },
        "additionalProperties": false
    })
}

#[test]
fn enum_lists_every_option_in_schema_order_and_suggests_the_closest() {
    assert_eq!(
        lines(&status_schema(), json!({"status": "Active"})),
        vec![line(
            "status",
            "Invalid value. You sent: 'Active'. Did you mean 'active'?"
        )]
    );
}

#[test]
fn enum_without_a_near_option_suggests_nothing() {
    assert_eq!(
        lines(&status_schema(), json!({"status": "cancelled"})),
        vec![line(
            "status",
            "Invalid value. You sent: 'cancelled'. Expected one of: 'active', 'paid', 'void', 'draft', 'overdue'."
        )]
    );
}

#[test]
fn enum_of_the_wrong_type_is_one_line_listing_the_options() {
    assert_eq!(
        lines(&status_schema(), json!({"status": 3})),
        vec![line(
            "status",
            "Invalid value. You sent: 3. Expected one of: 'active', 'paid', 'void', 'draft', 'overdue'."
        )]
    );
}

#[test]
fn const_says_exactly_what_is_expected() {
    one(
        json!({"const": "flat"}),
        json!("Flat"),
        "Invalid value. You sent: 'Flat'. Did you mean 'flat'?",
    );
    one(
        json!({"const": 3}),
        json!(4),
        "Invalid value. You sent: 4. Expected exactly 3.",
    );
}

#[test]
fn non_string_enum_options_are_shown_as_json() {
    one(
        json!({"enum": [1, 2, null, "x"]}),
        json!(3),
        "Invalid value. You sent: 3. Expected one of: 1, 2, null, 'x'.",
    );
}

#[test]
fn not_says_what_is_excluded() {
    one(
        json!({"not": {"type": "string"}}),
        json!("x"),
        "Value not allowed. You sent: 'x'. Expected a value that is not a string.",
    );
    one(
        json!({"not": {"enum": ["root", "admin"]}}),
        json!("root"),
        "Value not allowed. You sent: 'root'. Expected a value that is not one of: 'root', 'admin'.",
    );
}

fn documented_enum() -> serde_json::Value {
    json!({
        "oneOf": [
            {"type": "string", "const": "paid", "description": "Paid in full."},
            {"type": "string", "const": "void", "description": "Cancelled; nothing is owed."},
            {"type": "string", "const": "open", "description": "Sent and waiting for payment."}
        ],
        "type": "string"
    })
}

#[test]
fn a_missing_documented_enum_names_its_values_not_its_type() {
    let schema = json!({
        "type": "object",
        "properties": {"status": documented_enum()},
        "required": ["status"]
    });
    assert_eq!(
        lines(&schema, json!({})),
        vec![line(
            "status",
            "Missing required field. You sent: (missing). Expected one of: 'paid', 'void', 'open'."
        )]
    );
}

#[test]
fn a_synonym_is_suggested_from_the_values_descriptions() {
    assert_eq!(
        field(documented_enum(), json!("cancelled")),
        vec![line(
            "f",
            "Invalid value. You sent: 'cancelled'. Expected one of: 'paid', 'void', 'open'. Did you mean 'void' (Cancelled; nothing is owed)?"
        )]
    );
    // A word no description holds suggests nothing.
    assert_eq!(
        field(documented_enum(), json!("settled")),
        vec![line(
            "f",
            "Invalid value. You sent: 'settled'. Expected one of: 'paid', 'void', 'open'."
        )]
    );
}

#[test]
fn a_longer_form_of_a_value_is_suggested() {
    assert_eq!(
        field(json!({"enum": ["day", "week", "month"]}), json!("weekly")),
        vec![line(
            "f",
            "Invalid value. You sent: 'weekly'. Did you mean 'week'?"
        )]
    );
}
