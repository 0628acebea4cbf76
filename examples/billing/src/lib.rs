//! The billing example: invoices in a real SQLite file, served by mcp-fusion.
//! This is what `fusion serve` runs.
//!
//! One group, `billing`, with the actions `list_invoices`, `get_invoice`,
//! `create_invoice`, `pay_invoice`, `void_invoice` and the deprecated
//! `get_invoice_legacy`; and one plain tool, `billing_health`.

pub mod actions;
pub mod db;
pub mod model;

use mcp_fusion::router::Handler;
use mcp_fusion::{Action, BuildError, CallContext, FusionServer, Group, ServerBuilder};
use serde::de::DeserializeOwned;

pub use db::{Db, DbError, default_db_path};

/// Binds a handler that takes the database to it.
fn with_db<Args, F, Fut, Out>(db: &Db, f: F) -> impl Handler<Args>
where
    Args: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    F: Fn(Db, CallContext, Args) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Out, actions::BillingError>> + Send + 'static,
    Out: mcp_fusion::pipeline::IntoToolOutput,
{
    let db = db.clone();
    move |ctx: CallContext, args: Args| f(db.clone(), ctx, args)
}

/// The billing server's definition over `db`; add layers or tools to it
/// before building.
pub fn builder(db: &Db) -> ServerBuilder {
    let billing = Group::new("billing")
        .description("Invoices: list, read, create, pay and void them.")
        .action(
            Action::new("list_invoices", with_db(db, actions::list_invoices))
                .description("List invoices, oldest first, optionally of one status; pages with `cursor`.")
                .read_only()
                .idempotent(),
        )
        .action(
            Action::new("get_invoice", with_db(db, actions::get_invoice))
                .description("Read one invoice by id.")
                .read_only()
                .idempotent()
                .output::<model::Invoice>(),
        )
        .action(
            Action::new("create_invoice", with_db(db, actions::create_invoice))
                .description("Create an open invoice."),
        )
        .action(
            Action::new("pay_invoice", with_db(db, actions::pay_invoice))
                .description("Mark an invoice paid."),
        )
        .action(
            Action::new("void_invoice", with_db(db, actions::void_invoice))
                .description("Void (cancel) an invoice that is not paid.")
                .destructive(),
        )
        .action(
            Action::new("get_invoice_legacy", with_db(db, actions::get_invoice))
                .description("Read one invoice by id (old name).")
                .read_only()
                .deprecated("billing.get_invoice"),
        );
    FusionServer::builder("mcp-fusion-billing", env!("CARGO_PKG_VERSION"))
        .instructions("Billing tools. Failures come back as <tool_error> or <validation_error> envelopes: follow their recovery.")
        .group(billing)
        .tool(
            Action::new("billing_health", with_db(db, actions::health))
                .description("Check that the invoice store answers.")
                .read_only(),
        )
}

/// The billing server over `db`.
///
/// # Errors
/// [`BuildError`] only if the definition itself is wrong (never for this example).
pub fn server(db: &Db) -> Result<FusionServer, BuildError> {
    builder(db).build()
}
