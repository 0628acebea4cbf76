//! The schemas `tools/list` shows: the standard profile (what schemars
//! derives, rewritten so that every client reads it: no `type` arrays, no
//! Rust type names in `format`, a `type` on every value, nullable values as
//! `anyOf` with a `null` branch) and the portable profile (the subset strict
//! model APIs take), with validation unchanged under both.

use mcp_fusion::validation::SchemaValidator;
use mcp_fusion::{Action, FusionServer, Group, Json, SchemaProfile, ToolError};
use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A colour (variants without docs: schemars writes a plain `enum`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
}

/// How fast.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Speed {
    /// Two days.
    Slow,
    /// Next day.
    Fast,
}

/// Where to.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // deserialized for the schema, never read
struct Address {
    /// The street.
    street: String,
    /// The postal code.
    zip: Option<u16>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // deserialized for the schema, never read
struct Order {
    /// How many (1 to 50).
    #[schemars(range(min = 1, max = 50))]
    count: Option<u32>,
    /// A note.
    #[schemars(length(max = 20))]
    note: Option<String>,
    /// Delivery speed.
    speed: Option<Speed>,
    /// The colour.
    color: Color,
    /// An optional tint.
    tint: Option<Color>,
    /// The address.
    address: Address,
    /// Who to tell.
    #[schemars(email)]
    email: String,
    /// Weight in kg.
    weight: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Receipt {
    /// The order number.
    id: u64,
    /// Points earned, if any.
    points: Option<i32>,
}

async fn order(_args: Order) -> Result<Json<Receipt>, ToolError> {
    Ok(Json(Receipt {
        id: 1,
        points: None,
    }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // deserialized for the schema, never read
struct Pay {
    /// The speed.
    speed: Speed,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // deserialized for the schema, never read
struct Report {
    /// Only this speed.
    speed: Option<Speed>,
}

async fn pay(_args: Pay) -> Result<String, ToolError> {
    Ok(String::from("paid"))
}

async fn report(_args: Report) -> Result<String, ToolError> {
    Ok(String::from("report"))
}

fn server(profile: SchemaProfile) -> FusionServer {
    FusionServer::builder("shop", "1.0.0")
        .tool(Action::new("order", order))
        .group(
            Group::new("shop")
                .action(Action::new("pay", pay))
                .action(Action::new("report", report)),
        )
        .schema_profile(profile)
        .build()
        .expect("a valid server")
}

/// The `inputSchema` and `outputSchema` of `tool` as tools/list sends them.
fn listed(server: &FusionServer, tool: &str) -> (Value, Option<Value>) {
    let tool = server
        .tools()
        .into_iter()
        .find(|t| t.name == tool)
        .expect("the tool is listed");
    (
        Value::Object((*tool.input_schema).clone()),
        tool.output_schema.map(|o| Value::Object((*o).clone())),
    )
}

/// The standard input schema of `order`, exactly.
fn standard_order() -> Value {
    json!({
        "type": "object",
        "properties": {
            "count": {
                "description": "How many (1 to 50).",
                "anyOf": [
                    {"type": "integer", "minimum": 1, "maximum": 50},
                    {"type": "null"}
                ]
            },
            "note": {
                "description": "A note.",
                "anyOf": [{"type": "string", "maxLength": 20}, {"type": "null"}]
            },
            "speed": {
                "description": "Delivery speed.",
                "anyOf": [
                    {
                        "type": "string",
                        "description": "How fast.",
                        "oneOf": [
                            {"type": "string", "const": "slow", "description": "Two days."},
                            {"type": "string", "const": "fast", "description": "Next day."}
                        ]
                    },
                    {"type": "null"}
                ]
            },
            "color": {
                "description": "The colour.",
                "type": "string",
                "enum": ["red", "green"]
            },
            "tint": {
                "description": "An optional tint.",
                "anyOf": [
                    {"type": "string", "enum": ["red", "green"]},
                    {"type": "null"}
                ]
            },
            "address": {
                "description": "The address.",
                "type": "object",
                "properties": {
                    "street": {"description": "The street.", "type": "string"},
                    "zip": {
                        "description": "The postal code.",
                        "anyOf": [
                            {"type": "integer", "minimum": 0, "maximum": 65535},
                            {"type": "null"}
                        ]
                    }
                },
                "required": ["street"],
                "additionalProperties": false
            },
            "email": {"description": "Who to tell.", "type": "string", "format": "email"},
            "weight": {"description": "Weight in kg.", "type": "number"}
        },
        "required": ["color", "address", "email", "weight"],
        "additionalProperties": false,
        "title": "Order"
    })
}

/// Compares two schemas and shows both when they differ.
#[track_caller]
fn assert_schema(actual: &Value, expected: &Value) {
    assert!(
        actual == expected,
        "schema:\n{}\nexpected:\n{}",
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

#[test]
fn the_standard_profile_has_no_type_arrays_rust_formats_or_untyped_values() {
    let server = server(SchemaProfile::Standard);
    let (input, output) = listed(&server, "order");
    assert_schema(&input, &standard_order());
    assert_schema(
        &output.expect("an output schema"),
        &json!({
            "type": "object",
            "properties": {
                "id": {
                    "description": "The order number.",
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 18446744073709551615u64
                },
                "points": {
                    "description": "Points earned, if any.",
                    "anyOf": [
                        {"type": "integer", "minimum": -2147483648, "maximum": 2147483647},
                        {"type": "null"}
                    ]
                }
            },
            "required": ["id", "points"],
            "title": "Receipt"
        }),
    );
    // Standard is the default.
    let default = FusionServer::builder("shop", "1.0.0")
        .tool(Action::new("order", order))
        .build()
        .expect("a valid server");
    assert_eq!(listed(&default, "order"), listed(&server, "order"));
}

#[test]
fn a_group_field_typed_t_and_option_t_is_listed_once_with_a_null_branch() {
    let server = server(SchemaProfile::Standard);
    let (input, _) = listed(&server, "shop");
    assert_schema(
        &input["properties"]["speed"],
        &json!({
            "anyOf": [
                {
                    "type": "string",
                    "oneOf": [
                        {"type": "string", "const": "slow", "description": "Two days."},
                        {"type": "string", "const": "fast", "description": "Next day."}
                    ]
                },
                {"type": "null"}
            ],
            "description": "The speed. Only this speed. Used by: pay, report."
        }),
    );
}

#[test]
fn the_portable_profile_shows_the_subset_strict_model_apis_take() {
    let server = server(SchemaProfile::Portable);
    let (input, output) = listed(&server, "order");
    assert_schema(
        &input,
        &json!({
            "type": "object",
            "properties": {
                "count": {
                    "description": "How many (1 to 50).",
                    "anyOf": [
                        {"type": "integer", "minimum": 1, "maximum": 50},
                        {"type": "null"}
                    ]
                },
                "note": {
                    "description": "A note.",
                    "anyOf": [{"type": "string", "maxLength": 20}, {"type": "null"}]
                },
                "speed": {
                    "description": "Delivery speed.",
                    "anyOf": [
                        {
                            "type": "string",
                            "description": "How fast. Values: \"slow\": Two days. \"fast\": Next day.",
                            "enum": ["slow", "fast"]
                        },
                        {"type": "null"}
                    ]
                },
                "color": {
                    "description": "The colour.",
                    "type": "string",
                    "enum": ["red", "green"]
                },
                "tint": {
                    "description": "An optional tint.",
                    "anyOf": [
                        {"type": "string", "enum": ["red", "green"]},
                        {"type": "null"}
                    ]
                },
                "address": {
                    "description": "The address.",
                    "type": "object",
                    "properties": {
                        "street": {"description": "The street.", "type": "string"},
                        "zip": {
                            "description": "The postal code.",
                            "anyOf": [
                                {"type": "integer", "minimum": 0, "maximum": 65535},
                                {"type": "null"}
                            ]
                        }
                    },
                    "required": ["street"]
                },
                "email": {"description": "Who to tell.", "type": "string"},
                "weight": {"description": "Weight in kg.", "type": "number"}
            },
            "required": ["color", "address", "email", "weight"],
            "title": "Order"
        }),
    );
    assert_eq!(
        output.expect("an output schema")["properties"]["id"],
        json!({
            "description": "The order number.",
            "type": "integer",
            "minimum": 0,
            "maximum": 18446744073709551615u64
        })
    );
    let (group, _) = listed(&server, "shop");
    assert_schema(
        &group["properties"]["speed"],
        &json!({
            "anyOf": [
                {
                    "type": "string",
                    "enum": ["slow", "fast"],
                    "description": "Values: \"slow\": Two days. \"fast\": Next day."
                },
                {"type": "null"}
            ],
            "description": "The speed. Only this speed. Used by: pay, report."
        }),
    );
}

#[test]
fn the_portable_profile_changes_neither_the_actions_meta_nor_the_contract() {
    let standard = server(SchemaProfile::Standard);
    let portable = server(SchemaProfile::Portable);
    for name in ["order", "shop"] {
        let a = standard
            .tools()
            .into_iter()
            .find(|t| t.name == name)
            .expect("listed");
        let b = portable
            .tools()
            .into_iter()
            .find(|t| t.name == name)
            .expect("listed");
        assert_eq!(a.meta, b.meta, "{name}: _meta[\"mcp-fusion/actions\"]");
    }
    let meta = portable
        .tools()
        .into_iter()
        .find(|t| t.name == "order")
        .expect("listed")
        .meta
        .expect("_meta");
    assert_eq!(
        meta.0["mcp-fusion/actions"][0]["inputSchema"],
        standard_order(),
        "each action's own schema stays the standard one"
    );
    let standard_lock = mcp_fusion::contract::ServerContract::of_server(&standard);
    let portable_lock = mcp_fusion::contract::ServerContract::of_server(&portable);
    assert_eq!(standard_lock, portable_lock);
    assert_eq!(standard_lock.digest(), portable_lock.digest());
}

/// The text of a result's first block.
fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(&result.content[0]).expect("content serializes");
    value["text"].as_str().expect("a text block").to_owned()
}

#[tokio::test]
async fn validation_is_the_same_under_both_profiles() {
    let standard = server(SchemaProfile::Standard);
    let portable = server(SchemaProfile::Portable);
    let good = json!({
        "count": 3, "note": null, "speed": "fast", "color": "red", "tint": null,
        "address": {"street": "Main", "zip": 12345}, "email": "a@example.com", "weight": 1.5
    });
    let bad = json!({
        "count": 51, "speed": "warp", "color": "blue", "tint": "red",
        "address": {"street": "Main", "zip": 70000, "floor": 2},
        "email": "nope", "weight": 1, "extra": true
    });
    for server in [&standard, &portable] {
        let ok = server.call("order", good.clone()).await.expect("a tool");
        assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    }
    let refused = standard.call("order", bad.clone()).await.expect("a tool");
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        text(&refused),
        text(&portable.call("order", bad).await.expect("a tool"))
    );
    let shown = text(&refused);
    for field in [
        "count",
        "speed",
        "color",
        "address.zip",
        "address.floor",
        "email",
        "extra",
    ] {
        assert!(
            shown.contains(&format!("<field name=\"{field}\">")),
            "{field} refused in {shown}"
        );
    }
}

/// The schema schemars derived before the standard rewrites, for `T`.
fn schemars_schema<T: JsonSchema>() -> Value {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

#[test]
fn the_rewritten_schema_accepts_and_refuses_what_schemars_schema_did() {
    let server = server(SchemaProfile::Standard);
    let rewritten = SchemaValidator::new(&standard_order()).expect("compiles");
    let listed = listed(&server, "order").0;
    assert_schema(&listed, &standard_order());
    // The derived schema with the unknown-key rule the server adds.
    let mut original = schemars_schema::<Order>();
    original["additionalProperties"] = json!(false);
    original["properties"]["address"]["additionalProperties"] = json!(false);
    let original = SchemaValidator::new(&original).expect("compiles");
    let base =
        json!({"color": "red", "address": {"street": "Main"}, "email": "a@b.co", "weight": 2});
    let cases: Vec<(&str, Value)> = vec![
        ("count", json!(null)),
        ("count", json!(0)),
        ("count", json!(1)),
        ("count", json!(50)),
        ("count", json!(51)),
        ("count", json!(4294967296u64)),
        ("count", json!("3")),
        ("note", json!(null)),
        ("note", json!("short")),
        ("note", json!("far too long for twenty")),
        ("note", json!(3)),
        ("speed", json!(null)),
        ("speed", json!("slow")),
        ("speed", json!("warp")),
        ("speed", json!(1)),
        ("color", json!(null)),
        ("color", json!("green")),
        ("color", json!("blue")),
        ("tint", json!(null)),
        ("tint", json!("red")),
        ("tint", json!("blue")),
        ("address", json!({"street": "x", "zip": null})),
        ("address", json!({"street": "x", "zip": 65535})),
        ("address", json!({"street": "x", "zip": 65536})),
        ("address", json!({"street": "x", "zip": -1})),
        ("address", json!(null)),
        ("weight", json!(null)),
        ("weight", json!(-0.5)),
        ("email", json!("not an email")),
    ];
    let mut verdicts = Vec::new();
    for (field, value) in cases {
        let mut args = base.clone();
        args[field] = value.clone();
        let before = original.validate(&mut args.clone()).is_ok();
        let after = rewritten.validate(&mut args.clone()).is_ok();
        assert_eq!(
            before, after,
            "{field} = {value}: accepted before: {before}"
        );
        verdicts.push(after);
    }
    // The cases are not all accepted nor all refused.
    assert!(verdicts.contains(&true) && verdicts.contains(&false));
}
