//! The server runtime end to end, in process: routing, validation, the
//! return-or-raise rule, middleware, warnings and listings, each through
//! `FusionServer::call` with the exact text the model reads (wire contract
//! §1–§6). Every test asserts the whole envelope, `isError` and `_meta`.

// Several argument types exist only for their schema; their fields are never read.
#![allow(dead_code)]

mod support;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_fusion::envelope::{ParsedEnvelope, parse};
use mcp_fusion::pipeline::ToolOutput;
use mcp_fusion::router::Hints;
use mcp_fusion::server::UnknownToolError;
use mcp_fusion::{
    Action, BoxError, Call, CallContext, FusionServer, Group, Json, Next, NoArgs, ServerBuilder,
    ToolError, VALIDATION_RECOVERY, from_fn,
};
use rmcp::ServerHandler;
use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use support::{
    assert_error, assert_validation, check_well_formed, error_id_of, internal_envelope, meta_of,
    texts,
};

// ---------------------------------------------------------------------------
// The test server

/// `report`: `project: string` required, `limit: integer >= 0` optional.
#[derive(Debug, Deserialize, JsonSchema)]
struct Report {
    project: String,
    #[serde(default)]
    #[schemars(with = "u64")]
    limit: Option<u64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Paid,
    Void,
    Draft,
    Overdue,
}

/// `invoices.list`: `status` one of `active|paid|void|draft|overdue`.
#[derive(Debug, Deserialize, JsonSchema)]
struct ListArgs {
    status: Status,
}

#[derive(Debug, Serialize, JsonSchema)]
struct ListOut {
    status: Status,
    count: u32,
}

/// A tagged union inside two levels of arrays.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "model", rename_all = "lowercase")]
enum Pricing {
    Flat { amount: u64 },
    Tiered { tiers: Vec<u64> },
}

#[derive(Debug, Deserialize, JsonSchema)]
struct OrderLine {
    sku: String,
    pricing: Pricing,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Order {
    id: String,
    lines: Vec<OrderLine>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Orders {
    orders: Vec<Order>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Big {
    n: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Crash {
    #[serde(default)]
    panic: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct PdfArgs {
    /// The document title.
    title: String,
    pages: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct PngArgs {
    /// The document title.
    title: String,
    width: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SvgArgs {
    width: String,
}

/// A user's own error type: a `ToolError`, or a storage failure.
#[derive(Debug, thiserror::Error)]
enum AppError {
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("storage failed")]
    Io(#[from] std::io::Error),
}

impl From<AppError> for ToolError {
    fn from(error: AppError) -> Self {
        match error {
            AppError::Tool(error) => error,
            other => ToolError::internal(other),
        }
    }
}

/// How many times each handler ran.
#[derive(Default)]
struct Calls {
    report: AtomicUsize,
    list: AtomicUsize,
    render: AtomicUsize,
    crash: AtomicUsize,
    big: AtomicUsize,
}

impl Calls {
    fn report(&self) -> usize {
        self.report.load(Ordering::SeqCst)
    }
}

/// Wraps `f` so that every call of the handler increments `counter` first.
macro_rules! counted {
    ($calls:expr, $field:ident, |$ctx:ident : CallContext, $args:ident : $ty:ty| $body:expr) => {{
        let calls = Arc::clone(&$calls);
        move |$ctx: CallContext, $args: $ty| {
            calls.$field.fetch_add(1, Ordering::SeqCst);
            async move { $body }
        }
    }};
}

fn builder(calls: &Arc<Calls>) -> ServerBuilder {
    let invoices = Group::new("invoices")
        .description("Invoices.")
        .action(Action::new(
            "list",
            counted!(calls, list, |_ctx: CallContext, args: ListArgs| {
                Ok::<_, ToolError>(Json(ListOut {
                    status: args.status,
                    count: 2,
                }))
            }),
        ))
        .action(
            Action::new(
                "legacy_list",
                counted!(calls, list, |_ctx: CallContext, args: ListArgs| {
                    Ok::<_, ToolError>(ListOut {
                        status: args.status,
                        count: 2,
                    })
                }),
            )
            .deprecated("invoices.list"),
        );
    let render = Group::new("render")
        .description("Render a document.")
        .action(
            Action::new(
                "pdf",
                counted!(calls, render, |_ctx: CallContext, _args: PdfArgs| {
                    Ok::<_, ToolError>("pdf done")
                }),
            )
            .description("Render as PDF.")
            .read_only()
            .idempotent(),
        )
        .action(
            Action::new(
                "png",
                counted!(calls, render, |_ctx: CallContext, _args: PngArgs| {
                    Ok::<_, ToolError>("png done")
                }),
            )
            .description("Render as PNG.")
            .read_only(),
        )
        .action(
            Action::new(
                "svg",
                counted!(calls, render, |_ctx: CallContext, _args: SvgArgs| {
                    Ok::<_, ToolError>("svg done")
                }),
            )
            .description("Overwrite the stored SVG.")
            .destructive(),
        );
    FusionServer::builder("runtime-test", "0.0.1")
        .tool(Action::new(
            "report",
            counted!(calls, report, |_ctx: CallContext, args: Report| {
                Ok::<_, ToolError>(json!({"project": args.project, "limit": args.limit}))
            }),
        ))
        .group(invoices)
        .group(render)
        .tool(Action::new(
            "orders",
            |_ctx: CallContext, args: Orders| async move {
                Ok::<_, ToolError>(format!("{} orders", args.orders.len()))
            },
        ))
        .tool(Action::new(
            "big",
            counted!(calls, big, |_ctx: CallContext, args: Big| {
                Ok::<_, ToolError>(json!({"n": args.n}))
            }),
        ))
        .tool(Action::new(
            "empty_message",
            |_ctx: CallContext, _args: NoArgs| async move {
                Err::<String, _>(ToolError::not_found(""))
            },
        ))
        .tool(Action::new(
            "cleared_message",
            |_ctx: CallContext, _args: NoArgs| async move {
                let mut err = ToolError::conflict("temporary").suggest("Reload it first.");
                err.message.clear();
                Err::<String, _>(err)
            },
        ))
        .tool(Action::new(
            "crash",
            counted!(calls, crash, |_ctx: CallContext, args: Crash| {
                if args.panic {
                    panic!("secret panic text: password=hunter2");
                }
                Ok::<_, ToolError>("survived")
            }),
        ))
        .tool(Action::new(
            "io_fail",
            |_ctx: CallContext, _args: NoArgs| async move {
                Err::<String, BoxError>(Box::new(std::io::Error::other(
                    "disk full at /var/lib/secret",
                )))
            },
        ))
        .tool(Action::new(
            "wrapped",
            |_ctx: CallContext, _args: NoArgs| async move {
                fn find() -> Result<String, ToolError> {
                    Err(ToolError::not_found("No such project.")
                        .suggest("List projects first.")
                        .actions(["projects.list"])
                        .detail("requestedId", "p_9")
                        .retry_after(30))
                }
                fn via_app() -> Result<String, AppError> {
                    let found = find()?;
                    Ok(found)
                }
                let value = via_app()?;
                Ok::<_, AppError>(value)
            },
        ))
        .tool(Action::new(
            "wrapped_io",
            |_ctx: CallContext, _args: NoArgs| async move {
                fn read() -> Result<String, AppError> {
                    Err(std::io::Error::other("permission denied: /etc/shadow"))?
                }
                read()
            },
        ))
        .tool(Action::new(
            "control",
            |_ctx: CallContext, _args: NoArgs| async move {
                let lossy = String::from_utf8_lossy(&[b'r', 0xff, b'w']).into_owned();
                Err::<String, _>(
                    ToolError::conflict(format!(
                        "Row {lossy}: NUL \u{0} bell \u{7} escape \u{1b}[31m in <row> & \"quotes\""
                    ))
                    .detail("raw\u{1}key", "tab\there\u{8}"),
                )
            },
        ))
        .tool(Action::new(
            "warn",
            |_ctx: CallContext, _args: NoArgs| async move {
                Ok::<_, ToolError>(
                    ToolOutput::text("3 rows exported").with_warning(
                        ToolError::new("TRUNCATED", "Only the first 3 rows were exported.")
                            .warning()
                            .suggest("Call again with a cursor to get the rest."),
                    ),
                )
            },
        ))
}

fn server(calls: &Arc<Calls>) -> FusionServer {
    builder(calls).build().expect("the test server builds")
}

fn fixture() -> (FusionServer, Arc<Calls>) {
    let calls = Arc::new(Calls::default());
    (server(&calls), calls)
}

async fn call(server: &FusionServer, tool: &str, args: Value) -> CallToolResult {
    server
        .call(tool, args)
        .await
        .unwrap_or_else(|e| panic!("{tool} is a known tool, got {e:?}"))
}

/// The one field line, as the `<validation_error>` text and its `_meta`.
fn one_field(action: &str, path: &str, message: &str) -> (String, Value) {
    fields(action, &[(path, message)])
}

/// The `<validation_error>` text and `_meta` for `lines`, as §4 writes them.
fn fields(action: &str, lines: &[(&str, &str)]) -> (String, Value) {
    let mut text = format!("<validation_error action=\"{action}\">\n");
    for (path, message) in lines {
        let escaped = message.replace('&', "&amp;").replace('<', "&lt;");
        text.push_str(&format!("  <field name=\"{path}\">{escaped}</field>\n"));
    }
    text.push_str(
        "  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>",
    );
    let n = lines.len();
    let problems = if n == 1 { "problem" } else { "problems" };
    let meta = json!({
        "code": "VALIDATION_ERROR",
        "severity": "error",
        "message": format!("The arguments for {action} are not valid ({n} {problems})."),
        "recovery": VALIDATION_RECOVERY,
        "action": action,
        "fields": lines.iter().map(|(p, m)| json!({"path": p, "message": m})).collect::<Vec<_>>(),
    });
    (text, meta)
}

// ---------------------------------------------------------------------------
// Validation: the inputs the issue names, through the whole path

#[tokio::test]
async fn empty_input_is_one_missing_field_line_and_the_handler_is_not_called() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({})).await;
    let (text, meta) = one_field(
        "report",
        "project",
        "Missing required field. You sent: (missing). Expected a string.",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn number_for_a_string_is_one_wrong_type_line() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": 42})).await;
    let (text, meta) = one_field(
        "report",
        "project",
        "Wrong type. You sent: 42. Expected a string.",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn string_for_an_integer_is_one_wrong_type_line() {
    let (server, calls) = fixture();
    let result = call(
        &server,
        "report",
        json!({"project": "demo", "limit": "ten"}),
    )
    .await;
    let (text, meta) = one_field(
        "report",
        "limit",
        "Wrong type. You sent: 'ten'. Expected an integer.",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn the_report_schema_is_the_one_the_issue_describes() {
    let (server, _) = fixture();
    let listing = server
        .listings()
        .into_iter()
        .find(|l| l.name == "report")
        .expect("report is listed");
    assert_eq!(listing.input_schema["required"], json!(["project"]));
    assert_eq!(
        listing.input_schema["properties"]["project"]["type"],
        "string"
    );
    assert_eq!(
        listing.input_schema["properties"]["limit"]["type"],
        "integer"
    );
    assert_eq!(listing.input_schema["properties"]["limit"]["minimum"], 0);
    assert_eq!(listing.input_schema["additionalProperties"], false);
}

#[tokio::test]
async fn valid_input_reaches_the_handler_once() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": "demo", "limit": 3})).await;
    assert_eq!(texts(&result), ["{\"project\":\"demo\",\"limit\":3}"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.meta, None);
    assert_eq!(result.structured_content, None);
    assert_eq!(calls.report(), 1);
}

#[tokio::test]
async fn enum_value_in_the_wrong_case_lists_all_five_options_and_suggests_active() {
    let (server, calls) = fixture();
    let result = call(
        &server,
        "invoices",
        json!({"action": "list", "status": "Active"}),
    )
    .await;
    let (text, meta) = one_field(
        "invoices.list",
        "status",
        "Invalid value. You sent: 'Active'. Expected one of: 'active', 'paid', 'void', 'draft', 'overdue'. Did you mean 'active'?",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.list.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn union_inside_arrays_is_one_line_at_the_tag_with_the_options() {
    let (server, _) = fixture();
    let args = json!({"orders": [
        {"id": "o1", "lines": [{"sku": "a", "pricing": {"model": "flat", "amount": 5}}]},
        {"id": "o2", "lines": [
            {"sku": "b", "pricing": {"model": "tiered", "tiers": [1, 2]}},
            {"sku": "c", "pricing": {"model": "volume", "amount": 3}}
        ]}
    ]});
    let result = call(&server, "orders", args).await;
    let (text, meta) = one_field(
        "orders",
        "orders.1.lines.1.pricing.model",
        "Invalid value. You sent: 'volume'. Expected one of: 'flat', 'tiered'.",
    );
    assert_validation(&result, &text, &meta);
}

#[tokio::test]
async fn union_branch_picked_by_its_tag_reports_only_that_branch() {
    let (server, _) = fixture();
    let args = json!({"orders": [
        {"id": "o1", "lines": []},
        {"id": "o2", "lines": [
            {"sku": "b", "pricing": {"model": "flat", "amount": 1}},
            {"sku": "c", "pricing": {"model": "tiered", "tiers": "1,2"}}
        ]}
    ]});
    let result = call(&server, "orders", args).await;
    let (text, meta) = one_field(
        "orders",
        "orders.1.lines.1.pricing.tiers",
        "Wrong type. You sent: '1,2'. Expected an array.",
    );
    assert_validation(&result, &text, &meta);
}

#[tokio::test]
async fn integer_beyond_two_to_the_53_reaches_the_handler_exactly() {
    let (server, calls) = fixture();
    let result = call(&server, "big", json!({"n": 9_007_199_254_740_993u64})).await;
    assert_eq!(texts(&result), ["{\"n\":9007199254740993}"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(calls.big.load(Ordering::SeqCst), 1);
    // And parsed from JSON text, as a transport would.
    let args: Value = serde_json::from_str(r#"{"n": 9007199254740993}"#).unwrap();
    let result = call(&server, "big", args).await;
    assert_eq!(texts(&result), ["{\"n\":9007199254740993}"]);
}

#[tokio::test]
async fn whole_numbers_written_with_a_fraction_reach_integer_fields() {
    // JSON Schema counts 3.0 as an integer, so validation accepts it; the
    // handler must get it too, not an INTERNAL_ERROR from deserialization.
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": "demo", "limit": 3.0})).await;
    assert_eq!(texts(&result), ["{\"project\":\"demo\",\"limit\":3}"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(calls.report(), 1);

    let result = call(&server, "big", json!({"n": 1e3})).await;
    assert_eq!(texts(&result), ["{\"n\":1000}"]);
    assert_eq!(result.is_error, Some(false));

    let nested = json!({"orders": [
        {"id": "o1", "lines": [{"sku": "a", "pricing": {"model": "tiered", "tiers": [1.0, 2]}}]}
    ]});
    let result = call(&server, "orders", nested).await;
    assert_eq!(texts(&result), ["1 orders"]);
    assert_eq!(result.is_error, Some(false));

    // A real fraction is still the model's mistake.
    let result = call(&server, "big", json!({"n": 1.5})).await;
    let (text, meta) = one_field(
        "big",
        "n",
        "Wrong type. You sent: 1.5. Expected an integer.",
    );
    assert_validation(&result, &text, &meta);
    assert_eq!(calls.big.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn null_for_an_optional_field_is_absent() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": "demo", "limit": null})).await;
    assert_eq!(texts(&result), ["{\"project\":\"demo\",\"limit\":null}"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(calls.report(), 1);
}

#[tokio::test]
async fn null_for_a_required_field_is_reported_as_null_not_missing() {
    let (server, calls) = fixture();
    let result = call(&server, "report", json!({"project": null})).await;
    let (text, meta) = one_field(
        "report",
        "project",
        "Wrong type. You sent: null. Expected a string.",
    );
    assert_validation(&result, &text, &meta);
    assert!(!text.contains("(missing)"));
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn every_problem_is_reported_at_once_with_internal_errors_hidden_or_shown() {
    let calls = Arc::new(Calls::default());
    let hidden = builder(&calls).build().unwrap();
    let shown = builder(&calls)
        .expose_internal_errors(true)
        .build()
        .unwrap();
    let args = json!({"project": 42, "limit": -5, "extra": true});
    let (text, meta) = fields(
        "report",
        &[
            ("project", "Wrong type. You sent: 42. Expected a string."),
            (
                "limit",
                "Too small. You sent: -5. Expected an integer >= 0.",
            ),
            (
                "extra",
                "Unrecognized field \"extra\". You sent: true. Known fields: \"project\", \"limit\". Check for typos.",
            ),
        ],
    );
    for server in [&hidden, &shown] {
        let result = call(server, "report", args.clone()).await;
        assert_validation(&result, &text, &meta);
    }
    assert_eq!(calls.report(), 0);
}

#[tokio::test]
async fn unknown_keys_are_refused_unless_the_action_allows_them() {
    let echo = |_ctx: CallContext, args: Report| async move {
        Ok::<_, ToolError>(format!("{} {:?}", args.project, args.limit))
    };
    let server = FusionServer::builder("open-test", "0.0.1")
        .tool(Action::new("strict", echo))
        .tool(Action::new("open", echo).allow_unknown_fields())
        .build()
        .unwrap();
    let args = json!({"project": "demo", "limmit": 5});
    let result = call(&server, "open", args.clone()).await;
    assert_eq!(texts(&result), ["demo None"]);
    assert_eq!(result.is_error, Some(false));
    let result = call(&server, "strict", args).await;
    let (text, meta) = one_field(
        "strict",
        "limmit",
        "Unrecognized field \"limmit\". You sent: 5. Known fields: \"project\", \"limit\". Check for typos. Did you mean \"limit\"?",
    );
    assert_validation(&result, &text, &meta);
    let open = server
        .listings()
        .into_iter()
        .find(|l| l.name == "open")
        .unwrap();
    assert_eq!(open.input_schema.get("additionalProperties"), None);
}

// ---------------------------------------------------------------------------
// Routing: discriminator and unknown names

const RENDER_PICK: &str = "Set \"action\" to one of the actions in available_actions, without the \"render.\" prefix (e.g. \"action\": \"pdf\"), and call render again.";

fn render_actions_xml() -> &'static str {
    "  <available_actions>\n    <action>render.pdf</action>\n    <action>render.png</action>\n    <action>render.svg</action>\n  </available_actions>\n"
}

fn routing_envelope(code: &str, message: &str, recovery: &str) -> (String, Value) {
    let text = format!(
        "<tool_error code=\"{code}\" severity=\"error\">\n  <message>{message}</message>\n  <recovery>{recovery}</recovery>\n{}</tool_error>",
        render_actions_xml()
    );
    let meta = json!({
        "code": code,
        "severity": "error",
        "message": message,
        "recovery": recovery,
        "available_actions": ["render.pdf", "render.png", "render.svg"],
    });
    (text, meta)
}

#[tokio::test]
async fn unknown_action_lists_every_dotted_action() {
    let (server, calls) = fixture();
    let result = call(&server, "render", json!({"action": "export", "title": "x"})).await;
    let (text, meta) = routing_envelope(
        "UNKNOWN_ACTION",
        "render has no action \"export\".",
        RENDER_PICK,
    );
    assert_error(&result, &text, &meta);
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn unknown_action_near_a_real_one_names_it_first_in_the_recovery() {
    let (server, _) = fixture();
    let result = call(&server, "render", json!({"action": "svgg"})).await;
    let recovery = format!("Did you mean \"svg\" (render.svg)? {RENDER_PICK}");
    let (text, meta) = routing_envelope(
        "UNKNOWN_ACTION",
        "render has no action \"svgg\".",
        &recovery,
    );
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn dotted_action_name_as_the_value_names_the_action_in_the_recovery() {
    let (server, calls) = fixture();
    let result = call(&server, "render", json!({"action": "render.png"})).await;
    let recovery = format!("Did you mean \"png\" (render.png)? {RENDER_PICK}");
    let (text, meta) = routing_envelope(
        "UNKNOWN_ACTION",
        "render has no action \"render.png\".",
        &recovery,
    );
    assert_error(&result, &text, &meta);
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn absent_or_empty_discriminator_is_missing_discriminator() {
    let (server, calls) = fixture();
    let message = "The field \"action\" is missing: render needs it to know which action to run.";
    let (text, meta) = routing_envelope("MISSING_DISCRIMINATOR", message, RENDER_PICK);
    for args in [
        json!({}),
        json!({"title": "x"}),
        json!({"action": ""}),
        json!({"action": "   "}),
        Value::Null,
    ] {
        let result = call(&server, "render", args.clone()).await;
        assert_error(&result, &text, &meta);
    }
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn discriminator_of_the_wrong_type_names_the_type_sent() {
    let (server, calls) = fixture();
    for (sent, kind) in [
        (json!(3), "a number"),
        (json!(null), "a null"),
        (json!({"name": "pdf"}), "an object"),
        (json!(["pdf"]), "an array"),
        (json!(true), "a boolean"),
    ] {
        let result = call(&server, "render", json!({"action": sent})).await;
        let message = format!(
            "The field \"action\" must be a string naming an action of render, but {kind} was sent."
        );
        let (text, meta) = routing_envelope("MISSING_DISCRIMINATOR", &message, RENDER_PICK);
        assert_error(&result, &text, &meta);
    }
    assert_eq!(calls.render.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn unknown_tool_is_an_error_naming_the_closest_tool_and_every_valid_one() {
    let (server, _) = fixture();
    let valid = "report, invoices, render, orders, big, empty_message, cleared_message, crash, io_fail, wrapped, wrapped_io, control, warn";
    let valid_list: Vec<&str> = valid.split(", ").collect();

    let err: UnknownToolError = server.call("reprot", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        format!("Unknown tool \"reprot\". Did you mean \"report\"? Valid tools: {valid}.")
    );
    assert_eq!(
        err.data,
        json!({"tool": "reprot", "valid_tools": valid_list, "closest": "report"})
    );

    // A dotted action name sent as a tool name says how to call the action.
    let err = server.call("render.pdf", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        format!(
            "Unknown tool \"render.pdf\": the action render.pdf is called through the tool \"render\" with \"action\": \"pdf\" in its arguments. Valid tools: {valid}."
        )
    );
    // A dotted name whose action does not exist points to the group only.
    let err = server.call("render.gif", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        format!("Unknown tool \"render.gif\". Did you mean \"render\"? Valid tools: {valid}.")
    );

    let err = server.call("zzzzzzzz", json!({})).await.unwrap_err();
    assert_eq!(
        err.message,
        format!("Unknown tool \"zzzzzzzz\". Valid tools: {valid}.")
    );
    assert_eq!(
        err.data,
        json!({"tool": "zzzzzzzz", "valid_tools": valid_list})
    );
}

// ---------------------------------------------------------------------------
// Handlers: return or raise

#[tokio::test]
async fn empty_message_becomes_the_codes_default_sentence() {
    let (server, _) = fixture();
    let result = call(&server, "empty_message", json!({})).await;
    assert_error(
        &result,
        "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>The requested item was not found.</message>\n</tool_error>",
        &json!({"code": "NOT_FOUND", "severity": "error", "message": "The requested item was not found."}),
    );

    // A message emptied after construction (the fields are public) too.
    let result = call(&server, "cleared_message", json!({})).await;
    assert_error(
        &result,
        "<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>The request conflicts with the current state.</message>\n  <recovery>Reload it first.</recovery>\n</tool_error>",
        &json!({
            "code": "CONFLICT",
            "severity": "error",
            "message": "The request conflicts with the current state.",
            "recovery": "Reload it first."
        }),
    );
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error_and_the_server_keeps_serving() {
    let (server, calls) = fixture();
    let result = call(&server, "crash", json!({"panic": true})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("crash", &id, None);
    assert_error(&result, &text, &meta);
    assert!(!text.contains("hunter2") && !text.contains("panic"));
    assert!(!meta.to_string().contains("hunter2"));

    let next = call(&server, "crash", json!({"panic": false})).await;
    assert_eq!(texts(&next), ["survived"]);
    assert_eq!(next.is_error, Some(false));
    // Another panic gets a new id.
    let again = call(&server, "crash", json!({"panic": true})).await;
    assert_ne!(error_id_of(&again), id);
    assert_eq!(calls.crash.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_panic_text_is_shown_only_when_internal_errors_are_exposed() {
    let calls = Arc::new(Calls::default());
    let server = builder(&calls)
        .expose_internal_errors(true)
        .build()
        .unwrap();
    let result = call(&server, "crash", json!({"panic": true})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope(
        "crash",
        &id,
        Some("panic: secret panic text: password=hunter2"),
    );
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn a_non_tool_error_is_an_internal_error_without_its_text() {
    let (server, _) = fixture();
    let result = call(&server, "io_fail", json!({})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("io_fail", &id, None);
    assert_error(&result, &text, &meta);
    assert!(!text.contains("disk full") && !text.contains("/var/lib"));

    // The same through a user error enum: still unmarked.
    let result = call(&server, "wrapped_io", json!({})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("wrapped_io", &id, None);
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn exposed_internal_errors_carry_their_text_in_a_detail() {
    let calls = Arc::new(Calls::default());
    let server = builder(&calls)
        .expose_internal_errors(true)
        .build()
        .unwrap();
    let result = call(&server, "io_fail", json!({})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("io_fail", &id, Some("disk full at /var/lib/secret"));
    assert_error(&result, &text, &meta);

    let result = call(&server, "wrapped_io", json!({})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope(
        "wrapped_io",
        &id,
        Some("storage failed: permission denied: /etc/shadow"),
    );
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn a_tool_error_propagated_through_a_user_error_enum_stays_marked() {
    let (server, _) = fixture();
    let result = call(&server, "wrapped", json!({})).await;
    assert_error(
        &result,
        "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>No such project.</message>\n  <recovery>List projects first.</recovery>\n  <available_actions>\n    <action>projects.list</action>\n  </available_actions>\n  <details>\n    <detail key=\"requestedId\">p_9</detail>\n  </details>\n  <retry_after>30 seconds</retry_after>\n</tool_error>",
        &json!({
            "code": "NOT_FOUND",
            "severity": "error",
            "message": "No such project.",
            "recovery": "List projects first.",
            "available_actions": ["projects.list"],
            "details": {"requestedId": "p_9"},
            "retry_after_seconds": 30
        }),
    );
}

#[tokio::test]
async fn control_characters_and_lossy_text_still_give_a_well_formed_envelope() {
    let (server, _) = fixture();
    let result = call(&server, "control", json!({})).await;
    let message =
        "Row r\u{fffd}w: NUL \u{fffd} bell \u{fffd} escape \u{fffd}[31m in <row> & \"quotes\"";
    let text = "<tool_error code=\"CONFLICT\" severity=\"error\">\n  <message>Row r\u{fffd}w: NUL \u{fffd} bell \u{fffd} escape \u{fffd}[31m in &lt;row> &amp; \"quotes\"</message>\n  <details>\n    <detail key=\"raw\u{fffd}key\">tab\there\u{fffd}</detail>\n  </details>\n</tool_error>";
    assert_error(
        &result,
        text,
        &json!({
            "code": "CONFLICT",
            "severity": "error",
            "message": message,
            "details": {"raw\u{fffd}key": "tab\there\u{fffd}"}
        }),
    );
    check_well_formed(text).expect("well-formed XML");
    let Ok(ParsedEnvelope::Tool(parsed)) = parse(text) else {
        panic!("the envelope parses back")
    };
    assert_eq!(parsed.message, message);
    assert_eq!(
        parsed.details,
        [("raw\u{fffd}key".to_owned(), "tab\there\u{fffd}".to_owned())]
    );
}

// ---------------------------------------------------------------------------
// Success shapes: warnings, deprecation, structured content

#[tokio::test]
async fn a_warning_rides_after_the_output_and_is_not_an_error() {
    let (server, _) = fixture();
    let result = call(&server, "warn", json!({})).await;
    assert_eq!(
        texts(&result),
        [
            "3 rows exported",
            "<tool_error code=\"TRUNCATED\" severity=\"warning\">\n  <message>Only the first 3 rows were exported.</message>\n  <recovery>Call again with a cursor to get the rest.</recovery>\n</tool_error>",
        ]
    );
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, None);
    assert_eq!(
        meta_of(&result),
        json!({
            "code": "TRUNCATED",
            "severity": "warning",
            "message": "Only the first 3 rows were exported.",
            "recovery": "Call again with a cursor to get the rest."
        })
    );
}

#[tokio::test]
async fn a_deprecated_action_succeeds_with_a_warning_naming_its_replacement() {
    let (server, calls) = fixture();
    let result = call(
        &server,
        "invoices",
        json!({"action": "legacy_list", "status": "paid"}),
    )
    .await;
    assert_eq!(
        texts(&result),
        [
            "{\"status\":\"paid\",\"count\":2}",
            "<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  <message>invoices.legacy_list is deprecated and will be removed; use invoices.list instead.</message>\n  <recovery>The call succeeded. Next time call invoices.list.</recovery>\n  <available_actions>\n    <action>invoices.list</action>\n  </available_actions>\n</tool_error>",
        ]
    );
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, None);
    assert_eq!(
        meta_of(&result),
        json!({
            "code": "DEPRECATED",
            "severity": "warning",
            "message": "invoices.legacy_list is deprecated and will be removed; use invoices.list instead.",
            "recovery": "The call succeeded. Next time call invoices.list.",
            "available_actions": ["invoices.list"]
        })
    );
    assert_eq!(calls.list.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_action_with_an_output_schema_also_sends_structured_content() {
    let (server, _) = fixture();
    let result = call(
        &server,
        "invoices",
        json!({"action": "list", "status": "void"}),
    )
    .await;
    assert_eq!(texts(&result), ["{\"status\":\"void\",\"count\":2}"]);
    assert_eq!(
        result.structured_content,
        Some(json!({"status": "void", "count": 2}))
    );
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.meta, None);
}

// ---------------------------------------------------------------------------
// Middleware

fn guarded_server(log: Arc<Mutex<Vec<String>>>, expose: bool) -> (FusionServer, Arc<AtomicUsize>) {
    let handled = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&handled);
    let step = |log: &Arc<Mutex<Vec<String>>>, name: &'static str| {
        let log = Arc::clone(log);
        from_fn(move |call: Call, next: Next| {
            let log = Arc::clone(&log);
            async move {
                log.lock().unwrap().push(format!("{name} before"));
                let out = next.run(call).await;
                log.lock().unwrap().push(format!("{name} after"));
                out
            }
        })
    };
    let guard = from_fn(|call: Call, next: Next| async move {
        match call.args.get("token").and_then(Value::as_str) {
            Some("s3cret") => next.run(call).await.map_err(BoxError::from),
            Some("io") => Err(BoxError::from(std::io::Error::other(
                "token store unreachable: redis://10.0.0.5",
            ))),
            _ => Err(ToolError::unauthorized("The token is not valid.")
                .suggest("Ask the user for a new token, then call jobs.run again with it.")
                .actions(["auth.login"])
                .detail("tool", call.ctx.name())
                .into()),
        }
    });
    let bomb = from_fn(|call: Call, next: Next| {
        if call.args.get("boom") == Some(&Value::Bool(true)) {
            panic!("middleware exploded with token s3cret");
        }
        next.run(call)
    });
    let jobs = Group::new("jobs").layer(step(&log, "group")).action(
        Action::new("run", move |_ctx: CallContext, _args: JobArgs| {
            seen.fetch_add(1, Ordering::SeqCst);
            async move { Ok::<_, ToolError>("ran") }
        })
        .layer(step(&log, "action")),
    );
    let server = FusionServer::builder("middleware-test", "0.0.1")
        .layer(step(&log, "server 1"))
        .layer(step(&log, "server 2"))
        .layer(bomb)
        .layer(guard)
        .group(jobs)
        .expose_internal_errors(expose)
        .build()
        .unwrap();
    (server, handled)
}

#[derive(Debug, Deserialize, JsonSchema)]
struct JobArgs {
    #[allow(dead_code)]
    token: String,
    #[serde(default)]
    #[allow(dead_code)]
    boom: bool,
}

#[tokio::test]
async fn middleware_runs_in_the_order_it_was_added_server_then_group_then_action() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (server, handled) = guarded_server(Arc::clone(&log), false);
    let result = call(&server, "jobs", json!({"action": "run", "token": "s3cret"})).await;
    assert_eq!(texts(&result), ["ran"]);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(handled.load(Ordering::SeqCst), 1);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "server 1 before",
            "server 2 before",
            "group before",
            "action before",
            "action after",
            "group after",
            "server 2 after",
            "server 1 after",
        ]
    );
}

#[tokio::test]
async fn middleware_returning_a_tool_error_early_reaches_the_wire_intact() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (server, handled) = guarded_server(Arc::clone(&log), false);
    let result = call(&server, "jobs", json!({"action": "run", "token": "wrong"})).await;
    assert_error(
        &result,
        "<tool_error code=\"UNAUTHORIZED\" severity=\"error\">\n  <message>The token is not valid.</message>\n  <recovery>Ask the user for a new token, then call jobs.run again with it.</recovery>\n  <available_actions>\n    <action>auth.login</action>\n  </available_actions>\n  <details>\n    <detail key=\"tool\">jobs.run</detail>\n  </details>\n</tool_error>",
        &json!({
            "code": "UNAUTHORIZED",
            "severity": "error",
            "message": "The token is not valid.",
            "recovery": "Ask the user for a new token, then call jobs.run again with it.",
            "available_actions": ["auth.login"],
            "details": {"tool": "jobs.run"}
        }),
    );
    assert_eq!(handled.load(Ordering::SeqCst), 0);
    // The outer layers saw the early return come back through them.
    assert_eq!(
        *log.lock().unwrap(),
        [
            "server 1 before",
            "server 2 before",
            "server 2 after",
            "server 1 after"
        ]
    );
}

#[tokio::test]
async fn middleware_returning_another_error_is_an_internal_error() {
    let (server, handled) = guarded_server(Arc::new(Mutex::new(Vec::new())), false);
    let result = call(&server, "jobs", json!({"action": "run", "token": "io"})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("jobs.run", &id, None);
    assert_error(&result, &text, &meta);
    assert!(!text.contains("redis"));
    assert_eq!(handled.load(Ordering::SeqCst), 0);

    let (server, _) = guarded_server(Arc::new(Mutex::new(Vec::new())), true);
    let result = call(&server, "jobs", json!({"action": "run", "token": "io"})).await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope(
        "jobs.run",
        &id,
        Some("token store unreachable: redis://10.0.0.5"),
    );
    assert_error(&result, &text, &meta);
}

#[tokio::test]
async fn middleware_that_panics_is_an_internal_error_and_the_server_keeps_serving() {
    let (server, handled) = guarded_server(Arc::new(Mutex::new(Vec::new())), false);
    let result = call(
        &server,
        "jobs",
        json!({"action": "run", "token": "s3cret", "boom": true}),
    )
    .await;
    let id = error_id_of(&result);
    let (text, meta) = internal_envelope("jobs.run", &id, None);
    assert_error(&result, &text, &meta);
    assert!(!text.contains("exploded"));
    assert_eq!(handled.load(Ordering::SeqCst), 0);

    let next = call(&server, "jobs", json!({"action": "run", "token": "s3cret"})).await;
    assert_eq!(texts(&next), ["ran"]);
    assert_eq!(next.is_error, Some(false));
    assert_eq!(handled.load(Ordering::SeqCst), 1);
}

// ---------------------------------------------------------------------------
// tools/list

#[tokio::test]
async fn a_group_is_listed_as_one_tool_naming_every_action_and_field() {
    let (server, _) = fixture();
    let listing = server
        .listings()
        .into_iter()
        .find(|l| l.name == "render")
        .expect("render is listed");
    assert_eq!(
        listing.description,
        "Render a document.\n\nSet \"action\" to choose one of these actions:\n- pdf: Render as PDF. (requires title) [read-only, idempotent]\n- png: Render as PNG. (requires title, width) [read-only]\n- svg: Overwrite the stored SVG. (requires width) [destructive]"
    );
    assert_eq!(
        listing.input_schema,
        json!({
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["pdf", "png", "svg"],
                    "description": "The action to run: one of pdf, png, svg."
                },
                "title": {
                    "type": "string",
                    "description": "The document title. Used by: pdf, png."
                },
                "pages": {
                    "type": ["integer", "null"],
                    "format": "uint32",
                    "minimum": 0,
                    "description": "Used by: pdf."
                },
                "width": {
                    "anyOf": [
                        {"type": "integer", "format": "uint32", "minimum": 0},
                        {"type": "string"}
                    ],
                    "description": "Used by: png, svg."
                }
            },
            "required": ["action"]
        })
    );
    assert_eq!(listing.output_schema, None);
    assert_eq!(
        listing.hints,
        Hints {
            read_only: false,
            destructive: true,
            idempotent: false
        }
    );

    // The same, as rmcp's `Tool` sent in tools/list.
    let tool = server.get_tool("render").expect("render is a tool");
    assert_eq!(
        tool.description.as_deref(),
        Some(listing.description.as_str())
    );
    let annotations = tool.annotations.expect("annotations are set");
    assert_eq!(annotations.read_only_hint, Some(false));
    assert_eq!(annotations.destructive_hint, Some(true));
    assert_eq!(annotations.idempotent_hint, Some(false));
    assert_eq!(
        Value::Object((*tool.input_schema).clone()),
        listing.input_schema
    );
}

#[tokio::test]
async fn tools_are_listed_in_registration_order_and_deprecations_are_named() {
    let (server, _) = fixture();
    let names: Vec<String> = server.listings().into_iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        [
            "report",
            "invoices",
            "render",
            "orders",
            "big",
            "empty_message",
            "cleared_message",
            "crash",
            "io_fail",
            "wrapped",
            "wrapped_io",
            "control",
            "warn"
        ]
    );
    let invoices = server.get_tool("invoices").expect("invoices is a tool");
    assert_eq!(
        invoices.description.as_deref(),
        Some(
            "Invoices.\n\nSet \"action\" to choose one of these actions:\n- list (requires status)\n- legacy_list (requires status) [deprecated: use invoices.list]"
        )
    );
    assert_eq!(invoices.annotations, None);
}
