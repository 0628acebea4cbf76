//! What a request sent names and how its answer ends its span: shared by
//! [`super::sent`] and the requests sent outside it (`ping`).

/// An answer as its span's outcome sees it: a failed tool call or not.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(super) trait Answer {
    /// `Some(code)` for a failed tool call (`isError: true`), with its
    /// envelope's code; `None` otherwise.
    fn tool_error(&self) -> Option<Option<&str>> {
        None
    }
}

impl Answer for rmcp::model::CallToolResult {
    fn tool_error(&self) -> Option<Option<&str>> {
        (self.is_error == Some(true)).then(|| crate::envelope::code_in(self.meta.as_ref()))
    }
}

macro_rules! answers {
    ($($ty:ty),*) => {$(impl Answer for $ty {})*};
}

answers!(
    (),
    rmcp::model::ServerResult,
    rmcp::model::ListToolsResult,
    rmcp::model::ListResourcesResult,
    rmcp::model::ListResourceTemplatesResult,
    rmcp::model::ReadResourceResult,
    rmcp::model::ReadResourceResponse,
    rmcp::model::ListPromptsResult,
    rmcp::model::GetPromptResult,
    rmcp::model::CompleteResult,
    rmcp::model::ListSkillsResult,
    rmcp::model::GetSkillResult
);

/// How `result` ends its request's span.
#[cfg(feature = "otel")]
pub(super) fn outcome<T: Answer>(
    result: &Result<T, super::error::FusionClientError>,
) -> crate::telemetry::operation::Outcome<'_> {
    use crate::telemetry::operation::Outcome;
    match result {
        Ok(answer) => match answer.tool_error() {
            Some(code) => Outcome::ToolError(code),
            None => Outcome::Ok,
        },
        Err(super::error::FusionClientError::JsonRpc { code, .. }) => Outcome::JsonRpc(*code),
        Err(error) => Outcome::Other(error.kind()),
    }
}
