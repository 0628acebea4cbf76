//! [`ErrorCode`]: the closed-then-open set of error codes (wire contract §5).

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The code of a tool failure, written as the `code` attribute of `<tool_error>`.
///
/// The set is closed-then-open (wire contract §5): the 17 canonical codes of the
/// seed ([`ErrorCode::CANONICAL`]) and the codes mcp-fusion itself emits beyond
/// them ([`ErrorCode::LIBRARY`], wire contract §5.1) are variants, and any other
/// string is allowed as [`ErrorCode::Custom`]. [`ErrorCode::as_str`] and
/// [`FromStr`] round-trip, and a string equal to a variant's name parses as
/// that variant, so `"NOT_FOUND".parse::<ErrorCode>()` is always
/// [`ErrorCode::NotFound`] and `"UNKNOWN_TOOL"` always [`ErrorCode::UnknownTool`].
///
/// New variants may be added in a minor release (the library may come to emit
/// a new code); a `match` needs a `_` arm.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// Router: a grouped tool was called without its discriminator (`action`) field,
    /// or with a discriminator that is not a string.
    MissingDiscriminator,
    /// Router: the discriminator names no action of the tool.
    UnknownAction,
    /// Validator: the arguments do not match the action's JSON Schema (§4).
    ValidationError,
    /// The [`ToolError::required`](crate::ToolError::required) helper: a field the
    /// handler needs is missing.
    MissingRequiredField,
    /// An unmarked failure: an error that is not a `ToolError`, or a panic (§6).
    InternalError,
    /// Rate limiter; carries `retry_after` in seconds.
    RateLimited,
    /// Auth: credentials present but invalid or expired.
    Unauthorized,
    /// Auth: valid credentials without the needed permission.
    Forbidden,
    /// Handler: the thing asked for does not exist.
    NotFound,
    /// Handler: the request conflicts with the current state.
    Conflict,
    /// Pipeline: the action's time limit passed and the handler was cancelled.
    Timeout,
    /// Concurrency guard load shedding: slots and queue are full.
    ServerBusy,
    /// A deprecated action or parameter was used (severity `warning`).
    Deprecated,
    /// Auth: no credentials where they are needed.
    AuthRequired,
    /// Gateway: the upstream server of a mounted namespace cannot be reached.
    HandoffUpstreamUnavailable,
    /// Gateway: the tool's namespace is not mounted or belongs to another upstream.
    HandoffNamespaceMismatch,
    /// Gateway: the upstream connection is being (re)established; carries `retry_after`.
    HandoffConnecting,
    /// Server: the client cancelled the call (`notifications/cancelled`, MCP
    /// 2025-11-25 "Cancellation") before it finished; the handler's future is
    /// dropped. Wire text `CANCELLED`. rmcp sends no answer to a cancelled
    /// request (MCP: the receiver should not respond), so the model rarely
    /// reads it; metrics and logs count it. Not in the seed (§5.1).
    Cancelled,
    /// Server, with
    /// [`ServerBuilder::unknown_tool_as_result`](crate::ServerBuilder::unknown_tool_as_result):
    /// the call names no tool; the message names the closest tool when one is
    /// near, `available_actions` lists every tool. Wire text `UNKNOWN_TOOL`. Without that
    /// setting an unknown tool is JSON-RPC error -32602 (§1). Not in the seed
    /// (§5.1).
    UnknownTool,
    /// Handler context ([`CallContext::create_message`](crate::CallContext::create_message),
    /// [`CallContext::elicit`](crate::CallContext::elicit)): the tool needs to
    /// send the client a request (sampling, elicitation) and the client did
    /// not declare the capability, or the call came over the 2026-07-28
    /// protocol, which has no server-to-client requests; the `capability`
    /// detail names it. Wire text `CLIENT_CAPABILITY_MISSING`. Not in the
    /// seed (§5.1).
    ClientCapabilityMissing,
    /// Handler context ([`CallContext::create_message`](crate::CallContext::create_message),
    /// [`CallContext::elicit`](crate::CallContext::elicit)): the client, or
    /// the connection to it, failed the request the tool sent; the `method`
    /// detail names it. Wire text `CLIENT_REQUEST_FAILED`. Not in the seed
    /// (§5.1).
    ClientRequestFailed,
    /// Any other code, kept verbatim (it is attribute-escaped on the wire).
    Custom(String),
}

impl ErrorCode {
    /// The 17 canonical codes, in the order the seed lists them.
    pub const CANONICAL: [ErrorCode; 17] = [
        ErrorCode::MissingDiscriminator,
        ErrorCode::UnknownAction,
        ErrorCode::ValidationError,
        ErrorCode::MissingRequiredField,
        ErrorCode::InternalError,
        ErrorCode::RateLimited,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::Timeout,
        ErrorCode::ServerBusy,
        ErrorCode::Deprecated,
        ErrorCode::AuthRequired,
        ErrorCode::HandoffUpstreamUnavailable,
        ErrorCode::HandoffNamespaceMismatch,
        ErrorCode::HandoffConnecting,
    ];

    /// The codes mcp-fusion itself emits beyond the seed's 17 (wire contract
    /// §5.1), in the order that section lists them.
    pub const LIBRARY: [ErrorCode; 4] = [
        ErrorCode::Cancelled,
        ErrorCode::UnknownTool,
        ErrorCode::ClientCapabilityMissing,
        ErrorCode::ClientRequestFailed,
    ];

    /// The code as written on the wire, e.g. `"NOT_FOUND"`; a custom code verbatim.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::Custom(code) => code,
            named => named.static_str().unwrap_or_default(),
        }
    }

    /// A variant's text, which lives as long as the program (metric labels
    /// take it without copying); `None` for a custom code.
    pub(crate) fn static_str(&self) -> Option<&'static str> {
        Some(match self {
            ErrorCode::MissingDiscriminator => "MISSING_DISCRIMINATOR",
            ErrorCode::UnknownAction => "UNKNOWN_ACTION",
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::MissingRequiredField => "MISSING_REQUIRED_FIELD",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::ServerBusy => "SERVER_BUSY",
            ErrorCode::Deprecated => "DEPRECATED",
            ErrorCode::AuthRequired => "AUTH_REQUIRED",
            ErrorCode::HandoffUpstreamUnavailable => "HANDOFF_UPSTREAM_UNAVAILABLE",
            ErrorCode::HandoffNamespaceMismatch => "HANDOFF_NAMESPACE_MISMATCH",
            ErrorCode::HandoffConnecting => "HANDOFF_CONNECTING",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::UnknownTool => "UNKNOWN_TOOL",
            ErrorCode::ClientCapabilityMissing => "CLIENT_CAPABILITY_MISSING",
            ErrorCode::ClientRequestFailed => "CLIENT_REQUEST_FAILED",
            ErrorCode::Custom(_) => return None,
        })
    }

    /// Whether this is one of the seed's 17 canonical codes
    /// ([`ErrorCode::CANONICAL`], wire contract §5).
    pub fn is_canonical(&self) -> bool {
        ErrorCode::CANONICAL.contains(self)
    }

    /// Whether this is one of the codes mcp-fusion emits beyond the seed's
    /// ([`ErrorCode::LIBRARY`], wire contract §5.1).
    pub fn is_library(&self) -> bool {
        ErrorCode::LIBRARY.contains(self)
    }

    /// The sentence used as `<message>` when a failure is built with an empty or
    /// whitespace-only message (wire contract §2: `<message>` is never empty).
    pub fn default_message(&self) -> &'static str {
        match self {
            ErrorCode::MissingDiscriminator => "The action field is missing.",
            ErrorCode::UnknownAction => "The requested action does not exist.",
            ErrorCode::ValidationError => "The arguments are not valid for this action.",
            ErrorCode::MissingRequiredField => "A required field is missing.",
            ErrorCode::InternalError => "The tool failed with an internal error.",
            ErrorCode::RateLimited => "Too many calls: the rate limit was reached.",
            ErrorCode::Unauthorized => "The credentials are invalid or expired.",
            ErrorCode::Forbidden => "The credentials do not allow this action.",
            ErrorCode::NotFound => "The requested item was not found.",
            ErrorCode::Conflict => "The request conflicts with the current state.",
            ErrorCode::Timeout => "The action took too long and was cancelled.",
            ErrorCode::ServerBusy => "The server is at capacity.",
            ErrorCode::Deprecated => "This action or parameter is deprecated.",
            ErrorCode::AuthRequired => "This action requires credentials.",
            ErrorCode::HandoffUpstreamUnavailable => "The upstream server cannot be reached.",
            ErrorCode::HandoffNamespaceMismatch => "This tool's namespace is not mounted here.",
            ErrorCode::HandoffConnecting => "The upstream server is still connecting.",
            ErrorCode::Cancelled => "The call was cancelled by the client.",
            ErrorCode::UnknownTool => "The requested tool does not exist.",
            ErrorCode::ClientCapabilityMissing => {
                "The client does not support a request this tool needs to send it."
            }
            ErrorCode::ClientRequestFailed => "A request this tool sent to the client failed.",
            ErrorCode::Custom(_) => "The tool call failed.",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ErrorCode {
    type Err = Infallible;

    /// Never fails: the name of a canonical or library code gives its
    /// variant, anything else is `Custom`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(ErrorCode::CANONICAL
            .iter()
            .chain(&ErrorCode::LIBRARY)
            .find(|code| code.as_str() == s)
            .cloned()
            .unwrap_or_else(|| ErrorCode::Custom(s.to_owned())))
    }
}

impl From<&str> for ErrorCode {
    fn from(s: &str) -> Self {
        let Ok(code) = s.parse();
        code
    }
}

impl From<String> for ErrorCode {
    fn from(s: String) -> Self {
        ErrorCode::from(s.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(ErrorCode::from(String::deserialize(deserializer)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_codes_round_trip() {
        for code in ErrorCode::CANONICAL {
            assert_eq!(code.as_str().parse::<ErrorCode>().unwrap(), code);
            assert!(code.is_canonical());
            assert!(!code.is_library());
        }
        assert_eq!(ErrorCode::CANONICAL.len(), 17);
    }

    #[test]
    fn library_codes_round_trip_and_keep_their_wire_text() {
        let texts: Vec<&str> = ErrorCode::LIBRARY.iter().map(ErrorCode::as_str).collect();
        assert_eq!(
            texts,
            [
                "CANCELLED",
                "UNKNOWN_TOOL",
                "CLIENT_CAPABILITY_MISSING",
                "CLIENT_REQUEST_FAILED"
            ]
        );
        for code in ErrorCode::LIBRARY {
            assert_eq!(ErrorCode::from(code.as_str()), code);
            assert!(code.is_library());
            assert!(!code.is_canonical());
            assert_ne!(
                code.default_message(),
                ErrorCode::from("X_Y").default_message()
            );
        }
        let custom = ErrorCode::from("PAYMENT_DECLINED");
        assert!(!custom.is_canonical() && !custom.is_library());
    }

    #[test]
    fn custom_string_equal_to_a_canonical_name_is_canonical() {
        assert_eq!(
            ErrorCode::from(String::from("NOT_FOUND")),
            ErrorCode::NotFound
        );
        assert_eq!(
            ErrorCode::from("PAYMENT_DECLINED"),
            ErrorCode::Custom("PAYMENT_DECLINED".into())
        );
        assert_eq!(
            ErrorCode::from("not_found"),
            ErrorCode::Custom("not_found".into())
        );
    }
}
