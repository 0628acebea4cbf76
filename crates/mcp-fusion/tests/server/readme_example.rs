//! The server example of README.md, compiled and checked: the code between the
//! markers below must be the README's `rust` block under "## Example", byte for
//! byte, and the README's `xml` block there must be what a call returns.

// README example: begin
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
// README example: end

/// The README's server, with one known invoice.
fn readme_server() -> FusionServer {
    server(Invoices(Arc::new(HashMap::from([(
        String::from("inv_1"),
        1250,
    )]))))
}

const README: &str = include_str!("../../../../README.md");
const THIS_FILE: &str = include_str!("readme_example.rs");

/// The text of the first fenced block of `lang` in the README after `after`.
fn readme_block(lang: &str, after: &str) -> &'static str {
    let from = README.find(after).expect("README anchor") + after.len();
    let fence = format!("```{lang}\n");
    let start = README[from..].find(&fence).expect("README block") + from + fence.len();
    let len = README[start..].find("```").expect("closed block");
    &README[start..start + len]
}

async fn call(args: serde_json::Value) -> rmcp::model::CallToolResult {
    readme_server()
        .call("billing", args)
        .await
        .expect("a known tool")
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result.content[0].as_text().expect("text").text.clone()
}

#[test]
fn readme_code_is_this_code() {
    let begin = "// README example: begin\n";
    let start = THIS_FILE.find(begin).unwrap() + begin.len();
    let end = THIS_FILE.find("// README example: end").unwrap();
    assert_eq!(
        readme_block("rust", "## Example"),
        &THIS_FILE[start..end],
        "README.md's example and tests/server/readme_example.rs differ"
    );
}

#[tokio::test]
async fn readme_outputs_are_what_the_server_returns() {
    let found = call(serde_json::json!({"action": "get_invoice", "id": "inv_1"})).await;
    assert_eq!(found.is_error, Some(false));
    assert_eq!(text(&found), "{\"id\":\"inv_1\",\"amount_cents\":1250}");
    assert!(README.contains("returns\n`{\"id\":\"inv_1\",\"amount_cents\":1250}`"));
    assert_eq!(
        found.structured_content,
        Some(serde_json::json!({"id": "inv_1", "amount_cents": 1250}))
    );

    let missing = call(serde_json::json!({"action": "get_invoice", "id": "inv_9999"})).await;
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(
        readme_block("xml", "## Example"),
        format!("{}\n", text(&missing))
    );

    let listed = call(serde_json::json!({"action": "list_invoices"})).await;
    assert_eq!(listed.is_error, Some(false));
    assert_eq!(
        text(&listed),
        "{\"invoices\":[{\"id\":\"inv_1\",\"amount_cents\":1250}]}"
    );
    assert!(README.contains(
        "`{\"action\": \"list_invoices\"}` returns\n`{\"invoices\":[{\"id\":\"inv_1\",\"amount_cents\":1250}]}`"
    ));

    let invalid = call(serde_json::json!({"action": "get_invoice", "id": "9999"})).await;
    let after = "`{\"action\": \"get_invoice\", \"id\": \"9999\"}`";
    assert_eq!(readme_block("xml", after), format!("{}\n", text(&invalid)));
}

#[test]
fn readme_commands_are_the_ones_ci_runs() {
    assert!(README.contains("```sh\ncargo run -p fusion-cli -- serve\n```"));
    assert!(README.contains("```sh\nscripts/test\n```"));
    let ci = include_str!("../../../../.ci/run");
    assert!(ci.contains("exec bash scripts/test"));
}
