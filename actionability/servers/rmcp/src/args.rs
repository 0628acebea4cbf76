//! The tools' arguments, written as an rmcp user writes them: serde
//! `Deserialize` for what a call may send, schemars `JsonSchema` for the
//! `inputSchema` that `#[tool]` lists, doc comments as the fields'
//! descriptions (the twins' words, `actionability/servers/ts/server.mjs`).
//!
//! Both servers of this crate take these very types: the plain one wrapped
//! in rmcp's `Parameters<T>` (serde checks the types, enums, required fields
//! and unknown keys; the bounds, patterns and formats the schema lists are
//! checked by hand, in `checks.rs`), the other in mcp-fusion's
//! `router_contract::Parameters<T>` (the listed schema is checked, every keyword).
//!
//! The enums carry no doc comment on their values, so that schemars lists a
//! plain `enum` of strings, as zod and pydantic do; a type's one-line doc
//! comment is its description in the schema's `$defs` (rmcp lists them),
//! so it says no more than the twins' field descriptions.

use chrono::{DateTime, FixedOffset, NaiveDate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The description of the `billing` tool (the twins' text).
pub const BILLING_DESCRIPTION: &str = r#"Invoices: list, read, create, pay and void them.

Set "action" to one of:
- list_invoices: List invoices, oldest first, optionally of one status; pages with `cursor`.
- get_invoice: Read one invoice by id. (requires id)
- create_invoice: Create an open invoice. (requires customer_email, amount_cents, currency, items)
- pay_invoice: Mark an invoice paid. (requires id)
- void_invoice: Void (cancel) an invoice that is not paid. (requires id)
- get_invoice_legacy: DEPRECATED, use get_invoice. Read one invoice by id (old name). (requires id)
- generate_report: Totals per currency: billed, paid and outstanding. Takes a while. (requires period)"#;

/// The description of the `reminders` tool (the twins' text).
pub const REMINDERS_DESCRIPTION: &str = r#"Reminders sent to an invoice's customer.

Set "action" to one of:
- schedule: Schedule a payment reminder for an unpaid invoice."#;

/// The description of the `billing_health` tool (the twins' text).
pub const HEALTH_DESCRIPTION: &str = "Check that the invoice store answers.";

/// What a `billing` call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    ListInvoices,
    GetInvoice,
    CreateInvoice,
    PayInvoice,
    VoidInvoice,
    GetInvoiceLegacy,
    GenerateReport,
}

impl Action {
    /// The wire name, e.g. `list_invoices`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::ListInvoices => "list_invoices",
            Action::GetInvoice => "get_invoice",
            Action::CreateInvoice => "create_invoice",
            Action::PayInvoice => "pay_invoice",
            Action::VoidInvoice => "void_invoice",
            Action::GetInvoiceLegacy => "get_invoice_legacy",
            Action::GenerateReport => "generate_report",
        }
    }
}

/// The state of an invoice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Draft,
    Open,
    Paid,
    Void,
    Overdue,
}

impl Status {
    /// The wire name, e.g. `paid`.
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

/// A currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Currency {
    Usd,
    Eur,
    Gbp,
}

impl Currency {
    /// The ISO 4217 code, e.g. `EUR`.
    pub fn as_str(self) -> &'static str {
        match self {
            Currency::Usd => "USD",
            Currency::Eur => "EUR",
            Currency::Gbp => "GBP",
        }
    }
}

/// The period a report covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    Day,
    Week,
    Month,
}

/// One line of an invoice.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineItem {
    /// What was sold.
    #[schemars(length(min = 1, max = 200))]
    pub description: String,
    /// How many units.
    #[schemars(range(min = 1, max = 10_000))]
    pub quantity: u32,
    /// The price of one unit, in cents.
    #[schemars(range(max = 100_000_000_000u64))]
    pub unit_price_cents: u64,
}

/// The arguments of `billing`: the action, and the fields of every action,
/// each optional (the tool checks the ones its action needs). Unknown keys
/// are refused (`deny_unknown_fields`), as the twins refuse them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BillingArgs {
    /// The action to run: one of list_invoices, get_invoice, create_invoice, pay_invoice, void_invoice, get_invoice_legacy, generate_report.
    pub action: Action,
    /// Only invoices in this state. Used by: list_invoices.
    pub status: Option<Status>,
    /// How many to return, 1 to 100 (default 20). Used by: list_invoices.
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// `next_cursor` from the previous page. Used by: list_invoices.
    pub cursor: Option<String>,
    /// The invoice id, e.g. `inv_2`. Used by: get_invoice, pay_invoice, void_invoice, get_invoice_legacy.
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub id: Option<String>,
    /// Who pays. Used by: create_invoice.
    #[schemars(email)]
    pub customer_email: Option<String>,
    /// The total, in cents (1 to 100 000 000 000). Used by: create_invoice.
    #[schemars(range(min = 1, max = 100_000_000_000u64))]
    pub amount_cents: Option<u64>,
    /// The currency. Only invoices in this currency. Used by: create_invoice, generate_report.
    pub currency: Option<Currency>,
    /// At least one line. Used by: create_invoice.
    #[schemars(length(min = 1, max = 100))]
    pub items: Option<Vec<LineItem>>,
    /// When payment is due (`YYYY-MM-DD`). Used by: create_invoice.
    pub due_date: Option<NaiveDate>,
    /// Why it is voided (kept with the invoice). Used by: void_invoice.
    #[schemars(length(max = 500))]
    pub reason: Option<String>,
    /// The period to cover. Used by: generate_report.
    pub period: Option<Period>,
}

impl BillingArgs {
    /// The fields `action` needs that the call did not send, in the order
    /// the twins name them.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        let mut need = |absent: bool, name: &'static str| {
            if absent {
                missing.push(name);
            }
        };
        match self.action {
            Action::ListInvoices => {}
            Action::GetInvoice
            | Action::PayInvoice
            | Action::VoidInvoice
            | Action::GetInvoiceLegacy => need(self.id.is_none(), "id"),
            Action::CreateInvoice => {
                need(self.customer_email.is_none(), "customer_email");
                need(self.amount_cents.is_none(), "amount_cents");
                need(self.currency.is_none(), "currency");
                need(self.items.is_none(), "items");
            }
            Action::GenerateReport => need(self.period.is_none(), "period"),
        }
        missing
    }
}

/// What a `reminders` call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReminderAction {
    Schedule,
}

/// How a reminder is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    Email,
    Sms,
}

/// The arguments of `reminders`. Unknown keys are refused.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReminderArgs {
    /// The action to run: schedule.
    pub action: ReminderAction,
    /// The unpaid invoice to remind the customer of (`inv_<n>`).
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub invoice_id: String,
    /// When to send it: an ISO 8601 date-time, e.g. 2026-12-24T09:00:00Z.
    pub at: DateTime<FixedOffset>,
    /// How to send it.
    pub channel: Channel,
    /// An https URL called when the reminder is sent.
    #[schemars(url)]
    pub callback_url: Option<String>,
    /// A line added to the reminder (3 to 200 characters).
    #[schemars(length(min = 3, max = 200))]
    pub note: Option<String>,
}
