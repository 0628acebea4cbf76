//! How billing's results are shown to the model (wire contract §9.1): the
//! card number redacted, the internal note left out, at most
//! [`AGENT_LIMIT`] invoices per page, the amounts' unit, that a settled
//! (paid or void) invoice needs nothing more, and a suggestion to pay an
//! unpaid invoice.

use std::sync::LazyLock;

use mcp_fusion::present::{Presenter, Suggestion};

use crate::model::{ShownInvoice, ShownPage, Status};

/// The most invoices one `billing.list_invoices` result shows.
pub const AGENT_LIMIT: usize = 10;

/// One invoice.
pub static INVOICE: LazyLock<Presenter<ShownInvoice>> = LazyLock::new(|| {
    Presenter::new("Invoice")
        .secret("card_number")
        .agent_limit(AGENT_LIMIT)
        .rule_text("Amounts are in cents.")
        .rule("settled", |invoice: &ShownInvoice| {
            matches!(invoice.invoice.status, Status::Paid | Status::Void).then(|| {
                String::from("A paid or void invoice needs nothing more: nothing is owed on it.")
            })
        })
        .suggest("billing.pay_invoice", |invoice: &ShownInvoice| {
            matches!(invoice.invoice.status, Status::Open | Status::Overdue).then(|| {
                let id = &invoice.invoice.id;
                Suggestion::new(format!("{id} is unpaid.")).argument("id", id)
            })
        })
});

/// A page of invoices, each shown by [`INVOICE`].
pub static PAGE: LazyLock<Presenter<ShownPage>> =
    LazyLock::new(|| Presenter::new("InvoicePage").embed("invoices", &INVOICE));
