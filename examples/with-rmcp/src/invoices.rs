//! The example's data and `get_invoice`'s arguments: nothing here knows MCP.

use schemars::JsonSchema;
use serde::Deserialize;

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
