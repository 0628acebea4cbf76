//! The billing example's data and the input type of every action.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The life-cycle state of an invoice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Being prepared; not sent yet.
    Draft,
    /// Sent and waiting for payment.
    Open,
    /// Paid in full.
    Paid,
    /// Cancelled; nothing is owed.
    Void,
    /// Past its due date and unpaid.
    Overdue,
}

impl Status {
    /// The stored and wire name (`draft`, `open`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::Open => "open",
            Status::Paid => "paid",
            Status::Void => "void",
            Status::Overdue => "overdue",
        }
    }
}

impl std::str::FromStr for Status {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Status::Draft,
            Status::Open,
            Status::Paid,
            Status::Void,
            Status::Overdue,
        ]
        .into_iter()
        .find(|status| status.as_str() == s)
        .ok_or_else(|| format!("unknown status {s:?}"))
    }
}

/// A currency the example bills in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Currency {
    /// US dollars.
    USD,
    /// Euros.
    EUR,
    /// Pounds sterling.
    GBP,
}

impl Currency {
    /// The ISO 4217 code.
    pub fn as_str(self) -> &'static str {
        match self {
            Currency::USD => "USD",
            Currency::EUR => "EUR",
            Currency::GBP => "GBP",
        }
    }
}

/// One line of an invoice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LineItem {
    /// What was sold.
    #[schemars(length(min = 1, max = 200))]
    pub description: String,
    /// How many units.
    #[schemars(range(min = 1, max = 10000))]
    pub quantity: u32,
    /// The price of one unit, in cents (at most 100 000 000 000).
    #[schemars(range(max = 100_000_000_000u64))]
    pub unit_price_cents: u64,
}

/// An invoice as the tools return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Invoice {
    /// `inv_` followed by digits.
    pub id: String,
    /// Who pays.
    pub customer_email: String,
    /// The total, in cents.
    pub amount_cents: u64,
    /// ISO 4217 code.
    pub currency: String,
    /// Where it is in its life cycle.
    pub status: Status,
    /// The lines.
    pub items: Vec<LineItem>,
    /// When payment is due (`YYYY-MM-DD`), if set.
    pub due_date: Option<String>,
    /// When it was created (UTC, ISO 8601).
    pub created_at: String,
}

/// An invoice as the store holds it: with its card number and an internal
/// note. Handlers return it; the presenters (`crate::presenters`) show the
/// model a [`ShownInvoice`], the card number redacted and the note left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvoiceRecord {
    /// The invoice.
    #[serde(flatten)]
    pub invoice: Invoice,
    /// The card the customer pays with (secret).
    pub card_number: Option<String>,
    /// A note for the finance team (never leaves the server).
    pub internal_note: Option<String>,
}

/// An invoice as `billing.get_invoice` and `billing.list_invoices` show
/// it: the fields of [`Invoice`] and the card number (sent redacted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShownInvoice {
    /// The invoice.
    #[serde(flatten)]
    pub invoice: Invoice,
    /// The card the customer pays with (always sent as `[redacted]`).
    pub card_number: Option<String>,
}

/// One page of `billing.list_invoices` as the model reads it.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ShownPage {
    /// The invoices, oldest first.
    pub invoices: Vec<ShownInvoice>,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `billing.list_invoices`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListInvoices {
    /// Only invoices in this state.
    pub status: Option<Status>,
    /// How many to return, 1 to 100 (default 20).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// `next_cursor` from the previous page.
    pub cursor: Option<String>,
}

/// `billing.get_invoice`, `billing.get_invoice_legacy`, `billing.pay_invoice`,
/// and the variable of the resource template `billing://invoices/{id}`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InvoiceId {
    /// The invoice id, e.g. `inv_2`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
}

/// `billing.create_invoice`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateInvoice {
    /// Who pays.
    #[schemars(email)]
    pub customer_email: String,
    /// The total, in cents (1 to 100 000 000 000).
    #[schemars(range(min = 1, max = 100_000_000_000u64))]
    pub amount_cents: u64,
    /// The currency.
    pub currency: Currency,
    /// At least one line.
    #[schemars(length(min = 1, max = 100))]
    pub items: Vec<LineItem>,
    /// When payment is due (`YYYY-MM-DD`).
    #[schemars(extend("format" = "date"))]
    pub due_date: Option<String>,
}

/// `billing.void_invoice`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct VoidInvoice {
    /// The invoice id, e.g. `inv_2`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
    /// Why it is voided (kept with the invoice).
    #[schemars(length(max = 500))]
    pub reason: Option<String>,
}

/// One page of `billing.list_invoices`, as the handler returns it.
#[derive(Debug, Serialize)]
pub struct InvoicePage {
    /// The invoices, oldest first.
    pub invoices: Vec<InvoiceRecord>,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// How a payment reminder sounds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    /// Short and warm: the customer may simply have missed it.
    #[default]
    Friendly,
    /// Polite but firm: the payment is late.
    Firm,
}

/// The arguments of the prompt `payment_reminder`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PaymentReminder {
    /// The id of an open or overdue invoice, e.g. `inv_2`.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: String,
    /// `friendly` (the default) or `firm`.
    pub tone: Option<Tone>,
}

/// The period a report covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// The last 24 hours.
    Day,
    /// The last 7 days.
    Week,
    /// The last 30 days.
    Month,
}

/// `billing.generate_report`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GenerateReport {
    /// The period to cover.
    pub period: Period,
    /// Only invoices in this currency.
    pub currency: Option<Currency>,
}

/// Totals of one currency in a report.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CurrencyTotals {
    /// ISO 4217 code.
    pub currency: String,
    /// Invoices counted.
    pub invoices: u64,
    /// Sum of all amounts, in cents.
    pub billed_cents: u64,
    /// Sum of paid amounts, in cents.
    pub paid_cents: u64,
    /// Sum of open and overdue amounts, in cents.
    pub outstanding_cents: u64,
}

/// The output of `billing.generate_report`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Report {
    /// The period covered (`day`, `week`, `month`).
    pub period: String,
    /// One entry per currency, sorted by code.
    pub totals: Vec<CurrencyTotals>,
}

/// The output of `billing_health`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Health {
    /// `ok` when the store answers.
    pub status: String,
    /// How many invoices it holds.
    pub invoices: i64,
}
