//! The full server of the guide's first chapter (docs/guide/first-server.md),
//! compiled and checked: the code between the markers below must be the
//! chapter's `rust` block under "### The server", byte for byte, and what the
//! chapter shows under "### What a call returns" must be what calls return.

// Guide example: begin
use std::collections::HashMap;
use std::sync::Arc;

use mcp_fusion::transport::StdioOptions;
use mcp_fusion::{FusionServer, Group, Json, State, ToolError, action};

/// The application's state: here, invoices in memory.
#[derive(Clone, Default)]
pub struct Invoices(pub Arc<HashMap<String, u64>>);

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct GetInvoice {
    /// The invoice id, e.g. `inv_2`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Invoice {
    pub id: String,
    pub amount_cents: u64,
}

/// Read one invoice by id.
#[action(read_only)]
pub async fn get_invoice(
    State(invoices): State<Invoices>,
    args: GetInvoice,
) -> Result<Json<Invoice>, ToolError> {
    let cents = invoices.0.get(&args.id).copied().ok_or_else(|| {
        ToolError::not_found("No invoice with that ID")
            .suggest("List invoices first, then retry with a real ID")
            .actions(["billing.list_invoices"])
            .detail("requestedId", &args.id)
    })?;
    Ok(Json(Invoice {
        id: args.id,
        amount_cents: cents,
    }))
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct InvoiceList {
    pub invoices: Vec<Invoice>,
}

/// List every invoice, by id.
#[action(read_only)]
pub async fn list_invoices(
    State(invoices): State<Invoices>,
) -> Result<Json<InvoiceList>, ToolError> {
    let mut all: Vec<Invoice> = invoices
        .0
        .iter()
        .map(|(id, cents)| Invoice {
            id: id.clone(),
            amount_cents: *cents,
        })
        .collect();
    all.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Json(InvoiceList { invoices: all }))
}

pub fn server(invoices: Invoices) -> FusionServer {
    let billing = Group::new("billing")
        .description("Invoices.")
        .action(get_invoice::action())
        .action(list_invoices::action());
    FusionServer::builder("billing", "1.0.0")
        .state(invoices)
        .group(billing)
        .build()
        .expect("a valid server")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs go through `tracing`: the cause of a masked INTERNAL_ERROR is
    // logged there with its error id, and without a subscriber it goes
    // nowhere. On stderr: over stdio, stdout carries the protocol.
    tracing_subscriber::fmt()
        .with_env_filter("info,rmcp=error")
        .with_writer(std::io::stderr)
        .init();
    let invoices = HashMap::from([(String::from("inv_1"), 1250)]);
    server(Invoices(Arc::new(invoices)))
        .serve_stdio(StdioOptions::default())
        .await?;
    Ok(())
}
// Guide example: end

/// The guide's server, with one known invoice.
fn guide_server() -> FusionServer {
    server(Invoices(Arc::new(HashMap::from([(
        String::from("inv_1"),
        1250,
    )]))))
}

use super::page_blocks::{self, text};

const GUIDE: &str = include_str!("../../../../docs/guide/first-server.md");
const THIS_FILE: &str = include_str!("guide_example.rs");

/// The `n`th block opened with `fence` after `after` in the chapter.
fn guide_block(fence: &str, after: &str, n: usize) -> &'static str {
    page_blocks::block(GUIDE, fence, after, n)
}

async fn call(args: serde_json::Value) -> rmcp::model::CallToolResult {
    guide_server()
        .call("billing", args)
        .await
        .expect("a known tool")
}

#[test]
fn the_guide_code_is_this_code() {
    assert_eq!(
        guide_block("```rust,no_run", "### The server", 0),
        page_blocks::marked(THIS_FILE, "Guide example"),
        "docs/guide/first-server.md's server and tests/server/guide_example.rs differ"
    );
}

/// Each row of the chapter's table of calls: the arguments and what they return.
#[tokio::test]
async fn the_guide_outputs_are_what_the_server_returns() {
    let table = "| `{\"action\": \"get_invoice\", \"id\": \"inv_1\"}` | `{\"id\":\"inv_1\",\"amount_cents\":1250}`, as text and as `structuredContent` |";
    assert!(GUIDE.contains(table), "the chapter's first row");
    let found = call(serde_json::json!({"action": "get_invoice", "id": "inv_1"})).await;
    assert_eq!(found.is_error, Some(false));
    assert_eq!(text(&found), "{\"id\":\"inv_1\",\"amount_cents\":1250}");
    assert_eq!(
        found.structured_content,
        Some(serde_json::json!({"id": "inv_1", "amount_cents": 1250}))
    );

    let listed_row = "| `{\"action\": \"list_invoices\"}` | `{\"invoices\":[{\"id\":\"inv_1\",\"amount_cents\":1250}]}` |";
    assert!(GUIDE.contains(listed_row), "the chapter's second row");
    let listed = call(serde_json::json!({"action": "list_invoices"})).await;
    assert_eq!(listed.is_error, Some(false));
    assert_eq!(
        text(&listed),
        "{\"invoices\":[{\"id\":\"inv_1\",\"amount_cents\":1250}]}"
    );

    let missing = call(serde_json::json!({"action": "get_invoice", "id": "inv_9999"})).await;
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(
        guide_block("```xml", "### What a call returns", 0),
        format!("{}\n", text(&missing))
    );

    let invalid = call(serde_json::json!({"action": "get_invoice", "id": "9999"})).await;
    assert_eq!(invalid.is_error, Some(true));
    assert_eq!(
        guide_block("```xml", "### What a call returns", 1),
        format!("{}\n", text(&invalid))
    );
}
