//! What a handler may ask of the MCP client during a call: progress
//! notifications, log messages, sampling, elicitation and roots (MCP
//! 2025-11-25 and 2026-07-28, "Utilities" and "Client features"). The
//! transport provides the [`ClientChannel`]; a call made in-process has
//! none, and every method says so in its result.

// Sampling and logging are MCP 2025-11-25 features that SEP-2577 deprecates
// for 2026-07-28 (rmcp marks their types deprecated); 2025-11-25 clients use
// them.
#![allow(deprecated)]

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationSchema, ListRootsResult,
};
use serde_json::Value;

use super::CallContext;
use super::rounds::InputRounds;
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
    /// The client did not declare the capability (at initialization on
    /// 2025-11-25, in the request's `_meta` clientCapabilities on 2026-07-28).
    Unsupported,
    /// The request came over the stateless 2026-07-28 protocol through a
    /// method that cannot return an input-required result
    /// (`completion/complete`): no way to ask the client.
    NotInProtocol,
    /// The client, or the transport, failed the request (its text).
    Failed(String),
}

/// The connection a call arrived on, seen from the handler: implemented by
/// the server for each call, absent for in-process calls.
///
/// `key` names a request to the client among the call's input requests on
/// 2026-07-28 (`None`: the next `input-<n>`); 2025-11-25 ignores it.
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
        key: Option<String>,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ClientFailure>>;
    /// `elicitation/create`, form or URL mode.
    fn elicit(
        &self,
        key: Option<String>,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, ClientFailure>>;
    /// `roots/list`.
    fn list_roots(
        &self,
        key: Option<String>,
    ) -> BoxFuture<'_, Result<ListRootsResult, ClientFailure>>;
    /// The capabilities the client declared: at initialization on
    /// 2025-11-25, in the request's `_meta` on 2026-07-28.
    fn client_capabilities(&self) -> Option<ClientCapabilities>;
    /// The input rounds of a 2026-07-28 `tools/call`, `prompts/get` or
    /// `resources/read`; `None` otherwise.
    fn rounds(&self) -> Option<&Arc<InputRounds>>;
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
                "This tool needs to send the client {} {method} request, and MCP 2026-07-28 lets a server ask the client only while answering tools/call, prompts/get or resources/read.",
                crate::text::article(method)
            ),
        )
        .suggest(format!(
            "Tell the user this needs a client connected with MCP 2025-11-25 (initialize handshake) that supports {capability}; calling it again over this protocol fails the same way."
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

/// A request to the client named by a key of the handler's choosing
/// ([`CallContext::ask`]): on MCP 2026-07-28 the key of its entry in the
/// input-required result's `inputRequests` and in the retry's
/// `inputResponses`; on 2025-11-25 the key is not sent.
///
/// # Asking the client, on both protocol revisions
///
/// [`CallContext::elicit`], [`elicit_url`](CallContext::elicit_url),
/// [`create_message`](CallContext::create_message) and
/// [`roots`](CallContext::roots) ask
/// the client the same way for the handler whatever the connection speaks:
///
/// - **MCP 2025-11-25**: a request from server to client on the call's
///   connection, awaited (at most 5 minutes).
/// - **MCP 2026-07-28** (`tools/call`, `prompts/get`, `resources/read`;
///   "Multi Round-Trip Requests", SEP-2322): the call is answered with an
///   input-required result (`resultType: "input_required"`) whose
///   `inputRequests` hold the request, and a `requestState` signed by the
///   server; the client retries the same request with the answers in
///   `inputResponses` and the state echoed, and **the handler runs again
///   from the start**, this time getting the answer where it asked. Each
///   request has a key: the one given with [`CallContext::ask`], else
///   `input-<n>` for the n-th request of the run, so a handler must ask in
///   the same order on every run. Requests made together
///   (`futures::join!`) go out in one round; a request made after an answer
///   is a new round; the answers of earlier rounds travel in the signed
///   `requestState`. **Everything the handler does before its last request
///   is done again on every round**: do side effects (writes, payments) after
///   the last answer, or make them idempotent. Each round passes the guards
///   again (a rate limit counts each). A retry without an answer the
///   handler needs is answered with a new input-required result asking for
///   it; an answer that is not the requested result (a number where an
///   `ElicitResult` belongs) is a JSON-RPC `-32602` error.
///
/// On either revision a request needs the capability the client declared
/// (`elicitation` — with `url` for URL mode —, `sampling`, `roots`), else
/// the handler gets `CLIENT_CAPABILITY_MISSING`; it is never sent.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    ctx: &'a CallContext,
    key: &'a str,
}

impl Ask<'_> {
    /// [`CallContext::elicit`] under this key.
    ///
    /// # Errors
    /// As [`CallContext::elicit`].
    pub async fn elicit(
        self,
        message: impl Into<String>,
        requested_schema: ElicitationSchema,
    ) -> Result<ElicitResult, ToolError> {
        self.ctx
            .elicit_keyed(Some(self.key), message.into(), requested_schema)
            .await
    }

    /// [`CallContext::elicit_url`] under this key.
    ///
    /// # Errors
    /// As [`CallContext::elicit_url`].
    pub async fn elicit_url(
        self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<ElicitResult, ToolError> {
        self.ctx
            .elicit_url_keyed(Some(self.key), message.into(), url.into())
            .await
    }

    /// [`CallContext::create_message`] under this key.
    ///
    /// # Errors
    /// As [`CallContext::create_message`].
    pub async fn create_message(
        self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        self.ctx.create_message_keyed(Some(self.key), params).await
    }

    /// [`CallContext::roots`] under this key.
    ///
    /// # Errors
    /// As [`CallContext::roots`].
    pub async fn roots(self) -> Result<ListRootsResult, ToolError> {
        self.ctx.roots_keyed(Some(self.key)).await
    }
}

const SAMPLING: &str = "sampling/createMessage";
const ELICITATION: &str = "elicitation/create";
const ROOTS: &str = "roots/list";

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

    /// The capabilities the client declared: at initialization (2025-11-25)
    /// or in this request's `_meta`
    /// `io.modelcontextprotocol/clientCapabilities` (2026-07-28); `None`
    /// in-process. A handler that can do with one of several kinds of input
    /// reads it to ask only for what the client supports.
    pub fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.channel()?.client_capabilities()
    }

    /// Names the next request to the client `key` (see [`Ask`]): on MCP
    /// 2026-07-28 its key in `inputRequests` and `inputResponses` instead of
    /// `input-<n>`. Keys must be unique within a call; a key asked twice gets
    /// the same answer.
    pub fn ask<'a>(&'a self, key: &'a str) -> Ask<'a> {
        Ask { ctx: self, key }
    }

    /// Asks the client's model for a completion (`sampling/createMessage`,
    /// MCP 2025-11-25 "Sampling"; an input request on 2026-07-28, see
    /// [`Ask`]).
    ///
    /// # Errors
    /// A [`ToolError`] ready to return from the handler: code
    /// `CLIENT_CAPABILITY_MISSING` when the client did not declare
    /// `sampling` (or the call was made in-process, or is a 2026-07-28
    /// `completion/complete`), `CLIENT_REQUEST_FAILED` when the client
    /// answered with an error, did not answer within 5 minutes, or the
    /// connection closed.
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        self.create_message_keyed(None, params).await
    }

    async fn create_message_keyed(
        &self,
        key: Option<&str>,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        let Some(channel) = self.channel() else {
            return Err(client_error(
                ClientFailure::Unsupported,
                SAMPLING,
                "sampling",
            ));
        };
        channel
            .create_message(key.map(str::to_owned), params)
            .await
            .map_err(|failure| client_error(failure, SAMPLING, "sampling"))
    }

    /// The client's roots (`roots/list`, MCP 2025-11-25 "Roots": the
    /// directories or files it lets the server work in; an input request on
    /// 2026-07-28, see [`Ask`]).
    ///
    /// # Errors
    /// A [`ToolError`] ready to return from the handler: code
    /// `CLIENT_CAPABILITY_MISSING` when the client did not declare `roots`
    /// (or the call was made in-process, or is a 2026-07-28
    /// `completion/complete`), `CLIENT_REQUEST_FAILED` when the client
    /// answered with an error, did not answer within 5 minutes, or the
    /// connection closed.
    pub async fn roots(&self) -> Result<ListRootsResult, ToolError> {
        self.roots_keyed(None).await
    }

    async fn roots_keyed(&self, key: Option<&str>) -> Result<ListRootsResult, ToolError> {
        let Some(channel) = self.channel() else {
            return Err(client_error(ClientFailure::Unsupported, ROOTS, "roots"));
        };
        channel
            .list_roots(key.map(str::to_owned))
            .await
            .map_err(|failure| client_error(failure, ROOTS, "roots"))
    }

    /// Asks the user, through the client, for the values `requested_schema`
    /// describes (`elicitation/create` in form mode, MCP 2025-11-25
    /// "Elicitation"; an input request on 2026-07-28, see
    /// [`Ask`]). The
    /// user's `accept`, `decline` or `cancel` is the result's `action`, not an
    /// error; accepted content is checked against `requested_schema` (MCP:
    /// servers should validate it).
    ///
    /// # Errors
    /// A [`ToolError`] ready to return from the handler: code
    /// `CLIENT_CAPABILITY_MISSING` when the client did not declare
    /// `elicitation` (or the call was made in-process, or is a 2026-07-28
    /// `completion/complete`), `CLIENT_REQUEST_FAILED` when the client
    /// answered with an error, did not answer within 5 minutes, the
    /// connection closed, or the accepted content does not match
    /// `requested_schema`.
    pub async fn elicit(
        &self,
        message: impl Into<String>,
        requested_schema: ElicitationSchema,
    ) -> Result<ElicitResult, ToolError> {
        self.elicit_keyed(None, message.into(), requested_schema)
            .await
    }

    async fn elicit_keyed(
        &self,
        key: Option<&str>,
        message: String,
        requested_schema: ElicitationSchema,
    ) -> Result<ElicitResult, ToolError> {
        let Some(channel) = self.channel() else {
            return Err(client_error(
                ClientFailure::Unsupported,
                ELICITATION,
                "elicitation",
            ));
        };
        let schema = serde_json::to_value(&requested_schema).map_err(ToolError::internal)?;
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema,
        };
        let result = channel
            .elicit(key.map(str::to_owned), params)
            .await
            .map_err(|failure| client_error(failure, ELICITATION, "elicitation"))?;
        // An `accept` carries the content (MCP "Elicitation": "content …
        // only present when action is accept"); one without it is checked as
        // an empty object, so that the schema's required fields are missed.
        let content = match (&result.content, &result.action) {
            (Some(content), _) => Some(content.clone()),
            (None, rmcp::model::ElicitationAction::Accept) => {
                Some(Value::Object(serde_json::Map::new()))
            }
            (None, _) => None,
        };
        if let Some(mut content) = content {
            let validator = SchemaValidator::new(&schema).map_err(ToolError::internal)?;
            if let Err(fields) = validator.validate(&mut content) {
                let problems: Vec<String> = fields
                    .iter()
                    .map(|f| format!("{}: {}", f.path, f.message))
                    .collect();
                return Err(client_error(
                    ClientFailure::Failed(format!(
                        "its answer does not match the requested schema ({})",
                        problems.join(" ")
                    )),
                    ELICITATION,
                    "elicitation",
                ));
            }
        }
        Ok(result)
    }

    /// Sends the user, through the client, to `url` (`elicitation/create`
    /// in URL mode, MCP 2025-11-25 "Elicitation", URL mode: for what must
    /// not pass through the client, such as credentials or a payment) and
    /// waits for the user's `accept`, `decline` or `cancel`; an input request
    /// on 2026-07-28 (see
    /// [`Ask`]). The
    /// request's `elicitationId` is a new UUID. `accept` means the user
    /// agreed to open the URL, not that what happens there is done.
    ///
    /// # Errors
    /// A [`ToolError`] ready to return from the handler: code
    /// `CLIENT_CAPABILITY_MISSING` when the client did not declare
    /// `elicitation.url` (or the call was made in-process, or is a 2026-07-28
    /// `completion/complete`), `CLIENT_REQUEST_FAILED` when the client
    /// answered with an error, did not answer within 5 minutes, or the
    /// connection closed.
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<ElicitResult, ToolError> {
        self.elicit_url_keyed(None, message.into(), url.into())
            .await
    }

    async fn elicit_url_keyed(
        &self,
        key: Option<&str>,
        message: String,
        url: String,
    ) -> Result<ElicitResult, ToolError> {
        const URL_MODE: &str = "elicitation (url mode)";
        let Some(channel) = self.channel() else {
            return Err(client_error(
                ClientFailure::Unsupported,
                ELICITATION,
                URL_MODE,
            ));
        };
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message,
            url,
            elicitation_id: uuid::Uuid::new_v4().to_string(),
        };
        channel
            .elicit(key.map(str::to_owned), params)
            .await
            .map_err(|failure| client_error(failure, ELICITATION, URL_MODE))
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
