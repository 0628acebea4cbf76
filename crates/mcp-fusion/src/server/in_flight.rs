//! Counting calls in progress, so that shutdown can let them finish.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// The number of `tools/call`s in progress.
#[derive(Debug, Default, Clone)]
pub(crate) struct InFlight {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    count: AtomicUsize,
    idle: Notify,
    closing: std::sync::atomic::AtomicBool,
    /// Cancelled when the shutdown grace is over: calls still running stop.
    stop: CancellationToken,
}

/// Held for the length of one call.
pub(crate) struct InFlightGuard {
    inner: Arc<Inner>,
}

impl InFlight {
    /// Counts one call until the guard drops; `None` once the server is
    /// closing (the call must be refused).
    pub fn enter(&self) -> Option<InFlightGuard> {
        self.inner.count.fetch_add(1, Ordering::SeqCst);
        let guard = InFlightGuard {
            inner: Arc::clone(&self.inner),
        };
        // Checked after counting: a call either sees the flag, or is counted
        // before the drain starts waiting.
        (!self.inner.closing.load(Ordering::SeqCst)).then_some(guard)
    }

    /// Whether the server is closing (refusing new calls).
    #[cfg(feature = "http")]
    pub fn is_closing(&self) -> bool {
        self.inner.closing.load(Ordering::SeqCst)
    }

    /// Refuses every call from now on.
    pub fn close(&self) {
        self.inner.closing.store(true, Ordering::SeqCst);
    }

    /// Calls in progress now.
    pub fn count(&self) -> usize {
        self.inner.count.load(Ordering::SeqCst)
    }

    /// Cancelled once the calls still running must stop (the shutdown grace
    /// is over).
    pub fn stopped(&self) -> CancellationToken {
        self.inner.stop.clone()
    }

    /// Stops the calls still running (they end with a "shut down" result).
    pub fn stop(&self) {
        self.inner.stop.cancel();
    }

    /// Waits until no call is in progress, or `limit` passes. Returns the
    /// number still in progress (0 when drained).
    pub async fn drain(&self, limit: Duration) -> usize {
        let wait = async {
            loop {
                let idle = self.inner.idle.notified();
                if self.count() == 0 {
                    return;
                }
                idle.await;
            }
        };
        let _ = tokio::time::timeout(limit, wait).await;
        self.count()
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if self.inner.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.inner.idle.notify_waiters();
        }
    }
}
