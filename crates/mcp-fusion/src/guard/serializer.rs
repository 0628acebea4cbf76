//! The mutation serializer: calls of one action run one at a time per key
//! (the value of one argument, or the action itself), first come first
//! served; a waiter beyond the queue, or one that waited too long, is
//! refused with `SERVER_BUSY` (wire contract §10).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::Value;
use tower::ServiceExt;

use super::keyed_locks::{KeyedLocks, Refused};
use super::layer::Guard;
use super::mean_duration::MeanDuration;
use crate::error::ToolError;
use crate::pipeline::{ActionService, Call, Outcome};

/// How calls of an action are serialized: one at a time per key, first come
/// first served ([`Action::serialize_by`](crate::Action::serialize_by),
/// [`Action::serialized`](crate::Action::serialized)). A destructive action
/// ([`Action::destructive`](crate::Action::destructive)) is serialized per
/// action unless told otherwise — but not a tool another server lists
/// ([`Action::from_tool`](crate::Action::from_tool), a gateway's mounted
/// tools): that server runs its calls and decides how they may overlap.
///
/// The key is the value of one input argument (`by`: calls on different
/// invoices run side by side, two calls on one invoice one after the other),
/// or, without one, the action itself. Keys are per action: two actions
/// keyed by the same argument do not wait for each other.
///
/// ```
/// use std::time::Duration;
/// use mcp_fusion::guard::Serialized;
/// use mcp_fusion::{Action, ToolError};
///
/// async fn pay() -> Result<&'static str, ToolError> { Ok("paid") }
///
/// // One payment per invoice at a time, 8 waiting at most, for 10 s at most.
/// let action = Action::new("pay_invoice", pay).serialized(
///     Serialized::by("id").max_queue(8).max_wait(Duration::from_secs(10)),
/// );
/// # let _ = action;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Serialized {
    /// The input argument whose value is the key; `None`: one key for the
    /// whole action.
    pub by: Option<String>,
    /// Calls that may wait for one key behind the one that holds it
    /// (default 64); one more is refused at once with `SERVER_BUSY`.
    pub max_queue: usize,
    /// How long a call may wait for its key (default 30 seconds); then it
    /// is refused with `SERVER_BUSY`. Must be longer than zero.
    pub max_wait: Duration,
}

/// [`Serialized::max_queue`]'s default.
pub const DEFAULT_SERIALIZER_QUEUE: usize = 64;

/// [`Serialized::max_wait`]'s default: 30 seconds.
pub const DEFAULT_SERIALIZER_WAIT: Duration = Duration::from_secs(30);

impl Serialized {
    /// One call of the action at a time, whatever its arguments.
    pub fn per_action() -> Self {
        Serialized {
            by: None,
            max_queue: DEFAULT_SERIALIZER_QUEUE,
            max_wait: DEFAULT_SERIALIZER_WAIT,
        }
    }

    /// One call at a time per value of the input argument `argument` (a
    /// top-level property of the input; a call without it is keyed by
    /// `null`, so such calls wait for each other).
    pub fn by(argument: impl Into<String>) -> Self {
        Serialized {
            by: Some(argument.into()),
            ..Serialized::per_action()
        }
    }

    /// At most `calls` wait for one key (0: a call that finds the key held
    /// is refused at once).
    pub fn max_queue(mut self, calls: usize) -> Self {
        self.max_queue = calls;
        self
    }

    /// A call waits at most `limit` for its key.
    pub fn max_wait(mut self, limit: Duration) -> Self {
        self.max_wait = limit;
        self
    }

    /// The setting as `_meta["mcp-fusion/actions"][i].guards.serialize`
    /// shows it: `{"key": "<argument>" | null, "maxQueue", "maxWaitMs"}`.
    pub(crate) fn to_json(&self) -> Value {
        serde_json::json!({
            "key": self.by,
            "maxQueue": self.max_queue,
            "maxWaitMs": self.max_wait.as_millis() as u64,
        })
    }
}

/// An action's serializer setting: on, or turned off (also for a
/// destructive action).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SerializeSetting {
    On(Serialized),
    Off,
}

/// The serializer of one action: its setting, its locks, and how long a
/// call holds its key.
pub(crate) struct SerializerGuard {
    setting: Serialized,
    locks: KeyedLocks,
    /// The mean time a call holds its key.
    mean: MeanDuration,
    /// The Redis store and the action's name in its keys, across replicas.
    #[cfg(feature = "redis")]
    across: Option<(super::RedisGuardStore, String)>,
}

impl SerializerGuard {
    pub(crate) fn new(setting: Serialized) -> Self {
        SerializerGuard {
            setting,
            locks: KeyedLocks::default(),
            mean: MeanDuration::default(),
            #[cfg(feature = "redis")]
            across: None,
        }
    }

    /// The same, serialized across the replicas sharing `store` (`action`
    /// names the action in the lock keys).
    #[cfg(feature = "redis")]
    pub(crate) fn across(mut self, store: super::RedisGuardStore, action: String) -> Self {
        self.across = Some((store, action));
        self
    }

    /// After the process's own lock, the fleet's, until `deadline`; `Err`
    /// when it passed. Nothing without a Redis store.
    #[cfg(feature = "redis")]
    async fn fleet_lock(
        &self,
        key: &str,
        deadline: tokio::time::Instant,
    ) -> Result<Option<super::redis_lock::RedisHold>, Refused> {
        let Some((store, action)) = &self.across else {
            return Ok(None);
        };
        super::redis_lock::hold(store, store.lock_key(action, key), deadline)
            .await
            .map_err(|()| Refused::WaitedTooLong)
    }

    /// The key of a call with `args`: the JSON text of the argument's value
    /// (so that `"1"` and `1` differ), `null` when absent, `""` per action.
    fn key(&self, args: &Value) -> String {
        match &self.setting.by {
            Some(argument) => canonical(args.get(argument).unwrap_or(&Value::Null)),
            None => String::new(),
        }
    }

    /// `SERVER_BUSY` for a call of `name` with `key` refused for `why`
    /// (wire contract §10).
    fn busy(&self, name: &str, key: &str, why: Refused) -> ToolError {
        let key = shown_key(key);
        let key = key.as_str();
        let (per, of_key) = match &self.setting.by {
            Some(argument) => (format!(" per {argument}"), format!(" for {argument} {key}")),
            None => (String::new(), String::new()),
        };
        let (reason, waiting) = match why {
            Refused::QueueFull { waiting: 0 } => {
                (format!("one call{of_key} is running, and none may wait"), 0)
            }
            Refused::QueueFull { waiting } => (
                format!(
                    "one call{of_key} is running and {} waiting, as many as may wait",
                    if waiting == 1 {
                        String::from("1 is")
                    } else {
                        format!("{waiting} are")
                    }
                ),
                waiting,
            ),
            Refused::WaitedTooLong => (
                format!(
                    "this call waited{of_key} for {}, as long as a call may wait",
                    super::timeout::human(self.setting.max_wait)
                ),
                0,
            ),
        };
        let retry_after = self.retry_after(waiting);
        let parallel = match &self.setting.by {
            Some(argument) => format!(" Calls with another {argument} are not held up."),
            None => String::new(),
        };
        let err = ToolError::server_busy(format!("{name} runs one call at a time{per}: {reason}."))
            .next_step(super::retry_step(name))
            .suggest(format!(
                "Wait about {}, then call {name} again; do not send the same change twice in parallel.{parallel}",
                crate::error::seconds_text(retry_after.as_secs())
            ));
        let err = match &self.setting.by {
            Some(argument) => err.detail("serialized_by", argument).detail("key", key),
            None => err,
        };
        err.retry_after(retry_after)
    }

    /// How long a call refused behind `waiting` others should wait, in
    /// whole seconds: until they and the holder are likely done (the mean
    /// time a call holds its key, times their number), at least 1 second and
    /// at most the longest wait allowed.
    fn retry_after(&self, waiting: usize) -> Duration {
        let mean = self.mean.get().unwrap_or_default();
        let ahead = u32::try_from(waiting.saturating_add(1)).unwrap_or(u32::MAX);
        let wait = mean.saturating_mul(ahead);
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        Duration::from_secs(secs.clamp(1, self.setting.max_wait.as_secs().max(1)))
    }

    /// Records that a call held its key for `took`.
    fn record(&self, took: Duration) {
        self.mean.record(took);
    }
}

impl Guard for SerializerGuard {
    fn around(
        self: Arc<Self>,
        call: Call,
        next: ActionService,
    ) -> BoxFuture<'static, Result<Outcome, ToolError>> {
        let key = self.key(&call.args);
        Box::pin(async move {
            let started = Instant::now();
            let held = self
                .locks
                .acquire(key.clone(), self.setting.max_queue, self.setting.max_wait)
                .await;
            #[cfg(feature = "redis")]
            let held = match held {
                Ok(held) => {
                    let deadline = tokio::time::Instant::from_std(started) + self.setting.max_wait;
                    self.fleet_lock(&key, deadline)
                        .await
                        .map(|fleet| (held, fleet))
                }
                Err(why) => Err(why),
            };
            let held = match held {
                Ok(held) => held,
                Err(why) => {
                    tracing::debug!(action = %call.ctx.name(), waited = ?started.elapsed(), "serializer refused a call");
                    return Err(self.busy(call.ctx.name(), &key, why));
                }
            };
            // Held until the call ends, is cancelled or panics.
            let holding = Instant::now();
            let result = next.oneshot(call).await;
            self.record(holding.elapsed());
            drop(held);
            result
        })
    }
}

/// The longest key a refusal quotes whole, in characters.
const SHOWN_KEY_CHARS: usize = 64;

/// `key` as a refusal quotes it: whole up to [`SHOWN_KEY_CHARS`]
/// characters, else its first ones and `…` (an argument of a megabyte is
/// the model's own, and the envelope is never cut by the egress guard).
fn shown_key(key: &str) -> String {
    match key.char_indices().nth(SHOWN_KEY_CHARS) {
        Some((end, _)) => format!("{}…", &key[..end]),
        None => key.to_owned(),
    }
}

/// `value` as compact JSON text with every object's members in name
/// order: one key per value, whatever order the client wrote them in
/// (`{"a":1,"b":2}` and `{"b":2,"a":1}` are the same key).
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(members) => {
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = sorted
                .into_iter()
                .map(|(name, member)| {
                    format!("{}:{}", Value::from(name.as_str()), canonical(member))
                })
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", inner.join(","))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::{Refused, Serialized, SerializerGuard};

    #[test]
    fn a_huge_key_is_quoted_short() {
        let key = format!("\"{}\"", "é".repeat(100_000));
        let err = SerializerGuard::new(Serialized::by("id")).busy(
            "billing.pay",
            &key,
            Refused::QueueFull { waiting: 1 },
        );
        let shown = format!("\"{}…", "é".repeat(63));
        assert_eq!(
            err.message,
            format!(
                "billing.pay runs one call at a time per id: one call for id {shown} is running and 1 is waiting, as many as may wait."
            )
        );
        assert!(format!("{err:?}").len() < 2_000);
    }

    #[test]
    fn an_object_key_is_one_key_whatever_its_members_order() {
        let guard = SerializerGuard::new(Serialized::by("account"));
        let one = guard.key(
            &json!({"account": {"org": "o", "id": 1, "n": {"y": 1, "x": [2, {"b": 1, "a": 0}]}}}),
        );
        let other = guard.key(
            &json!({"account": {"n": {"x": [2, {"a": 0, "b": 1}], "y": 1}, "id": 1, "org": "o"}}),
        );
        assert_eq!(one, other);
        assert_eq!(
            one,
            r#"{"id":1,"n":{"x":[2,{"a":0,"b":1}],"y":1},"org":"o"}"#
        );
        assert_eq!(guard.key(&json!({"account": "INV-1"})), "\"INV-1\"");
        assert_eq!(guard.key(&json!({})), "null");
    }

    fn message(setting: Serialized, why: Refused) -> String {
        SerializerGuard::new(setting)
            .busy("billing.pay", "\"INV-1\"", why)
            .message
    }

    #[test]
    fn each_refusal_says_why() {
        assert_eq!(
            message(
                Serialized::by("id").max_queue(0),
                Refused::QueueFull { waiting: 0 }
            ),
            "billing.pay runs one call at a time per id: one call for id \"INV-1\" is running, and none may wait."
        );
        assert_eq!(
            message(Serialized::by("id"), Refused::QueueFull { waiting: 3 }),
            "billing.pay runs one call at a time per id: one call for id \"INV-1\" is running and 3 are waiting, as many as may wait."
        );
        assert_eq!(
            message(
                Serialized::by("id").max_wait(Duration::from_millis(200)),
                Refused::WaitedTooLong
            ),
            "billing.pay runs one call at a time per id: this call waited for id \"INV-1\" for 200 ms, as long as a call may wait."
        );
    }

    #[test]
    fn the_wait_is_the_mean_hold_times_the_calls_ahead() {
        let guard = SerializerGuard::new(Serialized::by("id"));
        assert_eq!(guard.retry_after(5), Duration::from_secs(1));
        guard.record(Duration::from_millis(1500));
        assert_eq!(guard.retry_after(0), Duration::from_secs(2));
        assert_eq!(guard.retry_after(3), Duration::from_secs(6));
        assert_eq!(guard.retry_after(1_000), Duration::from_secs(30));
    }
}
