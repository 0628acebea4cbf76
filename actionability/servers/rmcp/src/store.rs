//! The invoices, in memory (twelve seeded ones, fresh for every process, as
//! the twins keep them), and what the tools do with them. Nothing here knows
//! how a failure is worded: each server turns a [`Failure`] into its own
//! answer (`plain.rs`: the twins' plain text; `fused.rs`: mcp-fusion's
//! envelopes).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use chrono::{NaiveDate, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{Value, json};

use crate::args::{Action, BillingArgs, Currency, LineItem, ReminderAction, ReminderArgs, Status};
use crate::limits::Limits;

/// Why a call failed: the same cases the twins throw an `Error` for.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// `action` needs `fields`, which the call did not send.
    Missing {
        /// The action called.
        action: Action,
        /// The fields it needs and lacks, in order.
        fields: Vec<&'static str>,
    },
    /// No invoice has this id.
    NotFound(String),
    /// `pay_invoice` of a paid invoice.
    AlreadyPaid(String),
    /// `pay_invoice` of a void invoice.
    PayVoid(String),
    /// `void_invoice` of a paid invoice.
    VoidPaid(String),
    /// A reminder for an invoice that is paid or void.
    NothingOwed(String, Status),
    /// A `cursor` this server did not give out.
    InvalidCursor(String),
    /// `--rate-limit`: too many billing calls in the window; the oldest
    /// leaves it after the duration.
    RateLimited(Duration),
    /// `--max-active`: that many billing calls run already.
    Busy,
    /// `--timeout-ms`: the call ran past its limit and was stopped.
    TimedOut,
}

/// An invoice, as the tools show it.
#[derive(Debug, Clone, Serialize)]
pub struct Invoice {
    id: String,
    customer_email: String,
    amount_cents: u64,
    currency: Currency,
    status: Status,
    items: Vec<LineItem>,
    due_date: Option<NaiveDate>,
    created_at: String,
    /// Kept with a voided invoice, never shown (as the twins do).
    #[serde(skip)]
    void_reason: Option<String>,
}

/// The twelve invoices every process starts with (the twins' seed).
const SEED: [(&str, u64, Currency, Status); 12] = [
    ("ada@example.com", 120_000, Currency::Eur, Status::Paid),
    ("grace@example.com", 45_050, Currency::Usd, Status::Open),
    ("linus@example.com", 9_900, Currency::Usd, Status::Draft),
    (
        "margaret@example.com",
        310_000,
        Currency::Gbp,
        Status::Overdue,
    ),
    ("alan@example.com", 2_500, Currency::Eur, Status::Void),
    ("barbara@example.com", 78_000, Currency::Usd, Status::Open),
    ("edsger@example.com", 15_000, Currency::Eur, Status::Paid),
    ("donald@example.com", 64_000, Currency::Usd, Status::Open),
    ("frances@example.com", 5_000, Currency::Gbp, Status::Draft),
    ("ken@example.com", 99_999, Currency::Usd, Status::Overdue),
    ("radia@example.com", 18_250, Currency::Eur, Status::Open),
    ("tim@example.com", 30_000, Currency::Usd, Status::Paid),
];

/// When the seeded invoices were created: one fixed time, as in the other
/// stacks, so that the text a model reads differs between stacks only in
/// what each stack says.
const SEEDED_AT: &str = "2026-11-02T09:00:00Z";

/// Now, in UTC, to the second (`2026-01-02T03:04:05Z`).
fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The number of an `inv_<n>` id (0 for anything else).
fn seq_of(id: &str) -> u64 {
    id.strip_prefix("inv_")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// `value` as JSON (the types here always serialize).
fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The server's state: the invoices, the guards of `billing` and how long a
/// report takes.
#[derive(Debug)]
pub struct App {
    invoices: Mutex<Vec<Invoice>>,
    limits: Limits,
    report: Duration,
}

impl App {
    /// The seeded store, with `limits` on billing calls and reports taking
    /// `report`.
    pub fn new(limits: Limits, report: Duration) -> Self {
        let invoices = SEED
            .iter()
            .enumerate()
            .map(|(i, &(email, amount, currency, status))| Invoice {
                id: format!("inv_{}", i + 1),
                customer_email: email.to_owned(),
                amount_cents: amount,
                currency,
                status,
                items: vec![LineItem {
                    description: "Consulting".to_owned(),
                    quantity: 1,
                    unit_price_cents: amount,
                }],
                due_date: None,
                created_at: SEEDED_AT.to_owned(),
                void_reason: None,
            })
            .collect();
        App {
            invoices: Mutex::new(invoices),
            limits,
            report,
        }
    }

    /// Runs `f` on the invoices (a panic elsewhere does not lock them for good).
    fn with<T>(&self, f: impl FnOnce(&mut Vec<Invoice>) -> T) -> T {
        let mut invoices = self
            .invoices
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut invoices)
    }

    /// How many invoices there are.
    pub fn count(&self) -> usize {
        self.with(|invoices| invoices.len())
    }

    /// A `billing` call whose arguments passed their checks: the fields its
    /// action needs, then the action under the guards (`--rate-limit`,
    /// `--max-active`, `--timeout-ms`), as the twins order them.
    pub async fn billing(&self, args: &BillingArgs) -> Result<Value, Failure> {
        let missing = args.missing();
        if !missing.is_empty() {
            return Err(Failure::Missing {
                action: args.action,
                fields: missing,
            });
        }
        self.limits.run(self.run(args)).await
    }

    /// One billing action; its required fields are there.
    async fn run(&self, args: &BillingArgs) -> Result<Value, Failure> {
        let id = args.id.as_deref().unwrap_or_default();
        match args.action {
            Action::ListInvoices => self.list(args),
            Action::GetInvoice | Action::GetInvoiceLegacy => self.get(id).map(|i| to_json(&i)),
            Action::CreateInvoice => Ok(to_json(&self.create(args))),
            Action::PayInvoice => self.pay(id).map(|i| to_json(&i)),
            Action::VoidInvoice => self.void(id, args.reason.clone()).map(|i| to_json(&i)),
            Action::GenerateReport => Ok(self.report(args).await),
        }
    }

    /// `list_invoices`: a page, oldest first, of one status if given.
    fn list(&self, args: &BillingArgs) -> Result<Value, Failure> {
        let after = match &args.cursor {
            None => 0,
            Some(cursor) => cursor
                .strip_prefix("after_")
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| Failure::InvalidCursor(cursor.clone()))?,
        };
        let limit = args.limit.unwrap_or(20) as usize;
        let matching: Vec<Invoice> = self.with(|invoices| {
            invoices
                .iter()
                .filter(|i| seq_of(&i.id) > after && args.status.is_none_or(|s| i.status == s))
                .cloned()
                .collect()
        });
        let page = &matching[..limit.min(matching.len())];
        let mut result = json!({ "invoices": page });
        if matching.len() > limit
            && let Some(last) = page.last()
        {
            result["next_cursor"] = json!(format!("after_{}", seq_of(&last.id)));
        }
        Ok(result)
    }

    /// The invoice `id`.
    pub fn get(&self, id: &str) -> Result<Invoice, Failure> {
        self.with(|invoices| invoices.iter().find(|i| i.id == id).cloned())
            .ok_or_else(|| Failure::NotFound(id.to_owned()))
    }

    /// `create_invoice`: a new open invoice (its fields are there).
    fn create(&self, args: &BillingArgs) -> Invoice {
        self.with(|invoices| {
            let invoice = Invoice {
                id: format!("inv_{}", invoices.len() + 1),
                customer_email: args.customer_email.clone().unwrap_or_default(),
                amount_cents: args.amount_cents.unwrap_or_default(),
                currency: args.currency.unwrap_or(Currency::Usd),
                status: Status::Open,
                items: args.items.clone().unwrap_or_default(),
                due_date: args.due_date,
                created_at: now(),
                void_reason: None,
            };
            invoices.push(invoice.clone());
            invoice
        })
    }

    /// `pay_invoice`: refused for a paid or void invoice.
    fn pay(&self, id: &str) -> Result<Invoice, Failure> {
        self.with(|invoices| {
            let Some(invoice) = invoices.iter_mut().find(|i| i.id == id) else {
                return Err(Failure::NotFound(id.to_owned()));
            };
            match invoice.status {
                Status::Paid => Err(Failure::AlreadyPaid(id.to_owned())),
                Status::Void => Err(Failure::PayVoid(id.to_owned())),
                _ => {
                    invoice.status = Status::Paid;
                    Ok(invoice.clone())
                }
            }
        })
    }

    /// `void_invoice`: refused for a paid invoice; a void one stays as it is.
    fn void(&self, id: &str, reason: Option<String>) -> Result<Invoice, Failure> {
        self.with(|invoices| {
            let Some(invoice) = invoices.iter_mut().find(|i| i.id == id) else {
                return Err(Failure::NotFound(id.to_owned()));
            };
            match invoice.status {
                Status::Paid => Err(Failure::VoidPaid(id.to_owned())),
                Status::Void => Ok(invoice.clone()),
                _ => {
                    invoice.status = Status::Void;
                    invoice.void_reason = reason;
                    Ok(invoice.clone())
                }
            }
        })
    }

    /// `generate_report`: totals per currency, after `--report-ms` (the
    /// stand-in for a slow report).
    async fn report(&self, args: &BillingArgs) -> Value {
        // Keyed by the code, so that the report lists EUR, GBP, USD.
        let mut totals: BTreeMap<&str, [u64; 4]> = BTreeMap::new();
        self.with(|invoices| {
            for i in invoices
                .iter()
                .filter(|i| args.currency.is_none_or(|c| i.currency == c))
            {
                let [count, billed, paid, outstanding] =
                    totals.entry(i.currency.as_str()).or_default();
                *count += 1;
                *billed += i.amount_cents;
                match i.status {
                    Status::Paid => *paid += i.amount_cents,
                    Status::Open | Status::Overdue => *outstanding += i.amount_cents,
                    Status::Draft | Status::Void => {}
                }
            }
        });
        tokio::time::sleep(self.report).await;
        let totals: Vec<Value> = totals
            .into_iter()
            .map(|(currency, [invoices, billed, paid, outstanding])| {
                json!({
                    "currency": currency,
                    "invoices": invoices,
                    "billed_cents": billed,
                    "paid_cents": paid,
                    "outstanding_cents": outstanding,
                })
            })
            .collect();
        json!({ "period": args.period, "totals": totals })
    }

    /// `reminders` `schedule`: refused for an invoice that is paid or void.
    pub fn remind(&self, args: &ReminderArgs) -> Result<Value, Failure> {
        let ReminderAction::Schedule = args.action;
        let invoice = self.get(&args.invoice_id)?;
        if matches!(invoice.status, Status::Paid | Status::Void) {
            return Err(Failure::NothingOwed(invoice.id, invoice.status));
        }
        Ok(json!({
            "invoice_id": invoice.id,
            "at": args.at.to_rfc3339_opts(SecondsFormat::AutoSi, true),
            "channel": args.channel,
            "status": "scheduled",
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seeded store, reports at once, no guards.
    fn app() -> App {
        App::new(Limits::default(), Duration::ZERO)
    }

    /// `billing` arguments from JSON.
    fn args(value: Value) -> BillingArgs {
        serde_json::from_value(value).unwrap()
    }

    #[tokio::test]
    async fn an_action_needs_its_fields() {
        let failure = app()
            .billing(&args(
                json!({"action": "create_invoice", "amount_cents": 5}),
            ))
            .await;
        assert_eq!(
            failure,
            Err(Failure::Missing {
                action: Action::CreateInvoice,
                fields: vec!["customer_email", "currency", "items"],
            })
        );
    }

    #[tokio::test]
    async fn paying_and_voiding_follow_the_status() {
        let app = app();
        let call = |action: &str, id: &str| args(json!({"action": action, "id": id}));
        let pay = app.billing(&call("pay_invoice", "inv_2")).await.unwrap();
        assert_eq!(pay["status"], "paid");
        for (action, id, failure) in [
            ("pay_invoice", "inv_2", Failure::AlreadyPaid("inv_2".into())),
            ("pay_invoice", "inv_5", Failure::PayVoid("inv_5".into())),
            ("void_invoice", "inv_1", Failure::VoidPaid("inv_1".into())),
            ("get_invoice", "inv_99", Failure::NotFound("inv_99".into())),
        ] {
            assert_eq!(
                app.billing(&call(action, id)).await,
                Err(failure),
                "{action} {id}"
            );
        }
        let void = app.billing(&call("void_invoice", "inv_3")).await.unwrap();
        assert_eq!(void["status"], "void");
        assert!(void.get("void_reason").is_none());
    }

    #[tokio::test]
    async fn pages_follow_the_cursor() {
        let app = app();
        let first = app
            .billing(&args(
                json!({"action": "list_invoices", "status": "open", "limit": 2}),
            ))
            .await
            .unwrap();
        let ids = |page: &Value| {
            page["invoices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["id"].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&first), [json!("inv_2"), json!("inv_6")]);
        assert_eq!(first["next_cursor"], "after_6");
        let next = json!({"action": "list_invoices", "status": "open", "cursor": "after_6"});
        let last = app.billing(&args(next)).await.unwrap();
        assert_eq!(ids(&last), [json!("inv_8"), json!("inv_11")]);
        assert!(last.get("next_cursor").is_none());
        let bad = json!({"action": "list_invoices", "cursor": "page2"});
        assert_eq!(
            app.billing(&args(bad)).await,
            Err(Failure::InvalidCursor("page2".into()))
        );
    }

    #[tokio::test]
    async fn a_report_lists_the_currencies_by_code() {
        let report = app()
            .billing(&args(
                json!({"action": "generate_report", "period": "week"}),
            ))
            .await
            .unwrap();
        let codes: Vec<&Value> = report["totals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| &t["currency"])
            .collect();
        assert_eq!(codes, [&json!("EUR"), &json!("GBP"), &json!("USD")]);
        assert_eq!(report["totals"][0]["paid_cents"], 135_000);
        assert_eq!(report["period"], "week");
    }

    #[test]
    fn a_reminder_needs_something_owed() {
        let reminder = |id: &str| -> ReminderArgs {
            serde_json::from_value(json!({
                "action": "schedule", "invoice_id": id, "at": "2026-12-24T09:00:00Z", "channel": "sms"
            }))
            .unwrap()
        };
        let app = app();
        let scheduled = app.remind(&reminder("inv_2")).unwrap();
        assert_eq!(scheduled["at"], "2026-12-24T09:00:00Z");
        assert_eq!(scheduled["channel"], "sms");
        assert_eq!(
            app.remind(&reminder("inv_7")),
            Err(Failure::NothingOwed("inv_7".into(), Status::Paid))
        );
    }
}
