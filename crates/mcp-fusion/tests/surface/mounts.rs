//! In-process composition (`ServerBuilder::mount`) and tool transforms:
//! another `FusionServer` mounted under a namespace, its tools renamed,
//! re-described, with arguments hidden (a constant, a computed value) and
//! filtered, seen by rmcp's client over an in-process pipe (2025-11-25) and
//! by a stateless 2026-07-28 client over Streamable HTTP; the guards of the
//! mounting server counted once per call, the mounted server's own once;
//! a mounted tool's failures naming the tools as the model calls them.

use std::sync::Arc;

use mcp_fusion::capability::{ToolTransform, Transforms};
use mcp_fusion::model::{CallToolRequestParams, CallToolResult, Tool};
use mcp_fusion::router_contract::Parameters;
use mcp_fusion::server::Mount;
use mcp_fusion::{Action, BuildError, CallContext, FusionServer, RateLimit, ToolError};
use rmcp::handler::server::common::schema_for_input;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use serde_json::{Value, json};

use crate::connection::{Connected, HttpServed, connect, rpc_error};
use crate::stateless::{Messages, post};
use crate::support::{meta_of, texts};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Charge {
    /// The customer's id.
    customer: String,
    /// The amount, in cents.
    amount: u64,
    /// The ISO currency code.
    currency: String,
    /// Who asked for the charge.
    requested_by: String,
}

async fn charge(args: Charge) -> Result<String, ToolError> {
    Ok(format!(
        "charged {} {} {} for {}",
        args.customer, args.amount, args.currency, args.requested_by
    ))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Refund {
    /// The invoice id.
    invoice: String,
}

async fn refund(args: Refund) -> Result<String, ToolError> {
    Err(
        ToolError::not_found(format!("No invoice {}.", args.invoice))
            .suggest("Call list_invoices to see the invoices.")
            .actions(["list_invoices", "delete_customer"]),
    )
}

async fn list_invoices() -> Result<&'static str, ToolError> {
    Ok("inv_1")
}

async fn delete_customer() -> Result<&'static str, ToolError> {
    Ok("deleted")
}

/// The mounted server: its own rate limit of 1 call a minute on
/// `list_invoices`.
fn billing() -> FusionServer {
    FusionServer::builder("billing", "1.0.0")
        .tool(Action::new("charge", charge).description("Charges a customer."))
        .tool(Action::new("refund", refund).description("Refunds an invoice."))
        .tool(
            Action::new("list_invoices", list_invoices)
                .description("Lists the invoices.")
                .rate_limit(RateLimit::per_minute(1)),
        )
        .tool(Action::new("delete_customer", delete_customer).description("Deletes a customer."))
        .build()
        .expect("billing builds")
}

fn transforms() -> Transforms {
    Transforms::new().deny(["delete_customer"]).tool(
        "charge",
        ToolTransform::new()
            .rename("bill")
            .describe("Bills a customer, in euro cents.")
            .hide("currency", "EUR")
            .hide_with("requested_by", |ctx: &CallContext| json!(ctx.name())),
    )
}

async fn ping() -> Result<&'static str, ToolError> {
    Ok("pong")
}

/// The mounting server: a tool of its own, then billing's tools, each with
/// a rate limit of 2 calls a minute.
fn front() -> FusionServer {
    FusionServer::builder("front", "1.0.0")
        .tool(Action::new("ping", ping).description("Answers pong."))
        .mount(
            Mount::new("billing", billing())
                .transforms(transforms())
                .guards(|tool| tool.rate_limit(RateLimit::per_minute(2))),
        )
        .build()
        .expect("front builds")
}

async fn call(connected: &Connected, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    connected
        .client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .expect("the call is answered")
}

fn bill_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "customer": {"type": "string", "description": "The customer's id."},
            "amount": {
                "type": "integer",
                "maximum": u64::MAX,
                "minimum": 0,
                "description": "The amount, in cents."
            }
        },
        "required": ["customer", "amount"],
        "title": "Charge",
        "additionalProperties": false
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_shows_the_mounted_tools_transformed() {
    let connected = connect(&front()).await;
    let tools = connected.client.list_all_tools().await.unwrap();
    let listed: Vec<(String, String)> = tools
        .iter()
        .map(|t| {
            let about = t.description.as_deref().unwrap_or_default().to_owned();
            (t.name.to_string(), about)
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("ping", "Answers pong."),
            ("billing.bill", "Bills a customer, in euro cents."),
            ("billing.refund", "Refunds an invoice."),
            ("billing.list_invoices", "Lists the invoices."),
        ]
        .map(|(n, d)| (n.to_owned(), d.to_owned()))
    );
    let bill = tools.iter().find(|t| t.name == "billing.bill").unwrap();
    assert_eq!(Value::Object((*bill.input_schema).clone()), bill_schema());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_tool_gets_its_hidden_arguments() {
    let connected = connect(&front()).await;
    let result = call(
        &connected,
        "billing.bill",
        json!({"customer": "acme", "amount": 1200, "currency": "USD"}),
    )
    .await;
    assert_eq!(result.is_error, Some(false));
    // The model's currency is replaced; requested_by is computed per call.
    assert_eq!(texts(&result), ["charged acme 1200 EUR for billing.bill"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_and_renamed_away_tools_are_not_callable() {
    let connected = connect(&front()).await;
    for name in ["billing.delete_customer", "billing.charge"] {
        let error = rpc_error(
            connected
                .client
                .call_tool(CallToolRequestParams::new(name.to_owned()))
                .await,
        );
        assert_eq!(error.code.0, -32602, "{name}");
        assert_eq!(error.data.as_ref().unwrap()["tool"], json!(name));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_failure_names_the_tools_as_listed() {
    let connected = connect(&front()).await;
    let result = call(&connected, "billing.refund", json!({"invoice": "inv_9"})).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        texts(&result),
        ["<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  \
          <message>No invoice inv_9.</message>\n  \
          <recovery>Call billing.list_invoices to see the invoices.</recovery>\n  \
          <available_actions>\n    <action>billing.list_invoices</action>\n  </available_actions>\n\
          </tool_error>"]
    );
    assert_eq!(
        meta_of(&result),
        json!({
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No invoice inv_9.",
            "recovery": "Call billing.list_invoices to see the invoices.",
            "available_actions": ["billing.list_invoices"]
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_validation_failure_names_the_listed_tool() {
    let connected = connect(&front()).await;
    let result = call(&connected, "billing.bill", json!({"customer": "acme"})).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        texts(&result),
        ["Fix the fields below and call billing.bill again.\n\
          <validation_error action=\"billing.bill\">\n  \
          <field name=\"amount\">Missing required field. You sent: (missing). Expected an integer >= 0.</field>\n  \
          <recovery>Do not explain the error.</recovery>\n\
          </validation_error>"]
    );
    assert_eq!(
        meta_of(&result),
        json!({
            "code": "VALIDATION_ERROR",
            "severity": "error",
            "message": "The arguments for billing.bill are not valid (1 problem).",
            "recovery": "Fix the fields below and call billing.bill again. Do not explain the error.",
            "action": "billing.bill",
            "fields": [{
                "path": "amount",
                "message": "Missing required field. You sent: (missing). Expected an integer >= 0."
            }]
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mounting_servers_guard_counts_each_call_once() {
    let connected = connect(&front()).await;
    let args = json!({"customer": "acme", "amount": 1});
    // 2 a minute: two calls pass, the third is refused by the mounting
    // server, so each call through the mount took exactly one.
    for _ in 0..2 {
        let result = call(&connected, "billing.bill", args.clone()).await;
        assert_eq!(result.is_error, Some(false), "{result:?}");
    }
    let refused = call(&connected, "billing.bill", args).await;
    assert_eq!(meta_of(&refused)["code"], "RATE_LIMITED");
    // The other mounted tools count apart.
    let other = call(&connected, "billing.refund", json!({"invoice": "x"})).await;
    assert_eq!(meta_of(&other)["code"], "NOT_FOUND");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mounted_servers_own_guard_counts_each_call_once() {
    let connected = connect(&front()).await;
    // list_invoices's own limit is 1 a minute (the mount's is 2): the
    // first call passes, the second is refused by the mounted server.
    let first = call(&connected, "billing.list_invoices", json!({})).await;
    assert_eq!(texts(&first), ["inv_1"]);
    let second = call(&connected, "billing.list_invoices", json!({})).await;
    assert_eq!(meta_of(&second)["code"], "RATE_LIMITED");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_client_lists_and_calls_the_mounted_tools() {
    let served = HttpServed::start(&front()).await;
    let listed: Value = Messages::of(post(&served.url, 1, "tools/list", json!({}), &[]).await)
        .next()
        .await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ping",
            "billing.bill",
            "billing.refund",
            "billing.list_invoices"
        ]
    );
    let called: Value = Messages::of(
        post(
            &served.url,
            2,
            "tools/call",
            json!({"name": "billing.bill", "arguments": {"customer": "acme", "amount": 5}}),
            &[("mcp-name", "billing.bill")],
        )
        .await,
    )
    .next()
    .await;
    assert_eq!(
        called["result"]["content"],
        json!([{"type": "text", "text": "charged acme 5 EUR for billing.bill"}])
    );
}

fn mounted(transforms: Transforms) -> Result<FusionServer, BuildError> {
    FusionServer::builder("front", "1.0.0")
        .mount(Mount::new("billing", billing()).transforms(transforms))
        .build()
}

#[test]
fn transforms_that_do_not_fit_name_the_bad_entry() {
    let cases = [
        (
            Transforms::new().tool("charge", ToolTransform::new().rename("refund")),
            "mount \"billing\": transform of \"charge\": rename to \"refund\", which another tool is listed as",
        ),
        (
            Transforms::new().tool("charge", ToolTransform::new().hide("iban", "x")),
            "mount \"billing\": transform of \"charge\": hides \"iban\", which is not an argument of the tool",
        ),
        (
            Transforms::new().tool("chrage", ToolTransform::new().describe("x")),
            "mount \"billing\": transform of \"chrage\": the server has no tool of that name",
        ),
        (
            Transforms::new().tool("charge", ToolTransform::new().rename("bill me")),
            "mount \"billing\": transform of \"charge\": rename to \"bill me\" is not usable: write 1 to 128 ASCII letters, digits, _, - or .",
        ),
    ];
    for (transforms, expected) in cases {
        let error = mounted(transforms).expect_err("the mount is refused");
        assert_eq!(error.to_string(), expected);
    }
    let taken = FusionServer::builder("front", "1.0.0")
        .tool(Action::new("billing.refund", ping))
        .mount(Mount::new("billing", billing()))
        .build()
        .expect_err("two tools of one name");
    assert_eq!(taken, BuildError::DuplicateTool("billing.refund".into()));
    let bad = FusionServer::builder("front", "1.0.0")
        .mount(Mount::new("bil.ling", billing()))
        .build()
        .expect_err("a dotted namespace");
    assert!(matches!(bad, BuildError::BadMount { .. }), "{bad}");
}

/// A plain rmcp server's tools, as `#[tool_router]` writes them.
struct Legacy;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct InvoiceId {
    /// The invoice id.
    id: String,
}

fn legacy_get(_: &Legacy, Parameters(args): Parameters<InvoiceId>) -> Result<String, ToolError> {
    if args.id == "inv_1" {
        return Ok(String::from("inv_1: open"));
    }
    Err(ToolError::not_found("No invoice with that ID.").actions(["list_invoices"]))
}

fn legacy_list(_: &Legacy) -> Result<String, ToolError> {
    Ok(String::from("inv_1"))
}

fn legacy_router() -> ToolRouter<Legacy> {
    let get = Tool::new(
        "get_invoice",
        "Shows an invoice.",
        schema_for_input::<Parameters<InvoiceId>>().expect("an object schema"),
    );
    let list = Tool::new(
        "list_invoices",
        "Lists the invoices.",
        Arc::new(json!({"type": "object"}).as_object().unwrap().clone()),
    );
    ToolRouter::new()
        .with_route(ToolRoute::new(get, legacy_get))
        .with_route(ToolRoute::new(list, legacy_list))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rmcp_tool_router_is_mounted_in_process() {
    let server = FusionServer::builder("front", "1.0.0")
        .mount(
            Mount::router("legacy", legacy_router(), Legacy)
                .guards(|tool| tool.rate_limit(RateLimit::per_minute(1))),
        )
        .build()
        .expect("front builds");
    let connected = connect(&server).await;
    let names: Vec<String> = connected
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(names, ["legacy.get_invoice", "legacy.list_invoices"]);
    let found = call(&connected, "legacy.get_invoice", json!({"id": "inv_1"})).await;
    assert_eq!(texts(&found), ["inv_1: open"]);
    let listed = call(&connected, "legacy.list_invoices", json!({})).await;
    assert_eq!(texts(&listed), ["inv_1"]);
    // The mounting server's guard, once per call: 1 a minute.
    let refused = call(&connected, "legacy.list_invoices", json!({})).await;
    assert_eq!(meta_of(&refused)["code"], "RATE_LIMITED");
    let fresh = connect(
        &FusionServer::builder("front", "1.0.0")
            .mount(Mount::router("legacy", legacy_router(), Legacy))
            .build()
            .expect("front builds"),
    )
    .await;
    let missing = call(&fresh, "legacy.get_invoice", json!({"id": "inv_9"})).await;
    assert_eq!(
        meta_of(&missing),
        json!({
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No invoice with that ID.",
            "available_actions": ["legacy.list_invoices"]
        })
    );
}

#[tokio::test]
async fn a_mounted_tool_is_listed_only_to_whom_the_mounted_server_lists_it() {
    let inner = FusionServer::builder("inner", "1.0.0")
        .auth(mcp_fusion::guard::StaticTokens::new())
        .allow_anonymous(true)
        .tool(Action::new("open", ping))
        .tool(Action::new("admin", ping).requires_scopes(["admin"]))
        .tool(Action::new("secret", ping).visible_when(|_| false))
        .build()
        .unwrap();
    let outer = FusionServer::builder("outer", "1.0.0")
        .tool(Action::new("ping", ping))
        .mount(Mount::new("in", inner))
        .tool_search(mcp_fusion::capability::ToolSearch::new().always_visible(["in.open"]))
        .build()
        .unwrap();
    let connected = connect(&outer).await;
    let listed: Vec<String> = connected
        .client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(listed, ["search_tools", "in.open"]);
    let found = call(
        &connected,
        "search_tools",
        json!({"query": "admin secret open ping"}),
    )
    .await;
    let data: Value = serde_json::from_str(&texts(&found)[0]).unwrap();
    let names: Vec<&str> = data["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"in.admin") && !names.contains(&"in.secret"),
        "{names:?}"
    );
    assert!(names.contains(&"in.open"), "{names:?}");
}
