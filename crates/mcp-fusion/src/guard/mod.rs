//! Runtime guards, as tower layers in front of validation: auth
//! (`AUTH_REQUIRED`, `UNAUTHORIZED`, `FORBIDDEN`), rate limits
//! (`RATE_LIMITED`), the concurrency guard (`SERVER_BUSY`) and time limits
//! (`TIMEOUT`) — wire contract §5. They are set per action (or per group, as
//! defaults for its actions) and checked when the server is built.
//!
//! Order on the call path, outermost first: auth → rate limit → concurrency →
//! timeout → validation → middleware → handler.

mod auth;
mod concurrency;
mod insufficient_scope;
#[cfg(feature = "jwt")]
mod jwt;
mod layer;
#[cfg(feature = "oauth")]
mod oauth;
mod protected_resource;
mod rate_limit;
#[cfg(feature = "redis")]
mod redis_rate_limit_store;
mod timeout;

use std::sync::Arc;
use std::time::Duration;

pub use auth::{AuthConfigError, AuthFailure, StaticTokens, TokenVerifier};
pub use concurrency::{Concurrency, ConcurrencyStats, SharedConcurrency};
pub use insufficient_scope::InsufficientScope;
#[cfg(feature = "jwt")]
pub use jwt::JwtVerifier;
#[cfg(feature = "oauth")]
pub use oauth::{OAuthError, OAuthResourceServer};
pub use protected_resource::ProtectedResource;
pub use rate_limit::{KeyFn, RateLimit, RateLimitParseError, RateLimitScope};
#[cfg(feature = "redis")]
pub use redis_rate_limit_store::{FailMode, RedisRateLimitStore, RedisUrlError};

#[cfg(feature = "http")]
pub(crate) use auth::BearerRefusal;
pub(crate) use auth::{AuthRule, unauthorized, verify_bearer};
pub(crate) use concurrency::{ConcurrencyGuard, ConcurrencySetting};

use crate::metrics_names::ActionLabels;
use crate::pipeline::ActionService;

/// The most calls one concurrency guard may run and queue together.
pub const MAX_SLOTS: usize = 100_000_000;

/// What a model does with `name` again: `read` a resource (`name` is a
/// URI), `call` anything else.
pub(crate) fn verb(name: &str) -> &'static str {
    if name.contains("://") { "read" } else { "call" }
}

/// The next step (wire contract §2.1) of a call of `name` refused for its
/// timing (`RATE_LIMITED`, `SERVER_BUSY`): the same call again. It says the
/// refusal is not about the arguments, so that the model calls again
/// instead of relaying the wait to the user. A resource (`name` is a URI)
/// is read again rather than called.
pub(crate) fn retry_step(name: &str) -> String {
    if name.contains("://") {
        return format!("Read {name} again: this refusal is about timing, not about the request.");
    }
    format!(
        "Call {name} again with the same arguments: this refusal is about timing, not about them."
    )
}

/// The guard settings of one action, or the defaults a group gives its actions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guards {
    pub(crate) concurrency: Option<ConcurrencySetting>,
    pub(crate) rate_limit: Option<RateLimit>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) auth: AuthRule,
}

impl Guards {
    /// These settings, with every one left unset taken from `defaults`.
    pub(crate) fn or(&self, defaults: &Guards) -> Guards {
        Guards {
            concurrency: self
                .concurrency
                .clone()
                .or_else(|| defaults.concurrency.clone()),
            rate_limit: self.rate_limit.or(defaults.rate_limit),
            timeout: self.timeout.or(defaults.timeout),
            auth: AuthRule {
                required: self.auth.required || defaults.auth.required,
                scopes: if self.auth.scopes.is_empty() {
                    defaults.auth.scopes.clone()
                } else {
                    self.auth.scopes.clone()
                },
            },
        }
    }

    /// The settings as listed in `_meta["mcp-fusion/actions"]`: `{"maxActive",
    /// "maxQueue", "rateLimit": {"calls", "periodMs", "scope"}, "timeoutMs"}`,
    /// each member only when set.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        if let Some(c) = self.concurrency.as_ref().map(ConcurrencySetting::limits) {
            object.insert("maxActive".into(), c.max_active.into());
            object.insert("maxQueue".into(), c.max_queue.into());
        }
        if let Some(r) = self.rate_limit {
            let scope = match r.scope {
                RateLimitScope::Caller => "caller",
                RateLimitScope::Global => "global",
            };
            object.insert(
                "rateLimit".into(),
                serde_json::json!({"calls": r.calls, "periodMs": r.period.as_millis() as u64, "scope": scope}),
            );
        }
        if let Some(t) = self.timeout {
            object.insert("timeoutMs".into(), (t.as_millis() as u64).into());
        }
        serde_json::Value::Object(object)
    }

    /// Why these settings cannot be used, if they cannot.
    pub(crate) fn problem(&self, has_verifier: bool) -> Option<String> {
        let concurrency = self.concurrency.as_ref().map(ConcurrencySetting::limits);
        if let Some(c) = concurrency
            && c.max_active == 0
        {
            return Some(String::from("max_active must be at least 1"));
        }
        if let Some(c) = concurrency
            && c.max_active.saturating_add(c.max_queue) > MAX_SLOTS
        {
            return Some(format!(
                "max_active plus max_queue must be at most {MAX_SLOTS}"
            ));
        }
        if let Some(problem) = self.rate_limit.and_then(|r| r.problem()) {
            return Some(problem);
        }
        if self.timeout.is_some_and(|t| t.is_zero()) {
            return Some(String::from("a time limit must be longer than zero"));
        }
        if (self.auth.required || !self.auth.scopes.is_empty()) && !has_verifier {
            return Some(String::from(
                "it requires credentials, but the server has no token verifier (ServerBuilder::auth)",
            ));
        }
        None
    }
}

/// Server-wide guard settings.
#[derive(Clone, Default)]
pub(crate) struct GuardSettings {
    pub verifier: Option<Arc<dyn TokenVerifier>>,
    /// With a verifier, whether requests without credentials are served
    /// (they see and use only what needs none), or refused at the edge.
    pub allow_anonymous: bool,
    /// How a missing scope is answered over HTTP; `None`: by the verifier
    /// ([`GuardSettings::insufficient_scope`]).
    pub insufficient_scope: Option<InsufficientScope>,
    #[cfg(feature = "redis")]
    pub redis: Option<RedisRateLimitStore>,
    pub key_fn: Option<KeyFn>,
}

impl GuardSettings {
    /// The policy for a missing scope: the one set, else step-up when the
    /// verifier names its protected resource (OAuth), else the envelope.
    #[cfg(feature = "http")]
    pub(crate) fn insufficient_scope(&self) -> InsufficientScope {
        self.insufficient_scope.unwrap_or_else(|| {
            match self.verifier.as_ref().and_then(|v| v.protected_resource()) {
                Some(_) => InsufficientScope::StepUp,
                None => InsufficientScope::Envelope,
            }
        })
    }
}

/// Wraps `service` (validation and everything after it) in the guards of
/// `guards`; `retry_safe` says the action is read-only or idempotent, `labels`
/// name the action in the guards' metrics. Returns the stack and its
/// concurrency guard, if any (for stats).
pub(crate) fn apply(
    guards: &Guards,
    settings: &GuardSettings,
    retry_safe: bool,
    labels: &ActionLabels,
    mut service: ActionService,
) -> (ActionService, Option<Arc<ConcurrencyGuard>>) {
    if let Some(limit) = guards.timeout {
        let guard = timeout::TimeoutGuard {
            limit,
            retry_safe,
            labels: labels.clone(),
        };
        service = layer::wrap(Arc::new(guard), service);
    }
    let concurrency = guards.concurrency.as_ref().map(|setting| {
        Arc::new(ConcurrencyGuard::new(
            setting,
            guards.timeout,
            labels.clone(),
        ))
    });
    if let Some(guard) = &concurrency {
        service = layer::wrap(Arc::clone(guard), service);
    }
    if let Some(limit) = guards.rate_limit {
        let guard = rate_limit::RateLimitGuard::new(limit, settings, labels.clone());
        service = layer::wrap(Arc::new(guard), service);
    }
    if guards.auth.needs_credentials() {
        let guard = auth::AuthGuard {
            rule: guards.auth.clone(),
        };
        service = layer::wrap(Arc::new(guard), service);
    }
    (service, concurrency)
}

impl ConcurrencyGuard {
    /// A snapshot for [`crate::FusionServer::concurrency_stats`].
    pub(crate) fn snapshot(&self) -> ConcurrencyStats {
        self.stats()
    }
}
