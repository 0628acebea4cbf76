//! The server the runtime tests call: a tool or group for each behaviour
//! under test (validation, routing, the return-or-raise rule, warnings,
//! listings), and counters of how many times each handler ran.

// Several argument types exist only for their schema; their fields are never read.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_fusion::handler::ToolOutput;
use mcp_fusion::{
    Action, BoxError, CallContext, FusionServer, Group, Json, NoArgs, ServerBuilder, ToolError,
};
use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `report`: `project: string` required, `limit: integer >= 0` optional.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Report {
    pub project: String,
    #[serde(default)]
    #[schemars(with = "u64")]
    pub limit: Option<u64>,
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
pub struct Calls {
    pub report: AtomicUsize,
    pub list: AtomicUsize,
    pub render: AtomicUsize,
    pub crash: AtomicUsize,
    pub big: AtomicUsize,
}

impl Calls {
    pub fn report(&self) -> usize {
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

pub fn builder(calls: &Arc<Calls>) -> ServerBuilder {
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

pub fn fixture() -> (FusionServer, Arc<Calls>) {
    let calls = Arc::new(Calls::default());
    (server(&calls), calls)
}

pub async fn call(server: &FusionServer, tool: &str, args: Value) -> CallToolResult {
    server
        .call(tool, args)
        .await
        .unwrap_or_else(|e| panic!("{tool} is a known tool, got {e:?}"))
}
