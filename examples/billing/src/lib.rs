//! The billing example: invoices in a real SQLite file, served by mcp-fusion.
//! This is what `fusion serve` runs.
//!
//! One group, `billing`, with the actions `list_invoices`, `get_invoice`,
//! `create_invoice`, `pay_invoice`, `void_invoice`, `generate_report` and the
//! deprecated `get_invoice_legacy`; one plain tool, `billing_health`; the
//! prompt `payment_reminder` (completing its `id`); the resource
//! `billing://readme`; and the resource template `billing://invoices/{id}`
//! (completing its `id`).

#![warn(missing_docs)]

pub mod actions;
pub mod db;
pub mod model;
pub mod prompts;
pub mod resources;

use std::time::Duration;

use mcp_fusion::{Action, BuildError, FusionServer, Group, RateLimit, ServerBuilder};

pub use actions::ReportWork;
pub use db::{Db, DbError, default_db_path};

/// How the example is set up beyond its database.
#[derive(Debug, Clone)]
pub struct Options {
    /// How long `billing.generate_report` works (default 200 ms).
    pub report_work: Duration,
    /// Require scopes: `billing:read` for the reading actions, the prompt
    /// `payment_reminder` and the template `billing://invoices/{id}`,
    /// `billing:write` for the other actions (`billing_health` and
    /// `billing://readme` stay open). Needs a token verifier on the builder
    /// ([`ServerBuilder::auth`]).
    pub scopes: bool,
    /// Guard defaults for every action of the `billing` group.
    pub guards: GroupGuards,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            report_work: Duration::from_millis(200),
            scopes: false,
            guards: GroupGuards::default(),
        }
    }
}

/// Guard defaults for the `billing` group (each action gets its own guard).
#[derive(Debug, Clone, Default)]
pub struct GroupGuards {
    /// `(max_active, max_queue)`.
    pub concurrency: Option<(usize, usize)>,
    /// The rate limit.
    pub rate_limit: Option<RateLimit>,
    /// The time limit.
    pub timeout: Option<Duration>,
}

/// The billing server's definition over `db` with default [`Options`]; add
/// layers or tools to it before building.
pub fn builder(db: &Db) -> ServerBuilder {
    builder_with(db, &Options::default())
}

/// The billing server's definition over `db` with `options`.
pub fn builder_with(db: &Db, options: &Options) -> ServerBuilder {
    let read = |action: Action| {
        if options.scopes {
            action.requires_scopes(["billing:read"])
        } else {
            action
        }
    };
    let write = |action: Action| {
        if options.scopes {
            action.requires_scopes(["billing:write"])
        } else {
            action
        }
    };
    let mut billing = Group::new("billing")
        .description("Invoices: list, read, create, pay and void them.")
        .action(read(actions::list_invoices::action()))
        .action(read(actions::get_invoice::action()))
        .action(write(actions::create_invoice::action()))
        .action(write(actions::pay_invoice::action()))
        .action(write(actions::void_invoice::action()))
        // The same handler under its old name, with the builder.
        .action(read(
            Action::new("get_invoice_legacy", actions::get_invoice)
                .description("Read one invoice by id (old name).")
                .read_only()
                .deprecated("billing.get_invoice"),
        ))
        .action(read(actions::generate_report::action()));
    if let Some((max_active, max_queue)) = options.guards.concurrency {
        billing = billing.concurrency(max_active, max_queue);
    }
    if let Some(limit) = options.guards.rate_limit {
        billing = billing.rate_limit(limit);
    }
    if let Some(limit) = options.guards.timeout {
        billing = billing.timeout(limit);
    }
    let mut reminder =
        prompts::payment_reminder::prompt().complete("id", prompts::unpaid_invoice_ids);
    let mut invoice =
        resources::invoice::resource_template().complete("id", resources::invoice_ids);
    if options.scopes {
        reminder = reminder.requires_scopes(["billing:read"]);
        invoice = invoice.requires_scopes(["billing:read"]);
    }
    FusionServer::builder("mcp-fusion-billing", env!("CARGO_PKG_VERSION"))
        .state(db.clone())
        .state(ReportWork(options.report_work))
        .instructions("Billing tools. Failures come back as <tool_error> or <validation_error> envelopes: follow their recovery.")
        .group(billing)
        .tool(actions::health::action())
        .prompt(reminder)
        .resource(resources::readme::resource())
        .resource_template(invoice)
}

/// The billing server over `db`.
///
/// # Errors
/// [`BuildError`] only if the definition itself is wrong (never for this example).
pub fn server(db: &Db) -> Result<FusionServer, BuildError> {
    builder(db).build()
}
