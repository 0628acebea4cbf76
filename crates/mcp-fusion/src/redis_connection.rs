//! [`RedisConnection`]: one lazily opened, time-bounded Redis connection, shared
//! by the rate-limit store (`guard/`) and the HTTP session store (`server/`).
//!
//! Nothing connects until the first use, so a server starts while Redis is
//! down. After a failure, the next second's uses do not wait for Redis again
//! (they are told at once that it is unavailable) and one use a second probes
//! whether it is back. Failures are logged at most once every 10 seconds, with
//! the URL's credentials masked.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::RwLock;

/// Why a Redis-backed store could not be made.
#[derive(Debug, thiserror::Error)]
#[error("invalid Redis URL \"{url}\": {reason}")]
pub struct RedisUrlError {
    url: String,
    reason: String,
}

/// Why [`RedisConnection::run`] got no answer from Redis; `E` is the
/// command's own error. Its text says why, for logs and for a store's error
/// (the URL is not in it).
#[derive(Debug)]
pub(crate) enum Unanswered<E> {
    /// Redis failed less than a second ago: not tried (one use a second
    /// probes it).
    RecentlyFailed,
    /// No connection could be opened (already logged).
    NotConnected,
    /// The command failed.
    Failed(E),
    /// No answer within the time limit.
    TimedOut(Duration),
}

impl<E: std::fmt::Display> std::fmt::Display for Unanswered<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unanswered::RecentlyFailed => f.write_str("it failed less than a second ago"),
            Unanswered::NotConnected => f.write_str("not connected"),
            Unanswered::Failed(e) => e.fmt(f),
            Unanswered::TimedOut(limit) => write!(f, "no answer within {} ms", limit.as_millis()),
        }
    }
}

/// One Redis connection with its failure bookkeeping.
pub(crate) struct RedisConnection {
    client: redis::Client,
    /// The URL with its credentials masked, for logs.
    url: String,
    /// What this connection serves, for logs (`rate-limit store`).
    role: &'static str,
    connection: RwLock<Option<ConnectionManager>>,
    /// When the last use failed, in ms since the epoch (0: it did not).
    last_failure_ms: AtomicU64,
    last_warning_ms: AtomicU64,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl RedisConnection {
    /// A connection to `url` (`redis://host:port/db`), not opened yet; `role`
    /// names it in logs.
    ///
    /// # Errors
    /// [`RedisUrlError`] when the URL is not a Redis URL.
    pub fn new(url: &str, role: &'static str) -> Result<Self, RedisUrlError> {
        let client = redis::Client::open(url).map_err(|e| RedisUrlError {
            url: crate::redact::url(url),
            reason: e.to_string(),
        })?;
        Ok(RedisConnection {
            client,
            url: crate::redact::url(url),
            role,
            connection: RwLock::new(None),
            last_failure_ms: AtomicU64::new(0),
            last_warning_ms: AtomicU64::new(0),
        })
    }

    /// The URL with its credentials masked.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The open connection, connecting first when needed (connecting and
    /// each later command bounded by `timeout`); `None` when Redis cannot be
    /// reached (or could not be within the last second).
    pub async fn get(&self, timeout: Duration) -> Option<ConnectionManager> {
        if let Some(conn) = self.connection.read().await.as_ref() {
            return Some(conn.clone());
        }
        let last = self.last_failure_ms.load(Ordering::Relaxed);
        if last != 0 && now_ms().saturating_sub(last) < 1_000 {
            return None;
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(500));
        match ConnectionManager::new_with_config(self.client.clone(), config).await {
            Ok(conn) => {
                *self.connection.write().await = Some(conn.clone());
                self.last_failure_ms.store(0, Ordering::Relaxed);
                tracing::info!(url = %self.url, "{} connected", self.role);
                Some(conn)
            }
            Err(e) => {
                self.failed(&format!("cannot connect: {e}"));
                None
            }
        }
    }

    /// Runs `command` on the connection, connecting first when needed, all
    /// within `timeout`, and keeps the failure bookkeeping: a success is
    /// recorded; a failed command or no answer in time is recorded and
    /// logged (at most once every 10 s) with what `consequence` says, what
    /// the store does meanwhile. Not tried at all when Redis failed less than a
    /// second ago (one use a second probes it).
    ///
    /// # Errors
    /// [`Unanswered`]: why Redis gave no answer.
    pub async fn run<T, E, F, Fut>(
        &self,
        timeout: Duration,
        consequence: impl FnOnce() -> String,
        command: F,
    ) -> Result<T, Unanswered<E>>
    where
        E: std::fmt::Display,
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        if self.recently_failed() {
            return Err(Unanswered::RecentlyFailed);
        }
        let attempt = async {
            let conn = self.get(timeout).await.ok_or(Unanswered::NotConnected)?;
            command(conn).await.map_err(Unanswered::Failed)
        };
        let result = tokio::time::timeout(timeout, attempt)
            .await
            .unwrap_or(Err(Unanswered::TimedOut(timeout)));
        match &result {
            Ok(_) => self.succeeded(),
            Err(why @ (Unanswered::Failed(_) | Unanswered::TimedOut(_))) => {
                self.failed(&format!("{why}; {}", consequence()));
            }
            Err(Unanswered::RecentlyFailed | Unanswered::NotConnected) => {}
        }
        result
    }

    /// Opens a connection of its own and sends `PING`, all within `timeout`.
    ///
    /// # Errors
    /// Why Redis did not answer (the URL is not in the text).
    pub async fn ping(&self, timeout: Duration) -> Result<(), String> {
        let attempt = async {
            let mut conn = self.client.get_multiplexed_async_connection().await?;
            redis::cmd("PING").query_async::<String>(&mut conn).await
        };
        match tokio::time::timeout(timeout, attempt).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {} ms", timeout.as_millis())),
        }
    }

    /// Whether a use should not even try Redis: it failed less than a second
    /// ago. One caller a second is let through to probe it.
    pub fn recently_failed(&self) -> bool {
        let last = self.last_failure_ms.load(Ordering::Relaxed);
        let now = now_ms();
        last != 0
            && (now.saturating_sub(last) < 1_000
                || self
                    .last_failure_ms
                    .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                    .is_err())
    }

    /// Records a use that worked.
    pub fn succeeded(&self) {
        self.last_failure_ms.store(0, Ordering::Relaxed);
    }

    /// Records a use that failed, and logs `what` (at most once every 10 s).
    pub fn failed(&self, what: &str) {
        self.last_failure_ms.store(now_ms(), Ordering::Relaxed);
        self.warn(what);
    }

    /// Logs `what` at warn level, at most once every 10 seconds.
    pub fn warn(&self, what: &str) {
        let now = now_ms();
        let last = self.last_warning_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= 10_000
            && self
                .last_warning_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(url = %self.url, "{} unavailable: {what}", self.role);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use redis::aio::ConnectionManager;

    use super::{RedisConnection, Unanswered};

    async fn ping(mut conn: ConnectionManager) -> redis::RedisResult<String> {
        redis::cmd("PING").query_async(&mut conn).await
    }

    #[tokio::test]
    async fn a_refused_connection_is_not_tried_again_within_the_second() {
        // Port 1 on this machine refuses at once.
        let redis = RedisConnection::new("redis://127.0.0.1:1/", "test store").expect("a URL");
        let limit = Duration::from_secs(2);
        let first = redis.run(limit, String::new, ping).await;
        assert!(matches!(first, Err(Unanswered::NotConnected)), "{first:?}");
        let second = redis.run(limit, String::new, ping).await;
        let why = second.expect_err("not tried");
        assert!(matches!(why, Unanswered::RecentlyFailed), "{why:?}");
        assert_eq!(why.to_string(), "it failed less than a second ago");
        assert_eq!(
            Unanswered::<redis::RedisError>::TimedOut(Duration::from_millis(200)).to_string(),
            "no answer within 200 ms"
        );
    }
}
