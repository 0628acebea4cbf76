//! The `ours-rmcp` stack: the router of `plain.rs` with mcp-fusion added, as
//! README.md's "Already on rmcp?" says, through its public API only:
//!
//! 1. `mcp_fusion::router_contract::Parameters` in place of rmcp's: the listed
//!    schema is checked, every keyword, and a failure is the phrased
//!    `<validation_error>` (so `checks.rs` is not needed);
//! 2. `ToolError` as the tools' error type, written as the billing example
//!    (`examples/billing`, what `ours` serves) writes the same failures:
//!    code, recovery, the actions to call instead, details; a retry-after
//!    where the server knows one (the rate limit's window);
//! 3. `RouterContract` around the router, once: validation failures answered
//!    as tool results, `billing`'s guards (`--rate-limit`, `--max-active`,
//!    `--timeout-ms`) the very guards of a `FusionServer`, and with `--lock`
//!    the changes since that lockfile on validation failures; and the
//!    deprecated action's `DEPRECATED` warning
//!    (`ToolError::deprecated_action`, what a `FusionServer` attaches)
//!    attached to its success with `envelope::attach_warning`.
//!
//! What stays rmcp's: `billing` stays one flat tool whose `action` is an enum
//! field, so a field one action needs is optional in the schema and checked
//! by the tool.

use std::sync::Arc;

use mcp_fusion::ToolError;
use mcp_fusion::contract::Lockfile;
use mcp_fusion::envelope::attach_warning;
use mcp_fusion::guard::Guards;
use mcp_fusion::router_contract::{Parameters, RouterContract, RouterContractError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use crate::args::{
    Action, BILLING_DESCRIPTION, BillingArgs, HEALTH_DESCRIPTION, REMINDERS_DESCRIPTION,
    ReminderArgs,
};
use crate::store::{App, Failure};

/// The action to list invoices, as the envelopes name it.
const LIST: &str = "billing.list_invoices";
/// The action to read an invoice, as the envelopes name it.
const GET: &str = "billing.get_invoice";

/// The rmcp server with mcp-fusion's adapter.
#[derive(Clone)]
pub struct Server {
    app: Arc<App>,
    tool_router: ToolRouter<Self>,
}

/// `value` as the one text block of a success (pretty JSON).
fn json_result(value: &Value) -> CallToolResult {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// `NOT_FOUND` for the invoice `id`, pointing to the listing.
fn not_found(id: &str) -> ToolError {
    ToolError::not_found("No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions([LIST])
        .detail("requestedId", id)
}

/// The fields an action needs and lacks: `MISSING_REQUIRED_FIELD`.
fn missing(fields: &[&str]) -> ToolError {
    match fields {
        [field] => ToolError::required(field),
        _ => {
            let list = fields
                .iter()
                .map(|f| format!("\"{f}\""))
                .collect::<Vec<_>>()
                .join(", ");
            ToolError::missing_required_field(format!("Required fields {list} are missing."))
                .suggest(format!("Provide the {list} parameters and retry."))
        }
    }
}

/// A failure as the billing example words it.
fn tool_error(failure: Failure) -> ToolError {
    match failure {
        Failure::Missing { fields, .. } => missing(&fields),
        Failure::NotFound(id) => not_found(&id),
        Failure::AlreadyPaid(id) => ToolError::conflict(format!("Invoice {id} is already paid."))
            .suggest("Do not pay it again. Call billing.get_invoice to show the user its current state.")
            .actions([GET])
            .detail("currentStatus", "paid"),
        Failure::PayVoid(id) => ToolError::conflict(format!("Invoice {id} is void and cannot be paid."))
            .suggest("Do not retry: tell the user the invoice is void. If the customer still owes money, create a new invoice with billing.create_invoice.")
            .actions(["billing.create_invoice"])
            .detail("currentStatus", "void"),
        Failure::VoidPaid(id) => ToolError::conflict(format!(
            "Invoice {id} is paid: voiding it would need a refund, which this server cannot do."
        ))
        .critical()
        .suggest("Do not retry. Tell the user the invoice is paid and that a refund must be made by a person.")
        .detail("currentStatus", "paid"),
        Failure::NothingOwed(id, status) => ToolError::conflict(format!(
            "Invoice {id} is {}: nothing is owed, so there is nothing to remind.",
            status.as_str()
        ))
        .suggest("Do not schedule it again. Call billing.get_invoice to show the user its current state.")
        .actions([GET])
        .detail("currentStatus", status.as_str()),
        Failure::InvalidCursor(cursor) => ToolError::new(
            "INVALID_CURSOR",
            format!("The cursor '{cursor}' is not one this server gave out."),
        )
        .suggest("Call billing.list_invoices without a cursor to start from the first page.")
        .actions([LIST]),
        // The store's own guards are off: mcp-fusion's run before it.
        Failure::RateLimited(_) | Failure::Busy | Failure::TimedOut => {
            ToolError::internal("the store's hand-written guards ran behind the adapter's")
        }
    }
}

#[tool_router]
impl Server {
    /// The server over `app`, its routes answering a failed
    /// `Parameters<T>` with the `<validation_error>` it carries, `billing`
    /// behind `guards`, and validation failures telling what changed since
    /// `lock`.
    ///
    /// # Errors
    /// A guard setting that cannot be used, or tools that cannot be read as
    /// a contract.
    pub fn new(
        app: Arc<App>,
        guards: Guards,
        lock: Option<&Lockfile>,
    ) -> Result<Self, RouterContractError> {
        let mut router = RouterContract::new(Self::tool_router()).guards("billing", guards);
        if let Some(lock) = lock {
            router = router.lockfile(lock);
        }
        Ok(Server {
            app,
            tool_router: router.build()?,
        })
    }

    /// `billing`: the action `action` names, on the invoices.
    #[tool(
        description = BILLING_DESCRIPTION,
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false)
    )]
    async fn billing(
        &self,
        Parameters(args): Parameters<BillingArgs>,
    ) -> Result<CallToolResult, ToolError> {
        let value = self.app.billing(&args).await.map_err(tool_error)?;
        let result = json_result(&value);
        if args.action == Action::GetInvoiceLegacy {
            return Ok(attach_warning(
                result,
                &ToolError::deprecated_action("billing.get_invoice_legacy", GET),
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
    ) -> Result<CallToolResult, ToolError> {
        self.app
            .remind(&args)
            .map(|value| json_result(&value))
            .map_err(tool_error)
    }
}

#[tool_handler(router = self.tool_router, name = "actionability-rmcp-fusion")]
impl ServerHandler for Server {}
