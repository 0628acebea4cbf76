//! The billing example's `tools/list` as clients read it: schemas every
//! client accepts (the standard profile) and the subset strict model APIs
//! take (`--schema-profile portable`), with validation unchanged.

use crate::support::*;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Schemas every client accepts (standard) and strict model APIs take (portable)

/// Formats of the JSON Schema standard (draft 2020-12, §7.3).
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Every JSON object in `value`, with its path, depth first.
fn objects<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            out.push((path.clone(), value));
            for (key, child) in map {
                objects(child, format!("{path}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                objects(child, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Whether a property schema says its type: a `type`, or an `anyOf` whose
/// every branch says it.
fn has_type(schema: &Value) -> bool {
    schema.get("type").is_some_and(Value::is_string)
        || schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| !branches.is_empty() && branches.iter().all(has_type))
}

/// What is wrong with `schema` for the standard profile.
fn standard_problems(schema: &Value, at: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut all = Vec::new();
    objects(schema, at.to_owned(), &mut all);
    for (path, object) in all {
        if object.get("type").is_some_and(Value::is_array) {
            problems.push(format!("{path}: a type array"));
        }
        if let Some(format) = object.get("format").and_then(Value::as_str)
            && !STANDARD_FORMATS.contains(&format)
        {
            problems.push(format!("{path}: format {format}"));
        }
        if let Some(Value::Object(properties)) = object.get("properties") {
            for (name, property) in properties {
                if property.is_object() && !has_type(property) {
                    problems.push(format!("{path}/properties/{name}: no type"));
                }
            }
        }
        if let Some(Value::Array(branches)) = object.get("anyOf") {
            for (i, branch) in branches.iter().enumerate() {
                if branches[..i].contains(branch) {
                    problems.push(format!("{path}: anyOf branch {i} repeats an earlier one"));
                }
            }
        }
    }
    problems
}

/// What is wrong with `schema` for the portable profile (on top of the
/// standard rules).
fn portable_problems(schema: &Value, at: &str) -> Vec<String> {
    let mut problems = standard_problems(schema, at);
    let mut all = Vec::new();
    objects(schema, at.to_owned(), &mut all);
    for (path, object) in all {
        for keyword in ["format", "additionalProperties", "oneOf", "const"] {
            if object.get(keyword).is_some() {
                problems.push(format!("{path}: {keyword}"));
            }
        }
        if let Some(Value::Array(branches)) = object.get("anyOf")
            && branches.iter().all(|b| b.get("enum").is_some())
        {
            problems.push(format!("{path}: an anyOf of enums"));
        }
    }
    problems
}

/// The tools of `fusion serve --stdio` started with `options`, as JSON.
async fn listed_tools(db: &TempDb, options: &[&str]) -> (Session, Vec<Value>) {
    let s = Session::start_with(Transport::Stdio, db, options, None).await;
    let tools = s.client.list_all_tools().await.expect("tools/list");
    let tools = tools
        .iter()
        .map(|t| serde_json::to_value(t).expect("a tool serializes"))
        .collect();
    (s, tools)
}

#[tokio::test]
async fn the_billing_schemas_have_no_type_arrays_rust_formats_untyped_or_repeated_values() {
    let db = TempDb::new("schemas-standard");
    let (s, tools) = listed_tools(&db, &[]).await;
    let mut problems = Vec::new();
    for tool in &tools {
        // The listed schemas and each action's own, in _meta.
        problems.extend(standard_problems(tool, &format!("{}", tool["name"])));
    }
    assert!(problems.is_empty(), "{problems:#?}");
    let properties = &tools[0]["inputSchema"]["properties"];
    assert_eq!(
        properties["limit"],
        json!({
            "anyOf": [{"type": "integer", "minimum": 1, "maximum": 100}, {"type": "null"}],
            "description": "How many to return, 1 to 100 (default 20). Used by: list_invoices."
        })
    );
    assert_eq!(
        properties["currency"]["anyOf"][1],
        json!({"type": "null"}),
        "{}",
        properties["currency"]
    );
    assert_eq!(
        properties["currency"]["anyOf"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(properties["period"]["type"], "string");
    s.close().await;
}

#[tokio::test]
async fn the_portable_billing_schemas_are_the_strict_subset_and_validation_is_unchanged() {
    let db = TempDb::new("schemas-portable");
    let (portable, tools) = listed_tools(&db, &["--schema-profile", "portable"]).await;
    let mut problems = Vec::new();
    for tool in &tools {
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(key) {
                problems.extend(portable_problems(
                    schema,
                    &format!("{}/{key}", tool["name"]),
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    let properties = &tools[0]["inputSchema"]["properties"];
    assert_eq!(
        properties["period"]["enum"],
        json!(["day", "week", "month"])
    );
    assert_eq!(properties["customer_email"].get("format"), None);

    // The same refusal as under the standard profile: an unknown field, a
    // bad email (a format not shown) and a bad enum value.
    let (standard, standard_tools) = listed_tools(&TempDb::new("schemas-standard-2"), &[]).await;
    assert_eq!(
        tools[0]["_meta"], standard_tools[0]["_meta"],
        "each action's own (standard) schema, what lockfiles record"
    );
    let bad = json!({
        "action": "create_invoice",
        "customer_email": "not-an-email",
        "amount_cents": 100,
        "currency": "usd",
        "items": [{"description": "x", "quantity": 1, "unit_price_cents": 1}],
        "discount": 5
    });
    let lines = [
        (
            "customer_email",
            "Invalid email format. You sent: 'not-an-email'. Expected a valid email address.",
        ),
        (
            "currency",
            "Invalid value. You sent: 'usd'. Did you mean 'USD'?",
        ),
        (
            "discount",
            "Unrecognized field \"discount\". You sent: 5. Known fields: \"customer_email\", \"amount_cents\", \"currency\", \"items\", \"due_date\". Check for typos.",
        ),
    ];
    let from_portable = portable.billing(bad.clone()).await;
    assert_invalid(&from_portable, "create_invoice", &lines);
    assert_eq!(from_portable, standard.billing(bad).await);
    portable.close().await;
    standard.close().await;
}
