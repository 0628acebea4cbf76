//! The guards of `billing` calls: `--rate-limit`, `--max-active` and
//! `--timeout-ms` of the plain rmcp server. rmcp has none of them, so they
//! are written here the simplest way, as the TypeScript twin writes them: a
//! window of recent call times, a count of running calls, and a time limit
//! around the call. (The adapter's server uses mcp-fusion's guards instead:
//! `RouterContract::guards`.)

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::store::Failure;

/// `--rate-limit N/PERIOD`: at most `calls` billing calls per `period` (`s`,
/// `min` or `h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Calls allowed in one window.
    pub calls: usize,
    /// The window.
    pub period: Duration,
}

impl FromStr for RateLimit {
    type Err = String;

    /// `2/s`, `3/min`, `10/h`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wrong = || String::from("write N/s, N/min or N/h, e.g. 2/s");
        let (calls, unit) = text.split_once('/').ok_or_else(wrong)?;
        let calls: usize = calls.parse().map_err(|_| wrong())?;
        let secs = match unit {
            "s" => 1,
            "min" => 60,
            "h" => 3_600,
            _ => return Err(wrong()),
        };
        if calls == 0 {
            return Err(wrong());
        }
        Ok(RateLimit {
            calls,
            period: Duration::from_secs(secs),
        })
    }
}

impl fmt::Display for RateLimit {
    /// As it was written: `2/s`, `3/min`, `10/h`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.period.as_secs() {
            1 => "s",
            60 => "min",
            _ => "h",
        };
        write!(f, "{}/{unit}", self.calls)
    }
}

/// The guards and their state.
#[derive(Debug, Default)]
pub struct Limits {
    rate: Option<RateLimit>,
    max_active: Option<usize>,
    timeout: Option<Duration>,
    /// When the calls of the current window started, oldest first.
    recent: Mutex<VecDeque<Instant>>,
    /// Billing calls running now.
    active: AtomicUsize,
}

/// One running call, counted in [`Limits::active`] until it is dropped
/// (also when the call is stopped by its time limit).
struct Running<'a>(&'a AtomicUsize);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Limits {
    /// The guards the options ask for (none when every one is `None`).
    pub fn new(
        rate: Option<RateLimit>,
        max_active: Option<usize>,
        timeout: Option<Duration>,
    ) -> Self {
        Limits {
            rate,
            max_active,
            timeout,
            ..Limits::default()
        }
    }

    /// `call` under the guards, in the twin's order: the rate limit (a
    /// refused call is not counted), the count of running calls, then the
    /// time limit.
    pub async fn run<T>(
        &self,
        call: impl Future<Output = Result<T, Failure>>,
    ) -> Result<T, Failure> {
        self.admit()?;
        let _running = self.start()?;
        match self.timeout {
            None => call.await,
            Some(limit) => tokio::time::timeout(limit, call)
                .await
                .unwrap_or(Err(Failure::TimedOut)),
        }
    }

    /// Counts the call in the window, or refuses it with the time until the
    /// oldest call of the window leaves it.
    fn admit(&self) -> Result<(), Failure> {
        let Some(limit) = self.rate else {
            return Ok(());
        };
        let now = Instant::now();
        let mut recent = self
            .recent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        while recent
            .front()
            .is_some_and(|&t| now.duration_since(t) >= limit.period)
        {
            recent.pop_front();
        }
        if recent.len() >= limit.calls {
            let oldest = recent.front().copied().unwrap_or(now);
            return Err(Failure::RateLimited(
                limit.period.saturating_sub(now.duration_since(oldest)),
            ));
        }
        recent.push_back(now);
        Ok(())
    }

    /// Counts one more running call, or refuses it when `--max-active` run.
    fn start(&self) -> Result<Running<'_>, Failure> {
        let before = self.active.fetch_add(1, Ordering::SeqCst);
        let running = Running(&self.active);
        match self.max_active {
            Some(max) if before >= max => Err(Failure::Busy),
            _ => Ok(running),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limits_read_as_written() {
        for text in ["2/s", "3/min", "10/h"] {
            let limit: RateLimit = text.parse().unwrap();
            assert_eq!(limit.to_string(), text);
        }
        for text in ["0/s", "2", "2/d", "x/s", "-1/s"] {
            assert!(text.parse::<RateLimit>().is_err(), "{text}");
        }
    }

    #[tokio::test]
    async fn the_window_refuses_the_call_over_the_limit() {
        let limits = Limits::new(RateLimit::from_str("2/min").ok(), None, None);
        for _ in 0..2 {
            assert_eq!(limits.run(async { Ok(()) }).await, Ok(()));
        }
        match limits.run(async { Ok(()) }).await {
            Err(Failure::RateLimited(wait)) => assert!(wait > Duration::from_secs(59), "{wait:?}"),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_running_call_makes_the_next_one_busy_until_it_ends() {
        let limits = Limits::new(None, Some(1), None);
        let slow = limits.run(sleep_then_ok(Duration::from_millis(200)));
        let busy = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            limits.run(async { Ok(()) }).await
        };
        let (slow, busy) = tokio::join!(slow, busy);
        assert_eq!((slow, busy), (Ok(()), Err(Failure::Busy)));
        assert_eq!(limits.run(async { Ok(()) }).await, Ok(()));
    }

    #[tokio::test]
    async fn a_call_past_its_time_limit_is_stopped() {
        let limits = Limits::new(None, Some(1), Some(Duration::from_millis(20)));
        let slow = sleep_then_ok(Duration::from_secs(5));
        assert_eq!(limits.run(slow).await, Err(Failure::TimedOut));
        assert_eq!(limits.run(async { Ok(()) }).await, Ok(()));
    }

    /// A call that succeeds after `wait`.
    async fn sleep_then_ok(wait: Duration) -> Result<(), Failure> {
        tokio::time::sleep(wait).await;
        Ok(())
    }
}
