//! Connecting: the deadlines of a handshake, and its failures in words.

use std::time::Duration;

use futures::future::{BoxFuture, Shared};

use super::cause::{ConnectCause, innermost_text, known_cause};
use super::oauth::authorizing::Authorizer;
use super::target::Target;

/// How long a failed start waits for the server's last stderr lines.
pub(super) const STDERR_SETTLE: Duration = Duration::from_millis(500);

/// Why a bearer token is refused before connecting.
pub(super) const BEARER_NOT_A_HEADER: &str = "the bearer token has a character an HTTP header cannot carry (a line break or another control character); give the token alone, on one line";

/// Whether `Bearer TOKEN` is a valid HTTP header value (RFC 9110 §5.5).
pub(super) fn fits_a_header(token: &str) -> bool {
    http::HeaderValue::from_str(&format!("Bearer {token}")).is_ok()
}

/// Why a handshake failed: the cause and, in words, what it means for the
/// user (e.g. `connection refused: nothing is listening on 127.0.0.1:1 (is the
/// server running?)`), without the transport's type names.
pub(super) fn handshake_failure(
    error: &(dyn std::error::Error + 'static),
    target: &Target,
) -> (ConnectCause, String) {
    let (url, stdio) = match target {
        Target::Http { url } => (Some(url.as_str()), false),
        Target::Stdio { .. } => (None, true),
    };
    known_cause(error, url, stdio).unwrap_or_else(|| {
        (
            ConnectCause::Other,
            format!("MCP handshake failed: {}", innermost_text(error)),
        )
    })
}

/// `serve` within `limit`, extended once by `redirect_timeout` when the
/// deadline finds that `authorizer` has started to authorize.
pub(super) async fn serve_allowing_authorization<T>(
    serve: impl Future<Output = T>,
    limit: Duration,
    authorizer: &Authorizer,
    redirect_timeout: Duration,
) -> Result<T, tokio::time::error::Elapsed> {
    let serve = std::pin::pin!(serve);
    let mut serve = serve;
    match tokio::time::timeout(limit, &mut serve).await {
        Err(_) if authorizer.started() => tokio::time::timeout(redirect_timeout, serve).await,
        outcome => outcome,
    }
}

/// The end of the server serving the other side of an in-process
/// connection: resolves when that server stops, to why it failed (`None`
/// when it ended normally). Awaitable from every clone.
pub(crate) type ServerEnd = Shared<BoxFuture<'static, Option<String>>>;

/// How long a request that found the in-process connection closed waits for
/// the server's end, to give its failure as the reason.
pub(super) const SERVER_END_WAIT: Duration = Duration::from_secs(5);

/// Why the server of an in-process connection failed, once it has stopped;
/// `None` when it ended normally.
pub(super) async fn ended_with(end: &ServerEnd) -> Option<String> {
    end.clone().await
}
