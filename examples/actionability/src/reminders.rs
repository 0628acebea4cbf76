//! `reminders.schedule`: a payment reminder for an unpaid invoice.

use billing_example::db::{self, Db, seq_of};
use billing_example::model::Status;
use mcp_fusion::{Json, State, ToolError, action};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a reminder reaches the customer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// An email to the invoice's customer address.
    Email,
    /// A text message (SMS) to the customer's phone.
    Sms,
}

/// The arguments of `reminders.schedule`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScheduleReminder {
    /// The unpaid invoice to remind the customer of (`inv_<n>`).
    #[schemars(regex(pattern = r"^inv_[0-9]+$"))]
    pub invoice_id: String,
    /// When to send it: an RFC 3339 date-time, e.g. 2026-12-24T09:00:00Z.
    #[schemars(extend("format" = "date-time"))]
    pub at: String,
    /// How to send it.
    pub channel: Channel,
    /// An https URL called when the reminder is sent.
    #[schemars(extend("format" = "uri"))]
    pub callback_url: Option<String>,
    /// A line added to the reminder (3 to 200 characters).
    #[schemars(length(min = 3, max = 200))]
    pub note: Option<String>,
}

/// A scheduled reminder.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Reminder {
    /// The reminded invoice.
    pub invoice_id: String,
    /// When it is sent (as given).
    pub at: String,
    /// How it is sent.
    pub channel: Channel,
    /// Always `scheduled`.
    pub status: String,
}

// `reminders.schedule`: NOT_FOUND (list invoices first) for an unknown
// invoice, CONFLICT for one that is paid or void (nothing is owed).
/// Schedule a payment reminder for an unpaid invoice.
#[action]
pub async fn schedule(
    State(db): State<Db>,
    args: ScheduleReminder,
) -> Result<Json<Reminder>, ToolError> {
    let not_found = || {
        ToolError::not_found("No invoice with that ID")
            .suggest("List invoices first, then retry with a real ID")
            .actions(["billing.list_invoices"])
            .detail("requestedId", args.invoice_id.as_str())
    };
    let seq = seq_of(&args.invoice_id).ok_or_else(not_found)?;
    let invoice = db
        .run(move |conn| db::find(conn, seq))
        .await
        .map_err(ToolError::internal)?
        .ok_or_else(not_found)?;
    if matches!(invoice.status, Status::Paid | Status::Void) {
        return Err(ToolError::conflict(format!(
            "Invoice {} is {}: nothing is owed, so there is nothing to remind.",
            invoice.id,
            invoice.status.as_str()
        ))
        .suggest("Do not schedule it again. Call billing.get_invoice to show the user its current state.")
        .actions(["billing.get_invoice"])
        .detail("currentStatus", invoice.status.as_str()));
    }
    Ok(Json(Reminder {
        invoice_id: invoice.id,
        at: args.at,
        channel: args.channel,
        status: String::from("scheduled"),
    }))
}
