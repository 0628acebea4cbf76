//! [`ConnectCause`]: why a connection failed, read from the errors of the
//! operating system and of the HTTP client under rmcp, and said in words that
//! name the cause (connection refused, DNS, time-out, an HTTP status).

use std::error::Error;

use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, StreamableHttpError,
};

use crate::error::{retry_after_from_text, seconds_text};

/// Why a [`FusionClientError::Connect`](super::FusionClientError::Connect)
/// happened, as far as the client can tell from the operating system's and
/// the HTTP client's errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConnectCause {
    /// Nothing accepts connections at the URL's host and port (TCP
    /// "connection refused"): the server is not running, or listens on
    /// another port or address.
    Refused,
    /// The connection or the handshake took too long: the TCP connect timed
    /// out (the host is down or a firewall drops the packets), or
    /// [`ClientOptions::connect_timeout`](super::ClientOptions::connect_timeout)
    /// passed.
    TimedOut,
    /// The URL's host name does not resolve (DNS).
    UnknownHost,
    /// The stdio server's program could not be started (not found, not
    /// executable).
    NotStarted,
    /// The server needs credentials the client did not give, or refused
    /// those it gave (HTTP 401, or 403 for a missing scope): its
    /// `WWW-Authenticate` challenge says which.
    Unauthorized,
    /// Anything else: an HTTP error status, TLS, a server that closed the
    /// connection or answered the handshake wrongly.
    Other,
}

impl ConnectCause {
    /// `refused`, `timed_out`, `unknown_host`, `not_started`,
    /// `unauthorized` or `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConnectCause::Refused => "refused",
            ConnectCause::TimedOut => "timed_out",
            ConnectCause::UnknownHost => "unknown_host",
            ConnectCause::NotStarted => "not_started",
            ConnectCause::Unauthorized => "unauthorized",
            ConnectCause::Other => "other",
        }
    }
}

/// rmcp's Streamable HTTP error over the reqwest client.
type HttpError = StreamableHttpError<reqwest::Error>;

/// `error` and its causes, outermost first. rmcp wraps the HTTP client's
/// error without exposing it as a `source()`; the walk goes into it, down to
/// the operating system's error.
fn chain<'a>(error: &'a (dyn Error + 'static)) -> Vec<&'a (dyn Error + 'static)> {
    let mut chain: Vec<&(dyn Error + 'static)> = Vec::new();
    let mut next = Some(error);
    while let Some(current) = next {
        chain.push(current);
        next = match current.downcast_ref::<HttpError>() {
            Some(StreamableHttpError::Client(inner)) => Some(inner),
            _ => current.source(),
        };
    }
    chain
}

/// The innermost cause of `error` (e.g. a TLS alert), as text.
pub(crate) fn innermost_text(error: &(dyn Error + 'static)) -> String {
    chain(error)
        .last()
        .map_or_else(|| error.to_string(), |e| e.to_string())
}

/// Whether the server refused `error`'s request for its credentials: an
/// HTTP 401 (with a challenge or without), or a 403 (a challenge's
/// `insufficient_scope`, or none) anywhere in its causes (RFC 6750 §3.1).
pub(crate) fn refused_credentials(error: &(dyn Error + 'static)) -> bool {
    chain(error).iter().any(|link| {
        link.is::<AuthRequiredError>()
            || link.is::<InsufficientScopeError>()
            || matches!(
                link.downcast_ref::<HttpError>(),
                Some(
                    StreamableHttpError::AuthRequired(_)
                        | StreamableHttpError::InsufficientScope(_)
                )
            )
            || link
                .downcast_ref::<reqwest::Error>()
                .and_then(reqwest::Error::status)
                .is_some_and(|s| matches!(s.as_u16(), 401 | 403))
    })
}

/// The `WWW-Authenticate` challenge of a `403` with
/// `error="insufficient_scope"` (RFC 6750 §3.1) anywhere in `error`'s
/// causes; `None` when there is none.
pub(crate) fn insufficient_scope_challenge(error: &(dyn Error + 'static)) -> Option<String> {
    chain(error).iter().find_map(|link| {
        if let Some(challenge) = link.downcast_ref::<InsufficientScopeError>() {
            return Some(challenge.www_authenticate_header.clone());
        }
        match link.downcast_ref::<HttpError>() {
            Some(StreamableHttpError::InsufficientScope(challenge)) => {
                Some(challenge.www_authenticate_header.clone())
            }
            _ => None,
        }
    })
}

/// The cause of a transport `error` when it is one a user can act on, with
/// what it means in words (e.g. `connection refused: nothing is listening on
/// 127.0.0.1:1 (is the server running?)`); `None` for any other error.
/// `url` is the endpoint (for the host and port the words name); `stdio`
/// whether the transport is a child's stdin/stdout.
pub(crate) fn known_cause(
    error: &(dyn Error + 'static),
    url: Option<&str>,
    stdio: bool,
) -> Option<(ConnectCause, String)> {
    let chain = chain(error);
    // The address: from the URL given, else from the HTTP client's error.
    let url = url.and_then(|u| reqwest::Url::parse(u).ok()).or_else(|| {
        chain
            .iter()
            .find_map(|e| e.downcast_ref::<reqwest::Error>()?.url().cloned())
    });
    let host = url.as_ref().and_then(|u| u.host_str().map(str::to_owned));
    let address = url
        .as_ref()
        .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)))
        .unwrap_or_else(|| String::from("the server's address"));
    for link in &chain {
        let known = http_cause(*link)
            .or_else(|| auth_cause(*link))
            .or_else(|| io_cause(*link, &address, stdio))
            .or_else(|| dns_cause(*link, host.as_deref(), &address));
        if known.is_some() {
            return known;
        }
    }
    None
}

/// An HTTP status the server answered, or a session it no longer knows.
fn http_cause(link: &(dyn Error + 'static)) -> Option<(ConnectCause, String)> {
    match link.downcast_ref::<HttpError>() {
        Some(StreamableHttpError::HttpStatus(status)) => {
            let wait = status
                .retry_after
                .as_deref()
                .and_then(retry_after_from_text)
                .map_or_else(String::new, |secs| {
                    format!(" and asks to retry in {}", seconds_text(secs))
                });
            return Some((
                ConnectCause::Other,
                format!("the server answered HTTP {}{wait}", status.status),
            ));
        }
        Some(StreamableHttpError::SessionExpired) => {
            return Some((
                ConnectCause::Other,
                String::from(
                    "the server no longer knows this session (HTTP 404), even after a new session was started",
                ),
            ));
        }
        _ => {}
    }
    None
}

/// A 401 or 403: a token missing, refused or short of a scope.
fn auth_cause(link: &(dyn Error + 'static)) -> Option<(ConnectCause, String)> {
    if let Some(challenge) = link.downcast_ref::<AuthRequiredError>() {
        return Some((
            ConnectCause::Unauthorized,
            format!(
                "the server answered HTTP 401: it needs a valid bearer token ({})",
                challenge.www_authenticate_header
            ),
        ));
    }
    if let Some(challenge) = link.downcast_ref::<InsufficientScopeError>() {
        return Some((
            ConnectCause::Unauthorized,
            format!(
                "the server answered HTTP 403: the token lacks a scope ({})",
                challenge.www_authenticate_header
            ),
        ));
    }
    // A 401 or 403 without a `WWW-Authenticate` challenge.
    if let Some(status) = link
        .downcast_ref::<reqwest::Error>()
        .and_then(reqwest::Error::status)
        .filter(|s| matches!(s.as_u16(), 401 | 403))
    {
        return Some((
            ConnectCause::Unauthorized,
            format!(
                "the server answered HTTP {}: it refused the credentials",
                status.as_u16()
            ),
        ));
    }
    None
}

/// A connection refused or timed out at `address`, or (`stdio`) a child
/// that closed its pipes before the handshake.
fn io_cause(
    link: &(dyn Error + 'static),
    address: &str,
    stdio: bool,
) -> Option<(ConnectCause, String)> {
    if let Some(io) = link.downcast_ref::<std::io::Error>() {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => {
                return Some((
                    ConnectCause::Refused,
                    format!(
                        "connection refused: nothing is listening on {address} (is the server running?)"
                    ),
                ));
            }
            std::io::ErrorKind::TimedOut => {
                return Some((
                    ConnectCause::TimedOut,
                    format!(
                        "connecting to {address} timed out (is the host up, and does a firewall let the port through?)"
                    ),
                ));
            }
            std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::UnexpectedEof if stdio => {
                return Some((
                    ConnectCause::Other,
                    String::from(
                        "the server closed its stdin/stdout before the MCP handshake (did the command exit at once?)",
                    ),
                ));
            }
            _ => {}
        }
    }
    None
}

/// A host name that does not resolve (`host`, else `address`).
fn dns_cause(
    link: &(dyn Error + 'static),
    host: Option<&str>,
    address: &str,
) -> Option<(ConnectCause, String)> {
    // hyper-util's connector names a failed name lookup "dns error" and
    // puts the resolver's own error (an unclassified io::Error) under it.
    if link.to_string() == "dns error" {
        let why = link.source().map_or_else(String::new, |e| format!(": {e}"));
        return Some((
            ConnectCause::UnknownHost,
            format!(
                "the host name `{}` does not resolve (DNS lookup failed{why}); check the URL",
                host.unwrap_or(address)
            ),
        ));
    }
    None
}
