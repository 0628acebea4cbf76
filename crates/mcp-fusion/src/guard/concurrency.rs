//! The concurrency guard: at most `max_active` calls run, at most `max_queue`
//! wait (first in, first out), the rest are shed at once with `SERVER_BUSY`
//! (wire contract §5).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use super::layer::Guard;
use crate::error::ToolError;
use crate::metrics_names::{self as names, ActionLabels};
use crate::pipeline::{ActionService, Call, Outcome};

/// How many calls of one action may run and wait at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// Exponentially weighted mean of handler durations, in microseconds.
    mean_micros: AtomicU64,
    /// The action's metric labels.
    labels: ActionLabels,
}

impl ConcurrencyGuard {
    pub fn new(limits: Concurrency, labels: ActionLabels) -> Self {
        ConcurrencyGuard {
            limits,
            admission: Arc::new(Semaphore::new(limits.max_active + limits.max_queue)),
            slots: Arc::new(Semaphore::new(limits.max_active)),
            active: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            shed: AtomicU64::new(0),
            mean_micros: AtomicU64::new(0),
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

    /// How long until a slot is likely free: the mean handler time times the
    /// rounds of work ahead, at least one second.
    fn retry_after(&self) -> Duration {
        let mean = Duration::from_micros(self.mean_micros.load(Ordering::Relaxed));
        let rounds = (self.limits.max_queue / self.limits.max_active.max(1)) as u32 + 1;
        (mean * rounds).max(Duration::from_secs(1))
    }

    fn busy(&self, name: &str) -> ToolError {
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
        let retry_after = self.retry_after();
        let secs = crate::envelope::retry_after_secs(Some(retry_after)).unwrap_or(1);
        let wait = crate::error::seconds_text(secs);
        ToolError::server_busy(format!("{name} is at capacity: {slots} and {queue}."))
            .suggest(format!(
                "Wait about {wait}, then call {name} again. Calls beyond what it runs and queues are turned away at once; send fewer calls in parallel."
            ))
        .detail("max_active", max_active)
        .detail("max_queue", max_queue)
        .retry_after(retry_after)
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
                Arc::clone(&self.slots).acquire_owned().await
            };
            let Ok(slot) = slot else {
                return Err(ToolError::server_busy("The server is shutting down."));
            };
            // Dropped first, also when the call is cancelled: the counts never
            // show more running calls than there are slots.
            let running = Counted::new(&self, Count::Active);
            let started = Instant::now();
            let result = next.oneshot(call).await;
            self.record(started.elapsed());
            drop(running);
            drop(slot);
            drop(admitted);
            result
        })
    }
}
