//! Contract governance (`docs/contracts.md`): what each action of a server
//! promises its callers, stored in a lockfile, compared field by field, and
//! told to the model when a call fails validation (wire contract §4.1).
//!
//! - [`ServerContract`] / [`ToolContract`] / [`ActionContract`]: name,
//!   description, full input and output schemas, annotations, deprecation,
//!   required scopes and guard settings of every action, from a built
//!   server ([`ServerContract::of_server`]) or from any server's
//!   `tools/list` ([`ServerContract::from_tools`]); SHA-256 digests of their
//!   canonical JSON per action, per tool and for the server
//!   ([`ActionContract::digest`], [`ToolContract::digest`],
//!   [`ServerContract::digest`]).
//! - [`Lockfile`]: `fusion.lock`, versioned, stable bytes, the full
//!   contracts.
//! - [`diff`]: the [`Delta`]s between two contracts, each with a
//!   [`ChangeSeverity`](crate::error::ChangeSeverity).
//! - [`SelfHealing`]: the deltas since a lockfile, ready to be attached to
//!   validation failures as `<contract_awareness>`.

mod action;
mod canonical;
mod delta;
mod diff;
mod error;
mod lockfile;
mod presenter_diff;
mod schema_diff;
mod schema_rules;
mod schema_summary;
mod self_healing;
mod server;
mod state_gate_diff;
mod tool;

pub use action::ActionContract;
pub use delta::{ContractDiff, Delta};
pub use diff::diff;
pub use error::ContractError;
pub use lockfile::{DEFAULT_LOCKFILE, LOCKFILE_VERSION, Lockfile, LockfileError, ServerInfo};
pub use self_healing::{DEFAULT_MAX_DELTAS, SelfHealing, SelfHealingOptions};
pub use server::ServerContract;
pub use tool::ToolContract;
