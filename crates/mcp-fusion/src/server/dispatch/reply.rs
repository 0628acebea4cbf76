//! [`Reply`]: what dispatch answers a `tools/call` with, before it is
//! written for a transport.

use rmcp::model::CallToolResult;

use crate::envelope::{
    to_call_tool_result, validation_result, written_result, written_validation_result,
};
use crate::error::{ToolError, ValidationFailure};

/// What dispatch answers a `tools/call` with: a result already made (a
/// success), or a failure whose envelope the transport's adapter writes in
/// the form its transport wants ([`into_result`](Self::into_result) or
/// [`into_written_result`](Self::into_written_result)).
#[derive(Debug)]
pub(crate) enum Reply {
    /// A success, with its warnings.
    Result(CallToolResult),
    /// A `<tool_error>`.
    Error(ToolError),
    /// A `<validation_error>`.
    Invalid(ValidationFailure),
}

impl Reply {
    /// The result as MCP values ([`to_call_tool_result`],
    /// [`validation_result`]).
    pub(crate) fn into_result(self) -> CallToolResult {
        match self {
            Reply::Result(result) => result,
            Reply::Error(err) => to_call_tool_result(&err),
            Reply::Invalid(failure) => validation_result(&failure),
        }
    }

    /// The result for a transport that writes envelope results as text
    /// ([`WritesEnvelopes`](crate::envelope::WritesEnvelopes)): made with
    /// [`written_result`] and [`written_validation_result`].
    pub(crate) fn into_written_result(self) -> CallToolResult {
        match self {
            Reply::Result(result) => result,
            Reply::Error(err) => written_result(&err),
            Reply::Invalid(failure) => written_validation_result(&failure),
        }
    }
}
