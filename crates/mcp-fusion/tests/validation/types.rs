//! Argument validation against JSON Schema (wire contract §4): `type`, null for
//! optional and required fields, a root that is not an object, and the `false`
//! schema. Every test asserts the exact field lines: path and message.

use mcp_fusion::error::FieldError;
use mcp_fusion::validation::SchemaValidator;
use serde_json::json;

use crate::lines::{line, lines, one, project_schema};

#[test]
fn wrong_type_for_a_required_field_is_one_line() {
    assert_eq!(
        lines(&project_schema(), json!({"project": 42})),
        vec![line(
            "project",
            "Wrong type. You sent: 42. Expected a string."
        )]
    );
}

#[test]
fn wrong_type_for_an_optional_integer_is_one_line() {
    assert_eq!(
        lines(
            &project_schema(),
            json!({"project": "demo", "limit": "ten"})
        ),
        vec![line(
            "limit",
            "Wrong type. You sent: 'ten'. Expected an integer."
        )]
    );
}

#[test]
fn valid_input_passes_and_is_left_alone() {
    let v = SchemaValidator::new(&project_schema()).unwrap();
    let mut args = json!({"project": "demo", "limit": 0});
    assert_eq!(v.validate(&mut args), Ok(()));
    assert_eq!(args, json!({"project": "demo", "limit": 0}));
}

#[test]
fn null_for_an_optional_field_is_treated_as_absent_and_removed() {
    let v = SchemaValidator::new(&project_schema()).unwrap();
    let mut args = json!({"project": "demo", "limit": null});
    assert_eq!(v.validate(&mut args), Ok(()));
    assert_eq!(args, json!({"project": "demo"}));
}

#[test]
fn null_for_a_required_field_is_reported_as_null_not_missing() {
    let v = SchemaValidator::new(&project_schema()).unwrap();
    let mut args = json!({"project": null});
    let err = v.validate(&mut args).unwrap_err();
    assert_eq!(
        err,
        vec![FieldError::new(
            "project",
            "Wrong type. You sent: null. Expected a string."
        )]
    );
    assert_eq!(args, json!({"project": null}), "a required null stays");
}

#[test]
fn type_names_each_json_type() {
    one(
        json!({"type": "string"}),
        json!(1),
        "Wrong type. You sent: 1. Expected a string.",
    );
    one(
        json!({"type": "integer"}),
        json!(1.5),
        "Wrong type. You sent: 1.5. Expected an integer.",
    );
    one(
        json!({"type": "number"}),
        json!("1"),
        "Wrong type. You sent: '1'. Expected a number.",
    );
    one(
        json!({"type": "boolean"}),
        json!("true"),
        "Wrong type. You sent: 'true'. Expected a boolean.",
    );
    one(
        json!({"type": "object"}),
        json!([]),
        "Wrong type. You sent: array(0). Expected an object.",
    );
    one(
        json!({"type": "array"}),
        json!({}),
        "Wrong type. You sent: {}. Expected an array.",
    );
    one(
        json!({"type": "null"}),
        json!(false),
        "Wrong type. You sent: false. Expected null.",
    );
}

#[test]
fn type_lists_several_types_and_says_or_null() {
    one(
        json!({"type": ["string", "null"]}),
        json!(1),
        "Wrong type. You sent: 1. Expected a string or null.",
    );
    one(
        json!({"type": ["null", "integer"]}),
        json!("x"),
        "Wrong type. You sent: 'x'. Expected an integer or null.",
    );
    one(
        json!({"type": ["string", "integer", "boolean"]}),
        json!([1]),
        "Wrong type. You sent: array(1). Expected a string, an integer or a boolean.",
    );
}

#[test]
fn root_that_is_not_an_object_is_reported_at_root() {
    assert_eq!(
        lines(&project_schema(), json!([1, 2])),
        vec![line(
            "(root)",
            "Wrong type. You sent: array(2). Expected an object."
        )]
    );
}

#[test]
fn false_schema_asks_to_remove_the_field() {
    one(
        json!(false),
        json!(1),
        "Not allowed. You sent: 1. Remove this field.",
    );
}
