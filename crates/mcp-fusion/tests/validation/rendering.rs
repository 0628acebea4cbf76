//! Argument validation (wire contract §4): how the lines read and render. The
//! `You sent:` value cut on character boundaries and objects as compact JSON,
//! the lines inside the `<validation_error>` envelope, and the cap on how many
//! lines are listed.

use mcp_fusion::validation::SchemaValidator;
use serde_json::{Value, json};

use crate::lines::one;

#[test]
fn long_multibyte_strings_are_cut_on_character_boundaries() {
    let long = "é".repeat(30) + &"日本".repeat(15); // 60 characters, 150 bytes
    let shown = format!(
        "'{}{}...'",
        "é".repeat(30),
        "日本".repeat(9)[..(17 * 3)].to_owned()
    );
    assert_eq!(shown.chars().count(), 2 + 47 + 3);
    one(
        json!({"maxLength": 10}),
        json!(long),
        &format!("Too long. You sent: {shown}. Expected at most 10 characters."),
    );
    let fifty = "ü".repeat(50);
    one(
        json!({"type": "integer"}),
        json!(fifty.clone()),
        &format!("Wrong type. You sent: '{fifty}'. Expected an integer."),
    );
}

#[test]
fn objects_are_compact_json_cut_at_fifty_characters() {
    let sent = format!("{{\"description\":\"{}...", "x".repeat(34));
    one(
        json!({"type": "string"}),
        json!({"description": "x".repeat(60)}),
        &format!("Wrong type. You sent: {sent}. Expected a string."),
    );
    one(
        json!({"type": "string"}),
        json!({"a": 1, "b": [true, null]}),
        "Wrong type. You sent: {\"a\":1,\"b\":[true,null]}. Expected a string.",
    );
}

#[test]
fn lines_render_into_the_validation_envelope() {
    let v = SchemaValidator::new(&json!({
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email"},
            "amount": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1000}
        },
        "required": ["email"]
    }))
    .unwrap();
    let fields = v
        .validate(&mut json!({"email": "not-an-email", "amount": 1000}))
        .unwrap_err();
    let failure = mcp_fusion::error::ValidationFailure::new("billing.create_invoice", fields);
    let expected = r#"Fix the fields below and call billing again.
<validation_error action="billing.create_invoice">
  <field name="email">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
  <field name="amount">Too large. You sent: 1000. Expected an integer > 0 and &lt; 1000.</field>
  <recovery>Do not explain the error.</recovery>
</validation_error>"#;
    assert_eq!(mcp_fusion::envelope::render_validation(&failure), expected);
}

#[test]
fn thousands_of_unknown_keys_are_counted_not_all_listed() {
    let validator = SchemaValidator::new(&json!({
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "additionalProperties": false
    }))
    .unwrap();
    let mut args = serde_json::Map::new();
    args.insert("id".into(), json!("inv_1"));
    for i in 0..30_000 {
        args.insert(format!("k{i}"), json!(i));
    }
    let fields = validator.validate(&mut Value::Object(args)).unwrap_err();
    assert_eq!(fields.len(), 101);
    let last = fields.last().unwrap();
    assert_eq!(last.path, "(more)");
    assert_eq!(
        last.message,
        "29900 more problems are not shown. Fix the fields above and call again to see the rest."
    );
    let failure = mcp_fusion::error::ValidationFailure::new("t.a", fields);
    assert_eq!(failure.problem_count(), 30_000);
    let meta = mcp_fusion::envelope::validation_to_meta(&failure);
    assert_eq!(
        meta["message"],
        json!("The arguments for t.a are not valid (30000 problems).")
    );
    assert!(mcp_fusion::envelope::render_validation(&failure).len() < 16 * 1024);
}
