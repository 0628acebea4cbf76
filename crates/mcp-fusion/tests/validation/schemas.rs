//! Argument validation (wire contract §4): the schemas themselves. Which ones
//! compile, and a schema derived from Rust types checked end to end, with no
//! Rust or serde names in any line, for any input.

use mcp_fusion::validation::{SchemaError, SchemaValidator};
use serde_json::{Value, json};

use crate::lines::{line, lines, project_schema};

// ---------------------------------------------------------------------------
// Compiling

#[test]
fn remote_refs_are_refused_at_compile_time() {
    for reference in [
        "https://example.com/schema.json",
        "http://example.com/s#/$defs/A",
        "file:///etc/schema.json",
        "other.json",
    ] {
        let err =
            SchemaValidator::new(&json!({"properties": {"a": {"$ref": reference}}})).unwrap_err();
        assert!(
            matches!(err, SchemaError::RemoteReference { .. }),
            "{reference}: {err:?}"
        );
        assert!(err.to_string().contains("only local references"), "{err}");
    }
}

#[test]
fn invalid_schemas_are_refused_with_a_reason() {
    let err = SchemaValidator::new(&json!({"properties": {"a": {"type": 5}}})).unwrap_err();
    assert!(matches!(err, SchemaError::Invalid { .. }), "{err:?}");
    assert!(
        err.to_string().ends_with(" (at /properties/a/type)"),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("the schema is not a valid JSON Schema (draft 2020-12): "),
        "{err}"
    );
    let err = SchemaValidator::new(&json!({"$ref": "#/$defs/Nope"})).unwrap_err();
    assert!(matches!(err, SchemaError::Invalid { .. }), "{err:?}");
}

#[test]
fn validator_is_shareable_and_keeps_its_schema() {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    shareable::<SchemaValidator>();
    let schema = project_schema();
    let v = SchemaValidator::new(&schema).unwrap();
    let copy = v.clone();
    assert_eq!(copy.schema(), &schema);
    let handle = std::thread::spawn(move || copy.validate(&mut json!({})).unwrap_err().len());
    assert_eq!(handle.join().unwrap(), 1);
}

// ---------------------------------------------------------------------------
// A schema derived from Rust types

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Order {
    id: u64,
    lines: Vec<OrderLine>,
    note: Option<String>,
    ship_to: Option<Address>,
    status: Status,
    channel: Channel,
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct OrderLine {
    qty: u32,
    #[schemars(length(min = 1))]
    sku: String,
    pricing: Pricing,
    price: f64,
    discount: i8,
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Address {
    city: String,
    #[schemars(email)]
    contact: Option<String>,
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "model", rename_all = "snake_case")]
enum Pricing {
    Flat { amount: u64 },
    Tiered { tiers: Vec<u32> },
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Active,
    Paid,
}

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Channel {
    /// Sold on the web shop.
    Web,
    /// Sold in a store.
    Store,
}

fn order_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Order)).unwrap()
}

#[test]
fn derived_schema_accepts_a_valid_order_and_drops_optional_nulls() {
    let schema = order_schema();
    assert!(schema.get("$defs").is_some(), "nested types live in $defs");
    let v = SchemaValidator::new(&schema).unwrap();
    let mut args = json!({
        "id": 9007199254740993u64,
        "lines": [{"qty": 2, "sku": "A-1", "pricing": {"model": "tiered", "tiers": [1, 5]}, "price": 9.5, "discount": -3}],
        "note": null,
        "ship_to": {"city": "Lyon", "contact": null},
        "status": "paid",
        "channel": "web"
    });
    assert_eq!(v.validate(&mut args), Ok(()));
    assert_eq!(args.get("note"), None);
    assert_eq!(args["ship_to"], json!({"city": "Lyon"}));
    assert_eq!(args["id"].as_u64(), Some(9007199254740993));
    let order: Order = serde_json::from_value(args).unwrap();
    assert_eq!(order.id, 9007199254740993);
}

#[test]
fn derived_schema_reports_every_problem_through_refs() {
    let args = json!({
        "id": -1,
        "lines": [{"qty": 1.5, "sku": "", "pricing": {"model": "volume"}, "price": "x", "discount": 200, "extra": 1}],
        "note": null,
        "ship_to": {"city": 5, "contact": "nope"},
        "status": "Paid",
        "channel": "phone"
    });
    assert_eq!(
        lines(&order_schema(), args),
        vec![
            line("id", "Too small. You sent: -1. Expected an integer >= 0."),
            line(
                "lines.0.qty",
                "Wrong type. You sent: 1.5. Expected an integer."
            ),
            line(
                "lines.0.sku",
                "Too short. You sent: ''. Expected at least 1 character."
            ),
            line(
                "lines.0.pricing.model",
                "Invalid value. You sent: 'volume'. Expected one of: 'flat', 'tiered'."
            ),
            line(
                "lines.0.price",
                "Wrong type. You sent: 'x'. Expected a number."
            ),
            line(
                "lines.0.discount",
                "Too large. You sent: 200. Expected an integer >= -128 and <= 127."
            ),
            line(
                "lines.0.extra",
                "Unrecognized field \"extra\". You sent: 1. Known fields: \"qty\", \"sku\", \"pricing\", \"price\", \"discount\". Check for typos."
            ),
            line(
                "ship_to.city",
                "Wrong type. You sent: 5. Expected a string."
            ),
            line(
                "ship_to.contact",
                "Invalid email format. You sent: 'nope'. Expected a valid email address."
            ),
            line(
                "status",
                "Invalid value. You sent: 'Paid'. Did you mean 'paid'?"
            ),
            line(
                "channel",
                "Invalid value. You sent: 'phone'. Expected one of: 'web', 'store'."
            ),
        ]
    );
}

#[test]
fn derived_schema_missing_fields_describe_their_type() {
    assert_eq!(
        lines(&order_schema(), json!({})),
        vec![
            line(
                "id",
                "Missing required field. You sent: (missing). Expected an integer >= 0."
            ),
            line(
                "lines",
                "Missing required field. You sent: (missing). Expected an array."
            ),
            line(
                "status",
                "Missing required field. You sent: (missing). Expected one of: 'active', 'paid'."
            ),
            line(
                "channel",
                "Missing required field. You sent: (missing). Expected one of: 'web', 'store'."
            ),
        ]
    );
}

// ---------------------------------------------------------------------------
// No Rust or serde names, ever

#[test]
fn texts_never_leak_rust_or_serde_names() {
    let schema = order_schema();
    let inputs = [
        json!({}),
        json!([]),
        json!({"id": "x", "lines": "x", "note": 1, "ship_to": 1, "status": 1, "channel": 1, "z": 1}),
        json!({"id": 1.5, "lines": [{"qty": -1, "sku": 1, "pricing": 1, "price": null, "discount": -500}]}),
        json!({"id": u64::MAX, "lines": [{"qty": 5000000000u64, "pricing": {"model": "flat", "amount": -1}}]}),
        json!({"lines": [{"pricing": {"model": "tiered", "tiers": [-1, 1.5, "x"]}}]}),
        json!({"lines": [{"pricing": {}}], "ship_to": {"contact": "@"}}),
        json!({"lines": [{"pricing": []}], "ship_to": null, "status": null}),
    ];
    let mut all = String::new();
    for input in inputs {
        for (path, message) in lines(&schema, input) {
            all.push_str(&path);
            all.push(' ');
            all.push_str(&message);
            all.push('\n');
        }
    }
    assert!(all.lines().count() > 20, "{all}");
    for banned in [
        "i64",
        "u64",
        "uint",
        "int32",
        "int8",
        "double",
        "alloc::",
        "line 1 column",
        "serde",
        "Value",
    ] {
        assert!(!all.contains(banned), "{banned:?} leaked in:\n{all}");
    }
}

// ---------------------------------------------------------------------------
// Any input

mod any_input {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            "\\PC{0,70}".prop_map(Value::from),
            prop::sample::select(vec!["flat", "tiered", "active", "Paid", "web", "x@y.z"])
                .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec(
                    (
                        prop::sample::select(vec![
                            "id", "lines", "note", "ship_to", "status", "channel", "qty", "sku",
                            "pricing", "price", "discount", "model", "amount", "tiers", "city",
                            "contact", "zzz"
                        ]),
                        inner
                    ),
                    0..6
                )
                .prop_map(|kv| Value::Object(
                    kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
            ]
        })
    }

    proptest! {
        #![proptest_config(crate::support::beside_source(ProptestConfig::default()))]

        #[test]
        fn every_line_has_the_contract_shape(args in json_value()) {
            let v = SchemaValidator::new(&order_schema()).unwrap();
            let mut args = args;
            if let Err(fields) = v.validate(&mut args) {
                prop_assert!(!fields.is_empty());
                for f in fields {
                    prop_assert!(!f.path.is_empty());
                    prop_assert!(f.message.contains(". You sent: "), "{}", f.message);
                    let sent = f.message.split(". You sent: ").nth(1).unwrap();
                    prop_assert!(sent.chars().count() <= 200, "{}", f.message);
                    for banned in ["i64", "u64", "uint", "int32", "alloc::", "line 1 column"] {
                        prop_assert!(!f.message.contains(banned), "{}", f.message);
                    }
                }
            }
        }
    }
}
