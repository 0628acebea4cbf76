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
mod json;
pub mod pipeline;
mod redis_connection;
pub mod router;
pub mod server;
mod suggest;
mod text;
mod tool_meta;
pub mod validation;

pub use client::{FusionClient, FusionClientError};
pub use contract::{Lockfile, ServerContract};
pub use error::{
    ChangeSeverity, ContractAwareness, ErrorCode, FieldError, IntoRetryAfter, Severity, ToolError,
    VALIDATION_RECOVERY, ValidationFailure,
};
pub use guard::{RateLimit, RedisStore};
pub use pipeline::{BoxError, Call, CallContext, Next, Principal, ToolOutput, from_fn};
pub use router::{Action, BuildError, Group, NoArgs};
pub use server::{FusionServer, ServerBuilder};
