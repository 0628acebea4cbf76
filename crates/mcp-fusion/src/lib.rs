//! # mcp-fusion
//!
//! MCP servers whose failures are written for the language model that reads
//! them. A failed tool call becomes a structured `<tool_error>` envelope (code,
//! severity, message, recovery, available actions, details, retry-after) or a
//! per-field `<validation_error>`, as `spec/wire-contract.md` defines.

pub mod client;
pub mod envelope;
pub mod error;
pub mod validation;

pub use error::{
    ErrorCode, FieldError, IntoRetryAfter, Severity, ToolError, VALIDATION_RECOVERY,
    ValidationFailure,
};
