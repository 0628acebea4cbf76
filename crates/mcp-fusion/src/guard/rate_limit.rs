//! Rate limits (GCRA): `RATE_LIMITED` with the real time until the next call
//! would pass (wire contract §5). One node keeps its state in memory
//! (`governor`); a fleet shares it in Redis (`RedisRateLimitStore`, feature `redis`).

use std::fmt;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use sha2::Digest;
use tower::ServiceExt;

use super::GuardSettings;
use super::layer::Guard;
#[cfg(feature = "redis")]
use super::redis_rate_limit_store::{RedisDecision, RedisRateLimitStore};
use crate::error::{ToolError, seconds_text};
use crate::handler::{CallContext, Capability, Peer};
use crate::metrics_names::{self as names, ActionLabels};
use crate::pipeline::{ActionService, Call, Outcome};

/// Whose calls one limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateLimitScope {
    /// Each caller has its own budget: the auth subject, else the server's
    /// key function, else where the call came from ([`Peer`]): the HTTP
    /// client's address (so that a new MCP session is not a new budget), the
    /// one stdio client, or the in-process caller.
    #[default]
    Caller,
    /// One budget for everybody.
    Global,
}

impl FromStr for RateLimitScope {
    type Err = String;

    /// `caller` or `global`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "caller" => Ok(RateLimitScope::Caller),
            "global" => Ok(RateLimitScope::Global),
            other => Err(format!(
                "unknown rate-limit scope \"{other}\": expected caller or global"
            )),
        }
    }
}

/// At most `calls` calls per `period`, as a GCRA: a burst of `calls`, then one
/// call every `period / calls` ([`RateLimit::new`], [`RateLimit::per_second`],
/// …, [`RateLimit::scope`], or parsed from `2/min`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimit {
    /// Calls allowed per period (at least 1).
    pub calls: u32,
    /// The period (more than zero).
    pub period: Duration,
    /// Whose calls count together.
    pub scope: RateLimitScope,
}

impl RateLimit {
    /// `calls` per `period`, counted per caller. Checked when the server is
    /// built: zero calls or a zero period is a [`BuildError`](crate::BuildError).
    pub fn new(calls: u32, period: Duration) -> Self {
        RateLimit {
            calls,
            period,
            scope: RateLimitScope::Caller,
        }
    }

    /// `calls` per second.
    pub fn per_second(calls: u32) -> Self {
        RateLimit::new(calls, Duration::from_secs(1))
    }

    /// `calls` per minute.
    pub fn per_minute(calls: u32) -> Self {
        RateLimit::new(calls, Duration::from_secs(60))
    }

    /// `calls` per hour.
    pub fn per_hour(calls: u32) -> Self {
        RateLimit::new(calls, Duration::from_secs(3600))
    }

    /// Sets whose calls count together.
    pub fn scope(mut self, scope: RateLimitScope) -> Self {
        self.scope = scope;
        self
    }

    /// Why this limit cannot be used, if it cannot.
    pub(crate) fn problem(&self) -> Option<String> {
        if self.calls == 0 {
            Some(String::from(
                "a rate limit must allow at least 1 call per period",
            ))
        } else if self.period.is_zero() {
            Some(String::from(
                "a rate limit's period must be longer than zero",
            ))
        } else {
            None
        }
    }

    /// The time between two calls once the burst is spent.
    pub(crate) fn interval(&self) -> Duration {
        self.period / self.calls.max(1)
    }
}

impl fmt::Display for RateLimit {
    /// `2 per minute`, `10 per second`, `5 per 30 s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let period = match self.period.as_secs() {
            1 if self.period.subsec_nanos() == 0 => String::from("second"),
            60 if self.period.subsec_nanos() == 0 => String::from("minute"),
            3600 if self.period.subsec_nanos() == 0 => String::from("hour"),
            _ => super::timeout::human(self.period),
        };
        write!(f, "{} per {period}", self.calls)
    }
}

/// Why a rate limit written as text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid rate limit \"{input}\": {reason} (write N/PERIOD with PERIOD one of s, min, h, e.g. 2/min)"
)]
pub struct RateLimitParseError {
    input: String,
    reason: &'static str,
}

impl FromStr for RateLimit {
    type Err = RateLimitParseError;

    /// `N/PERIOD` with PERIOD one of `s`, `min`, `h` (e.g. `2/min`); N ≥ 1.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |reason| RateLimitParseError {
            input: s.to_owned(),
            reason,
        };
        let (calls, period) = s.trim().split_once('/').ok_or_else(|| fail("no '/'"))?;
        let calls: u32 = calls
            .trim()
            .parse()
            .map_err(|_| fail("N is not a whole number"))?;
        if calls == 0 {
            return Err(fail("N must be at least 1"));
        }
        let period = match period.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return Err(fail("unknown PERIOD")),
        };
        Ok(RateLimit::new(calls, period))
    }
}

/// Derives a caller key from a call that has no auth subject (e.g. from a
/// header, or a tenant id in the arguments); `None` falls back to the
/// call's [`Peer`].
pub type KeyFn = Arc<dyn Fn(&CallContext) -> Option<String> + Send + Sync>;

/// Where a guard keeps its counts.
#[derive(Clone)]
pub(crate) enum Backend {
    Memory(Arc<DefaultKeyedRateLimiter<String>>),
    #[cfg(feature = "redis")]
    Redis(RedisRateLimitStore),
}

impl Backend {
    /// Counts kept in this process's memory (GCRA, `governor`).
    fn memory(limit: RateLimit) -> Self {
        let burst = NonZeroU32::new(limit.calls.max(1)).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::with_period(limit.interval().max(Duration::from_nanos(1)))
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst);
        Backend::Memory(Arc::new(DefaultKeyedRateLimiter::keyed(quota)))
    }
}

/// The state one rate limit shares between its calls.
pub(crate) struct RateLimitGuard {
    limit: RateLimit,
    backend: Backend,
    key_fn: Option<KeyFn>,
    checks: AtomicU64,
    labels: ActionLabels,
}

/// What a check decided.
enum Decision {
    Allow,
    Deny(Duration),
    #[cfg(feature = "redis")]
    StoreDown,
}

impl RateLimitGuard {
    /// A guard of `limit`, in the server's shared store if it has one, else
    /// in this process's memory.
    pub fn new(limit: RateLimit, settings: &GuardSettings, labels: ActionLabels) -> Self {
        #[cfg(feature = "redis")]
        let backend = match &settings.redis {
            Some(store) => Backend::Redis(store.clone()),
            None => Backend::memory(limit),
        };
        #[cfg(not(feature = "redis"))]
        let backend = Backend::memory(limit);
        RateLimitGuard {
            limit,
            backend,
            key_fn: settings.key_fn.clone(),
            checks: AtomicU64::new(0),
            labels,
        }
    }

    /// The bucket of this call: action, then caller (never shown to the model).
    fn key(&self, ctx: &CallContext) -> String {
        let caller = match self.limit.scope {
            RateLimitScope::Global => String::from("*"),
            RateLimitScope::Caller => ctx
                .principal()
                .map(|p| format!("sub:{}", p.subject))
                .or_else(|| {
                    self.key_fn
                        .as_ref()
                        .and_then(|f| f(ctx))
                        .map(|k| format!("key:{k}"))
                })
                .unwrap_or_else(|| match ctx.peer() {
                    // One host of an IPv6 network holds a whole /64: count
                    // the network, or each address would be a new budget.
                    Peer::Http(Some(IpAddr::V6(ip))) => {
                        let network = u128::from(ip) & !((1u128 << 64) - 1);
                        format!("ip:{}/64", std::net::Ipv6Addr::from(network))
                    }
                    Peer::Http(Some(ip)) => format!("ip:{ip}"),
                    Peer::Http(None) => String::from("anonymous"),
                    Peer::Stdio => String::from("stdio"),
                    Peer::Local => String::from("local"),
                }),
        };
        // Per capability, as each has its guard (and the same buckets in a
        // shared store as in memory): a tool by the name called (an action,
        // or a name a fallback answers), so that a store shared by several
        // actions keeps their budgets apart; a prompt, resource, template or
        // completer by its own name, never by the URI read, so that every
        // URI a template serves shares the template's budget.
        let budget = match ctx.capability() {
            Capability::Tool => ctx.name().to_owned(),
            kind => format!("{kind}:{}:{}", self.labels.tool, self.labels.action),
        };
        // Hashed: a caller's identity can be long (a subject, a key),
        // and every bucket is kept until its period ends.
        let digest = sha2::Sha256::digest(format!("{budget}|{caller}").as_bytes());
        digest[..16].iter().map(|b| format!("{b:02x}")).collect()
    }

    async fn check(&self, key: String) -> Decision {
        match &self.backend {
            Backend::Memory(limiter) => {
                if self.checks.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
                    limiter.retain_recent();
                }
                match limiter.check_key(&key) {
                    Ok(()) => Decision::Allow,
                    Err(not_until) => {
                        Decision::Deny(not_until.wait_time_from(DefaultClock::default().now()))
                    }
                }
            }
            #[cfg(feature = "redis")]
            Backend::Redis(store) => match store.check(&key, self.limit).await {
                RedisDecision::Allow => Decision::Allow,
                RedisDecision::Deny(wait) => Decision::Deny(wait),
                RedisDecision::Unavailable => Decision::StoreDown,
            },
        }
    }

    fn limited(&self, name: &str, wait: Duration) -> ToolError {
        let secs =
            crate::error::envelope_secs(Some(wait.max(Duration::from_millis(1)))).unwrap_or(1);
        ToolError::rate_limited(format!(
            "Too many calls to {name}: the limit is {}.",
            self.limit
        ))
        .next_step(super::retry_step(name))
        .suggest(format!(
            "Wait {}, then {} {name} again.",
            seconds_text(secs),
            super::verb(name)
        ))
        .detail("limit", self.limit)
        .retry_after(Duration::from_secs(secs))
    }

    #[cfg(feature = "redis")]
    fn store_down(&self, name: &str) -> ToolError {
        ToolError::rate_limited(format!(
            "{name} cannot be checked against its rate limit right now, so the call was refused."
        ))
        .next_step(super::retry_step(name))
        .suggest("Wait a few seconds and call again; if this keeps happening, tell the user the server's rate-limit store is down.")
        .retry_after(Duration::from_secs(5))
    }
}

impl Guard for RateLimitGuard {
    fn around(
        self: Arc<Self>,
        call: Call,
        next: ActionService,
    ) -> BoxFuture<'static, Result<Outcome, ToolError>> {
        Box::pin(async move {
            let key = self.key(&call.ctx);
            let refusal = match self.check(key).await {
                Decision::Allow => return next.oneshot(call).await,
                Decision::Deny(wait) => self.limited(call.ctx.name(), wait),
                #[cfg(feature = "redis")]
                Decision::StoreDown => self.store_down(call.ctx.name()),
            };
            metrics::counter!(
                names::RATE_LIMITED_TOTAL,
                names::TOOL => self.labels.tool.clone(),
                names::ACTION => self.labels.action.clone(),
            )
            .increment(1);
            Err(refusal)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_n_per_period() {
        assert_eq!("2/min".parse::<RateLimit>(), Ok(RateLimit::per_minute(2)));
        assert_eq!("10/s".parse::<RateLimit>(), Ok(RateLimit::per_second(10)));
        assert_eq!("1/h".parse::<RateLimit>(), Ok(RateLimit::per_hour(1)));
        assert_eq!(
            "0/min".parse::<RateLimit>().unwrap_err().to_string(),
            "invalid rate limit \"0/min\": N must be at least 1 (write N/PERIOD with PERIOD one of s, min, h, e.g. 2/min)"
        );
        assert!("2/day".parse::<RateLimit>().is_err());
        assert!("-2/s".parse::<RateLimit>().is_err());
        assert_eq!(RateLimit::per_minute(2).to_string(), "2 per minute");
    }
}
