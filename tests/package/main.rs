//! A server built the way a user of the published crates builds one, against
//! the packaged `mcp-fusion` and `mcp-fusion-macros`: `scripts/check-package`
//! unpacks their `.crate` files and builds this as a crate of its own. The
//! builder, a group, `#[action]` and `#[prompt]`; three calls in process. It
//! exits with status 1, saying what differs, when a result is not the one
//! expected.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_fusion::model::CallToolResult;
use mcp_fusion::{FusionServer, Group, Json, State, ToolError, action, prompt};
use serde_json::json;

/// Invoices in memory: id to amount in cents.
#[derive(Clone, Default)]
struct Invoices(Arc<HashMap<String, u64>>);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GetInvoice {
    /// The invoice id, e.g. `inv_1`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    id: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Invoice {
    id: String,
    amount_cents: u64,
}

/// Read one invoice by id.
#[action(read_only)]
async fn get_invoice(
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

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Summarize {
    /// The invoice to summarize.
    id: String,
}

/// Ask for a summary of one invoice.
#[prompt]
async fn summarize(args: Summarize) -> Result<String, ToolError> {
    Ok(format!("Summarize invoice {}.", args.id))
}

fn server() -> FusionServer {
    let invoices = Invoices(Arc::new(HashMap::from([(String::from("inv_1"), 1250)])));
    FusionServer::builder("package-check", "0.1.0")
        .state(invoices)
        .group(
            Group::new("billing")
                .description("Invoices.")
                .action(get_invoice::action()),
        )
        .prompt(summarize::prompt())
        .build()
        .expect("a valid server")
}

/// `isError` and the first text content, or the structured content.
fn shown(result: &CallToolResult) -> String {
    let body = match &result.structured_content {
        Some(structured) => structured.to_string(),
        None => result
            .content
            .first()
            .and_then(|content| content.as_text())
            .map(|text| text.text.clone())
            .unwrap_or_default(),
    };
    format!("isError={:?}\n{body}", result.is_error)
}

#[tokio::main]
async fn main() {
    let server = server();
    let expected = [
        (
            json!({"action": "get_invoice", "id": "inv_1"}),
            "isError=Some(false)\n{\"id\":\"inv_1\",\"amount_cents\":1250}",
        ),
        (
            json!({"action": "get_invoice", "id": "inv_9"}),
            "isError=Some(true)\n<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>No invoice with that ID</message>\n  <recovery>List invoices first, then retry with a real ID</recovery>\n  <available_actions>\n    <action>billing.list_invoices</action>\n  </available_actions>\n  <details>\n    <detail key=\"requestedId\">inv_9</detail>\n  </details>\n</tool_error>",
        ),
        (
            json!({"action": "get_invoice", "id": "9"}),
            "isError=Some(true)\nFix the fields below and call billing again.\n<validation_error action=\"billing.get_invoice\">\n  <field name=\"id\">Does not match the pattern. You sent: '9'. Expected a string matching the pattern '^inv_[0-9]+$'.</field>\n  <recovery>Do not explain the error.</recovery>\n</validation_error>",
        ),
    ];
    let mut failures = Vec::new();
    for (arguments, want) in expected {
        let result = server
            .call("billing", arguments.clone())
            .await
            .expect("billing is a tool of the server");
        let got = shown(&result);
        if got != want {
            failures.push(format!(
                "billing {arguments}:\n--- got\n{got}\n--- expected\n{want}"
            ));
        }
    }
    if failures.is_empty() {
        eprintln!("package-check: the server built on the packaged crates answers as expected");
    } else {
        eprintln!("package-check: {}", failures.join("\n"));
        std::process::exit(1);
    }
}
