//! Argument validation against JSON Schema (wire contract §4): numeric bounds,
//! the integer formats of Rust types, `multipleOf`, and integers beyond 2^53
//! kept and printed exactly. Every test asserts the exact field lines: path and
//! message.

use mcp_fusion::error::FieldError;
use mcp_fusion::validation::SchemaValidator;
use serde_json::{Value, json};

use crate::lines::one;

#[test]
fn numeric_bounds_use_comparison_signs() {
    let int = json!({"type": "integer", "minimum": 1, "maximum": 100});
    one(
        int.clone(),
        json!(0),
        "Too small. You sent: 0. Expected an integer >= 1 and <= 100.",
    );
    one(
        int,
        json!(101),
        "Too large. You sent: 101. Expected an integer >= 1 and <= 100.",
    );
    one(
        json!({"type": "number", "exclusiveMinimum": 0}),
        json!(0),
        "Too small. You sent: 0. Expected a number > 0.",
    );
    one(
        json!({"exclusiveMaximum": 1.5}),
        json!(1.5),
        "Too large. You sent: 1.5. Expected a number < 1.5.",
    );
    one(
        json!({"maximum": 10}),
        json!(10.5),
        "Too large. You sent: 10.5. Expected a number <= 10.",
    );
    one(
        json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1}),
        json!(-2),
        "Too small. You sent: -2. Expected a number > 0 and <= 1.",
    );
}

#[test]
fn integer_formats_from_rust_types_are_range_checked() {
    one(
        json!({"type": "integer", "format": "uint32", "minimum": 0}),
        json!(5000000000u64),
        "Too large. You sent: 5000000000. Expected an integer >= 0 and <= 4294967295.",
    );
    one(
        json!({"type": "integer", "format": "uint64", "minimum": 0}),
        json!(-1),
        "Too small. You sent: -1. Expected an integer >= 0.",
    );
    one(
        json!({"type": "integer", "format": "int32"}),
        json!(-2147483649i64),
        "Too small. You sent: -2147483649. Expected an integer >= -2147483648.",
    );
    let mut big: Value = serde_json::from_str("100000000000000000000").unwrap();
    let v = SchemaValidator::new(&json!({"type": "integer", "format": "uint64", "minimum": 0}))
        .unwrap();
    assert_eq!(
        v.validate(&mut big).unwrap_err(),
        vec![FieldError::new(
            "(root)",
            "Too large. You sent: 1e+20. Expected an integer >= 0 and <= 18446744073709551615."
        )]
    );
    assert_eq!(
        v.schema(),
        &json!({"type": "integer", "format": "uint64", "minimum": 0}),
        "the schema given is kept as given"
    );
}

#[test]
fn multiple_of_names_the_step() {
    one(
        json!({"multipleOf": 0.5}),
        json!(1.2),
        "Not a multiple of 0.5. You sent: 1.2. Expected a multiple of 0.5.",
    );
    one(
        json!({"type": "integer", "multipleOf": 5}),
        json!(7),
        "Not a multiple of 5. You sent: 7. Expected a multiple of 5.",
    );
}

#[test]
fn big_integers_are_printed_exactly() {
    one(
        json!({"type": "string"}),
        json!(9007199254740993u64),
        "Wrong type. You sent: 9007199254740993. Expected a string.",
    );
    let v = SchemaValidator::new(&json!({"properties": {"n": {"type": "integer"}}})).unwrap();
    let mut args = json!({"n": 9007199254740993u64});
    assert_eq!(v.validate(&mut args), Ok(()));
    assert_eq!(args["n"].as_u64(), Some(9007199254740993));
}
