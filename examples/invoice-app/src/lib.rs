//! An MCP App (the `io.modelcontextprotocol/ui` extension, SEP-1865) over
//! the billing example: the view `ui://billing/invoice`
//! ([`INVOICE_VIEW_HTML`], one self-contained HTML page: no CDN, no outside
//! origin, so the default CSP holds) and the plain tool
//! `billing_show_invoice` linked to it. A host that renders apps shows the
//! invoice in the view, which receives the tool's result over the Apps
//! `postMessage` protocol (`ui/initialize`, then
//! `ui/notifications/tool-result`); any other host gives the model the
//! result's text, the same invoice as JSON.

#![warn(missing_docs)]

use billing_example::{Db, actions, model};
use mcp_fusion::capability::{UiLink, UiResource};
use mcp_fusion::{Action, BuildError, FusionServer, Json, ServerBuilder, State};
use schemars::JsonSchema;
use serde::Serialize;

/// The view's URI.
pub const INVOICE_VIEW_URI: &str = "ui://billing/invoice";

/// The view: an HTML5 document with its script and style inline.
pub const INVOICE_VIEW_HTML: &str = include_str!("invoice.html");

/// One invoice as the view renders it and the model reads it: no card
/// number, no internal note.
#[derive(Debug, Serialize, JsonSchema)]
pub struct InvoiceView {
    /// `inv_` followed by digits.
    pub id: String,
    /// Who pays.
    pub customer_email: String,
    /// The total, in cents.
    pub amount_cents: u64,
    /// ISO 4217 code.
    pub currency: String,
    /// `draft`, `open`, `paid`, `void` or `overdue`.
    pub status: model::Status,
    /// The lines.
    pub items: Vec<model::LineItem>,
    /// When payment is due (`YYYY-MM-DD`), if set.
    pub due_date: Option<String>,
}

/// Shows one invoice: in the invoice view where the host renders MCP Apps,
/// as JSON text elsewhere.
pub async fn show_invoice(
    db: State<Db>,
    args: model::InvoiceId,
) -> Result<Json<InvoiceView>, actions::BillingError> {
    let record = actions::get_invoice(db, args).await?;
    let invoice = record.invoice;
    Ok(Json(InvoiceView {
        id: invoice.id,
        customer_email: invoice.customer_email,
        amount_cents: invoice.amount_cents,
        currency: invoice.currency,
        status: invoice.status,
        items: invoice.items,
        due_date: invoice.due_date,
    }))
}

/// The view, with the default (restrictive) CSP and a border.
pub fn invoice_view() -> UiResource {
    UiResource::new(INVOICE_VIEW_URI, "invoice_view", INVOICE_VIEW_HTML)
        .title("Invoice")
        .description("One invoice, rendered: its customer, lines, total and status.")
        .prefers_border(true)
}

/// The billing server with the view and `billing_show_invoice`.
pub fn builder(db: &Db) -> ServerBuilder {
    billing_example::builder(db)
        .ui_resource(invoice_view())
        .tool(
            Action::new("billing_show_invoice", show_invoice)
                .description("Show one invoice to the user (rendered as a card where the host supports MCP Apps).")
                .read_only()
                .ui(UiLink::new(INVOICE_VIEW_URI)),
        )
}

/// The built server.
///
/// # Errors
/// A [`BuildError`] if the definition is wrong (it is not).
pub fn server(db: &Db) -> Result<FusionServer, BuildError> {
    builder(db).build()
}
