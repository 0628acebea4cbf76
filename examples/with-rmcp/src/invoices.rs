//! The example's data and `get_invoice`'s arguments: nothing here knows MCP.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The invoices this server knows: id, status, amount in cents.
pub const INVOICES: [(&str, &str, u64); 2] = [("inv_1", "open", 1200), ("inv_2", "paid", 4500)];

/// The arguments of `get_invoice`: the bench example's three checks.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetInvoice {
    /// The invoice id, e.g. `inv_1`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
    /// Who the invoice is sent to, e.g. `user@example.com`.
    #[schemars(email)]
    #[expect(
        dead_code,
        reason = "checked, as the bench's; the tool reads the id only"
    )]
    pub email: String,
    /// The amount, in cents (at least 1).
    #[schemars(range(min = 1))]
    #[expect(
        dead_code,
        reason = "checked, as the bench's; the tool reads the id only"
    )]
    pub amount: u64,
}

/// The arguments of `show_invoice`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InvoiceId {
    /// The invoice id, e.g. `inv_1`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
}

/// An invoice as the store holds it: with the card it is paid with and a
/// note for the finance team, neither of which is for the model.
#[derive(Debug, Serialize)]
pub struct InvoiceRecord {
    /// `inv_` followed by digits.
    pub id: &'static str,
    /// `open` or `paid`.
    pub status: &'static str,
    /// The total, in cents.
    pub amount_cents: u64,
    /// The card the customer pays with.
    pub card_number: &'static str,
    /// A note for the finance team.
    pub internal_note: &'static str,
}

/// The stored invoice `id`, if there is one.
pub fn record(id: &str) -> Option<InvoiceRecord> {
    let (id, status, amount_cents) = *INVOICES.iter().find(|(known, ..)| *known == id)?;
    Some(InvoiceRecord {
        id,
        status,
        amount_cents,
        card_number: "4111 1111 1111 1111",
        internal_note: "Customer disputed a late fee in March.",
    })
}
