//! Helpers shared by the validation tests: the field lines a schema gives
//! for some arguments, and the `project`/`limit` schema several files use.

use mcp_fusion::validation::SchemaValidator;
use serde_json::{Value, json};

/// The field lines for `args` against `schema`, as `(path, message)` pairs;
/// empty when the arguments are valid.
pub fn lines(schema: &Value, args: Value) -> Vec<(String, String)> {
    let v = SchemaValidator::new(schema).expect("schema compiles");
    let mut args = args;
    match v.validate(&mut args) {
        Ok(()) => Vec::new(),
        Err(fields) => {
            assert!(!fields.is_empty(), "an error is never empty");
            fields.into_iter().map(|f| (f.path, f.message)).collect()
        }
    }
}

pub fn line(path: &str, message: &str) -> (String, String) {
    (path.to_owned(), message.to_owned())
}

/// One property `f` with schema `sub`: the lines for `{"f": value}`.
pub fn field(sub: Value, value: Value) -> Vec<(String, String)> {
    let schema = json!({"type": "object", "properties": {"f": sub}});
    lines(&schema, json!({"f": value}))
}

/// Asserts that `{"f": value}` against `sub` yields exactly one line at `f` saying `message`.
#[track_caller]
pub fn one(sub: Value, value: Value, message: &str) {
    assert_eq!(field(sub, value), vec![line("f", message)]);
}

pub fn project_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "project": {"type": "string"},
            "limit": {"type": "integer", "minimum": 0}
        },
        "required": ["project"],
        "additionalProperties": false
    })
}
