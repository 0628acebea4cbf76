//! A presenter end to end (wire contract §9.1): `list_invoices` returns
//! database rows holding an internal note and a card number; its presenter
//! lets only the declared fields out, redacts the card, cuts the list to 2
//! with a summary and adds a rule; narrowed to the one unpaid invoice, the
//! list also suggests the call that pays it (the items of a longer list
//! suggest nothing). Run it (`cargo run -p presenters-example`) to print
//! what the model reads and what the presenter kept, through
//! `mcp_fusion::testing::call`.

use std::sync::LazyLock;

use mcp_fusion::present::{Presenter, Suggestion};
use mcp_fusion::{Action, FusionServer, Group, ToolError};

/// A row of the store: more than the model may see.
#[derive(serde::Serialize)]
struct Row {
    id: String,
    status: String,
    amount_cents: u64,
    card_number: String,
    internal_note: String,
}

/// What the model sees of an invoice.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Invoice {
    id: String,
    status: String,
    amount_cents: u64,
    card_number: String,
}

static INVOICE: LazyLock<Presenter<Invoice>> = LazyLock::new(|| {
    Presenter::new("Invoice")
        .secret("card_number")
        .agent_limit(2)
        .rule_text("Amounts are in cents.")
        .suggest("billing.pay_invoice", |invoice: &Invoice| {
            (invoice.status == "unpaid")
                .then(|| Suggestion::new("The invoice is unpaid.").argument("id", &invoice.id))
        })
});

/// `list_invoices`' arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ListInvoices {
    /// Only invoices of this status.
    status: Option<String>,
}

async fn list_invoices(args: ListInvoices) -> Result<Vec<Row>, ToolError> {
    let rows = (1..=3).map(|n| Row {
        id: format!("inv_{n}"),
        status: String::from(if n == 2 { "unpaid" } else { "paid" }),
        amount_cents: 1200 * n,
        card_number: String::from("4111-0000-0000-1111"),
        internal_note: String::from("margin 12%"),
    });
    Ok(rows
        .filter(|row| args.status.as_ref().is_none_or(|s| *s == row.status))
        .collect())
}

/// `pay_invoice`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PayInvoice {
    /// The invoice to pay.
    id: String,
}

async fn pay_invoice(args: PayInvoice) -> Result<String, ToolError> {
    Ok(format!("{} is paid.", args.id))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let billing = Group::new("billing")
        .action(
            Action::new("list_invoices", list_invoices)
                .narrowed_by(["status"])
                .returns_many(&INVOICE),
        )
        .action(Action::new("pay_invoice", pay_invoice));
    let server = FusionServer::builder("presenters-example", "1.0.0")
        .group(billing)
        .build()?;
    for args in [
        serde_json::json!({"action": "list_invoices"}),
        serde_json::json!({"action": "list_invoices", "status": "unpaid"}),
    ] {
        let seen = mcp_fusion::testing::call(&server, "billing", args.clone()).await?;
        println!("What the model reads after {args}:");
        for text in seen.texts() {
            println!("{text}\n");
        }
        println!("What the presenter kept: {:?}\n", seen.guidance());
    }
    Ok(())
}
