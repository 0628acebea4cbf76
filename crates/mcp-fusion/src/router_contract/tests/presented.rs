//! A presenter from an rmcp `#[tool]`: `present_many` makes the result,
//! rmcp sends it as it is.

use std::sync::Arc;

use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::model::{CallToolResult, Tool};
use serde_json::json;

use super::{Billing, answer};
use crate::error::ToolError;
use crate::present::{Presenter, Suggestion, output_schema_of, present_many};

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Invoice {
    id: String,
    status: String,
    card_number: String,
}

fn invoices() -> Presenter<Invoice> {
    Presenter::new("Invoice")
        .secret("card_number")
        .agent_limit(1)
        .suggest("pay_invoice", |i: &Invoice| {
            (i.status == "open").then(|| Suggestion::new("It is open.").argument("id", &i.id))
        })
}

fn list_invoices(_: &Billing) -> Result<CallToolResult, ToolError> {
    let rows = json!([
        {"id": "inv_1", "status": "open", "card_number": "4111-CANARY", "note": "INTERNAL"},
        {"id": "inv_2", "status": "paid", "card_number": "4111-CANARY", "note": "INTERNAL"}
    ]);
    present_many(&invoices(), "list_invoices", &["status"], rows)
}

#[tokio::test]
async fn an_rmcp_tool_returns_a_presented_result() {
    let schema = serde_json::from_value(json!({"type": "object"})).expect("a schema");
    let output = serde_json::from_value(output_schema_of(&invoices(), true)).expect("an object");
    let tool = Tool::new("list_invoices", "List invoices.", Arc::new(schema))
        .with_raw_output_schema(Arc::new(output));
    let router = ToolRouter::new().with_route(ToolRoute::new(tool, list_invoices));
    let answer = answer(
        router,
        "tools/call",
        json!({"name": "list_invoices", "arguments": {}}),
    )
    .await;
    let items = json!({"items": [{"id": "inv_1", "status": "open", "card_number": "[redacted]"}]});
    assert_eq!(answer["result"]["structuredContent"], items);
    assert_eq!(
        answer["result"]["content"],
        json!([
            {"type": "text", "text": items.to_string()},
            // A list of two: its items suggest nothing (wire contract §9.1).
            {"type": "text", "text": "<result_limit shown=\"1\" total=\"2\">Showing 1 of 2 results. To see the others, call list_invoices again narrowed by status.</result_limit>"}
        ])
    );
    assert!(!answer.to_string().contains("CANARY"));
    assert!(!answer.to_string().contains("INTERNAL"));
}
