//! Latency percentiles.

/// The `p`-th percentile (0 < `p` <= 100) of `sorted` (ascending) by the
/// nearest-rank method: the smallest value with at least `p` % of the values
/// at or below it. `None` for an empty slice.
pub fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len() as f64;
    // The rank is in 1..=len: the casts cannot truncate a meaningful value.
    let rank = ((p / 100.0) * n).ceil().clamp(1.0, n) as usize;
    Some(sorted[rank - 1])
}

/// Latencies of one run, in nanoseconds.
#[derive(Clone, Debug, Default)]
pub struct Latencies {
    values: Vec<u64>,
}

impl Latencies {
    /// Room for `capacity` values without reallocating.
    pub fn with_capacity(capacity: usize) -> Self {
        Latencies {
            values: Vec::with_capacity(capacity),
        }
    }

    /// Records one latency.
    pub fn push(&mut self, latency: std::time::Duration) {
        self.values
            .push(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Adds `other`'s values.
    pub fn merge(&mut self, other: Latencies) {
        self.values.extend(other.values);
    }

    /// How many latencies were recorded.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` when none was recorded.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The p50 and p99 latencies, in microseconds (`None` when no latency was
    /// recorded). Sorts the values.
    pub fn p50_p99_us(&mut self) -> (Option<f64>, Option<f64>) {
        self.values.sort_unstable();
        let us = |ns: u64| ns as f64 / 1000.0;
        (
            percentile(&self.values, 50.0).map(us),
            percentile(&self.values, 99.0).map(us),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let values: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&values, 50.0), Some(50));
        assert_eq!(percentile(&values, 99.0), Some(99));
        assert_eq!(percentile(&values, 100.0), Some(100));
        assert_eq!(percentile(&[7], 50.0), Some(7));
        assert_eq!(percentile(&[7], 99.0), Some(7));
        assert_eq!(percentile(&[1, 2, 3, 4], 50.0), Some(2));
        assert_eq!(percentile(&[1, 2, 3, 4], 99.0), Some(4));
        assert_eq!(percentile(&[1, 2, 3], 50.0), Some(2));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn microseconds() {
        let mut latencies = Latencies::with_capacity(4);
        for ns in [3_000, 1_500, 2_000, 250_000] {
            latencies.push(std::time::Duration::from_nanos(ns));
        }
        assert_eq!(latencies.p50_p99_us(), (Some(2.0), Some(250.0)));
        assert_eq!(Latencies::default().p50_p99_us(), (None, None));
    }
}
