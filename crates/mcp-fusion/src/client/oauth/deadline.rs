//! The time limit of each exchange with an authorization server
//! ([`OAuthOptions::request_timeout`](super::OAuthOptions::request_timeout)).

use std::time::Duration;

use super::options::AuthorizationError;

/// `exchange` (the `stage` of authorizing it is) within `limit`.
///
/// # Errors
///
/// `exchange`'s own error, or [`AuthorizationError::TimedOut`] naming
/// `stage` when `limit` passes first.
pub(crate) async fn within<T>(
    limit: Duration,
    stage: &'static str,
    exchange: impl Future<Output = Result<T, AuthorizationError>>,
) -> Result<T, AuthorizationError> {
    tokio::time::timeout(limit, exchange)
        .await
        .unwrap_or(Err(AuthorizationError::TimedOut { stage, limit }))
}
