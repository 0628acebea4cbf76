//! Generated schemas against generated values: for any schema built from
//! the keywords the phrasing knows (types, bounds, lengths, patterns,
//! formats, `enum`, `const`, objects, arrays and the three unions, nested),
//! compiling either succeeds or is refused with a reason, validating never
//! panics, and every line has the contract's shape (wire contract §4):
//! a path, `. You sent: ` with at most 200 characters after it, and no Rust
//! or parser vocabulary.

use mcp_fusion::validation::SchemaValidator;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A schema of `kind` with each of `bounds` that is set.
fn bounded(kind: &str, bounds: [(&str, Option<i64>); 2]) -> Value {
    let mut schema = json!({ "type": kind });
    for (keyword, bound) in bounds {
        if let Some(bound) = bound {
            schema[keyword] = json!(bound);
        }
    }
    schema
}

/// A leaf schema: one type with some of its keywords, or an `enum`/`const`.
fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        (
            proptest::option::of(-5i64..5),
            proptest::option::of(0i64..50)
        )
            .prop_map(|(min, max)| bounded(
                "integer",
                [("minimum", min), ("exclusiveMaximum", max)]
            )),
        (0.0f64..10.0).prop_map(|step| json!({"type": "number", "multipleOf": step + 0.5})),
        (proptest::option::of(0i64..4), proptest::option::of(0i64..8))
            .prop_map(|(min, max)| bounded("string", [("minLength", min), ("maxLength", max)])),
        proptest::sample::select(&["email", "date", "date-time", "uri", "uuid", "ipv4"][..])
            .prop_map(|format| json!({"type": "string", "format": format})),
        Just(json!({"type": "string", "pattern": "^inv_[0-9]+$"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        Just(json!({"enum": ["draft", "open", "paid"]})),
        Just(json!({"const": "flat"})),
        Just(json!({"type": ["string", "integer"]})),
        Just(json!({})),
    ]
}

/// A schema: leaves, and objects, arrays and unions of schemas, three
/// levels deep at most.
fn any_schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(3, 24, 4, |inner| {
        let names = proptest::sample::select(&["id", "status", "amount", "note", "items"][..]);
        prop_oneof![
            (
                proptest::collection::btree_map(names, inner.clone(), 0..4),
                any::<bool>(),
                any::<bool>(),
            )
                .prop_map(|(properties, closed, require_all)| {
                    let required: Vec<&str> = if require_all {
                        properties.keys().copied().collect()
                    } else {
                        Vec::new()
                    };
                    let properties: Map<String, Value> = properties
                        .into_iter()
                        .map(|(name, schema)| (name.to_owned(), schema))
                        .collect();
                    json!({
                        "type": "object",
                        "properties": properties,
                        "required": required,
                        "additionalProperties": !closed,
                    })
                }),
            (inner.clone(), proptest::option::of(0u64..3)).prop_map(|(items, min)| {
                let mut schema = json!({"type": "array", "items": items});
                if let Some(min) = min {
                    schema["minItems"] = json!(min);
                }
                schema
            }),
            (
                proptest::sample::select(&["oneOf", "anyOf", "allOf"][..]),
                proptest::collection::vec(inner, 1..4)
            )
                .prop_map(|(keyword, branches)| json!({ keyword: branches })),
        ]
    })
}

/// A value, of any JSON kind, with the names the schemas use.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-10i64..60).prop_map(Value::from),
        (-10.0f64..60.0).prop_map(Value::from),
        proptest::sample::select(
            &[
                "",
                "paid",
                "Paid",
                "flat",
                "inv_7",
                "x@y.z",
                "2024-13-01",
                "5",
                "\u{0}é"
            ][..]
        )
        .prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        let names =
            proptest::sample::select(&["id", "status", "amount", "note", "items", "zzz"][..]);
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map(names, inner, 0..4).prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(name, value)| (name.to_owned(), value))
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    #![proptest_config(crate::support::beside_source(ProptestConfig::default()))]

    #[test]
    fn any_schema_phrases_any_value_in_the_contract_shape(
        properties in any_schema(),
        value in any_value(),
    ) {
        // Tool inputs are objects: the generated schema is one field of it.
        let schema = json!({"type": "object", "properties": {"f": properties}, "required": ["f"]});
        let Ok(validator) = SchemaValidator::new(&schema) else {
            return Ok(());
        };
        let mut args = json!({ "f": value });
        if let Err(fields) = validator.validate(&mut args) {
            prop_assert!(!fields.is_empty());
            for field in fields {
                prop_assert!(!field.path.is_empty());
                prop_assert!(field.message.contains(". You sent: "), "{}", field.message);
                let sent = field.message.split(". You sent: ").nth(1).unwrap_or("");
                prop_assert!(sent.chars().count() <= 200, "{}", field.message);
                for banned in ["i64", "u64", "alloc::", "line 1 column", "serde"] {
                    prop_assert!(!field.message.contains(banned), "{}", field.message);
                }
            }
        }
    }
}
