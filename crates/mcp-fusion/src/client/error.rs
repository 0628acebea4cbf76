//! [`FusionClientError`]: every way a call made by the client can fail, and
//! [`ToolFailure`], a tool's own failure as the client read it (wire contract §8).

use std::fmt;
use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};

use super::cause::{
    ConnectCause, innermost_text, insufficient_scope_challenge, known_cause, refused_credentials,
};
use super::oauth::AuthorizationError;
use crate::error::{BoxError, ErrorCode, FieldError, Severity, seconds_text};

/// The code of a failure whose text holds no envelope (§8): a foreign server's
/// plain-text error, or an empty error result.
pub(crate) const UNKNOWN_CODE: &str = "UNKNOWN";

/// Marker rmcp puts in `ErrorData.data` when it fails a pending request because
/// the transport closed; such an error is a transport failure, not the server's.
const TRANSPORT_CLOSED_MARKER: &str = "io.modelcontextprotocol/transportClosed";

/// Where the client read a [`ToolFailure`] from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureSource {
    /// `_meta["mcp-fusion/error"]` (§1), read first.
    Meta,
    /// A `<tool_error>` or `<validation_error>` envelope in the text blocks.
    Envelope,
    /// Plain text with no envelope: code `UNKNOWN`, the whole text as message.
    Text,
    /// No text at all: code `UNKNOWN`; the message is the `structuredContent`
    /// as compact JSON when the server sent one, else `The server reported an
    /// error (isError: true) but sent no content to explain it.`
    Empty,
}

impl FailureSource {
    /// `meta`, `envelope`, `text` or `empty`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureSource::Meta => "meta",
            FailureSource::Envelope => "envelope",
            FailureSource::Text => "text",
            FailureSource::Empty => "empty",
        }
    }
}

/// A tool call that ran and failed (`isError: true`), as the client read it.
///
/// The fields mirror the `<tool_error>` envelope (§2) and its `_meta` twin (§1);
/// a `<validation_error>` (§4) gives code `VALIDATION_ERROR`, its `action` and
/// its `fields`. A failure from a server that writes no envelope has code
/// `UNKNOWN` and the whole text as `message` ([`FailureSource::Text`]). `raw`
/// keeps the result exactly as it arrived, so nothing the server said is lost.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolFailure {
    /// The failure code (§5): canonical, one mcp-fusion adds (§5.1), custom,
    /// or `UNKNOWN`.
    pub code: ErrorCode,
    /// `error` or `critical` (§3); `error` when the server did not say. A
    /// result with `isError: true` is a failure even if its envelope says
    /// `warning`; the severity is then kept as written.
    pub severity: Severity,
    /// What went wrong. Never empty.
    pub message: String,
    /// The next step the server wrote before its envelope (wire contract
    /// §2.1), when it wrote one: `Set "action" to "get_invoice", keep your
    /// other arguments, and call billing again.` A validation failure's is in
    /// [`recovery`](Self::recovery), with the rest of its instruction.
    pub next_step: Option<String>,
    /// What to do next, when the server said.
    pub recovery: Option<String>,
    /// Dotted action names to call instead, in the server's order (only the
    /// root envelope's list: an `<action>` nested elsewhere does not count).
    pub available_actions: Vec<String>,
    /// Ordered key → value details (`<details>` / `_meta` `details`); non-string
    /// `_meta` values are kept as their compact JSON.
    pub details: Vec<(String, String)>,
    /// Whole seconds to wait before calling again, from 1 to 86 400; `None`
    /// when the server gave no delay. A foreign value is read by the
    /// contract's one rule ([`retry_after_from_text`](crate::error::retry_after_from_text),
    /// [`retry_after_from_secs`](crate::error::retry_after_from_secs)): a
    /// fraction is rounded up, a larger value clamped, and zero or a value that
    /// is not a plain non-negative number (`-1`, `NaN`, `30abc`) dropped.
    pub retry_after: Option<u64>,
    /// For a validation failure, the dotted action whose arguments failed.
    pub action: Option<String>,
    /// For a validation failure, one entry per `<field>` (path, message).
    pub fields: Vec<FieldError>,
    /// Where the fields above were read from.
    pub source: FailureSource,
    /// The result as the server sent it.
    pub raw: CallToolResult,
}

impl ToolFailure {
    /// Whether this is a validation failure (code `VALIDATION_ERROR`).
    pub fn is_validation(&self) -> bool {
        self.code == ErrorCode::ValidationError
    }

    /// [`retry_after`](Self::retry_after) as a [`Duration`].
    pub fn retry_after_duration(&self) -> Option<Duration> {
        self.retry_after.map(Duration::from_secs)
    }

    /// [`retry_after`](Self::retry_after) in the envelope's words (§2):
    /// `1 second`, `30 seconds`; `None` when the failure has no delay.
    ///
    /// ```
    /// # use mcp_fusion::client::{check_result, FusionClientError};
    /// # use mcp_fusion::{ToolError, envelope};
    /// let err = ToolError::rate_limited("Slow down.").retry_after(30);
    /// let result = envelope::to_call_tool_result(&err);
    /// let Err(FusionClientError::Tool(failure)) = check_result(result) else { unreachable!() };
    /// assert_eq!(failure.retry_after_text().as_deref(), Some("30 seconds"));
    /// ```
    pub fn retry_after_text(&self) -> Option<String> {
        self.retry_after.map(seconds_text)
    }

    /// The failure as JSON, in the shape of `_meta["mcp-fusion/error"]` (§1):
    /// `{"code", "severity", "message", "next_step"?, "recovery"?, "available_actions"?,
    /// "details"? (object, in order), "retry_after_seconds"?, "action"?,
    /// "fields"? ([{"path", "message"}])}`. Empty members are omitted; `raw`
    /// is not included.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("code".into(), json!(self.code.as_str()));
        out.insert("severity".into(), json!(self.severity.as_str()));
        out.insert("message".into(), json!(self.message));
        if let Some(next_step) = &self.next_step {
            out.insert("next_step".into(), json!(next_step));
        }
        if let Some(recovery) = &self.recovery {
            out.insert("recovery".into(), json!(recovery));
        }
        if !self.available_actions.is_empty() {
            out.insert("available_actions".into(), json!(self.available_actions));
        }
        if !self.details.is_empty() {
            let details: Map<String, Value> = self
                .details
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect();
            out.insert("details".into(), Value::Object(details));
        }
        if let Some(secs) = self.retry_after {
            out.insert("retry_after_seconds".into(), json!(secs));
        }
        if let Some(action) = &self.action {
            out.insert("action".into(), json!(action));
        }
        if !self.fields.is_empty() {
            let fields: Vec<Value> = self
                .fields
                .iter()
                .map(|f| json!({"path": f.path, "message": f.message}))
                .collect();
            out.insert("fields".into(), Value::Array(fields));
        }
        Value::Object(out)
    }
}

impl fmt::Display for ToolFailure {
    /// `CODE: message`, e.g. `NOT_FOUND: No invoice with that ID`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// Why a call made through [`FusionClient`](super::FusionClient) did not succeed.
///
/// [`Tool`](Self::Tool) is the tool's own failure (a `CallToolResult` with
/// `isError: true`, §1); every other variant means the call never produced a
/// tool result. Building this error never panics, whatever the server sent.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FusionClientError {
    /// The tool ran and failed; the envelope as read (§8).
    #[error("{0}")]
    Tool(Box<ToolFailure>),
    /// The server answered with a JSON-RPC error object instead of a result,
    /// e.g. `-32602` for an unknown tool on many servers, `-32601` for an
    /// unknown method (§1: protocol errors stay JSON-RPC errors).
    #[error("JSON-RPC error {code}: {message}")]
    JsonRpc {
        /// The JSON-RPC error code.
        code: i32,
        /// The server's message, verbatim.
        message: String,
        /// The error's `data` member, if any.
        data: Option<Value>,
    },
    /// The connection could not be set up: the URL is unreachable, the command
    /// could not be started, or the MCP handshake failed.
    #[error("could not connect to {target}: {reason}")]
    Connect {
        /// The target as given (URL or command line).
        target: String,
        /// What went wrong, in words that name the cause (e.g. `connection
        /// refused: nothing is listening on 127.0.0.1:1 (is the server
        /// running?)`).
        reason: String,
        /// The cause, for programs (e.g. to print the right hint).
        cause: ConnectCause,
        /// The last lines the server process wrote on stderr, when captured
        /// ([`ServerStderr::Capture`](super::ServerStderr::Capture)).
        server_stderr: Option<String>,
    },
    /// The server asked for authorization (HTTP 401, or 403 with
    /// `error="insufficient_scope"`) and the client, with
    /// [`ClientOptions::oauth`](super::ClientOptions::oauth), could not obtain
    /// a token it accepts: `source` says at which stage (MCP "Authorization";
    /// RFC 9728, RFC 8414, OAuth 2.1 §4). Never holds a token.
    #[error("could not authorize with {target}: {source}")]
    Authorization {
        /// The server's URL (its password masked).
        target: String,
        /// What failed.
        #[source]
        source: AuthorizationError,
    },
    /// The connection broke while the call was in flight, or a message could
    /// not be sent.
    #[error("transport error: {message}")]
    Transport {
        /// What went wrong, in words that name the cause (e.g. `the server
        /// no longer knows this session (HTTP 404), even after a new session
        /// was started`).
        message: String,
        /// The error it comes from, when there is one: for a failure rmcp
        /// reported, its `rmcp::ServiceError` (whose own `source()` leads
        /// down to the HTTP client's or the operating system's error).
        #[source]
        source: Option<BoxError>,
    },
    /// The server's answer was not a valid answer to the request (an
    /// unexpected response type, too many input rounds).
    #[error("protocol error: {message}")]
    Protocol {
        /// What was wrong with the answer.
        message: String,
        /// The error it comes from, when there is one: for a failure rmcp
        /// reported, its `rmcp::ServiceError`.
        #[source]
        source: Option<BoxError>,
    },
    /// No answer within the call's time limit; the request was cancelled.
    #[error("no answer within {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The arguments given to the client are not a JSON object (or `null`).
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
}

impl FusionClientError {
    /// A [`Transport`](Self::Transport) failure said in `message`, caused by
    /// `source` when there is one.
    pub(crate) fn transport(message: impl Into<String>, source: Option<BoxError>) -> Self {
        FusionClientError::Transport {
            message: message.into(),
            source,
        }
    }

    /// The tool failure, if this is one.
    pub fn as_tool(&self) -> Option<&ToolFailure> {
        match self {
            FusionClientError::Tool(failure) => Some(failure),
            _ => None,
        }
    }

    /// The failure code for a tool failure; `None` for the other variants.
    pub fn code(&self) -> Option<&ErrorCode> {
        self.as_tool().map(|failure| &failure.code)
    }

    /// Whether the server refused the client's credentials, or the client
    /// could not obtain any it accepts: a [`Connect`](Self::Connect) with
    /// [`ConnectCause::Unauthorized`], an [`Authorization`](Self::Authorization)
    /// failure, or a [`Transport`](Self::Transport) failure caused by an
    /// HTTP 401 or 403 (RFC 6750 §3.1). Calling again with the same
    /// credentials gets the same answer.
    pub fn is_unauthorized(&self) -> bool {
        match self {
            FusionClientError::Connect { cause, .. } => *cause == ConnectCause::Unauthorized,
            FusionClientError::Authorization { .. } => true,
            FusionClientError::Transport {
                source: Some(source),
                ..
            } => refused_credentials(source.as_ref()),
            _ => false,
        }
    }

    /// For a [`Transport`](Self::Transport) failure (a request after the
    /// handshake) caused by a `403` with `error="insufficient_scope"` (RFC 6750
    /// §3.1; the token sent as it is, e.g.
    /// [`ClientOptions::bearer`](super::ClientOptions::bearer)): the scopes
    /// its challenge names (`scope`, split on whitespace; empty when it names
    /// none). `None` for any other failure.
    pub fn insufficient_scope(&self) -> Option<Vec<String>> {
        let FusionClientError::Transport {
            source: Some(source),
            ..
        } = self
        else {
            return None;
        };
        let challenge = insufficient_scope_challenge(source.as_ref())?;
        // Only `scope` is read; the base resolves a relative
        // `resource_metadata`, which is not.
        let base = url::Url::parse("http://localhost/").ok()?;
        Some(super::oauth::scopes::challenged(&challenge, &base))
    }

    /// A short name of the variant: `tool`, `jsonrpc`, `connect`,
    /// `authorization`, `transport`, `protocol`, `timeout` or
    /// `invalid_arguments`.
    pub fn kind(&self) -> &'static str {
        match self {
            FusionClientError::Tool(_) => "tool",
            FusionClientError::JsonRpc { .. } => "jsonrpc",
            FusionClientError::Connect { .. } => "connect",
            FusionClientError::Authorization { .. } => "authorization",
            FusionClientError::Transport { .. } => "transport",
            FusionClientError::Protocol { .. } => "protocol",
            FusionClientError::Timeout(_) => "timeout",
            FusionClientError::InvalidArguments(_) => "invalid_arguments",
        }
    }

    /// The error as one JSON object with a `kind` member: for a tool failure,
    /// [`ToolFailure::to_json`] plus `"kind": "tool"`; for a JSON-RPC error
    /// `{"kind": "jsonrpc", "code": N, "message", "data"?}`; otherwise
    /// `{"kind", "message"}` (plus `target`, `cause` ([`ConnectCause::as_str`])
    /// and `server_stderr`? for `connect`; plus `target` for
    /// `authorization`, whose `message` is the failure without the target).
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("kind".into(), json!(self.kind()));
        match self {
            FusionClientError::Tool(failure) => {
                if let Value::Object(fields) = failure.to_json() {
                    out.extend(fields);
                }
            }
            FusionClientError::JsonRpc {
                code,
                message,
                data,
            } => {
                out.insert("code".into(), json!(code));
                out.insert("message".into(), json!(message));
                if let Some(data) = data {
                    out.insert("data".into(), data.clone());
                }
            }
            FusionClientError::Connect {
                target,
                reason,
                cause,
                server_stderr,
            } => {
                out.insert("target".into(), json!(target));
                out.insert("message".into(), json!(reason));
                out.insert("cause".into(), json!(cause.as_str()));
                if let Some(stderr) = server_stderr {
                    out.insert("server_stderr".into(), json!(stderr));
                }
            }
            FusionClientError::Authorization { target, source } => {
                out.insert("target".into(), json!(target));
                out.insert("message".into(), json!(source.to_string()));
            }
            other => {
                out.insert("message".into(), json!(other.to_string()));
            }
        }
        Value::Object(out)
    }
}

impl From<ToolFailure> for FusionClientError {
    fn from(failure: ToolFailure) -> Self {
        FusionClientError::Tool(Box::new(failure))
    }
}

impl From<ServiceError> for FusionClientError {
    /// Maps rmcp's request error: a JSON-RPC error object becomes
    /// [`JsonRpc`](Self::JsonRpc) (unless rmcp made it up because the transport
    /// closed), a time-out [`Timeout`](Self::Timeout), send and close failures
    /// [`Transport`](Self::Transport), the rest [`Protocol`](Self::Protocol).
    fn from(err: ServiceError) -> Self {
        match err {
            ServiceError::McpError(data) => {
                let closed = data
                    .data
                    .as_ref()
                    .and_then(|d| d.get(TRANSPORT_CLOSED_MARKER))
                    .is_some();
                if closed {
                    let message = format!("connection closed: {}", data.message);
                    FusionClientError::transport(
                        message,
                        Some(Box::new(ServiceError::McpError(data))),
                    )
                } else {
                    FusionClientError::JsonRpc {
                        code: data.code.0,
                        message: data.message.into_owned(),
                        data: data.data,
                    }
                }
            }
            ServiceError::Timeout { timeout } => FusionClientError::Timeout(timeout),
            // The transport's own error, in words, without rmcp's type names.
            ServiceError::TransportSend(sent) => {
                let error = sent.error.as_ref();
                let message = known_cause(error, None, false)
                    .map_or_else(|| innermost_text(error), |(_, text)| text);
                FusionClientError::transport(
                    message,
                    Some(Box::new(ServiceError::TransportSend(sent))),
                )
            }
            err @ (ServiceError::TransportClosed | ServiceError::Cancelled { .. }) => {
                FusionClientError::transport(err.to_string(), Some(Box::new(err)))
            }
            other => FusionClientError::Protocol {
                message: other.to_string(),
                source: Some(Box::new(other)),
            },
        }
    }
}
