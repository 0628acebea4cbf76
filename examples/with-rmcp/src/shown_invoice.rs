//! How `show_invoice` shows an invoice to the model, with mcp-fusion's
//! presenter (wire contract §9.1): the fields of [`ShownInvoice`] only (the
//! internal note of the stored record never leaves), the card number
//! redacted, and the rules after the data.

use std::sync::{Arc, LazyLock};

use mcp_fusion::present::{Presenter, output_schema_of};
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An invoice as the model reads it.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ShownInvoice {
    /// `inv_` followed by digits.
    pub id: String,
    /// `open` or `paid`.
    pub status: String,
    /// The total, in cents.
    pub amount_cents: u64,
    /// The card the customer pays with (always sent as `[redacted]`).
    pub card_number: String,
}

/// The presenter of `show_invoice`'s result.
pub static INVOICE: LazyLock<Presenter<ShownInvoice>> = LazyLock::new(|| {
    Presenter::new("Invoice")
        .secret("card_number")
        .rule_text("Amounts are in cents.")
        .rule("unpaid", |invoice: &ShownInvoice| {
            (invoice.status == "open").then(|| {
                format!(
                    "{} is not paid yet: do not tell the user it is.",
                    invoice.id
                )
            })
        })
});

/// `show_invoice`'s `outputSchema`: what [`INVOICE`] lets leave.
pub fn output_schema() -> Arc<JsonObject> {
    match output_schema_of(&INVOICE, false) {
        serde_json::Value::Object(schema) => Arc::new(schema),
        _ => Arc::default(),
    }
}
