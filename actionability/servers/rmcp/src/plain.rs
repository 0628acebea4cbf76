//! The `rmcp` stack: the tools on plain rmcp, written the way its README
//! writes a server. `#[tool_router]` / `#[tool]` with rmcp's
//! `Parameters<T>`, and errors as rmcp answers them:
//!
//! - arguments serde cannot deserialize into `T`: rmcp's own answer, a tool
//!   result (`isError` true) whose text is `failed to deserialize
//!   parameters: ` and serde's message;
//! - a bound, length, pattern or format the schema lists but serde does not
//!   check (`checks.rs`), and a field the action needs that is missing:
//!   `McpError::invalid_params` (JSON-RPC error -32602), as rmcp itself
//!   answers bad parameters;
//! - a failure of the call itself (an unknown invoice, a conflict, a guard):
//!   `CallToolResult::error` with the plain sentence the TypeScript and
//!   FastMCP twins throw.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData as McpError, ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use crate::args::{
    Action, BILLING_DESCRIPTION, BillingArgs, HEALTH_DESCRIPTION, REMINDERS_DESCRIPTION,
    ReminderArgs,
};
use crate::checks;
use crate::store::{App, Failure};

/// The plain rmcp server: the invoices and the router `#[tool_router]` builds.
#[derive(Clone)]
pub struct Server {
    app: Arc<App>,
    tool_router: ToolRouter<Self>,
}

/// `value` as the one text block of a success (pretty JSON, as the
/// TypeScript twin answers).
fn json_result(value: &Value) -> CallToolResult {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// A failure in the twins' words: a missing field as `invalid_params`, the
/// rest as a tool result with `isError` true and one plain sentence.
fn answer(failure: Failure) -> Result<CallToolResult, McpError> {
    let text = match failure {
        Failure::Missing { action, fields } => {
            return Err(McpError::invalid_params(
                format!(
                    "Missing required field(s) for {}: {}",
                    action.as_str(),
                    fields.join(", ")
                ),
                None,
            ));
        }
        Failure::NotFound(id) => format!("Invoice {id} not found"),
        Failure::AlreadyPaid(id) => format!("Invoice {id} is already paid"),
        Failure::PayVoid(id) => format!("Invoice {id} is void and cannot be paid"),
        Failure::VoidPaid(id) => format!("Invoice {id} is paid and cannot be voided"),
        Failure::NothingOwed(id, status) => {
            format!("Invoice {id} is {}: nothing is owed", status.as_str())
        }
        Failure::InvalidCursor(cursor) => format!("Invalid cursor: {cursor}"),
        Failure::RateLimited(_) => "Rate limit exceeded. Try again later.".to_owned(),
        Failure::Busy => "Server busy, try again later".to_owned(),
        Failure::TimedOut => "Operation timed out".to_owned(),
    };
    Ok(CallToolResult::error(vec![ContentBlock::text(text)]))
}

#[tool_router]
impl Server {
    /// The server over `app`.
    pub fn new(app: Arc<App>) -> Self {
        Server {
            app,
            tool_router: Self::tool_router(),
        }
    }

    /// `billing`: the action `action` names, on the invoices.
    #[tool(
        description = BILLING_DESCRIPTION,
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false)
    )]
    async fn billing(
        &self,
        Parameters(args): Parameters<BillingArgs>,
    ) -> Result<CallToolResult, McpError> {
        checks::billing(&args).map_err(|message| McpError::invalid_params(message, None))?;
        let value = match self.app.billing(&args).await {
            Ok(value) => value,
            Err(failure) => return answer(failure),
        };
        let mut result = json_result(&value);
        if args.action == Action::GetInvoiceLegacy {
            result.content.push(ContentBlock::text(
                "Warning: get_invoice_legacy is deprecated; use the get_invoice action instead.",
            ));
        }
        Ok(result)
    }

    /// `billing_health`: whether the store answers, and how many invoices it holds.
    #[tool(description = HEALTH_DESCRIPTION, annotations(read_only_hint = true))]
    async fn billing_health(&self) -> CallToolResult {
        json_result(&json!({ "status": "ok", "invoices": self.app.count() }))
    }

    /// `reminders`: schedule a payment reminder for an unpaid invoice.
    #[tool(description = REMINDERS_DESCRIPTION)]
    async fn reminders(
        &self,
        Parameters(args): Parameters<ReminderArgs>,
    ) -> Result<CallToolResult, McpError> {
        checks::reminders(&args).map_err(|message| McpError::invalid_params(message, None))?;
        match self.app.remind(&args) {
            Ok(value) => Ok(json_result(&value)),
            Err(failure) => answer(failure),
        }
    }
}

#[tool_handler(router = self.tool_router, name = "actionability-rmcp")]
impl ServerHandler for Server {}
