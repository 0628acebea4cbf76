//! Argument validation against JSON Schema (wire contract §4): `enum`, `const`
//! and `not`, with the options listed and the closest one suggested. Every test
//! asserts the exact field lines: path and message.

mod validation_lines;

use serde_json::{Value, json};

use validation_lines::{line, lines, one};

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
            "Invalid value. You sent: 'Active'. Expected one of: 'active', 'paid', 'void', 'draft', 'overdue'. Did you mean 'active'?"
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
        "Invalid value. You sent: 'Flat'. Expected exactly 'flat'. Did you mean 'flat'?",
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
