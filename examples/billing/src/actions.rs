//! The handlers of the `billing` group and the `billing_health` tool.

use mcp_fusion::{Json, State, ToolError, action};

use crate::db::{self, Db, DbError, seq_of};
use crate::model::{
    CreateInvoice, CurrencyTotals, GenerateReport, Health, Invoice, InvoiceId, InvoicePage,
    InvoiceRecord, ListInvoices, Period, Report, Status, VoidInvoice,
};
use crate::presenters::AGENT_LIMIT;

/// How long `billing.generate_report` works: the example's stand-in for a
/// slow report (a state of the server).
#[derive(Debug, Clone, Copy)]
pub struct ReportWork(pub std::time::Duration);

const LIST: &str = "billing.list_invoices";

fn not_found(id: &str) -> ToolError {
    ToolError::not_found("No invoice with that ID")
        .suggest("List invoices first, then retry with a real ID")
        .actions([LIST])
        .detail("requestedId", id)
}

/// The invoice `id`; `NOT_FOUND` pointing to `billing.list_invoices` when
/// there is none.
pub(crate) async fn load(db: &Db, id: &str) -> Result<Invoice, BillingError> {
    let Some(seq) = seq_of(id) else {
        return Err(not_found(id).into());
    };
    db.run(move |conn| db::find(conn, seq))
        .await?
        .ok_or_else(|| not_found(id).into())
}

/// A billing failure: one the model can act on, or a database error.
#[derive(Debug, thiserror::Error)]
pub enum BillingError {
    /// A failure the model can act on.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The store failed.
    #[error("the invoice store failed")]
    Db(#[from] DbError),
}

impl From<BillingError> for ToolError {
    /// A [`ToolError`] reaches the model as it is; a database error becomes
    /// the masked `INTERNAL_ERROR`, its whole chain in the log.
    fn from(error: BillingError) -> Self {
        match error {
            BillingError::Tool(error) => error,
            BillingError::Db(error) => ToolError::internal(error),
        }
    }
}

// `billing.list_invoices`: a page of invoices, optionally of one status;
// an unknown cursor is INVALID_CURSOR pointing back to the first page.
/// List invoices, oldest first, optionally of one status; pages with `cursor`.
#[action(
    read_only,
    idempotent,
    narrowed_by("status", "limit"),
    returns = crate::presenters::PAGE
)]
pub async fn list_invoices(
    State(db): State<Db>,
    args: ListInvoices,
) -> Result<InvoicePage, BillingError> {
    let limit = args.limit.unwrap_or(20);
    let after = match args.cursor.as_deref() {
        None => 0,
        Some(cursor) => cursor
            .strip_prefix("after_")
            .and_then(|n| n.parse::<i64>().ok())
            .filter(|n| *n >= 0)
            .ok_or_else(|| {
                ToolError::new(
                    "INVALID_CURSOR",
                    format!("The cursor '{cursor}' is not one this server gave out."),
                )
                .suggest(
                    "Call billing.list_invoices without a cursor to start from the first page.",
                )
                .actions([LIST])
            })?,
    };
    let status = args.status;
    let mut invoices = db
        .run(move |conn| db::list_records(conn, status, after, limit + 1))
        .await?;
    let more = invoices.len() > limit as usize;
    invoices.truncate(limit as usize);
    // The presenter shows at most AGENT_LIMIT invoices of a page: the
    // cursor names the last one the model is shown, so that the next page
    // starts right after what it read, never after invoices it was not shown.
    let shown = invoices.len().min(AGENT_LIMIT);
    let next_cursor = if more || shown < invoices.len() {
        invoices[..shown]
            .last()
            .and_then(|i| seq_of(&i.invoice.id))
            .map(|n| format!("after_{n}"))
    } else {
        None
    };
    Ok(InvoicePage {
        invoices,
        next_cursor,
    })
}

// `billing.get_invoice`: one invoice; NOT_FOUND pointing to
// `billing.list_invoices`.
/// Read one invoice by id.
#[action(read_only, idempotent, returns = crate::presenters::INVOICE)]
pub async fn get_invoice(
    State(db): State<Db>,
    args: InvoiceId,
) -> Result<InvoiceRecord, BillingError> {
    let Some(seq) = seq_of(&args.id) else {
        return Err(not_found(&args.id).into());
    };
    db.run(move |conn| db::find_record(conn, seq))
        .await?
        .ok_or_else(|| not_found(&args.id).into())
}

/// Create an open invoice.
#[action]
pub async fn create_invoice(
    State(db): State<Db>,
    args: CreateInvoice,
) -> Result<Json<Invoice>, BillingError> {
    Ok(Json(db.run(move |conn| db::insert(conn, &args)).await?))
}

// `billing.pay_invoice`: CONFLICT when the invoice is already paid or void
// (detail `currentStatus`). One payment per invoice at a time; other
// invoices side by side.
/// Mark an invoice paid.
#[action(serialize_by = "id")]
pub async fn pay_invoice(
    State(db): State<Db>,
    args: InvoiceId,
) -> Result<Json<Invoice>, BillingError> {
    let invoice = load(&db, &args.id).await?;
    match invoice.status {
        Status::Paid => Err(ToolError::conflict(format!(
            "Invoice {} is already paid.",
            invoice.id
        ))
        .suggest(
            "Do not pay it again. Call billing.get_invoice to show the user its current state.",
        )
        .actions(["billing.get_invoice"])
        .detail("currentStatus", invoice.status.as_str())
        .into()),
        Status::Void => Err(ToolError::conflict(format!(
            "Invoice {} is void and cannot be paid.",
            invoice.id
        ))
        .suggest(
            "Do not retry: tell the user the invoice is void. If the customer still owes money, create a new invoice with billing.create_invoice.",
        )
        .actions(["billing.create_invoice"])
        .detail("currentStatus", invoice.status.as_str())
        .into()),
        _ => {
            let seq = seq_of(&invoice.id).unwrap_or_default();
            db.run(move |conn| db::set_status(conn, seq, Status::Paid, None))
                .await?;
            load(&db, &invoice.id).await.map(Json)
        }
    }
}

// `billing.void_invoice`: voiding a paid invoice is refused with a critical
// CONFLICT: it needs a refund, which a person must do.
/// Void (cancel) an invoice that is not paid.
#[action(destructive)]
pub async fn void_invoice(
    State(db): State<Db>,
    args: VoidInvoice,
) -> Result<Json<Invoice>, BillingError> {
    let invoice = load(&db, &args.id).await?;
    match invoice.status {
        Status::Paid => Err(ToolError::conflict(format!(
            "Invoice {} is paid: voiding it would need a refund, which this server cannot do.",
            invoice.id
        ))
        .critical()
        .suggest("Do not retry. Tell the user the invoice is paid and that a refund must be made by a person.")
        .detail("currentStatus", invoice.status.as_str())
        .into()),
        Status::Void => Ok(Json(invoice)),
        _ => {
            let seq = seq_of(&invoice.id).unwrap_or_default();
            let reason = args.reason.clone();
            db.run(move |conn| db::set_status(conn, seq, Status::Void, reason.as_deref()))
                .await?;
            load(&db, &invoice.id).await.map(Json)
        }
    }
}

// `billing_health`: whether the store answers, and how many invoices it holds.
/// Check that the invoice store answers.
#[action(name = "billing_health", read_only)]
pub async fn health(State(db): State<Db>) -> Result<Json<Health>, BillingError> {
    let invoices = db.run(db::count).await?;
    Ok(Json(Health {
        status: String::from("ok"),
        invoices,
    }))
}

// `billing.generate_report`: totals per currency over every stored invoice,
// taking at least `work` (the example's stand-in for a slow report: the
// remaining time is spent waiting, and a cancelled or timed-out call stops at
// once).
/// Totals per currency: billed, paid and outstanding. Takes a while.
#[action(read_only, idempotent)]
pub async fn generate_report(
    State(db): State<Db>,
    State(ReportWork(work)): State<ReportWork>,
    args: GenerateReport,
) -> Result<Json<Report>, BillingError> {
    let started = tokio::time::Instant::now();
    let currency = args.currency.map(|c| c.as_str().to_owned());
    let invoices = db
        .run(move |conn| db::list(conn, None, 0, u32::MAX))
        .await?;
    let mut totals: std::collections::BTreeMap<String, CurrencyTotals> = Default::default();
    for invoice in invoices
        .into_iter()
        .filter(|i| currency.as_deref().is_none_or(|c| c == i.currency))
    {
        let entry = totals
            .entry(invoice.currency.clone())
            .or_insert_with(|| CurrencyTotals {
                currency: invoice.currency.clone(),
                invoices: 0,
                billed_cents: 0,
                paid_cents: 0,
                outstanding_cents: 0,
            });
        entry.invoices += 1;
        entry.billed_cents = entry.billed_cents.saturating_add(invoice.amount_cents);
        match invoice.status {
            Status::Paid => {
                entry.paid_cents = entry.paid_cents.saturating_add(invoice.amount_cents)
            }
            Status::Open | Status::Overdue => {
                entry.outstanding_cents =
                    entry.outstanding_cents.saturating_add(invoice.amount_cents)
            }
            Status::Draft | Status::Void => {}
        }
    }
    tokio::time::sleep_until(started + work).await;
    let period = match args.period {
        Period::Day => "day",
        Period::Week => "week",
        Period::Month => "month",
    };
    Ok(Json(Report {
        period: period.to_owned(),
        totals: totals.into_values().collect(),
    }))
}
