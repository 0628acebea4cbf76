//! `with-rmcp`: a plain rmcp server — `#[tool_router]`, `#[tool]`,
//! `#[tool_handler]`, served over stdio by rmcp — whose failures follow
//! mcp-fusion's error contract. What it takes from mcp-fusion (the lines
//! marked `mcp-fusion`):
//!
//! - `ToolError` as the tools' error type: a missing invoice is a
//!   `NOT_FOUND` envelope (text and `_meta`) naming `list_invoices`;
//! - `mcp_fusion::router_contract::Parameters` in place of rmcp's: arguments that
//!   miss the schema get the phrased `<validation_error>`;
//! - `RouterContract` around the tool router, once: a failed `Parameters`
//!   is answered with its `<validation_error>` result, and `list_invoices`
//!   runs behind mcp-fusion's rate limit (5 calls a second; a sixth is a
//!   `RATE_LIMITED` envelope with its retry-after).
//!
//! - `mcp_fusion::present::present` for `show_invoice`'s result: the
//!   presenter of `shown_invoice.rs` keeps the fields it declares (the
//!   stored record's internal note never leaves), redacts the card number
//!   and adds its rules after the data; the tool's `outputSchema` is the
//!   presenter's.
//!
//! `get_invoice` has the bench example's three checks: `id` matches
//! `^inv_[0-9]+$`, `email` is an email address, `amount` is an integer of at
//! least 1. Two invoices exist, `inv_1` and `inv_2`.
//!
//! Run it with `fusion call --cmd with-rmcp get_invoice '{"id": "inv_9", …}'`
//! or any MCP client over stdio. The guide's rmcp chapter shows the
//! server part of this file, verbatim (a test below keeps it so).

mod invoices;
#[cfg(test)]
mod presented_tests;
mod shown_invoice;

use invoices::{GetInvoice, INVOICES, InvoiceId};

use mcp_fusion::ToolError; // mcp-fusion
use mcp_fusion::guard::{Guards, RateLimit}; // mcp-fusion
use mcp_fusion::present::present; // mcp-fusion
use mcp_fusion::router_contract::{Parameters, RouterContract}; // mcp-fusion
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::CallToolResult;
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

#[derive(Clone)]
pub struct Billing {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Billing {
    fn new() -> Self {
        let list_guards = Guards::new().rate_limit(RateLimit::per_second(5)); // mcp-fusion
        let tool_router = RouterContract::new(Self::tool_router()) // mcp-fusion
            .guards("list_invoices", list_guards) // mcp-fusion
            .build() // mcp-fusion
            .expect("list_invoices is a tool and its guards are valid"); // mcp-fusion
        Billing { tool_router }
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
        Ok(format!(
            r#"{{"id":"{id}","status":"{status}","amount":{amount}}}"#
        ))
    }

    /// Show one invoice by id: its status, amount and card (redacted).
    #[tool(output_schema = shown_invoice::output_schema())] // mcp-fusion
    async fn show_invoice(
        &self,
        Parameters(args): Parameters<InvoiceId>,
    ) -> Result<CallToolResult, ToolError> {
        let Some(invoice) = invoices::record(&args.id) else {
            let error = ToolError::not_found(format!("No invoice {}.", args.id));
            return Err(error.actions(["list_invoices"]));
        };
        present(&shown_invoice::INVOICE, "show_invoice", invoice) // mcp-fusion
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

#[cfg(test)]
mod tests {
    /// The server block of the guide's rmcp chapter (docs/guide/rmcp.md),
    /// without the lines rustdoc and mdBook hide (`# `: its set-up and the
    /// in-memory check that runs it as a doctest).
    fn guide_block() -> String {
        let chapter = include_str!("../../../docs/guide/rmcp.md");
        let block = chapter
            .split("```rust\n")
            .nth(1)
            .and_then(|rest| rest.split("\n```").next())
            .expect("the chapter has a rust code block");
        let shown: Vec<&str> = block
            .lines()
            .filter(|line| !line.starts_with("# ") && *line != "#")
            .collect();
        shown.join("\n")
    }

    #[test]
    fn the_guide_shows_this_file_verbatim() {
        let block = guide_block();
        assert!(block.lines().count() > 20, "{block}");
        assert!(
            include_str!("main.rs").contains(&block),
            "docs/guide/rmcp.md's server block is not a part of examples/with-rmcp/src/main.rs:\n{block}"
        );
    }
}
