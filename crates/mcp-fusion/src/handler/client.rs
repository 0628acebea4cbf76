//! What a handler may ask of the MCP client during a call: progress
//! notifications, log messages, sampling and elicitation (MCP
//! 2025-11-25, "Utilities" and "Client features"). The transport provides the
//! [`ClientChannel`]; a call made in-process has none, and every method says
//! so in its result.

// Sampling and logging are MCP 2025-11-25 features that SEP-2577 deprecates
// for 2026-07-28 (rmcp marks their types deprecated); 2025-11-25 clients use
// them.
#![allow(deprecated)]

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationSchema,
};
use serde_json::Value;

use super::CallContext;
use crate::error::{ErrorCode, ToolError};
use crate::validation::SchemaValidator;

/// The severity of a log message (MCP `LoggingLevel`, RFC 5424's levels),
/// lowest first: a client's `logging/setLevel` drops every message below
/// the level it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// General information.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The spec's name of the level (`debug` … `emergency`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a request to the client got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClientFailure {
    /// The client did not declare the capability at initialization.
    Unsupported,
    /// The request came over the stateless 2026-07-28 protocol, which has
    /// no server-to-client requests.
    NotInProtocol,
    /// The client, or the transport, failed the request (its text).
    Failed(String),
}

/// The connection a call arrived on, seen from the handler: implemented by
/// the server for each call, absent for in-process calls.
pub(crate) trait ClientChannel: Send + Sync + fmt::Debug {
    /// Sends `notifications/progress` when the request carried a progress
    /// token; whether it was sent.
    fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> BoxFuture<'_, bool>;
    /// Sends `notifications/message` unless the client's level is above
    /// `level`; whether it was sent.
    fn log(&self, level: LogLevel, logger: String, data: Value) -> BoxFuture<'_, bool>;
    /// `sampling/createMessage`.
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ClientFailure>>;
    /// `elicitation/create`.
    fn elicit(
        &self,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ClientFailure>>;
}

/// A shared channel, as the context holds it.
pub(crate) type SharedChannel = Arc<dyn ClientChannel>;

/// The `ToolError` of a request the client could not serve. `method` is the
/// MCP method (`sampling/createMessage`), `capability` the client capability
/// it needs (`sampling`).
fn client_error(failure: ClientFailure, method: &str, capability: &str) -> ToolError {
    match failure {
        ClientFailure::Unsupported => ToolError::new(
            ErrorCode::ClientCapabilityMissing,
            format!(
                "This tool needs to send the client {} {method} request, and the client did not declare the {capability} capability.",
                crate::text::article(method)
            ),
        )
        .suggest(format!(
            "Tell the user this tool needs an MCP client that supports {capability}; calling it again from this client fails the same way."
        ))
        .detail("capability", capability),
        ClientFailure::NotInProtocol => ToolError::new(
            ErrorCode::ClientCapabilityMissing,
            format!(
                "This tool needs to send the client {} {method} request, and the MCP 2026-07-28 protocol this call came over has no requests from server to client.",
                crate::text::article(method)
            ),
        )
        .suggest(format!(
            "Tell the user this tool needs a client connected with MCP 2025-11-25 (initialize handshake) that supports {capability}; calling it again over this protocol fails the same way."
        ))
        .detail("capability", capability),
        ClientFailure::Failed(reason) => ToolError::new(
            ErrorCode::ClientRequestFailed,
            format!("The {method} request this tool sent to the client failed: {reason}."),
        )
        .suggest("Tell the user what the client answered; call the tool again only if the user asks to.")
        .detail("method", method),
    }
}

impl CallContext {
    fn channel(&self) -> Option<&SharedChannel> {
        self.inner.client.as_ref()
    }

    /// Reports progress of this call (`notifications/progress`, MCP
    /// 2025-11-25 "Progress"): `progress` so far (it must grow from one
    /// notification to the next), out of `total` when known, with an optional
    /// human-readable `message`. Sent only when the request carried a
    /// `_meta.progressToken`; returns whether it was sent (`false` too when the
    /// connection is gone or the call was made in-process).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        match self.channel() {
            Some(channel) => {
                channel
                    .progress(progress, total, message.map(str::to_owned))
                    .await
            }
            None => false,
        }
    }

    /// Sends a log message to the client (`notifications/message`, MCP
    /// 2025-11-25 "Logging"), with this call's dotted name as `logger` and
    /// `data` as the message (a string, or any JSON value). Dropped when the
    /// client asked, with `logging/setLevel`, for a higher level; until it
    /// does, every level is sent. Returns whether it was sent.
    pub async fn log(&self, level: LogLevel, data: impl Into<Value>) -> bool {
        match self.channel() {
            Some(channel) => {
                channel
                    .log(level, self.name().to_owned(), data.into())
                    .await
            }
            None => false,
        }
    }

    /// Asks the client's model for a completion (`sampling/createMessage`,
    /// MCP 2025-11-25 "Sampling") and waits for it, at most 5 minutes.
    ///
    /// # Errors
    /// A [`ToolError`] ready to return from the handler: code
    /// `CLIENT_CAPABILITY_MISSING` when the client did not declare
    /// `sampling` (or the call was made in-process, or over the stateless
    /// 2026-07-28 protocol), `CLIENT_REQUEST_FAILED` when the client answered
    /// with an error, did not answer within 5 minutes, or the connection
    /// closed.
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        let Some(channel) = self.channel() else {
            return Err(client_error(
                ClientFailure::Unsupported,
                "sampling/createMessage",
                "sampling",
            ));
        };
        channel
            .create_message(params)
            .await
            .map_err(|failure| client_error(failure, "sampling/createMessage", "sampling"))
    }

    /// Asks the user, through the client, for the values `requested_schema`
    /// describes (`elicitation/create` in form mode, MCP 2025-11-25
    /// "Elicitation") and waits for the answer, at most 5 minutes. The
    /// user's `accept`, `decline` or `cancel` is the result's `action`, not an
    /// error; accepted content is checked against `requested_schema` (MCP:
    /// servers should validate it).
    ///
    /// # Errors
    /// A [`ToolError`] ready to return from the handler: code
    /// `CLIENT_CAPABILITY_MISSING` when the client did not declare
    /// `elicitation` (or the call was made in-process, or over the stateless
    /// 2026-07-28 protocol), `CLIENT_REQUEST_FAILED` when the client answered
    /// with an error, did not answer within 5 minutes, the connection closed,
    /// or the accepted content does not match `requested_schema`.
    pub async fn elicit(
        &self,
        message: impl Into<String>,
        requested_schema: ElicitationSchema,
    ) -> Result<ElicitResult, ToolError> {
        let Some(channel) = self.channel() else {
            return Err(client_error(
                ClientFailure::Unsupported,
                "elicitation/create",
                "elicitation",
            ));
        };
        let schema = serde_json::to_value(&requested_schema).map_err(ToolError::internal)?;
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.into(),
            requested_schema,
        };
        let result = channel
            .elicit(params)
            .await
            .map_err(|failure| client_error(failure, "elicitation/create", "elicitation"))?;
        if let Some(content) = &result.content {
            let validator = SchemaValidator::new(&schema).map_err(ToolError::internal)?;
            if let Err(fields) = validator.validate(&mut content.clone()) {
                let problems: Vec<String> = fields
                    .iter()
                    .map(|f| format!("{}: {}", f.path, f.message))
                    .collect();
                return Err(client_error(
                    ClientFailure::Failed(format!(
                        "its answer does not match the requested schema ({})",
                        problems.join(" ")
                    )),
                    "elicitation/create",
                    "elicitation",
                ));
            }
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered_as_rfc_5424() {
        assert!(LogLevel::Debug < LogLevel::Info);
        assert!(LogLevel::Warning < LogLevel::Error);
        assert!(LogLevel::Alert < LogLevel::Emergency);
        assert_eq!(LogLevel::Notice.to_string(), "notice");
    }

    #[tokio::test]
    async fn an_in_process_call_has_no_client() {
        let ctx = CallContext::detached("demo", None);
        assert!(!ctx.progress(1.0, Some(2.0), None).await);
        assert!(!ctx.log(LogLevel::Info, "hello").await);
        let err = ctx
            .create_message(CreateMessageRequestParams::new(Vec::new(), 10))
            .await
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::ClientCapabilityMissing);
        assert_eq!(err.code.to_string(), "CLIENT_CAPABILITY_MISSING");
        assert_eq!(
            err.message,
            "This tool needs to send the client a sampling/createMessage request, and the client did not declare the sampling capability."
        );
    }
}
