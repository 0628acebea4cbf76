//! The time limit of an action: past it, the handler's future is dropped and
//! the call ends with `TIMEOUT` (wire contract §5).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use tower::ServiceExt;

use super::layer::Guard;
use crate::error::ToolError;
use crate::metrics_names::{self as names, ActionLabels};
use crate::pipeline::{ActionService, Call, Outcome};

/// A duration as people write it, e.g. `1.5s` → "1.5 s", `250ms` → "250 ms".
pub(crate) fn human(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1_000) || ms >= 10_000 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} s", duration.as_secs_f64())
    }
}

/// The `TIMEOUT` error for an action that ran past `limit`. `retry_safe`
/// (read-only or idempotent) says whether calling it again is harmless: work
/// the handler started elsewhere (a database write) may have finished anyway.
pub(crate) fn timed_out(name: &str, limit: Duration, retry_safe: bool) -> ToolError {
    let err = ToolError::timeout(format!(
        "{name} took longer than its limit of {} and was stopped.",
        human(limit)
    ))
    .detail("limit_ms", limit.as_millis());
    if retry_safe {
        err.suggest("Ask for less (a narrower request: fewer items, a shorter period); the same request may take as long again. If it cannot be narrowed, retry it once later or tell the user it did not finish in time.")
    } else {
        err.suggest("Its changes may have been made before it was stopped: check whether they were (read the item) before calling it again, so as not to make them twice.")
    }
}

/// Cancels the rest of the call after `limit`.
#[derive(Debug, Clone)]
pub(crate) struct TimeoutGuard {
    pub limit: Duration,
    /// The action is read-only or idempotent.
    pub retry_safe: bool,
    /// The action's metric labels.
    pub labels: ActionLabels,
}

impl Guard for TimeoutGuard {
    fn around(
        self: Arc<Self>,
        call: Call,
        next: ActionService,
    ) -> BoxFuture<'static, Result<Outcome, ToolError>> {
        let name = call.ctx.name().to_owned();
        Box::pin(async move {
            match tokio::time::timeout(self.limit, next.oneshot(call)).await {
                Ok(result) => result,
                Err(_) => {
                    tracing::debug!(action = %name, "time limit passed");
                    metrics::counter!(
                        names::TIMEOUTS_TOTAL,
                        names::TOOL => self.labels.tool.clone(),
                        names::ACTION => self.labels.action.clone(),
                    )
                    .increment(1);
                    Err(timed_out(&name, self.limit, self.retry_safe))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human(Duration::from_millis(250)), "250 ms");
        assert_eq!(human(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(human(Duration::from_secs(2)), "2 s");
        assert_eq!(human(Duration::from_secs(90)), "90 s");
    }
}
