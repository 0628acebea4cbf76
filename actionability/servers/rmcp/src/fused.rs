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
//! 3. `answer_validation` around the router, once; and the deprecated action's
//!    `DEPRECATED` warning attached to its success with
//!    `envelope::attach_warning`, in the words a `FusionServer` uses.
//!
//! What stays rmcp's: the guards are the hand-written ones of `limits.rs`
//! (a `FusionServer`'s guards do not apply to an rmcp router), and `billing`
//! stays one flat tool whose `action` is an enum field, so a field one
//! action needs is optional in the schema and checked by the tool.

use std::sync::Arc;

use mcp_fusion::ToolError;
use mcp_fusion::envelope::attach_warning;
use mcp_fusion::router_contract::{Parameters, answer_validation};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use crate::args::{
    Action, BILLING_DESCRIPTION, BillingArgs, HEALTH_DESCRIPTION, REMINDERS_DESCRIPTION,
    ReminderArgs,
};
use crate::limits::Limits;
use crate::store::{App, Failure};

/// The action to list invoices, as the envelopes name it.
const LIST: &str = "billing.list_invoices";
/// The action to read an invoice, as the envelopes name it.
const GET: &str = "billing.get_invoice";

/// The next step of a guard's refusal, in the words of a `FusionServer`'s
/// guards (wire contract §2.1).
const RETRY: &str =
    "Call billing again with the same arguments: this refusal is about timing, not about them.";

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

/// `RATE_LIMITED`, with the time until the window frees a call.
fn rate_limited(wait: std::time::Duration, limits: &Limits) -> ToolError {
    let limit = limits.rate().map(|r| r.to_string()).unwrap_or_default();
    let err = ToolError::rate_limited(format!("Too many calls to billing: the limit is {limit}."))
        .retry_after(wait);
    let when = err.retry_after_text().unwrap_or_default();
    err.next_step(RETRY)
        .suggest(format!("Wait {when}, then call billing again."))
        .detail("limit", limit)
}

/// `SERVER_BUSY`. The hand-written count of running calls does not know how
/// long the running one has left, so there is no retry-after.
fn busy(limits: &Limits) -> ToolError {
    let max = limits.max_active().unwrap_or_default();
    ToolError::server_busy(format!(
        "billing is at capacity: {max} call(s) at a time."
    ))
    .next_step(RETRY)
    .suggest("Wait until the running call ends, then call billing again; send fewer calls in parallel.")
    .detail("max_active", max)
}

/// `TIMEOUT`: the call ran past `--timeout-ms`.
fn timed_out(limits: &Limits) -> ToolError {
    let ms = limits.timeout().unwrap_or_default().as_millis();
    ToolError::timeout(format!(
        "billing took longer than its limit of {ms} ms and was stopped."
    ))
    .detail("limit_ms", ms)
}

/// A failure as the billing example words it; a guard's refusal in the
/// words of a `FusionServer`'s guards, as far as these guards know.
fn tool_error(failure: Failure, limits: &Limits) -> ToolError {
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
        Failure::RateLimited(wait) => rate_limited(wait, limits),
        Failure::Busy => busy(limits),
        Failure::TimedOut => timed_out(limits),
    }
}

/// The `DEPRECATED` warning of `get_invoice_legacy`, as a `FusionServer`
/// attaches it to a deprecated action's success.
fn deprecation() -> ToolError {
    ToolError::deprecated(format!(
        "billing.get_invoice_legacy is deprecated and will be removed; use {GET} instead."
    ))
    .suggest(format!("The call succeeded. Next time call {GET}."))
    .actions([GET])
}

#[tool_router]
impl Server {
    /// The server over `app`, its routes answering a failed
    /// `Parameters<T>` with the `<validation_error>` it carries.
    pub fn new(app: Arc<App>) -> Self {
        Server {
            app,
            tool_router: answer_validation(Self::tool_router()),
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
    ) -> Result<CallToolResult, ToolError> {
        let value = self
            .app
            .billing(&args)
            .await
            .map_err(|failure| tool_error(failure, self.app.limits()))?;
        let result = json_result(&value);
        if args.action == Action::GetInvoiceLegacy {
            return Ok(attach_warning(result, &deprecation()));
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
            .map_err(|failure| tool_error(failure, self.app.limits()))
    }
}

#[tool_handler(router = self.tool_router, name = "actionability-rmcp-fusion")]
impl ServerHandler for Server {}
