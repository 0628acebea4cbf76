//! [`ErrorCode`]: the closed-then-open set of error codes (wire contract §5).

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The code of a tool failure, written as the `code` attribute of `<tool_error>`.
///
/// The set is closed-then-open (wire contract §5): the 17 canonical codes of the
/// seed are variants, and any other string is allowed as [`ErrorCode::Custom`].
/// [`ErrorCode::as_str`] and [`FromStr`] round-trip, and a custom string equal to
/// a canonical name parses as the canonical variant, so
/// `"NOT_FOUND".parse::<ErrorCode>()` is always [`ErrorCode::NotFound`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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

    /// The code as written on the wire, e.g. `"NOT_FOUND"`; a custom code verbatim.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::Custom(code) => code,
            canonical => canonical.static_str().unwrap_or_default(),
        }
    }

    /// A canonical code's text, which lives as long as the program (metric
    /// labels take it without copying); `None` for a custom code.
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
            ErrorCode::Custom(_) => return None,
        })
    }

    /// Whether this is one of the 17 canonical codes (not [`ErrorCode::Custom`]).
    pub fn is_canonical(&self) -> bool {
        !matches!(self, ErrorCode::Custom(_))
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

    /// Never fails: a canonical name gives its variant, anything else is `Custom`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(ErrorCode::CANONICAL
            .iter()
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
        }
        assert_eq!(ErrorCode::CANONICAL.len(), 17);
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
