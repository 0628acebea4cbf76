//! The server `actionability/run.sh` measures: the billing example (its
//! `billing` group and `billing_health` tool, over the same SQLite file) plus
//! a `reminders` group whose one action, `reminders.schedule`, takes the
//! field kinds billing lacks: a `date-time`, a `uri`, an enum of channels and
//! a string with a minimum length. `fusion serve --example actionability`
//! serves it, with every billing flag.

#![warn(missing_docs)]

pub mod reminders;

use billing_example::{Db, Options};
use mcp_fusion::{BuildError, FusionServer, Group, ServerBuilder};

/// The server's definition over `db` with `options` (the billing group's
/// guards apply to `billing` only).
pub fn builder_with(db: &Db, options: &Options) -> ServerBuilder {
    billing_example::builder_with(db, options).group(
        Group::new("reminders")
            .description("Reminders sent to an invoice's customer.")
            .action(reminders::schedule::action()),
    )
}

/// The server over `db` with default [`Options`].
///
/// # Errors
/// [`BuildError`] only if the definition itself is wrong (never for this example).
pub fn server(db: &Db) -> Result<FusionServer, BuildError> {
    builder_with(db, &Options::default()).build()
}
