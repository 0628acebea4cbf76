//! Every request a [`FusionClient`] sends goes through [`FusionClient::sent`]:
//! within [`ClientOptions::call_timeout`](super::ClientOptions::call_timeout)
//! and, with the `otel` feature, in its CLIENT span, whose context goes out
//! in the request's `params._meta` (MCP SEP-414; [`crate::telemetry`]).

use std::future::Future;

use rmcp::model::RequestParamsMeta;

use super::error::FusionClientError;
use super::fusion_client::FusionClient;

/// What a request names besides its method, for its span.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(super) enum Named<'a> {
    /// Nothing (a list, `ping`, `logging/setLevel`, …).
    Nothing,
    /// A tool.
    Tool(&'a str),
    /// A prompt.
    Prompt(&'a str),
    /// A resource's URI.
    Resource(&'a str),
}

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
        (self.is_error == Some(true)).then(|| {
            self.meta
                .as_ref()
                .and_then(|meta| meta.get(crate::envelope::META_KEY))
                .and_then(|envelope| envelope.get("code"))
                .and_then(|code| code.as_str())
        })
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
    rmcp::model::ListPromptsResult,
    rmcp::model::GetPromptResult,
    rmcp::model::CompleteResult
);

impl FusionClient {
    /// Sends `params` as a `method` request naming what `named` reads of
    /// them, with `send`,
    /// within the call time limit (see [`limited`](Self::limited)); with
    /// the `otel` feature, in its CLIENT span, `params._meta` carrying the
    /// span's context.
    ///
    /// # Errors
    ///
    /// As [`limited`](Self::limited).
    pub(super) async fn sent<P, T, F, Fut>(
        &self,
        method: &'static str,
        named: fn(&P) -> Named<'_>,
        #[allow(unused_mut)] mut params: P,
        send: F,
    ) -> Result<T, FusionClientError>
    where
        P: RequestParamsMeta,
        F: FnOnce(P) -> Fut,
        Fut: Future<Output = Result<T, rmcp::ServiceError>>,
        T: Answer,
    {
        #[cfg(feature = "otel")]
        {
            use opentelemetry::context::FutureExt as _;
            let operation = self.telemetry.start(method, named(&params).into());
            crate::telemetry::client::carry(&operation, params.meta_mut());
            let request = send(params).with_context(operation.context().clone());
            let result = self.limited(request).await;
            operation.end(outcome(&result));
            result
        }
        #[cfg(not(feature = "otel"))]
        {
            let _ = (method, named);
            self.limited(send(params)).await
        }
    }
}

#[cfg(feature = "otel")]
impl<'a> From<Named<'a>> for crate::telemetry::operation::Named<'a> {
    fn from(named: Named<'a>) -> Self {
        use crate::telemetry::operation::Named as Span;
        match named {
            Named::Nothing => Span::Nothing,
            Named::Tool(tool) => Span::Tool(tool),
            Named::Prompt(prompt) => Span::Prompt(prompt),
            Named::Resource(uri) => Span::Resource(uri),
        }
    }
}

/// How `result` ends its request's span.
#[cfg(feature = "otel")]
pub(super) fn outcome<T: Answer>(
    result: &Result<T, FusionClientError>,
) -> crate::telemetry::operation::Outcome<'_> {
    use crate::telemetry::operation::Outcome;
    match result {
        Ok(answer) => match answer.tool_error() {
            Some(code) => Outcome::ToolError(code),
            None => Outcome::Ok,
        },
        Err(FusionClientError::JsonRpc { code, .. }) => Outcome::JsonRpc(*code),
        Err(error) => Outcome::Other(error.kind()),
    }
}
