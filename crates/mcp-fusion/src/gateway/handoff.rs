//! [`Handoff`]: a handler's request to hand its caller over to an upstream,
//! and the per-caller table of active handoffs, bounded in size and time.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A handoff to the upstream mounted under [`namespace`](Self::namespace)
/// (one with [`Exposure::Handoff`](super::Exposure::Handoff)), returned by a
/// handler through [`Gateway::handoff`](super::Gateway::handoff).
#[derive(Debug, Clone, PartialEq)]
pub struct Handoff {
    /// The namespace to hand over to.
    pub namespace: String,
    /// Why, in a short sentence the model reads in the acknowledgement.
    /// Default none.
    pub reason: Option<String>,
    /// What the specialist should know, carried over from triage: sent with
    /// every forwarded call in `_meta` under
    /// [`HANDOFF_META_KEY`](super::HANDOFF_META_KEY), and read back with
    /// [`Gateway::carried_over`](super::Gateway::carried_over). Default
    /// `null`.
    pub state: Value,
}

impl Handoff {
    /// A handoff to `namespace`, without reason or state.
    pub fn to(namespace: impl Into<String>) -> Self {
        Handoff {
            namespace: namespace.into(),
            reason: None,
            state: Value::Null,
        }
    }

    /// Sets [`reason`](Self::reason).
    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// Sets [`state`](Self::state).
    pub fn state(mut self, state: Value) -> Self {
        self.state = state;
        self
    }
}

/// Where one caller's handoff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress {
    /// Acknowledged; the upstream's connection is not settled yet.
    Awaiting,
    /// Its upstream answered (or was already connected).
    Settled,
    /// Its connection failed after the acknowledgement: to be told on the
    /// caller's next call to the namespace.
    Failed,
}

#[derive(Debug)]
struct Active {
    namespace: String,
    reason: Option<String>,
    state: Value,
    progress: Progress,
    touched: Instant,
}

/// The active handoffs, by caller key: at most `max` callers, each for
/// `ttl` after its last use.
#[derive(Debug)]
pub(crate) struct Handoffs {
    max: usize,
    ttl: Duration,
    table: Mutex<HashMap<String, Active>>,
}

impl Handoffs {
    pub(crate) fn new(max: usize, ttl: Duration) -> Self {
        Handoffs {
            max,
            ttl,
            table: Mutex::new(HashMap::new()),
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<String, Active>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts `caller`'s handoff to `handoff.namespace` (ending any other it
    /// had), awaiting its connection. Expired entries go first; when the
    /// table is still full, the least recently used entry goes: returns its
    /// caller, whose tools changed.
    pub(crate) fn start(&self, caller: &str, handoff: &Handoff) -> Option<String> {
        let now = Instant::now();
        let mut table = self.table();
        table.retain(|_, a| now.duration_since(a.touched) < self.ttl);
        let mut evicted = None;
        if table.len() >= self.max
            && !table.contains_key(caller)
            && let Some(oldest) = table
                .iter()
                .min_by_key(|(_, a)| a.touched)
                .map(|(k, _)| k.clone())
        {
            table.remove(&oldest);
            evicted = Some(oldest);
        }
        table.insert(
            caller.to_owned(),
            Active {
                namespace: handoff.namespace.clone(),
                reason: handoff.reason.clone(),
                state: handoff.state.clone(),
                progress: Progress::Awaiting,
                touched: now,
            },
        );
        evicted
    }

    /// `caller`'s active namespace and its progress (and marks it used), or
    /// `None` (none, or expired).
    pub(crate) fn active(&self, caller: &str) -> Option<(String, Progress)> {
        let now = Instant::now();
        let mut table = self.table();
        let expired = table
            .get(caller)
            .is_some_and(|a| now.duration_since(a.touched) >= self.ttl);
        if expired {
            table.remove(caller);
            return None;
        }
        let active = table.get_mut(caller)?;
        active.touched = now;
        Some((active.namespace.clone(), active.progress))
    }

    /// The carried-over state of `caller`'s active handoff.
    pub(crate) fn state(&self, caller: &str) -> Option<Value> {
        self.table().get(caller).map(|a| a.state.clone())
    }

    /// What `caller`'s active handoff to `namespace` carries over to the
    /// upstream: `{"reason": <reason or null>, "state": <state>}`.
    pub(crate) fn carried(&self, caller: &str, namespace: &str) -> Option<Value> {
        let table = self.table();
        let active = table.get(caller).filter(|a| a.namespace == namespace)?;
        Some(serde_json::json!({"reason": active.reason, "state": active.state}))
    }

    /// Takes `caller`'s failed handoff to `namespace`, if it failed: the
    /// failure is told once.
    pub(crate) fn take_failure(&self, caller: &str, namespace: &str) -> bool {
        let mut table = self.table();
        match table.get_mut(caller) {
            Some(a) if a.namespace == namespace && a.progress == Progress::Failed => {
                a.progress = Progress::Settled;
                true
            }
            _ => false,
        }
    }

    /// Settles every handoff to `namespace` still awaiting its connection:
    /// `Settled` when it connected, `Failed` when not. Returns their callers.
    pub(crate) fn settle(&self, namespace: &str, connected: bool) -> Vec<String> {
        let mut table = self.table();
        table
            .iter_mut()
            .filter(|(_, a)| a.namespace == namespace && a.progress == Progress::Awaiting)
            .map(|(caller, a)| {
                a.progress = if connected {
                    Progress::Settled
                } else {
                    Progress::Failed
                };
                caller.clone()
            })
            .collect()
    }

    /// The callers with an active handoff to `namespace`.
    pub(crate) fn callers_of(&self, namespace: &str) -> Vec<String> {
        self.table()
            .iter()
            .filter(|(_, a)| a.namespace == namespace)
            .map(|(caller, _)| caller.clone())
            .collect()
    }

    /// Ends `caller`'s handoff to `namespace`; whether it had one.
    pub(crate) fn end(&self, caller: &str, namespace: &str) -> bool {
        let mut table = self.table();
        if table.get(caller).is_some_and(|a| a.namespace == namespace) {
            table.remove(caller);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_bounded_and_drops_the_least_recently_used() {
        let handoffs = Handoffs::new(2, Duration::from_secs(60));
        assert_eq!(handoffs.start("a", &Handoff::to("finance")), None);
        assert_eq!(handoffs.start("b", &Handoff::to("finance")), None);
        assert!(handoffs.active("a").is_some());
        assert_eq!(
            handoffs.start("c", &Handoff::to("finance")),
            Some(String::from("b"))
        );
        assert!(handoffs.active("b").is_none());
        assert!(handoffs.active("a").is_some());
        assert!(handoffs.active("c").is_some());
    }

    #[test]
    fn entries_expire_after_the_ttl() {
        let handoffs = Handoffs::new(10, Duration::from_millis(1));
        handoffs.start("a", &Handoff::to("finance"));
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(handoffs.active("a"), None);
    }

    #[test]
    fn a_failure_is_told_once() {
        let handoffs = Handoffs::new(10, Duration::from_secs(60));
        handoffs.start("a", &Handoff::to("finance"));
        assert_eq!(handoffs.settle("finance", false), ["a"]);
        assert!(handoffs.take_failure("a", "finance"));
        assert!(!handoffs.take_failure("a", "finance"));
        assert_eq!(
            handoffs.active("a"),
            Some((String::from("finance"), Progress::Settled))
        );
    }
}
