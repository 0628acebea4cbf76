//! [`RedisRateLimitStore`]: rate-limit state shared by a fleet of servers in Redis.
//!
//! One server-side Lua script runs the GCRA on Redis's own clock (`TIME`), so
//! every replica counts against the same budget and the check-and-record is
//! atomic. Every check is bounded in time (default 100 ms); when Redis is down
//! or slow the store fails open or closed, as configured, logs it (at most once
//! every 10 seconds), and recovers on its own when Redis answers again.

use std::sync::Arc;
use std::time::Duration;

use super::RateLimit;
use crate::redis_connection::RedisConnection;
pub use crate::redis_connection::RedisUrlError;

/// The GCRA script. KEYS[1]: the bucket; ARGV[1]: the emission interval and
/// ARGV[2]: the burst tolerance, both in microseconds. Returns {1, 0} when the
/// call passes, {0, microseconds to wait} when it does not.
const GCRA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat or tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - tolerance
if allow_at > now then
  return {0, allow_at - now}
end
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1)
return {1, 0}
";

/// What to do with a call when Redis cannot answer in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailMode {
    /// Let the call through (availability first). The default.
    #[default]
    Open,
    /// Refuse the call with `RATE_LIMITED` (protection first).
    Closed,
}

impl std::str::FromStr for FailMode {
    type Err = String;

    /// `open` or `closed`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "open" => Ok(FailMode::Open),
            "closed" => Ok(FailMode::Closed),
            other => Err(format!(
                "unknown fail mode \"{other}\": expected open or closed"
            )),
        }
    }
}

/// The answer of one check.
pub(crate) enum RedisDecision {
    Allow,
    Deny(Duration),
    /// Redis did not answer in time and the store fails closed.
    Unavailable,
}

/// A Redis-backed rate-limit store, shared by every rate-limited action of a
/// server (and, through Redis, by every replica). Cheap to clone.
#[derive(Clone)]
pub struct RedisRateLimitStore {
    prefix: String,
    timeout: Duration,
    fail: FailMode,
    shared: Arc<Shared>,
}

struct Shared {
    connection: RedisConnection,
    script: redis::Script,
}

impl std::fmt::Debug for RedisRateLimitStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateLimitStore")
            .field("url", &self.shared.connection.url())
            .field("timeout", &self.timeout)
            .field("fail", &self.fail)
            .finish_non_exhaustive()
    }
}

impl RedisRateLimitStore {
    /// A store at `url` (`redis://host:port/db`). Nothing is connected yet: the
    /// first check connects, so a server can start while Redis is down.
    /// Defaults: checks bounded by 100 ms, fail open, keys prefixed
    /// `mcp-fusion:rl:`.
    ///
    /// # Errors
    /// [`RedisUrlError`] when the URL is not a Redis URL.
    pub fn new(url: &str) -> Result<Self, RedisUrlError> {
        Ok(RedisRateLimitStore {
            prefix: String::from("mcp-fusion:rl:"),
            timeout: Duration::from_millis(100),
            fail: FailMode::Open,
            shared: Arc::new(Shared {
                connection: RedisConnection::new(url, "rate-limit store")?,
                script: redis::Script::new(GCRA),
            }),
        })
    }

    /// The longest a check may take (connecting included) before the fail mode
    /// decides; default 100 ms.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// What happens to calls while Redis does not answer; default [`FailMode::Open`].
    pub fn fail_mode(mut self, fail: FailMode) -> Self {
        self.fail = fail;
        self
    }

    /// The prefix of every key this store writes; default `mcp-fusion:rl:`.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The store's URL with its credentials masked (`redis://user:***@host`),
    /// fit for logs and banners.
    pub fn url(&self) -> &str {
        self.shared.connection.url()
    }

    /// Connects and sends `PING` now, within `timeout`: nothing else
    /// connects before the first check, so a server can say at start that
    /// Redis does not answer (while it does not, calls are let through or
    /// refused as [`FailMode`] says).
    ///
    /// # Errors
    /// Why Redis did not answer (connection refused, no answer within the
    /// timeout, …), without the URL.
    pub async fn ping(&self, timeout: Duration) -> Result<(), String> {
        self.shared.connection.ping(timeout).await
    }

    fn unavailable(&self) -> RedisDecision {
        match self.fail {
            FailMode::Open => RedisDecision::Allow,
            FailMode::Closed => RedisDecision::Unavailable,
        }
    }

    /// Checks and records one call of `key` against `limit`, within the timeout.
    pub(crate) async fn check(&self, key: &str, limit: RateLimit) -> RedisDecision {
        let interval = u64::try_from(limit.interval().as_micros())
            .unwrap_or(u64::MAX)
            .max(1);
        let tolerance = interval.saturating_mul(u64::from(limit.calls));
        let key = format!("{}{key}", self.prefix);
        // After a failed check, the next second's calls do not wait for
        // Redis again: the fail mode answers at once, and one call a second
        // probes whether it is back.
        let consequence = || match self.fail {
            FailMode::Open => String::from("rate-limited calls are let through"),
            FailMode::Closed => String::from("rate-limited calls are refused with RATE_LIMITED"),
        };
        let script = &self.shared.script;
        let reply = self
            .shared
            .connection
            .run(self.timeout, consequence, |mut conn| async move {
                let reply: redis::RedisResult<(i64, i64)> = script
                    .key(&key)
                    .arg(interval)
                    .arg(tolerance)
                    .invoke_async(&mut conn)
                    .await;
                reply
            })
            .await;
        match reply {
            Ok((1, _)) => RedisDecision::Allow,
            Ok((_, wait_micros)) => RedisDecision::Deny(Duration::from_micros(
                u64::try_from(wait_micros).unwrap_or(0),
            )),
            Err(_) => self.unavailable(),
        }
    }
}
