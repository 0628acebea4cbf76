//! Runtime guards, as tower layers in front of validation: auth
//! (`AUTH_REQUIRED`, `UNAUTHORIZED`, `FORBIDDEN`), rate limits
//! (`RATE_LIMITED`), the concurrency guard (`SERVER_BUSY`), the mutation
//! serializer (`SERVER_BUSY`, wire contract §10) and time limits
//! (`TIMEOUT`) — wire contract §5. They are set per action (or per group, as
//! defaults for its actions) and checked when the server is built.
//!
//! Order on the call path, outermost first: auth → state gate (wire contract
//! §10) → rate limit → concurrency → mutation serializer → timeout →
//! validation → middleware → handler.

mod auth;
mod concurrency;
mod insufficient_scope;
#[cfg(feature = "jwt")]
mod jwt;
mod keyed_locks;
mod layer;
mod mean_duration;
#[cfg(feature = "oauth")]
mod oauth;
mod protected_resource;
mod rate_limit;
#[cfg(feature = "redis")]
mod redis_guard_store;
#[cfg(feature = "redis")]
mod redis_lock;
#[cfg(feature = "redis")]
mod redis_rate_limit_store;
mod serializer;
mod state_gate;
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
pub use redis_guard_store::RedisGuardStore;
#[cfg(feature = "redis")]
pub use redis_rate_limit_store::{FailMode, RedisRateLimitStore, RedisUrlError};
pub use serializer::{DEFAULT_SERIALIZER_QUEUE, DEFAULT_SERIALIZER_WAIT, Serialized};
pub use state_gate::StateMachine;

#[cfg(feature = "http")]
pub(crate) use auth::BearerRefusal;
pub(crate) use auth::{AuthRule, unauthorized, verify_bearer};
pub(crate) use concurrency::{ConcurrencyGuard, ConcurrencySetting};
pub(crate) use serializer::SerializeSetting;
pub(crate) use state_gate::{ActionGate, Gates};

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

/// The guard settings of one action, or the defaults a group gives its
/// actions; for an rmcp router, the guards of one of its tools
/// ([`RouterContract::guards`](crate::router_contract::RouterContract::guards)).
///
/// Built with [`Guards::new`] and the setters below; an action, a group, a
/// prompt or a resource sets the same ones through its own setters (and
/// also who may use it, which needs the server's token verifier).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guards {
    pub(crate) concurrency: Option<ConcurrencySetting>,
    pub(crate) rate_limit: Option<RateLimit>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) serialize: Option<SerializeSetting>,
    pub(crate) auth: AuthRule,
}

impl Guards {
    /// No guard at all.
    pub fn new() -> Self {
        Guards::default()
    }

    /// At most `max_active` calls run at once and `max_queue` wait (first
    /// in, first out); more are shed at once with `SERVER_BUSY` and the wait
    /// it estimates (from the calls that finished, else from the time
    /// limit) as its retry-after. `max_active` must be at least 1 and
    /// the two together at most [`MAX_SLOTS`] (checked when the server or
    /// router is built). Replaces a shared limit.
    pub fn concurrency(mut self, max_active: usize, max_queue: usize) -> Self {
        self.concurrency = Some(ConcurrencySetting::Own(Concurrency::new(
            max_active, max_queue,
        )));
        self
    }

    /// Counts the calls against `limit`, shared with everything given the
    /// same one ([`SharedConcurrency`]). Replaces a limit of its own.
    pub fn concurrency_shared(mut self, limit: &SharedConcurrency) -> Self {
        self.concurrency = Some(ConcurrencySetting::Shared(limit.clone()));
        self
    }

    /// Limits the rate of the calls (GCRA); over the limit, `RATE_LIMITED`
    /// with the time until the next call would pass (wire contract §5).
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// Stops a call that runs longer than `limit` (`TIMEOUT`; its future is
    /// dropped). The time spent waiting in the concurrency queue does not
    /// count. Must be longer than zero (checked when built).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Runs the calls one at a time per key, first come first served
    /// ([`Serialized`]): per value of an argument, or per action. Replaces
    /// [`not_serialized`](Self::not_serialized).
    pub fn serialized(mut self, setting: Serialized) -> Self {
        self.serialize = Some(SerializeSetting::On(setting));
        self
    }

    /// Runs the calls side by side, also for a destructive action (which is
    /// otherwise serialized per action).
    pub fn not_serialized(mut self) -> Self {
        self.serialize = Some(SerializeSetting::Off);
        self
    }

    /// These settings, where no serializer was set, with a destructive
    /// action's: one call at a time per action ([`Serialized::per_action`]).
    pub(crate) fn destructive_default(mut self, destructive: bool) -> Guards {
        if destructive && self.serialize.is_none() {
            self.serialize = Some(SerializeSetting::On(Serialized::per_action()));
        }
        self
    }

    /// The serializer in force, if any.
    fn serializer(&self) -> Option<&Serialized> {
        match &self.serialize {
            Some(SerializeSetting::On(setting)) => Some(setting),
            _ => None,
        }
    }

    /// These settings, with every one left unset taken from `defaults`.
    pub(crate) fn or(&self, defaults: &Guards) -> Guards {
        Guards {
            concurrency: self
                .concurrency
                .clone()
                .or_else(|| defaults.concurrency.clone()),
            rate_limit: self.rate_limit.or(defaults.rate_limit),
            timeout: self.timeout.or(defaults.timeout),
            serialize: self
                .serialize
                .clone()
                .or_else(|| defaults.serialize.clone()),
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
    /// "maxQueue", "rateLimit": {"calls", "periodMs", "scope"}, "timeoutMs",
    /// "serialize": {"key", "maxQueue", "maxWaitMs"}}`, each member only when
    /// set.
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
        if let Some(s) = self.serializer() {
            object.insert("serialize".into(), s.to_json());
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
        if self.serializer().is_some_and(|s| s.max_wait.is_zero()) {
            return Some(String::from(
                "a serializer's longest wait must be longer than zero",
            ));
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
    /// The state gate's states and the serializer's locks in Redis.
    #[cfg(feature = "redis")]
    pub guard_store: Option<RedisGuardStore>,
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

/// The guards of one capability, built once from its settings: they hold
/// its state (rate-limit buckets, concurrency slots, the serializer's keys,
/// the clock of its running calls) and go around its stack
/// ([`GuardChain::around`]).
#[derive(Clone)]
pub(crate) struct GuardChain {
    /// Outermost first: auth, state gate, rate limit, concurrency,
    /// serializer, time limit.
    guards: Vec<Arc<dyn layer::Guard>>,
    /// The concurrency guard, if any (for stats).
    pub concurrency: Option<Arc<ConcurrencyGuard>>,
}

impl GuardChain {
    /// The guards of `guards`; `retry_safe` says the action is read-only or
    /// idempotent, `labels` name the action in the guards' metrics, `gate`
    /// is its state gate, if a state machine names it.
    pub fn new(
        guards: &Guards,
        settings: &GuardSettings,
        retry_safe: bool,
        labels: &ActionLabels,
        gate: Option<&ActionGate>,
    ) -> Self {
        let mut chain: Vec<Arc<dyn layer::Guard>> = Vec::new();
        if guards.auth.needs_credentials() {
            chain.push(Arc::new(auth::AuthGuard {
                rule: guards.auth.clone(),
            }));
        }
        if let Some(gate) = gate {
            chain.push(Arc::new(state_gate::StateGateGuard { gate: gate.clone() }));
        }
        if let Some(limit) = guards.rate_limit {
            let guard = rate_limit::RateLimitGuard::new(limit, settings, labels.clone());
            chain.push(Arc::new(guard));
        }
        let concurrency = guards.concurrency.as_ref().map(|setting| {
            Arc::new(ConcurrencyGuard::new(
                setting,
                guards.timeout,
                labels.clone(),
            ))
        });
        if let Some(guard) = &concurrency {
            chain.push(Arc::clone(guard) as Arc<dyn layer::Guard>);
        }
        if let Some(setting) = guards.serializer() {
            let guard = serializer::SerializerGuard::new(setting.clone());
            #[cfg(feature = "redis")]
            let guard = match &settings.guard_store {
                Some(store) => {
                    guard.across(store.clone(), format!("{}.{}", labels.tool, labels.action))
                }
                None => guard,
            };
            chain.push(Arc::new(guard));
        }
        if let Some(limit) = guards.timeout {
            chain.push(Arc::new(timeout::TimeoutGuard {
                limit,
                retry_safe,
                labels: labels.clone(),
            }));
        }
        GuardChain {
            guards: chain,
            concurrency,
        }
    }

    /// `service` (validation and everything after it) behind every guard.
    pub fn around(&self, mut service: ActionService) -> ActionService {
        for guard in self.guards.iter().rev() {
            service = layer::wrap(Arc::clone(guard), service);
        }
        service
    }
}

impl ConcurrencyGuard {
    /// A snapshot for [`crate::FusionServer::concurrency_stats`].
    pub(crate) fn snapshot(&self) -> ConcurrencyStats {
        self.stats()
    }
}
