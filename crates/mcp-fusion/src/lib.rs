//! # mcp-fusion
//!
//! MCP servers whose failures are written for the language model that reads
//! them. A failed tool call becomes a structured `<tool_error>` envelope (code,
//! severity, message, recovery, available actions, details, retry-after) or a
//! per-field `<validation_error>`, as `docs/wire-contract.md` defines.
//!
//! The path of a call: transport ([`server`]) → [`router`] → [`validation`] →
//! middleware ([`pipeline`]) → handler → [`envelope`]. [`contract`] holds the
//! contracts, lockfiles and diffs, and the self-healing deltas.

#![warn(missing_docs)]

pub mod client;
pub mod contract;
pub mod envelope;
pub mod error;
pub mod guard;
pub mod pipeline;
mod redis_connection;
pub mod router;
pub mod server;
mod suggest;
pub mod validation;

pub use client::{FusionClient, FusionClientError};
pub use contract::{Lockfile, ServerContract};
pub use error::{
    ChangeSeverity, ContractAwareness, ErrorCode, FieldError, IntoRetryAfter, Severity, ToolError,
    VALIDATION_RECOVERY, ValidationFailure,
};
pub use guard::{RateLimit, RedisStore};
/// `#[action]`: an `async fn` becomes an [`Action`], named after the function
/// and described by its doc comment; `name::action()` builds it. Its
/// arguments are the builder's settings (`read_only`, `timeout = "2s"`,
/// `requires_scopes("billing:read")`, …).
pub use mcp_fusion_macros::action;
pub use pipeline::{BoxError, Call, CallContext, Next, Principal, ToolOutput, from_fn};
pub use router::{Action, BuildError, Group, NoArgs};
pub use server::{FusionServer, ServerBuilder};
