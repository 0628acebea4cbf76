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
