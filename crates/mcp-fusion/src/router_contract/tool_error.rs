//! [`ToolError`] as the error of an rmcp `#[tool]` function (wire contract
//! §1, §3).

use rmcp::ErrorData;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::CallToolResponse;

use crate::envelope::to_call_tool_result;
use crate::error::ToolError;

/// `ToolError` answers as [`to_call_tool_result`] builds it: one text block
/// with the `<tool_error>` envelope, `isError` by severity (§3),
/// `_meta["mcp-fusion/error"]`, no `structuredContent` (§1). So a `#[tool]`
/// function may return `Result<T, ToolError>`: rmcp answers `Err(e)` with
/// this result and sets `isError` true, whatever the severity (a warning
/// rides on a success: return a `CallToolResult` with
/// [`attach_warning`](crate::envelope::attach_warning)).
///
/// An `INTERNAL_ERROR` made by [`ToolError::internal`] is answered with the
/// code's default message; its source goes to the log (`tracing`, level
/// error), never to the model (§6).
impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        if let Some(source) = &self.internal {
            tracing::error!(error = %source, "tool call failed with an internal error");
        }
        Ok(to_call_tool_result(&self).into())
    }
}
