//! [`RetryPolicy`]: opt-in retries of the failures that say "try again later".

use std::future::Future;
use std::time::Duration;

use super::error::{FusionClientError, ToolFailure};
use super::outcome::Success;
use crate::error::{ErrorCode, Severity};

/// The only codes ever retried: load shedding and rate limiting, whose envelope
/// carries a `retry_after` (§5), and a gateway still connecting upstream.
pub(crate) const RETRYABLE_CODES: [ErrorCode; 3] = [
    ErrorCode::RateLimited,
    ErrorCode::ServerBusy,
    ErrorCode::HandoffConnecting,
];

/// When to call again after a failure. Off unless set in
/// [`ClientOptions::retry`](super::ClientOptions::retry).
///
/// Only a [`FusionClientError::Tool`] failure whose code is `RATE_LIMITED`,
/// `SERVER_BUSY` or `HANDOFF_CONNECTING` and whose severity is not
/// `critical` is retried ([`is_retryable`](Self::is_retryable));
/// JSON-RPC, transport and time-out errors and every other code are returned
/// at once.
///
/// The wait before retry `n` (1 for the first retry) is:
///
/// - the failure's `retry_after` (whole seconds), when it has one; if that is
///   longer than [`max_delay`](Self::max_delay) the failure is returned at once
///   instead, since calling earlier than the server asked only fails again;
/// - otherwise [`base_delay`](Self::base_delay) × 2^(n−1), capped at
///   `max_delay`;
///
/// plus a random extra of up to [`jitter`](Self::jitter) × that wait (so a
/// wait never falls short of `retry_after`), the total capped at `max_delay`.
///
/// Built with [`RetryPolicy::new`] (or `default()`) and the `with_*` setters.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Calls in all, the first one included. `0` and `1` both mean no retry.
    /// Default 3.
    pub max_attempts: u32,
    /// The longest single wait. Default 60 seconds.
    pub max_delay: Duration,
    /// The first wait when the failure has no `retry_after`; doubled at each
    /// retry. Default 1 second.
    pub base_delay: Duration,
    /// The random extra wait, as a fraction of the wait, in `0.0..=1.0`
    /// (values outside are clamped; NaN means 0). Default 0.2.
    pub jitter: f64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            max_delay: Duration::from_secs(60),
            base_delay: Duration::from_secs(1),
            jitter: 0.2,
        }
    }
}

impl RetryPolicy {
    /// The default policy with `max_attempts` calls in all.
    pub fn new(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts,
            ..RetryPolicy::default()
        }
    }

    /// Sets [`max_attempts`](Self::max_attempts).
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = max_attempts;
        self
    }

    /// Sets [`max_delay`](Self::max_delay).
    pub fn with_max_delay(mut self, max_delay: Duration) -> Self {
        self.max_delay = max_delay;
        self
    }

    /// Sets [`base_delay`](Self::base_delay).
    pub fn with_base_delay(mut self, base_delay: Duration) -> Self {
        self.base_delay = base_delay;
        self
    }

    /// Sets [`jitter`](Self::jitter).
    pub fn with_jitter(mut self, jitter: f64) -> Self {
        self.jitter = jitter;
        self
    }

    /// Whether `failure` may be retried at all: code `RATE_LIMITED`,
    /// `SERVER_BUSY` or `HANDOFF_CONNECTING`, and a severity other than
    /// `critical`.
    pub fn is_retryable(failure: &ToolFailure) -> bool {
        failure.severity != Severity::Critical && RETRYABLE_CODES.contains(&failure.code)
    }

    /// The wait before calling again after `failure`, when `attempts` calls
    /// have been made so far (1 after the first call), with `unit` a random
    /// number in `[0, 1)` that scales the jitter (clamped; NaN means 0).
    /// `None` means do not retry. Deterministic, for tests and for callers
    /// who bring their own randomness.
    pub fn delay_with(&self, failure: &ToolFailure, attempts: u32, unit: f64) -> Option<Duration> {
        if attempts == 0 || attempts >= self.max_attempts || !Self::is_retryable(failure) {
            return None;
        }
        let wait = match failure.retry_after {
            Some(secs) => {
                let wait = Duration::from_secs(secs);
                if wait > self.max_delay {
                    return None;
                }
                wait
            }
            None => {
                let factor = 1u32.checked_shl(attempts - 1).unwrap_or(u32::MAX);
                self.base_delay
                    .checked_mul(factor)
                    .unwrap_or(Duration::MAX)
                    .min(self.max_delay)
            }
        };
        let fraction = clamp_unit(self.jitter) * clamp_unit(unit);
        let extra = Duration::try_from_secs_f64(wait.as_secs_f64() * fraction).unwrap_or_default();
        Some(wait.saturating_add(extra).min(self.max_delay))
    }

    /// [`delay_with`](Self::delay_with) with a fresh random jitter.
    pub fn delay(&self, failure: &ToolFailure, attempts: u32) -> Option<Duration> {
        self.delay_with(failure, attempts, random_unit())
    }
}

fn clamp_unit(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// A random number in `[0, 1)`, from the 48 random leading bits of a v4 UUID.
fn random_unit() -> f64 {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    let mut bits = 0u64;
    for byte in &bytes[..6] {
        bits = (bits << 8) | u64::from(*byte);
    }
    bits as f64 / (1u64 << 48) as f64
}

/// Runs `call` until it succeeds, fails for good, or `policy` says stop;
/// `sleep` waits between attempts. Without a policy, `call` runs once.
pub(crate) async fn run<F, Fut, S, SFut>(
    policy: Option<&RetryPolicy>,
    mut call: F,
    mut sleep: S,
) -> Result<Success, FusionClientError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Success, FusionClientError>>,
    S: FnMut(Duration) -> SFut,
    SFut: Future<Output = ()>,
{
    let mut attempts = 0u32;
    loop {
        let outcome = call().await;
        attempts = attempts.saturating_add(1);
        let (Some(policy), Err(FusionClientError::Tool(failure))) = (policy, &outcome) else {
            return outcome;
        };
        match policy.delay(failure, attempts) {
            Some(wait) => sleep(wait).await,
            None => return outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use rmcp::model::CallToolResult;

    use super::*;
    use crate::client::FailureSource;

    fn failure(code: &str, severity: Severity, retry_after: Option<u64>) -> ToolFailure {
        ToolFailure {
            code: ErrorCode::from(code),
            severity,
            message: "m".into(),
            next_step: None,
            recovery: None,
            available_actions: vec![],
            details: vec![],
            retry_after,
            action: None,
            fields: vec![],
            source: FailureSource::Meta,
            raw: CallToolResult::success(vec![]),
        }
    }

    fn secs(s: u64) -> Option<Duration> {
        Some(Duration::from_secs(s))
    }

    #[test]
    fn only_the_three_codes_and_never_critical() {
        let p = RetryPolicy::default().with_jitter(0.0);
        for code in ["RATE_LIMITED", "SERVER_BUSY", "HANDOFF_CONNECTING"] {
            assert_eq!(
                p.delay_with(&failure(code, Severity::Error, Some(2)), 1, 0.5),
                secs(2)
            );
            assert_eq!(
                p.delay_with(&failure(code, Severity::Critical, Some(2)), 1, 0.5),
                None
            );
        }
        for code in [
            "NOT_FOUND",
            "INTERNAL_ERROR",
            "TIMEOUT",
            "UNKNOWN",
            "rate_limited",
        ] {
            assert_eq!(
                p.delay_with(&failure(code, Severity::Error, Some(2)), 1, 0.5),
                None
            );
        }
    }

    #[test]
    fn schedule_follows_retry_after_then_backoff() {
        let p = RetryPolicy::new(5)
            .with_base_delay(Duration::from_millis(500))
            .with_max_delay(Duration::from_secs(3))
            .with_jitter(0.0);
        let busy = failure("SERVER_BUSY", Severity::Error, None);
        let waits: Vec<_> = (1..=5).map(|n| p.delay_with(&busy, n, 0.0)).collect();
        assert_eq!(
            waits,
            [
                Some(Duration::from_millis(500)),
                Some(Duration::from_secs(1)),
                Some(Duration::from_secs(2)),
                Some(Duration::from_secs(3)), // 4 s capped
                None,                         // 5 attempts made
            ]
        );
        let limited = failure("RATE_LIMITED", Severity::Error, Some(2));
        assert_eq!(p.delay_with(&limited, 1, 0.0), secs(2));
        // Asked to wait longer than the cap: give the failure back at once.
        let long = failure("RATE_LIMITED", Severity::Error, Some(4));
        assert_eq!(p.delay_with(&long, 1, 0.0), None);
    }

    #[test]
    fn jitter_adds_never_subtracts_and_stays_under_the_cap() {
        let p = RetryPolicy::new(3)
            .with_jitter(0.5)
            .with_max_delay(Duration::from_secs(14));
        let limited = failure("RATE_LIMITED", Severity::Error, Some(10));
        assert_eq!(p.delay_with(&limited, 1, 0.0), secs(10));
        assert_eq!(
            p.delay_with(&limited, 1, 0.5),
            Some(Duration::from_millis(12_500))
        );
        assert_eq!(p.delay_with(&limited, 1, 0.999_999), secs(14));
        for _ in 0..200 {
            let wait = p.delay(&limited, 1).unwrap();
            assert!(wait >= Duration::from_secs(10) && wait <= Duration::from_secs(14));
        }
    }

    #[test]
    fn odd_settings_never_panic() {
        let zero = failure("RATE_LIMITED", Severity::Error, Some(0));
        let none = failure("SERVER_BUSY", Severity::Error, None);
        let huge = failure("SERVER_BUSY", Severity::Error, Some(u64::MAX));
        for jitter in [f64::NAN, -1.0, 7.0, f64::INFINITY] {
            for unit in [f64::NAN, -3.0, 0.3, 2.0, f64::NEG_INFINITY] {
                let p = RetryPolicy {
                    max_attempts: u32::MAX,
                    max_delay: Duration::MAX,
                    base_delay: Duration::MAX,
                    jitter,
                };
                assert_eq!(p.delay_with(&zero, 1, unit), secs(0));
                assert!(p.delay_with(&none, 40, unit).is_some());
                assert!(p.delay_with(&huge, u32::MAX - 1, unit).is_some());
                let p = RetryPolicy {
                    max_delay: Duration::ZERO,
                    ..p
                };
                assert_eq!(p.delay_with(&none, 3, unit), secs(0));
                assert_eq!(p.delay_with(&huge, 3, unit), None);
            }
        }
        assert_eq!(RetryPolicy::new(0).delay_with(&none, 1, 0.0), None);
        assert_eq!(RetryPolicy::new(1).delay_with(&none, 1, 0.0), None);
        assert_eq!(RetryPolicy::new(2).delay_with(&none, 0, 0.0), None);
    }

    fn scripted(
        outcomes: Vec<Result<Success, FusionClientError>>,
        policy: Option<&RetryPolicy>,
    ) -> (Result<Success, FusionClientError>, usize, Vec<Duration>) {
        let queue = Rc::new(RefCell::new(outcomes.into_iter()));
        let calls = Rc::new(RefCell::new(0usize));
        let slept = Rc::new(RefCell::new(Vec::new()));
        let outcome = futures::executor::block_on(run(
            policy,
            || {
                *calls.borrow_mut() += 1;
                let next = queue
                    .borrow_mut()
                    .next()
                    .expect("no more scripted outcomes");
                std::future::ready(next)
            },
            |wait| {
                slept.borrow_mut().push(wait);
                std::future::ready(())
            },
        ));
        let calls = *calls.borrow();
        let slept = slept.borrow().clone();
        (outcome, calls, slept)
    }

    fn tool(code: &str, retry_after: Option<u64>) -> Result<Success, FusionClientError> {
        Err(failure(code, Severity::Error, retry_after).into())
    }

    fn ok() -> Result<Success, FusionClientError> {
        crate::client::check_result(CallToolResult::success(vec![]))
    }

    #[test]
    fn run_retries_until_success() {
        let p = RetryPolicy::new(3).with_jitter(0.0);
        let (outcome, calls, slept) = scripted(
            vec![
                tool("RATE_LIMITED", Some(2)),
                tool("SERVER_BUSY", None),
                ok(),
            ],
            Some(&p),
        );
        assert!(outcome.is_ok());
        assert_eq!(calls, 3);
        assert_eq!(slept, [Duration::from_secs(2), Duration::from_secs(2)]);
    }

    #[test]
    fn run_stops_at_max_attempts_and_returns_the_last_failure() {
        let p = RetryPolicy::new(2).with_jitter(0.0);
        let (outcome, calls, slept) = scripted(
            vec![tool("RATE_LIMITED", Some(1)), tool("RATE_LIMITED", Some(5))],
            Some(&p),
        );
        assert_eq!(outcome.unwrap_err().as_tool().unwrap().retry_after, Some(5));
        assert_eq!(calls, 2);
        assert_eq!(slept, [Duration::from_secs(1)]);
    }

    #[test]
    fn run_does_not_retry_other_failures_or_without_a_policy() {
        let p = RetryPolicy::new(5);
        let (outcome, calls, _) = scripted(vec![tool("NOT_FOUND", None)], Some(&p));
        assert_eq!(outcome.unwrap_err().code().unwrap(), &ErrorCode::NotFound);
        assert_eq!(calls, 1);
        let rpc = Err(FusionClientError::JsonRpc {
            code: -32602,
            message: "Unknown tool".into(),
            data: None,
        });
        let (_, calls, _) = scripted(vec![rpc], Some(&p));
        assert_eq!(calls, 1);
        let (_, calls, slept) = scripted(vec![tool("RATE_LIMITED", Some(1))], None);
        assert_eq!((calls, slept.len()), (1, 0));
    }
}
