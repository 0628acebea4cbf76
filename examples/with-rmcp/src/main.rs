//! `with-rmcp`: a plain rmcp server — `#[tool_router]`, `#[tool]`,
//! `#[tool_handler]`, served over stdio by rmcp — whose failures follow
//! mcp-fusion's error contract. What it takes from mcp-fusion:
//!
//! - `ToolError` as the tools' error type: a missing invoice is a
//!   `NOT_FOUND` envelope (text and `_meta`) naming `list_invoices`;
//! - `mcp_fusion::rmcp_tool::Parameters` in place of rmcp's: arguments that
//!   miss the schema get the phrased `<validation_error>`;
//! - `answer_validation` around the tool router, once.
//!
//! `get_invoice` has the bench example's three checks: `id` matches
//! `^inv_[0-9]+$`, `email` is an email address, `amount` is an integer of at
//! least 1. Two invoices exist, `inv_1` and `inv_2`.
//!
//! Run it with `fusion call --cmd with-rmcp get_invoice '{"id": "inv_9", …}'`
//! or any MCP client over stdio.

use mcp_fusion::ToolError;
use mcp_fusion::rmcp_tool::{Parameters, answer_validation};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// The invoices this server knows: id, status, amount in cents.
const INVOICES: [(&str, &str, u64); 2] = [("inv_1", "open", 1200), ("inv_2", "paid", 4500)];

/// The arguments of `get_invoice`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetInvoice {
    /// The invoice id, e.g. `inv_1`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
    /// Who the invoice is sent to, e.g. `user@example.com`.
    #[schemars(email)]
    pub email: String,
    /// The amount, in cents (at least 1).
    #[schemars(range(min = 1))]
    pub amount: u64,
}

/// The server: rmcp's tool router, wrapped once by `answer_validation`.
#[derive(Clone)]
pub struct Billing {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Billing {
    fn new() -> Self {
        Billing {
            tool_router: answer_validation(Self::tool_router()),
        }
    }

    /// Read one invoice by id.
    #[tool]
    async fn get_invoice(
        &self,
        Parameters(args): Parameters<GetInvoice>,
    ) -> Result<String, ToolError> {
        let Some((id, status, amount)) = INVOICES.iter().find(|(id, ..)| *id == args.id) else {
            return Err(ToolError::not_found("No invoice with that ID")
                .suggest("List invoices first, then retry with a real ID")
                .actions(["list_invoices"])
                .detail("requestedId", &args.id));
        };
        // The ids and statuses hold nothing to escape in JSON.
        Ok(format!(
            r#"{{"id":"{id}","status":"{status}","amount":{amount}}}"#
        ))
    }

    /// List the ids of every invoice.
    #[tool]
    async fn list_invoices(&self) -> String {
        let ids: Vec<String> = INVOICES
            .iter()
            .map(|(id, ..)| format!("\"{id}\""))
            .collect();
        format!("[{}]", ids.join(","))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Billing {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Billing::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
