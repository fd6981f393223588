//! A latency histogram of fixed size, for percentiles over any number of calls: log-linear
//! buckets over microseconds (exact below 16 µs, then 8 buckets per power of two), so a reported
//! percentile is within 6.25 % of the true value and memory never grows with the number of calls.
//! Latencies beyond the last bucket (which ends at 2²⁷ µs, about 134 s) are counted in it.

use std::time::Duration;

/// Values below this many microseconds have a bucket each.
const EXACT: u64 = 16;
/// Buckets per power of two above [`EXACT`] (a power of two itself).
const PER_OCTAVE: u64 = 8;
/// The power of two where the exact buckets end (`EXACT` = 2^4).
const FIRST_OCTAVE: u32 = 4;
/// One past the highest power of two with buckets of its own: 2^27 µs ≈ 134 s.
const LAST_OCTAVE: u32 = 27;
/// Every bucket.
const BUCKETS: usize = (EXACT + (LAST_OCTAVE - FIRST_OCTAVE) as u64 * PER_OCTAVE) as usize;

#[derive(Clone)]
pub(super) struct Histogram {
    counts: [u32; BUCKETS],
    total: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self {
            counts: [0; BUCKETS],
            total: 0,
        }
    }
}

impl Histogram {
    pub(super) fn record(&mut self, latency: Duration) {
        let slot = &mut self.counts[bucket(micros(latency))];
        *slot = slot.saturating_add(1);
        self.total += 1;
    }

    /// Adds every count of `other` to this one.
    pub(super) fn merge(&mut self, other: &Histogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            *mine = mine.saturating_add(*theirs);
        }
        self.total += other.total;
    }

    #[cfg(test)]
    pub(super) fn count(&self) -> u64 {
        self.total
    }

    /// The latency at quantile `q` (0 < q ≤ 1): the middle of the bucket holding the call of rank
    /// ⌈q·n⌉. `None` without calls.
    pub(super) fn quantile(&self, q: f64) -> Option<Duration> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0u64;
        for (i, n) in self.counts.iter().enumerate() {
            seen += u64::from(*n);
            if seen >= rank {
                return Some(Duration::from_nanos(middle_nanos(i)));
            }
        }
        Some(Duration::from_nanos(middle_nanos(BUCKETS - 1)))
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// The bucket of a latency of `us` microseconds.
fn bucket(us: u64) -> usize {
    if us < EXACT {
        return us as usize;
    }
    let octave = 63 - us.leading_zeros(); // floor(log2 us) ≥ FIRST_OCTAVE
    if octave >= LAST_OCTAVE {
        return BUCKETS - 1;
    }
    let sub = (us >> (octave - 3)) & (PER_OCTAVE - 1);
    (EXACT + u64::from(octave - FIRST_OCTAVE) * PER_OCTAVE + sub) as usize
}

/// `[low, high)` of bucket `i`, in microseconds.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < EXACT {
        return (i, i + 1);
    }
    let octave = (i - EXACT) / PER_OCTAVE + u64::from(FIRST_OCTAVE);
    let sub = (i - EXACT) % PER_OCTAVE;
    let step = 1u64 << (octave - 3);
    let low = (PER_OCTAVE + sub) * step;
    (low, low + step)
}

/// The value a bucket stands for, in nanoseconds: its lower bound below 16 µs (those buckets are
/// exact to the microsecond), else its middle.
fn middle_nanos(i: usize) -> u64 {
    let (low, high) = bounds(i);
    if high - low == 1 {
        low * 1000
    } else {
        (low + high) * 500
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_ordered() {
        let mut expected_low = 0;
        for i in 0..BUCKETS {
            let (low, high) = bounds(i);
            assert_eq!(low, expected_low, "bucket {i}");
            assert!(high > low);
            assert_eq!(bucket(low), i);
            assert_eq!(bucket(high - 1), i);
            expected_low = high;
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn quantiles_are_within_the_bucket_error() {
        let mut h = Histogram::default();
        assert_eq!(h.quantile(0.5), None);
        for ms in 1..=100u64 {
            h.record(Duration::from_millis(ms));
        }
        assert_eq!(h.count(), 100);
        for (q, truth) in [(0.5, 50.0), (0.99, 99.0), (0.01, 1.0), (1.0, 100.0)] {
            let got = h.quantile(q).unwrap().as_secs_f64() * 1000.0;
            assert!(
                (got - truth).abs() <= truth * 0.0625,
                "q{q}: {got} against {truth}"
            );
        }
    }

    #[test]
    fn small_latencies_are_exact_and_large_ones_land_in_the_last_bucket() {
        let mut h = Histogram::default();
        h.record(Duration::from_micros(7));
        assert_eq!(h.quantile(1.0), Some(Duration::from_micros(7)));
        let mut h = Histogram::default();
        h.record(Duration::from_secs(3600));
        assert!(h.quantile(0.5).unwrap() >= Duration::from_secs(125));
    }

    #[test]
    fn merging_adds_counts() {
        let (mut a, mut b) = (Histogram::default(), Histogram::default());
        a.record(Duration::from_millis(1));
        b.record(Duration::from_millis(9));
        b.record(Duration::from_millis(9));
        a.merge(&b);
        assert_eq!(a.count(), 3);
        let p50 = a.quantile(0.5).unwrap().as_secs_f64() * 1000.0;
        assert!((p50 - 9.0).abs() < 9.0 * 0.0625, "{p50}");
    }
}
