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
use crate::error::ToolError;
use crate::metrics_names::{self as names, ActionLabels};
use crate::pipeline::{ActionService, Call, Outcome};

/// How many calls of one action may run and wait at once
/// ([`Concurrency::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A snapshot of a concurrency guard.
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

/// The state one guard shares between its calls.
#[derive(Debug)]
pub(crate) struct ConcurrencyGuard {
    limits: Concurrency,
    admission: Arc<Semaphore>,
    slots: Arc<Semaphore>,
    active: AtomicUsize,
    queued: AtomicUsize,
    shed: AtomicU64,
    /// Exponentially weighted mean of handler durations, in microseconds
    /// (0 until a call has finished).
    mean_micros: AtomicU64,
    /// The action's time limit, if it has one.
    timeout: Option<Duration>,
    /// When each running call started, by admission number: the first entry
    /// is the call running longest.
    running: Mutex<Running>,
    /// The action's metric labels.
    labels: ActionLabels,
}

/// The start times of the running calls, keyed by a number that grows with
/// each start (so the first key is the oldest call).
#[derive(Debug, Default)]
struct Running {
    next: u64,
    started: BTreeMap<u64, Instant>,
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

impl ConcurrencyGuard {
    pub fn new(limits: Concurrency, timeout: Option<Duration>, labels: ActionLabels) -> Self {
        ConcurrencyGuard {
            limits,
            admission: Arc::new(Semaphore::new(limits.max_active + limits.max_queue)),
            slots: Arc::new(Semaphore::new(limits.max_active)),
            active: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            shed: AtomicU64::new(0),
            mean_micros: AtomicU64::new(0),
            timeout,
            running: Mutex::new(Running::default()),
            labels,
        }
    }

    pub fn stats(&self) -> ConcurrencyStats {
        ConcurrencyStats {
            active: self.active.load(Ordering::SeqCst),
            queued: self.queued.load(Ordering::SeqCst),
            shed: self.shed.load(Ordering::Relaxed),
        }
    }

    fn record(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let _ = self
            .mean_micros
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |mean| {
                Some(if mean == 0 {
                    micros
                } else {
                    (mean * 7 + micros) / 8
                })
            });
    }

    /// Records a call starting to run; returns its admission number.
    fn started(&self) -> u64 {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let number = running.next;
        running.next += 1;
        running.started.insert(number, Instant::now());
        number
    }

    /// Records the call numbered `number` no longer running.
    fn ended(&self, number: u64) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.started.remove(&number);
    }

    /// How long a shed caller should wait: until the call running longest is
    /// likely done ([`estimate_wait`]), plus [`MARGIN`], at least one second;
    /// and whether that is a guess ([`wait_is_guessed`]). A slot freed then
    /// also frees a place in the queue, so the retried call is admitted.
    fn retry_after(&self) -> (Duration, bool) {
        let elapsed = {
            let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            running
                .started
                .first_key_value()
                .map(|(_, started)| started.elapsed())
        };
        let mean = match self.mean_micros.load(Ordering::Relaxed) {
            0 => None,
            micros => Some(Duration::from_micros(micros)),
        };
        (
            (estimate_wait(elapsed, mean, self.timeout) + MARGIN).max(Duration::from_secs(1)),
            wait_is_guessed(elapsed, mean, self.timeout),
        )
    }

    /// `SERVER_BUSY` for a call of `name`; `shared` when the guard's slots
    /// are shared with other tools (a gateway's mounted tools).
    fn busy(&self, name: &str, shared: bool) -> ToolError {
        self.shed.fetch_add(1, Ordering::Relaxed);
        metrics::counter!(
            names::SHEDS_TOTAL,
            names::TOOL => self.labels.tool.clone(),
            names::ACTION => self.labels.action.clone(),
        )
        .increment(1);
        let Concurrency {
            max_active,
            max_queue,
        } = self.limits;
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
        let sharing = if shared {
            "it shares its slots with the other mounted tools; "
        } else {
            ""
        };
        let (retry_after, guessed) = self.retry_after();
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
            .suggest(format!(
                "Wait about {wait}, then call {name} again{then}. Calls beyond what it runs and queues are turned away at once; send fewer calls in parallel."
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
            number: guard.started(),
            started: Instant::now(),
        }
    }

    /// The call finished: its duration counts towards the mean.
    fn stop(self) {
        self.guard.record(self.started.elapsed());
    }
}

impl Drop for Clock<'_> {
    fn drop(&mut self) {
        self.guard.ended(self.number);
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
        guard.counter(count).fetch_add(1, Ordering::SeqCst);
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
            .counter(self.count)
            .fetch_sub(1, Ordering::SeqCst);
        self.gauge.decrement(1.0);
    }
}

impl ConcurrencyGuard {
    fn counter(&self, count: Count) -> &AtomicUsize {
        match count {
            Count::Queued => &self.queued,
            Count::Active => &self.active,
        }
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
        let Ok(admitted) = Arc::clone(&self.admission).try_acquire_owned() else {
            let busy = self.busy(call.ctx.called(), call.ctx.called() != call.ctx.name());
            return Box::pin(std::future::ready(Err(busy)));
        };
        // Counted now, and uncounted when the future below is dropped, even
        // before it was first polled.
        let waiting = Counted::new(&self, Count::Queued);
        Box::pin(async move {
            let slot = {
                let _waiting = waiting;
                // Dropping this future while it waits leaves the queue.
                Arc::clone(&self.slots).acquire_owned().await
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
