//! Results written for the model (`docs/wire-contract.md` §9.2, §9.3), read
//! by rmcp's client over an in-process pipe: the egress guard's cut and its
//! exact notice, the server default and an action's own limit, an error
//! result over the limit passing whole; state sync's stale-reads notice
//! first in a mutation's result, naming the read actions; freshness in the
//! tool's `_meta` and description; the build errors of bad domains.

use mcp_fusion::model::{CallToolRequestParams, CallToolResult};
use mcp_fusion::present::Freshness;
use mcp_fusion::{Action, BuildError, FusionServer, Group, Json, NoArgs, ServerBuilder, ToolError};
use serde_json::{Value, json};

use crate::connection::{Connected, connect, to_json};
use crate::support::texts;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ListArgs {
    /// How many rows to list.
    count: usize,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Row {
    id: String,
    amount_cents: u64,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Rows {
    rows: Vec<Row>,
}

fn row(i: usize) -> Row {
    Row {
        id: format!("inv_{i:04}"),
        amount_cents: 1000 + i as u64,
    }
}

async fn list(args: ListArgs) -> Result<Json<Rows>, ToolError> {
    Ok(Json(Rows {
        rows: (0..args.count).map(row).collect(),
    }))
}

async fn paid(_: NoArgs) -> Result<&'static str, ToolError> {
    Ok("paid")
}

async fn refused(_: NoArgs) -> Result<&'static str, ToolError> {
    Err(ToolError::not_found("x".repeat(400)))
}

async fn one(_: NoArgs) -> Result<&'static str, ToolError> {
    Ok("{}")
}

fn billing() -> Group {
    Group::new("billing")
        .action(
            Action::new("list_invoices", list)
                .reads("invoices")
                .egress_limit(300)
                .narrowed_by(["count"]),
        )
        .action(
            Action::new("get_invoice", one)
                .reads("invoices.lines")
                .freshness(Freshness::Seconds(30)),
        )
        .action(Action::new("get_customer", one).reads("customers"))
        .action(Action::new("pay_invoice", paid).invalidates("invoices.*"))
        .action(Action::new("void_invoice", refused).invalidates("invoices.*"))
}

fn builder() -> ServerBuilder {
    FusionServer::builder("results", "1.0.0")
        .group(billing())
        .tool(Action::new("export", list).description("Exports rows."))
        .tool(
            Action::new("status", one)
                .description("The status.")
                .freshness(Freshness::NoStore),
        )
        .egress_limit(1000)
}

async fn call(connected: &Connected, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    connected
        .client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .expect("a tools/call answer")
}

fn rows_json(n: usize) -> Value {
    json!({"rows": (0..n).map(|i| to_json(&row(i))).collect::<Vec<_>>()})
}

#[tokio::test]
async fn a_big_list_is_cut_by_whole_rows_with_the_exact_notice() {
    let connected = connect(&builder().build().unwrap()).await;
    let result = call(
        &connected,
        "billing",
        json!({"action": "list_invoices", "count": 50}),
    )
    .await;
    // Three rows: 2 × 124 bytes; four would be 2 × 162 > 300.
    let kept = rows_json(3);
    assert_eq!(result.structured_content, Some(kept.clone()));
    assert_eq!(
        texts(&result),
        [
            kept.to_string(),
            String::from(
                "<egress_notice>This result was cut to fit the limit of 300 bytes: 3572 of its 3820 bytes were left out. 3 of 50 items are shown. For a smaller result, call it again with: count.</egress_notice>"
            ),
        ]
    );
    assert_eq!(result.is_error, Some(false));
}

#[tokio::test]
async fn the_server_limit_applies_to_actions_without_their_own() {
    let connected = connect(&builder().build().unwrap()).await;
    let result = call(&connected, "export", json!({"count": 50})).await;
    // Twelve rows: 2 × 466 bytes; thirteen would be 2 × 504.
    let kept = rows_json(12);
    assert_eq!(result.structured_content, Some(kept.clone()));
    assert_eq!(
        texts(&result),
        [
            kept.to_string(),
            String::from(
                "<egress_notice>This result was cut to fit the limit of 1000 bytes: 2888 of its 3820 bytes were left out. 12 of 50 items are shown. Ask for less in the next call: this action declares no argument that narrows its result.</egress_notice>"
            ),
        ]
    );
    // Within the limit: as it is, no notice.
    let small = call(&connected, "export", json!({"count": 1})).await;
    assert_eq!(texts(&small), [rows_json(1).to_string()]);
}

#[tokio::test]
async fn an_error_result_over_the_limit_passes_whole() {
    let server = FusionServer::builder("results", "1.0.0")
        .group(billing())
        .egress_limit(64)
        .build()
        .unwrap();
    let connected = connect(&server).await;
    let result = call(&connected, "billing", json!({"action": "void_invoice"})).await;
    assert_eq!(result.is_error, Some(true));
    let texts = texts(&result);
    // The envelope alone, whole: no stale-reads notice (nothing changed), no cut.
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].starts_with("<tool_error"), "{}", texts[0]);
    assert!(texts[0].ends_with("</tool_error>"), "{}", texts[0]);
    assert!(texts[0].contains(&"x".repeat(400)));
}

#[tokio::test]
async fn a_mutation_names_the_stale_reads_first() {
    let connected = connect(&builder().build().unwrap()).await;
    let result = call(&connected, "billing", json!({"action": "pay_invoice"})).await;
    assert_eq!(
        texts(&result),
        [
            "<stale_reads cause=\"billing.pay_invoice\" domains=\"invoices.*\">This call changed invoices.*: results read before it are stale. Repeat your earlier calls of billing.list_invoices, billing.get_invoice (with the same arguments) before relying on what they returned.</stale_reads>",
            "paid",
        ]
    );
    assert_eq!(result.is_error, Some(false));
    // A read action's result has no notice.
    let read = call(&connected, "billing", json!({"action": "get_customer"})).await;
    assert_eq!(texts(&read), ["{}"]);
}

#[tokio::test]
async fn freshness_is_in_the_tools_meta_and_description() {
    let connected = connect(&builder().build().unwrap()).await;
    let tools = connected.client.list_all_tools().await.unwrap();
    let status = tools.iter().find(|t| t.name == "status").unwrap();
    assert_eq!(
        status.description.as_deref(),
        Some(
            "The status. Results are never fresh for long; read again before relying on an earlier one."
        )
    );
    let meta = to_json(&status.meta);
    assert_eq!(meta["mcp-fusion/freshness"], json!({"noStore": true}));
    assert_eq!(
        meta["mcp-fusion/actions"][0]["results"],
        json!({"egressLimitBytes": 1000, "freshness": {"noStore": true}})
    );
    let group = tools.iter().find(|t| t.name == "billing").unwrap();
    let meta = to_json(&group.meta);
    let get = &meta["mcp-fusion/actions"][1];
    assert_eq!(
        get["description"],
        "Results stay fresh for 30 seconds; read again after that."
    );
    assert_eq!(
        get["results"],
        json!({"egressLimitBytes": 1000, "freshness": {"maxAgeSeconds": 30}, "reads": ["invoices.lines"]})
    );
    assert_eq!(
        meta["mcp-fusion/actions"][3]["results"],
        json!({"egressLimitBytes": 1000, "invalidates": ["invoices.*"]})
    );
    assert!(meta.get("mcp-fusion/freshness").is_none());
}

#[test]
fn a_star_before_the_last_segment_fails_the_build() {
    let err = FusionServer::builder("results", "1.0.0")
        .tool(Action::new("pay", paid).invalidates("invoices.*.lines"))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::BadStateSync {
            action: String::from("pay"),
            reason: String::from(
                "\"invoices.*.lines\": `*` is allowed only as the last segment of a pattern, after a domain (\"invoices.*\")"
            ),
        }
    );
    let err = FusionServer::builder("results", "1.0.0")
        .tool(Action::new("get", one).reads("invoices.*"))
        .build()
        .unwrap_err();
    assert!(matches!(err, BuildError::BadStateSync { .. }), "{err}");
}

#[test]
fn a_pattern_no_action_reads_builds_and_names_no_action() {
    // A domain read elsewhere (a resource, another server): not an error.
    let built = FusionServer::builder("results", "1.0.0")
        .tool(Action::new("pay", paid).invalidates("ledger.*"))
        .build();
    assert!(built.is_ok());
}
