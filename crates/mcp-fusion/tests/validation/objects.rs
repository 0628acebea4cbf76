//! Argument validation against JSON Schema (wire contract §4): required and
//! unknown keys (with the known fields named and a near one suggested), field
//! counts and names, `additionalProperties`, `unevaluatedProperties` and
//! `dependentRequired`. Every test asserts the exact field lines: path and
//! message.

use serde_json::json;

use crate::lines::{field, line, lines, one, project_schema};

#[test]
fn empty_input_reports_the_missing_required_field_once() {
    assert_eq!(
        lines(&project_schema(), json!({})),
        vec![line(
            "project",
            "Missing required field. You sent: (missing). Expected a string."
        )]
    );
}

#[test]
fn unknown_key_near_a_known_key_is_named_with_a_suggestion() {
    assert_eq!(
        lines(&project_schema(), json!({"project": "demo", "limt": 5})),
        vec![line(
            "limt",
            "Unrecognized field \"limt\". You sent: 5. Did you mean \"limit\"?"
        )]
    );
}

#[test]
fn a_field_already_sent_is_no_suggestion_for_an_unknown_key() {
    // Renaming "limt" onto "limit" would overwrite the 10 that was sent.
    assert_eq!(
        lines(
            &project_schema(),
            json!({"project": "demo", "limit": 10, "limt": 5})
        ),
        vec![line(
            "limt",
            "Unrecognized field \"limt\". You sent: 5. Known fields: \"project\", \"limit\". Check for typos."
        )]
    );
}

#[test]
fn a_quote_or_backslash_in_a_key_is_escaped_in_the_phrase() {
    assert_eq!(
        lines(&project_schema(), json!({"project": "demo", "a\"<b>\\": 1})),
        vec![line(
            "a\"<b>\\",
            "Unrecognized field \"a\\\"<b>\\\\\". You sent: 1. Known fields: \"project\", \"limit\". Check for typos."
        )]
    );
}

#[test]
fn renamed_field_still_names_the_known_keys() {
    let schema = json!({
        "type": "object",
        "properties": {"project": {"type": "string"}, "time_range": {"type": "string"}},
        "additionalProperties": false
    });
    assert_eq!(
        lines(&schema, json!({"period": "7d"})),
        vec![line(
            "period",
            "Unrecognized field \"period\". You sent: '7d'. Known fields: \"project\", \"time_range\". Check for typos."
        )]
    );
}

#[test]
fn every_unknown_key_gets_its_own_line_after_the_known_fields_in_input_order() {
    assert_eq!(
        lines(
            &project_schema(),
            json!({"zeta": 1, "limit": "x", "alpha": [1, 2]})
        ),
        vec![
            line(
                "project",
                "Missing required field. You sent: (missing). Expected a string."
            ),
            line("limit", "Wrong type. You sent: 'x'. Expected an integer."),
            line(
                "zeta",
                "Unrecognized field \"zeta\". You sent: 1. Known fields: \"project\", \"limit\". Check for typos."
            ),
            line(
                "alpha",
                "Unrecognized field \"alpha\". You sent: array(2). Known fields: \"project\", \"limit\". Check for typos."
            ),
        ]
    );
}

#[test]
fn object_with_no_known_fields_says_so_for_every_key() {
    let schema = json!({"type": "object", "additionalProperties": false});
    assert_eq!(
        lines(&schema, json!({"x": true, "y": {"z": 1}})),
        vec![
            line(
                "x",
                "Unrecognized field \"x\". You sent: true. This object accepts no fields; remove it."
            ),
            line(
                "y",
                "Unrecognized field \"y\". You sent: {\"z\":1}. This object accepts no fields; remove it."
            ),
        ]
    );
    let nested = json!({"type": "object", "properties": {"opts": {"type": "object", "additionalProperties": false}}});
    assert_eq!(
        lines(&nested, json!({"opts": {"verbose": 1}})),
        vec![line(
            "opts.verbose",
            "Unrecognized field \"verbose\". You sent: 1. This object accepts no fields; remove it."
        )]
    );
}

#[test]
fn unknown_key_mentions_pattern_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x-": {}},
        "additionalProperties": false
    });
    assert_eq!(
        lines(&schema, json!({"x-ok": 1, "nmae": "b"})),
        vec![line(
            "nmae",
            "Unrecognized field \"nmae\". You sent: 'b'. Did you mean \"name\"?"
        )]
    );
}

#[test]
fn property_counts() {
    one(
        json!({"type": "object", "minProperties": 1}),
        json!({}),
        "Too few fields. You sent: {}. Expected at least 1 field.",
    );
    one(
        json!({"type": "object", "maxProperties": 1}),
        json!({"a": 1, "b": 2}),
        "Too many fields. You sent: {\"a\":1,\"b\":2}. Expected at most 1 field.",
    );
}

#[test]
fn property_names_are_checked_at_the_key() {
    assert_eq!(
        field(
            json!({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}),
            json!({"ok": 1, "Bad": 2})
        ),
        vec![line(
            "f.Bad",
            "Invalid field name \"Bad\" (does not match the pattern). You sent: 2. Expected a string matching the pattern '^[a-z]+$'."
        )]
    );
    assert_eq!(
        field(
            json!({"type": "object", "propertyNames": false}),
            json!({"a": 1})
        ),
        vec![line(
            "f.a",
            "Unrecognized field \"a\". You sent: 1. This object accepts no fields; remove it."
        )]
    );
}

#[test]
fn unevaluated_properties_name_the_known_keys() {
    assert_eq!(
        field(
            json!({"allOf": [{"properties": {"name": {}}}], "properties": {"age": {}}, "unevaluatedProperties": false}),
            json!({"age": 1, "nmae": "y"})
        ),
        vec![line(
            "f.nmae",
            "Unrecognized field \"nmae\". You sent: 'y'. Did you mean \"name\"?"
        )]
    );
}

#[test]
fn additional_properties_with_a_schema_checks_the_values() {
    assert_eq!(
        field(
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({"a": 1, "b": "x"})
        ),
        vec![line(
            "f.b",
            "Wrong type. You sent: 'x'. Expected an integer."
        )]
    );
}

#[test]
fn dependent_required_is_a_missing_field() {
    assert_eq!(
        field(
            json!({"type": "object", "properties": {"card": {}, "cvc": {"type": "string"}}, "dependentRequired": {"card": ["cvc"]}}),
            json!({"card": "4111"})
        ),
        vec![line(
            "f.cvc",
            "Missing required field. You sent: (missing). Expected a string."
        )]
    );
}

fn line_item_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": 10000},
            "unit_price_cents": {"type": "integer", "minimum": 0}
        },
        "required": ["description", "quantity", "unit_price_cents"],
        "additionalProperties": false
    })
}

#[test]
fn unknown_key_shaped_like_a_missing_field_is_paired_with_it() {
    assert_eq!(
        lines(
            &line_item_schema(),
            json!({"description": "x", "qty": 1, "unit_price": 5})
        ),
        vec![
            line(
                "quantity",
                "Missing required field. You sent: (missing). Expected an integer >= 1 and <= 10000."
            ),
            line(
                "unit_price_cents",
                "Missing required field. You sent: (missing). Expected an integer >= 0."
            ),
            line(
                "qty",
                "Unrecognized field \"qty\". You sent: 1. Did you mean \"quantity\"?"
            ),
            line(
                "unit_price",
                "Unrecognized field \"unit_price\". You sent: 5. Did you mean \"unit_price_cents\"?"
            ),
        ]
    );
}

#[test]
fn the_only_unknown_key_is_paired_with_the_only_missing_field() {
    let schema = json!({
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "required": ["id"],
        "additionalProperties": false
    });
    assert_eq!(
        lines(&schema, json!({"reference": "inv_2"})),
        vec![
            line(
                "id",
                "Missing required field. You sent: (missing). Expected a string."
            ),
            line(
                "reference",
                "Unrecognized field \"reference\". You sent: 'inv_2'. Did you mean \"id\"?"
            ),
        ]
    );
}

#[test]
fn unknown_keys_unlike_the_missing_fields_get_no_pairing() {
    let schema = json!({
        "type": "object",
        "properties": {"first": {"type": "string"}, "second": {"type": "string"}},
        "required": ["first", "second"],
        "additionalProperties": false
    });
    let got = lines(&schema, json!({"foo": 1, "bar": 2}));
    assert_eq!(got.len(), 4);
    assert!(
        got.iter()
            .all(|(_, message)| !message.contains("Did you mean")),
        "{got:?}"
    );
}

#[test]
fn a_missing_string_names_its_format_with_an_example_or_its_pattern() {
    let schema = json!({
        "type": "object",
        "properties": {
            "at": {"type": "string", "format": "date-time"},
            "invoice_id": {"type": "string", "pattern": "^inv_[0-9]+$"},
            "note": {"type": "string"}
        },
        "required": ["at", "invoice_id", "note"]
    });
    assert_eq!(
        lines(&schema, json!({})),
        vec![
            line(
                "at",
                "Missing required field. You sent: (missing). Expected an RFC 3339 date-time with a time zone (e.g. 2024-01-15T10:30:00Z)."
            ),
            line(
                "invoice_id",
                "Missing required field. You sent: (missing). Expected a string matching the pattern '^inv_[0-9]+$'."
            ),
            line(
                "note",
                "Missing required field. You sent: (missing). Expected a string."
            ),
        ]
    );
}
