//! When to restart a failed server: exponential backoff with jitter, and crash-loop detection.
//!
//! Failures are counted in a sliding window ([`limits::CRASH_LOOP_WINDOW`]). The n-th failure in the
//! window waits `base × 2^(n-1)` (capped at [`limits::MAX_RESTART_BACKOFF`]) times a random factor in
//! `1 ± J`; the [`limits::CRASH_LOOP_FAILURES`]-th gives up. A server that stays up for a whole
//! window therefore starts over at the first step. Pure: time and randomness come in as arguments.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::limits;

/// What to do after a failure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Decision {
    /// Restart after this delay.
    RetryAfter(Duration),
    /// A crash loop: `failures` failures within the window. Stay down until the host restarts it.
    GiveUp { failures: usize },
}

/// The failure history of one server.
#[derive(Debug)]
pub(crate) struct RestartTracker {
    base: Duration,
    failures: VecDeque<Instant>,
    rng: SplitMix64,
}

impl RestartTracker {
    pub(crate) fn new(base: Duration, seed: u64) -> Self {
        Self {
            base,
            failures: VecDeque::with_capacity(limits::CRASH_LOOP_FAILURES),
            rng: SplitMix64(seed),
        }
    }

    /// Records a failure at `now` and decides.
    pub(crate) fn on_failure(&mut self, now: Instant) -> Decision {
        while self
            .failures
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= limits::CRASH_LOOP_WINDOW)
        {
            self.failures.pop_front();
        }
        self.failures.push_back(now);
        let n = self.failures.len();
        if n >= limits::CRASH_LOOP_FAILURES {
            self.failures.clear();
            return Decision::GiveUp { failures: n };
        }
        Decision::RetryAfter(self.delay(n))
    }

    /// Forgets every failure (the host restarted the server by hand).
    pub(crate) fn reset(&mut self) {
        self.failures.clear();
    }

    /// Failures currently in the window.
    #[cfg(test)]
    pub(crate) fn recent_failures(&self) -> usize {
        self.failures.len()
    }

    fn delay(&mut self, n: usize) -> Duration {
        let exponent = u32::try_from(n.saturating_sub(1))
            .unwrap_or(u32::MAX)
            .min(30);
        let raw = self
            .base
            .saturating_mul(1u32 << exponent)
            .min(limits::MAX_RESTART_BACKOFF);
        let factor = 1.0 + limits::RESTART_JITTER * (2.0 * self.rng.next_unit() - 1.0);
        raw.mul_f64(factor).min(limits::MAX_RESTART_BACKOFF)
    }
}

/// A small, seedable pseudo-random generator (SplitMix64): jitter needs spread, not secrecy.
#[derive(Debug)]
pub(super) struct SplitMix64(u64);

impl SplitMix64 {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(super) fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A seed that differs between processes and servers.
pub(crate) fn seed(name: &str) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    name.bytes().fold(
        nanos ^ u64::from(std::process::id()).rotate_left(32),
        |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn within(d: Duration, nominal: Duration) -> bool {
        let lo = nominal.mul_f64(1.0 - limits::RESTART_JITTER);
        let hi = nominal
            .mul_f64(1.0 + limits::RESTART_JITTER)
            .min(limits::MAX_RESTART_BACKOFF);
        d >= lo && d <= hi
    }

    #[test]
    fn backs_off_exponentially_then_gives_up() {
        let mut t = RestartTracker::new(Duration::from_secs(1), 7);
        let now = Instant::now();
        for (i, nominal) in [1, 2, 4, 8].into_iter().enumerate() {
            match t.on_failure(now + Duration::from_secs(i as u64)) {
                Decision::RetryAfter(d) => {
                    assert!(within(d, Duration::from_secs(nominal)), "step {i}: {d:?}")
                }
                other => panic!("step {i}: {other:?}"),
            }
        }
        assert_eq!(
            t.on_failure(now + Duration::from_secs(5)),
            Decision::GiveUp { failures: 5 }
        );
        assert_eq!(t.recent_failures(), 0);
    }

    #[test]
    fn a_quiet_window_starts_over() {
        let mut t = RestartTracker::new(Duration::from_secs(1), 1);
        let now = Instant::now();
        for i in 0..4 {
            assert!(matches!(
                t.on_failure(now + Duration::from_secs(i)),
                Decision::RetryAfter(_)
            ));
        }
        let later = now + limits::CRASH_LOOP_WINDOW + Duration::from_secs(10);
        match t.on_failure(later) {
            Decision::RetryAfter(d) => assert!(within(d, Duration::from_secs(1)), "{d:?}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(t.recent_failures(), 1);
    }

    #[test]
    fn capped_at_the_maximum() {
        let mut t = RestartTracker::new(Duration::from_secs(20), 3);
        let now = Instant::now();
        t.on_failure(now);
        match t.on_failure(now) {
            Decision::RetryAfter(d) => assert!(
                d <= limits::MAX_RESTART_BACKOFF && within(d, limits::MAX_RESTART_BACKOFF),
                "{d:?}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn jitter_is_deterministic_per_seed_and_spread() {
        let delays = |seed| {
            let mut t = RestartTracker::new(Duration::from_secs(1), seed);
            (0..3)
                .map(|_| {
                    t.reset();
                    match t.on_failure(Instant::now()) {
                        Decision::RetryAfter(d) => d,
                        other => panic!("{other:?}"),
                    }
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(delays(42), delays(42));
        assert_ne!(delays(42), delays(43));
        let d = delays(42);
        assert!(d[0] != d[1] || d[1] != d[2], "{d:?}");
    }

    #[test]
    fn manual_reset_forgets_failures() {
        let mut t = RestartTracker::new(Duration::from_millis(10), 9);
        let now = Instant::now();
        for _ in 0..4 {
            t.on_failure(now);
        }
        t.reset();
        assert!(matches!(t.on_failure(now), Decision::RetryAfter(_)));
    }
}
