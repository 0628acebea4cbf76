//! The prompt of the billing example: `payment_reminder`, a reminder letter
//! for an open or overdue invoice, signed by the caller.

use mcp_fusion::{CallContext, CompletionRequest, State, ToolError, prompt};

use crate::actions::{BillingError, load};
use crate::db::Db;
use crate::model::{Invoice, PaymentReminder, Status, Tone};
use crate::resources::ids_where;

/// `cents` in `currency` as text: `450.50 USD`.
fn money(cents: u64, currency: &str) -> String {
    format!("{}.{:02} {currency}", cents / 100, cents % 100)
}

/// Who signs a reminder: the caller's auth subject, else the billing team.
fn signer(ctx: &CallContext) -> String {
    match ctx.principal() {
        Some(principal) => format!("{}, for the billing team", principal.subject),
        None => String::from("the billing team"),
    }
}

/// Why `invoice` gets no reminder, if it does not.
fn nothing_owed(invoice: &Invoice) -> Option<ToolError> {
    let (message, recovery) = match invoice.status {
        Status::Open | Status::Overdue => return None,
        Status::Paid => (
            format!(
                "Invoice {} is paid: there is nothing to remind the customer of.",
                invoice.id
            ),
            "Do not send a reminder. Tell the user the invoice is paid.",
        ),
        Status::Void => (
            format!("Invoice {} is void: nothing is owed.", invoice.id),
            "Do not send a reminder. Tell the user the invoice is void.",
        ),
        Status::Draft => (
            format!(
                "Invoice {} is a draft: it was never sent, so nothing is due yet.",
                invoice.id
            ),
            "Do not send a reminder. Tell the user the invoice is still a draft.",
        ),
    };
    Some(
        ToolError::conflict(message)
            .suggest(recovery)
            .detail("currentStatus", invoice.status.as_str()),
    )
}

// `payment_reminder`: the letter's brief, from the stored invoice; CONFLICT
// for an invoice that is paid, void or a draft; NOT_FOUND as
// `billing.get_invoice`.
/// Draft a payment reminder for an open or overdue invoice.
#[prompt(title = "Payment reminder")]
pub async fn payment_reminder(
    ctx: CallContext,
    State(db): State<Db>,
    args: PaymentReminder,
) -> Result<String, BillingError> {
    let invoice = load(&db, &args.id).await?;
    if let Some(refused) = nothing_owed(&invoice) {
        return Err(refused.into());
    }
    let (tone, manner) = match args.tone.unwrap_or_default() {
        Tone::Friendly => (
            "friendly",
            "Keep it short and warm: the customer may simply have missed it.",
        ),
        Tone::Firm => (
            "firm",
            "Be polite but firm: the payment is late, and it must be made within 7 days.",
        ),
    };
    let due = invoice
        .due_date
        .as_deref()
        .map_or(String::new(), |date| format!(", due {date}"));
    let lines: String = invoice
        .items
        .iter()
        .map(|item| {
            format!(
                "- {}: {} x {}\n",
                item.description,
                item.quantity,
                money(item.unit_price_cents, &invoice.currency)
            )
        })
        .collect();
    Ok(format!(
        "Write a {tone} payment reminder to {email} for invoice {id}.\n\
         Amount due: {amount} ({status}{due}).\n\
         Lines:\n{lines}\
         {manner}\n\
         Sign it as {signer}.",
        email = invoice.customer_email,
        id = invoice.id,
        amount = money(invoice.amount_cents, &invoice.currency),
        status = invoice.status.as_str(),
        signer = signer(&ctx),
    ))
}

/// Completes the prompt's `id`: the open and overdue invoices whose id
/// starts with what was typed, oldest first.
pub async fn unpaid_invoice_ids(
    State(db): State<Db>,
    request: CompletionRequest,
) -> Result<Vec<String>, BillingError> {
    ids_where(&db, &request.value, |i| {
        matches!(i.status, Status::Open | Status::Overdue)
    })
    .await
}
