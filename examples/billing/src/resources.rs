//! The resources of the billing example: `billing://readme`, open to every
//! caller, and the template `billing://invoices/{id}`, each invoice as JSON.

use mcp_fusion::{CompletionRequest, State, ToolError, resource, resource_template};

use crate::actions::{BillingError, load};
use crate::db::{self, Db};
use crate::model::{Invoice, InvoiceId};

/// The text of `billing://readme`.
pub const README: &str = "\
# Billing

Invoices in SQLite. Failures come back as <tool_error> or <validation_error> envelopes: follow their recovery.

- Tool `billing`: list, read, create, pay and void invoices, and report totals (the field `action` names which).
- Tool `billing_health`: whether the invoice store answers.
- Resource template `billing://invoices/{id}`: one invoice as JSON, e.g. billing://invoices/inv_2.
- Prompt `payment_reminder`: a reminder letter for an open or overdue invoice.

With bearer tokens, reading invoices (the template and the prompt too) needs the scope billing:read, changing them billing:write; this read-me and billing_health need none.
";

// `billing://readme`: what the server offers; never needs credentials.
/// What this server offers, and which scope each part needs.
#[resource(
    uri = "billing://readme",
    title = "Billing: read me first",
    mime_type = "text/markdown"
)]
pub async fn readme() -> Result<&'static str, ToolError> {
    Ok(README)
}

// `billing://invoices/{id}`: one invoice, as `billing.get_invoice` returns
// it; NOT_FOUND (JSON-RPC -32002) pointing to `billing.list_invoices`.
/// One invoice as JSON, e.g. billing://invoices/inv_2.
#[resource_template(
    uri = "billing://invoices/{id}",
    name = "invoice",
    mime_type = "application/json"
)]
pub async fn invoice(State(db): State<Db>, vars: InvoiceId) -> Result<String, BillingError> {
    let invoice = load(&db, &vars.id).await?;
    serde_json::to_string(&invoice).map_err(|e| ToolError::internal(e).into())
}

/// Completes the template's `id`: the ids of every invoice that start with
/// what was typed, oldest first.
pub async fn invoice_ids(
    State(db): State<Db>,
    request: CompletionRequest,
) -> Result<Vec<String>, BillingError> {
    ids_where(&db, &request.value, |_| true).await
}

/// The ids of the invoices that `keep` keeps and that start with `typed`,
/// oldest first.
pub(crate) async fn ids_where(
    db: &Db,
    typed: &str,
    keep: fn(&Invoice) -> bool,
) -> Result<Vec<String>, BillingError> {
    let typed = typed.to_owned();
    let invoices = db
        .run(move |conn| db::list(conn, None, 0, u32::MAX))
        .await?;
    Ok(invoices
        .into_iter()
        .filter(|i| keep(i) && i.id.starts_with(&typed))
        .map(|i| i.id)
        .collect())
}
