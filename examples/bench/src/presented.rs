//! The presented twins of the bench (what a presenter costs per call,
//! `benches/load/callgrind.sh` with `PATHS="show show-plain list list-plain"`):
//! the same handler with and without a presenter, for one invoice and for a
//! list of [`LIST_LEN`] cut to [`AGENT_LIMIT`]. `fusion serve --example
//! bench-presented` serves them beside `get_invoice`.
//!
//! - `show_invoice {"id"}` and `show_invoice_plain {"id"}`: one stored
//!   invoice (with a card number and an internal note); presented, the note
//!   is left out, the card redacted, and a rule and (for an open invoice) a
//!   suggested `pay_invoice` call follow the data.
//! - `list_invoices {}` and `list_invoices_plain {}`: [`LIST_LEN`] stored
//!   invoices; presented, the first [`AGENT_LIMIT`] of them, each as above,
//!   with the summary of the cut.
//! - `pay_invoice {"id"}`: what the suggestion names (`paid`).

use std::sync::LazyLock;

use mcp_fusion::present::{Presenter, Suggestion};
use mcp_fusion::{Action, ServerBuilder, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How many invoices `list_invoices` and `list_invoices_plain` return.
pub const LIST_LEN: usize = 100;

/// How many of them the presenter shows.
pub const AGENT_LIMIT: usize = 10;

/// An invoice as the handlers return it: more than the model may see.
#[derive(Debug, Serialize)]
pub struct StoredInvoice {
    /// `inv_` followed by digits.
    pub id: String,
    /// `open` (even numbers) or `paid`.
    pub status: &'static str,
    /// The total, in cents.
    pub amount_cents: u64,
    /// The card it is paid with (redacted when presented).
    pub card_number: &'static str,
    /// A note for the finance team (left out when presented).
    pub internal_note: &'static str,
}

/// What the model sees of an invoice.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ShownInvoice {
    /// `inv_` followed by digits.
    pub id: String,
    /// `open` or `paid`.
    pub status: String,
    /// The total, in cents.
    pub amount_cents: u64,
    /// The card it is paid with (always `[redacted]`).
    pub card_number: String,
}

/// The presenter of `show_invoice` and `list_invoices`: one redacted
/// field, one rule, one suggestion, the agent limit.
pub static INVOICE: LazyLock<Presenter<ShownInvoice>> = LazyLock::new(|| {
    Presenter::new("Invoice")
        .secret("card_number")
        .agent_limit(AGENT_LIMIT)
        .rule_text("Amounts are in cents.")
        .suggest("pay_invoice", |invoice: &ShownInvoice| {
            (invoice.status == "open")
                .then(|| Suggestion::new("It is unpaid.").argument("id", &invoice.id))
        })
});

/// The stored invoice number `n`.
fn stored(n: u64) -> StoredInvoice {
    StoredInvoice {
        id: format!("inv_{n}"),
        status: if n.is_multiple_of(2) { "open" } else { "paid" },
        amount_cents: 1_000 + n,
        card_number: "4111 1111 1111 1111",
        internal_note: "Disputed a late fee once.",
    }
}

/// The arguments of `show_invoice`, `show_invoice_plain` and `pay_invoice`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InvoiceId {
    /// The invoice id, e.g. `inv_2`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
}

/// The arguments of the list tools: none used; `status` is what the cut's
/// summary names to narrow by.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListInvoices {
    /// Only invoices in this state (not applied: every call returns all).
    pub status: Option<String>,
}

async fn show(args: InvoiceId) -> Result<StoredInvoice, ToolError> {
    let n = args.id["inv_".len()..].parse().unwrap_or(0);
    Ok(stored(n))
}

async fn list(_: ListInvoices) -> Result<Vec<StoredInvoice>, ToolError> {
    Ok((1..=LIST_LEN as u64).map(stored).collect())
}

async fn pay(_: InvoiceId) -> Result<&'static str, ToolError> {
    Ok("paid")
}

/// `builder` with the presented twins added.
pub fn with_presented(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(Action::new("show_invoice", show).returns(&INVOICE))
        .tool(Action::new("show_invoice_plain", show))
        .tool(
            Action::new("list_invoices", list)
                .narrowed_by(["status"])
                .returns_many(&INVOICE),
        )
        .tool(Action::new("list_invoices_plain", list))
        .tool(Action::new("pay_invoice", pay))
}
