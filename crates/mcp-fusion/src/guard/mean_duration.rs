//! [`MeanDuration`]: the exponentially weighted mean of how long calls took,
//! kept lock-free for the guards that estimate a wait from it (the
//! concurrency guard's and the mutation serializer's `retry_after`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The exponentially weighted mean of the durations recorded, in whole
/// microseconds: the first duration is the mean, each later one weighs 1/8
/// (`mean = (7 × mean + took) / 8`, rounded down). Durations past
/// `u64::MAX` microseconds count as `u64::MAX`; nothing overflows.
#[derive(Debug, Default)]
pub(crate) struct MeanDuration {
    /// The mean in microseconds; 0 until a duration was recorded (a
    /// recorded mean of 0 µs is taken as nothing recorded).
    micros: AtomicU64,
}

impl MeanDuration {
    /// Counts `took` towards the mean.
    pub(crate) fn record(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let _ = self
            .micros
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |mean| {
                Some(if mean == 0 {
                    micros
                } else {
                    next(mean, micros)
                })
            });
    }

    /// The mean so far; `None` until a duration (longer than 0 µs) was
    /// recorded.
    pub(crate) fn get(&self) -> Option<Duration> {
        match self.micros.load(Ordering::Relaxed) {
            0 => None,
            micros => Some(Duration::from_micros(micros)),
        }
    }
}

/// `(7 × mean + sample) / 8`, computed in 128 bits: exact, and never more
/// than the larger of the two, so it fits back in 64.
fn next(mean: u64, sample: u64) -> u64 {
    let weighted = (u128::from(mean) * 7 + u128::from(sample)) / 8;
    u64::try_from(weighted).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::MeanDuration;
    use std::time::Duration;

    #[test]
    fn the_first_duration_is_the_mean_and_each_later_one_weighs_an_eighth() {
        let mean = MeanDuration::default();
        assert_eq!(mean.get(), None);
        mean.record(Duration::from_millis(800));
        assert_eq!(mean.get(), Some(Duration::from_millis(800)));
        mean.record(Duration::from_millis(1600));
        assert_eq!(mean.get(), Some(Duration::from_millis(900)));
    }

    #[test]
    fn a_huge_duration_does_not_overflow_the_mean() {
        let mean = MeanDuration::default();
        mean.record(Duration::from_secs(1));
        mean.record(Duration::MAX);
        // (7 × 1 000 000 + u64::MAX) / 8 µs, exactly.
        assert_eq!(
            mean.get(),
            Some(Duration::from_micros(2_305_843_009_214_568_951))
        );
        mean.record(Duration::MAX);
        mean.record(Duration::from_secs(1));
        assert_eq!(
            mean.get(),
            Some(Duration::from_micros(3_783_023_686_992_011_561))
        );
    }
}
