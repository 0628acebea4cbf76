//! The concurrency guard: at most `max_active` calls run, at most `max_queue`
//! wait (first in, first out), the rest are shed at once with `SERVER_BUSY`
//! (wire contract §5).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tower::ServiceExt;

use super::layer::Guard;
use super::mean_duration::MeanDuration;
use crate::error::ToolError;
use crate::metrics_names::{self as names, ActionLabels};
use crate::pipeline::{ActionService, Call, Outcome};

/// How many calls of one action may run and wait at once
/// ([`Concurrency::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Concurrency {
    /// Calls running at once (at least 1).
    pub max_active: usize,
    /// Calls waiting for a slot, first in first out (0 sheds as soon as all slots are busy).
    pub max_queue: usize,
}

impl Concurrency {
    /// `max_active` running and `max_queue` waiting.
    pub fn new(max_active: usize, max_queue: usize) -> Self {
        Concurrency {
            max_active,
            max_queue,
        }
    }
}

/// A snapshot of a concurrency guard (of all the calls of the capabilities
/// that share it, for a [`SharedConcurrency`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConcurrencyStats {
    /// Calls running now.
    pub active: usize,
    /// Calls waiting for a slot now.
    pub queued: usize,
    /// Calls shed with `SERVER_BUSY` since the server started.
    pub shed: u64,
}

/// One concurrency limit that several capabilities share: at most
/// `max_active` of their calls, all together, run at once, `max_queue` wait
/// (first in, first out), and more are shed at once with `SERVER_BUSY` —
/// where [`Action::concurrency`](crate::Action::concurrency) gives each
/// capability slots of its own. Give the same one to each capability with
/// `concurrency_shared` ([`Action::concurrency_shared`](crate::Action::concurrency_shared),
/// and the same setter on groups, prompts, resources and templates): a
/// gateway's mounted tools share one this way. Cheap to clone: the clones
/// are the same slots.
///
/// ```
/// use mcp_fusion::guard::SharedConcurrency;
/// use mcp_fusion::{Action, FusionServer, ToolError};
///
/// async fn export() -> Result<&'static str, ToolError> { Ok("done") }
/// async fn import() -> Result<&'static str, ToolError> { Ok("done") }
///
/// // Two heavy tools, one at a time between them, one more waiting.
/// let heavy = SharedConcurrency::new(1, 1).shared_with("the other bulk tools");
/// let server = FusionServer::builder("bulk", "1.0.0")
///     .tool(Action::new("export", export).concurrency_shared(&heavy))
///     .tool(Action::new("import", import).concurrency_shared(&heavy))
///     .build()
///     .expect("a valid definition");
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct SharedConcurrency {
    slots: Arc<Slots>,
    /// How `SERVER_BUSY` names those that share the slots.
    who: Arc<str>,
}

/// How `SERVER_BUSY` names the capabilities sharing a [`SharedConcurrency`]
/// unless told otherwise.
const SHARED_WITH_DEFAULT: &str = "other tools";

impl SharedConcurrency {
    /// `max_active` calls running and `max_queue` waiting, counted over
    /// every capability given it. `max_active` must be at least 1 (checked
    /// when a capability with it is built, as for
    /// [`Action::concurrency`](crate::Action::concurrency)).
    pub fn new(max_active: usize, max_queue: usize) -> Self {
        SharedConcurrency {
            slots: Arc::new(Slots::new(Concurrency::new(max_active, max_queue))),
            who: Arc::from(SHARED_WITH_DEFAULT),
        }
    }

    /// How the `SERVER_BUSY` of a call it sheds names the capabilities the
    /// called one shares its slots with: `"<name> is at capacity: it shares
    /// its slots with <who>; …"`. Default `"other tools"`; a gateway says
    /// `"the other mounted tools"`. Set it before handing the limit out:
    /// clones made earlier keep the text they had.
    pub fn shared_with(mut self, who: impl Into<String>) -> Self {
        self.who = Arc::from(who.into());
        self
    }

    /// Its limits.
    pub fn limits(&self) -> Concurrency {
        self.slots.limits
    }

    /// The calls running and waiting now, and those shed so far, over every
    /// capability that shares it.
    pub fn stats(&self) -> ConcurrencyStats {
        self.slots.stats()
    }
}

impl PartialEq for SharedConcurrency {
    /// The same slots, named the same way.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.slots, &other.slots) && self.who == other.who
    }
}

impl Eq for SharedConcurrency {}

impl std::fmt::Debug for SharedConcurrency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedConcurrency")
            .field("limits", &self.slots.limits)
            .field("shared_with", &self.who)
            .finish()
    }
}

/// The concurrency setting of one capability: slots of its own, or slots
/// it shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConcurrencySetting {
    /// `concurrency(max_active, max_queue)`: its own slots.
    Own(Concurrency),
    /// `concurrency_shared(&limit)`.
    Shared(SharedConcurrency),
}

impl ConcurrencySetting {
    /// The limits, its own or the shared ones.
    pub(crate) fn limits(&self) -> Concurrency {
        match self {
            ConcurrencySetting::Own(limits) => *limits,
            ConcurrencySetting::Shared(shared) => shared.limits(),
        }
    }
}

/// The slots of a concurrency limit and what they saw: one capability's
/// own, or those of a [`SharedConcurrency`].
#[derive(Debug)]
pub(crate) struct Slots {
    limits: Concurrency,
    admission: Arc<Semaphore>,
    slots: Arc<Semaphore>,
    active: AtomicUsize,
    queued: AtomicUsize,
    shed: AtomicU64,
    /// The mean duration of the calls that finished.
    mean: MeanDuration,
    /// When each running call started, and its time limit, by admission
    /// number: the first entry is the call running longest.
    running: Mutex<Running>,
}

/// The guard of one capability: its slots (its own or shared), its time
/// limit and its metric labels.
#[derive(Debug)]
pub(crate) struct ConcurrencyGuard {
    slots: Arc<Slots>,
    /// The capability's time limit, if it has one.
    timeout: Option<Duration>,
    /// The capability's metric labels.
    labels: ActionLabels,
    /// With shared slots: how `SERVER_BUSY` names those sharing them.
    shared_with: Option<Arc<str>>,
}

/// The start times (and time limits) of the running calls, keyed by a
/// number that grows with each start (so the first key is the oldest call).
#[derive(Debug, Default)]
struct Running {
    next: u64,
    started: BTreeMap<u64, (Instant, Option<Duration>)>,
}

/// Added to every `SERVER_BUSY` estimate, so that a caller waiting exactly
/// the hinted time arrives after the slot is free, not just before.
const MARGIN: Duration = Duration::from_millis(250);

/// How long until a slot of a full guard is likely free (before [`MARGIN`]):
/// the call running longest ends first.
///
/// - `elapsed`: how long that call has been running (`None`: no call runs).
/// - `mean`: the observed mean duration of the action's calls (`None` until
///   one has finished).
/// - `timeout`: the action's time limit, the latest any call can end.
///
/// The call is expected to take the mean, and at most the timeout. When it
/// has run past the mean, it ends by the timeout (or, with no timeout, after
/// about another mean). With nothing observed and no timeout, it is guessed to
/// run about as long again as it has run so far.
pub(crate) fn estimate_wait(
    elapsed: Option<Duration>,
    mean: Option<Duration>,
    timeout: Option<Duration>,
) -> Duration {
    let Some(elapsed) = elapsed else {
        return mean.unwrap_or_default();
    };
    match (mean, timeout) {
        (Some(mean), _) if elapsed < mean => mean - elapsed,
        (_, Some(timeout)) if elapsed < timeout => timeout - elapsed,
        (Some(mean), _) => mean,
        (None, _) => elapsed,
    }
}

/// Whether [`estimate_wait`] can only guess: no call has finished (no mean)
/// and no time limit bounds the running one (none, or already passed).
pub(crate) fn wait_is_guessed(
    elapsed: Option<Duration>,
    mean: Option<Duration>,
    timeout: Option<Duration>,
) -> bool {
    mean.is_none() && timeout.is_none_or(|limit| elapsed.is_some_and(|e| e >= limit))
}

impl Slots {
    /// Slots for `limits`. Limits a build refuses (more than
    /// [`MAX_SLOTS`](super::MAX_SLOTS) together) are cut to it here, so that
    /// making a [`SharedConcurrency`] never panics.
    fn new(limits: Concurrency) -> Self {
        let admitted = limits.max_active.saturating_add(limits.max_queue);
        Slots {
            limits,
            admission: Arc::new(Semaphore::new(admitted.min(super::MAX_SLOTS))),
            slots: Arc::new(Semaphore::new(limits.max_active.min(super::MAX_SLOTS))),
            active: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            shed: AtomicU64::new(0),
            mean: MeanDuration::default(),
            running: Mutex::new(Running::default()),
        }
    }

    fn stats(&self) -> ConcurrencyStats {
        ConcurrencyStats {
            active: self.active.load(Ordering::SeqCst),
            queued: self.queued.load(Ordering::SeqCst),
            shed: self.shed.load(Ordering::Relaxed),
        }
    }

    fn record(&self, took: Duration) {
        self.mean.record(took);
    }

    /// Records a call with time limit `timeout` starting to run; returns
    /// its admission number.
    fn started(&self, timeout: Option<Duration>) -> u64 {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let number = running.next;
        running.next += 1;
        running.started.insert(number, (Instant::now(), timeout));
        number
    }

    /// Records the call numbered `number` no longer running.
    fn ended(&self, number: u64) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.started.remove(&number);
    }

    /// How long a shed caller should wait: until the call running longest is
    /// likely done ([`estimate_wait`], with that call's time limit), plus
    /// [`MARGIN`], at least one second; and whether that is a guess
    /// ([`wait_is_guessed`]). A slot freed then also frees a place in the
    /// queue, so the retried call is admitted.
    fn retry_after(&self) -> (Duration, bool) {
        let (elapsed, timeout) = {
            let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            match running.started.first_key_value() {
                Some((_, (started, timeout))) => (Some(started.elapsed()), *timeout),
                None => (None, None),
            }
        };
        let mean = self.mean.get();
        (
            (estimate_wait(elapsed, mean, timeout) + MARGIN).max(Duration::from_secs(1)),
            wait_is_guessed(elapsed, mean, timeout),
        )
    }

    fn counter(&self, count: Count) -> &AtomicUsize {
        match count {
            Count::Queued => &self.queued,
            Count::Active => &self.active,
        }
    }
}

impl ConcurrencyGuard {
    /// The guard of a capability with `setting`, time limit `timeout` and
    /// metric labels `labels`.
    pub fn new(
        setting: &ConcurrencySetting,
        timeout: Option<Duration>,
        labels: ActionLabels,
    ) -> Self {
        let (slots, shared_with) = match setting {
            ConcurrencySetting::Own(limits) => (Arc::new(Slots::new(*limits)), None),
            ConcurrencySetting::Shared(shared) => {
                (Arc::clone(&shared.slots), Some(Arc::clone(&shared.who)))
            }
        };
        ConcurrencyGuard {
            slots,
            timeout,
            labels,
            shared_with,
        }
    }

    /// Its slots' state (over every capability sharing them).
    pub fn stats(&self) -> ConcurrencyStats {
        self.slots.stats()
    }

    /// `SERVER_BUSY` for a call of `name`.
    fn busy(&self, name: &str) -> ToolError {
        self.slots.shed.fetch_add(1, Ordering::Relaxed);
        metrics::counter!(
            names::SHEDS_TOTAL,
            names::TOOL => self.labels.tool.clone(),
            names::ACTION => self.labels.action.clone(),
        )
        .increment(1);
        let Concurrency {
            max_active,
            max_queue,
        } = self.slots.limits;
        let slots = if max_active == 1 {
            String::from("its only slot is taken")
        } else {
            format!("all {max_active} of its slots are taken")
        };
        let queue = match max_queue {
            0 => String::from("it keeps no queue"),
            1 => String::from("its queue of 1 call is full"),
            n => format!("its queue of {n} calls is full"),
        };
        let sharing = match &self.shared_with {
            Some(who) => format!("it shares its slots with {who}; "),
            None => String::new(),
        };
        let verb = super::verb(name);
        let (retry_after, guessed) = self.slots.retry_after();
        let secs = crate::error::envelope_secs(Some(retry_after)).unwrap_or(1);
        let wait = crate::error::seconds_text(secs);
        // With nothing to go on, the wait says it is a guess and how to go on.
        let then = if guessed {
            String::from(
                "; no call of it has finished yet, so that wait is a guess: if it is still at capacity then, wait twice as long",
            )
        } else {
            String::new()
        };
        ToolError::server_busy(format!("{name} is at capacity: {sharing}{slots} and {queue}."))
            .next_step(super::retry_step(name))
            .suggest(format!(
                "Wait about {wait}, then {verb} {name} again{then}. Calls beyond what it runs and queues are turned away at once; send fewer calls in parallel."
            ))
        .detail("max_active", max_active)
        .detail("max_queue", max_queue)
        .retry_after(retry_after)
    }
}

/// A running call's entry in its guard's start times; removed when dropped
/// (also when the call is cancelled), and its duration recorded when stopped.
struct Clock<'a> {
    guard: &'a ConcurrencyGuard,
    number: u64,
    started: Instant,
}

impl<'a> Clock<'a> {
    fn start(guard: &'a ConcurrencyGuard) -> Self {
        Clock {
            guard,
            number: guard.slots.started(guard.timeout),
            started: Instant::now(),
        }
    }

    /// The call finished: its duration counts towards the mean.
    fn stop(self) {
        self.guard.slots.record(self.started.elapsed());
    }
}

impl Drop for Clock<'_> {
    fn drop(&mut self) {
        self.guard.slots.ended(self.number);
    }
}

/// Which count of a guard a call is in.
#[derive(Clone, Copy)]
enum Count {
    Queued,
    Active,
}

/// Counts a call as queued or active (in the guard's stats and in the
/// matching gauge) until dropped.
struct Counted {
    guard: Arc<ConcurrencyGuard>,
    count: Count,
    gauge: metrics::Gauge,
}

impl Counted {
    fn new(guard: &Arc<ConcurrencyGuard>, count: Count) -> Self {
        let name = match count {
            Count::Queued => names::GUARD_QUEUED,
            Count::Active => names::GUARD_ACTIVE,
        };
        let gauge = metrics::gauge!(
            name,
            names::TOOL => guard.labels.tool.clone(),
            names::ACTION => guard.labels.action.clone(),
        );
        guard.slots.counter(count).fetch_add(1, Ordering::SeqCst);
        gauge.increment(1.0);
        Counted {
            guard: Arc::clone(guard),
            count,
            gauge,
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.guard
            .slots
            .counter(self.count)
            .fetch_sub(1, Ordering::SeqCst);
        self.gauge.decrement(1.0);
    }
}

impl Guard for ConcurrencyGuard {
    fn around(
        self: Arc<Self>,
        call: Call,
        next: ActionService,
    ) -> BoxFuture<'static, Result<Outcome, ToolError>> {
        // Admission is decided now, synchronously: a full guard sheds without
        // waiting for anything.
        let Ok(admitted) = Arc::clone(&self.slots.admission).try_acquire_owned() else {
            let busy = self.busy(call.ctx.name());
            return Box::pin(std::future::ready(Err(busy)));
        };
        // Counted now, and uncounted when the future below is dropped, even
        // before it was first polled.
        let waiting = Counted::new(&self, Count::Queued);
        Box::pin(async move {
            let slot = {
                let _waiting = waiting;
                // Dropping this future while it waits leaves the queue.
                Arc::clone(&self.slots.slots).acquire_owned().await
            };
            let Ok(slot) = slot else {
                return Err(ToolError::server_busy("The server is shutting down."));
            };
            // Dropped first, also when the call is cancelled: the counts never
            // show more running calls than there are slots.
            let running = Counted::new(&self, Count::Active);
            let clock = Clock::start(&self);
            let result = next.oneshot(call).await;
            clock.stop();
            drop(running);
            drop(slot);
            drop(admitted);
            result
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{estimate_wait, wait_is_guessed};
    use std::time::Duration;

    fn s(secs: f64) -> Duration {
        Duration::from_secs_f64(secs)
    }

    #[test]
    fn the_oldest_call_is_expected_to_take_the_mean() {
        // 1.5 s into a call whose kind takes 5 s: 3.5 s left.
        assert_eq!(estimate_wait(Some(s(1.5)), Some(s(5.0)), None), s(3.5));
        assert_eq!(
            estimate_wait(Some(s(1.5)), Some(s(5.0)), Some(s(8.0))),
            s(3.5)
        );
    }

    #[test]
    fn with_nothing_observed_the_timeout_bounds_the_call() {
        assert_eq!(estimate_wait(Some(s(1.5)), None, Some(s(5.0))), s(3.5));
    }

    #[test]
    fn a_call_past_its_mean_ends_by_the_timeout() {
        assert_eq!(
            estimate_wait(Some(s(6.0)), Some(s(5.0)), Some(s(10.0))),
            s(4.0)
        );
    }

    #[test]
    fn a_call_past_its_mean_without_timeout_gets_another_mean() {
        assert_eq!(estimate_wait(Some(s(6.0)), Some(s(5.0)), None), s(5.0));
    }

    #[test]
    fn with_nothing_known_the_call_runs_as_long_again() {
        assert_eq!(estimate_wait(Some(s(1.5)), None, None), s(1.5));
    }

    #[test]
    fn with_no_call_running_the_mean_or_nothing() {
        assert_eq!(estimate_wait(None, Some(s(2.0)), None), s(2.0));
        assert_eq!(estimate_wait(None, None, Some(s(2.0))), Duration::ZERO);
    }

    #[test]
    fn a_wait_is_guessed_only_with_no_mean_and_no_time_limit_ahead() {
        let s = Duration::from_secs_f64;
        assert!(wait_is_guessed(Some(s(1.5)), None, None));
        assert!(wait_is_guessed(Some(s(9.0)), None, Some(s(8.0))));
        assert!(!wait_is_guessed(Some(s(1.5)), None, Some(s(8.0))));
        assert!(!wait_is_guessed(Some(s(1.5)), Some(s(5.0)), None));
    }
}
