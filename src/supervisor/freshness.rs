//! When a modern server's listed tools are due to be listed again: the 2026-07-28 `ttlMs` rule
//! (fresh while `now < received + ttl`; a zero TTL is never re-listed on a timer or on demand —
//! the server's `notifications/tools/list_changed` says when) with stale-while-revalidate on top:
//! a host asking for a stale list gets the cached one at once and starts at most one background
//! re-list; a failed re-list keeps the stale list and waits (exponential backoff with jitter)
//! before the next try. Pure: time and randomness come in as arguments.

use std::time::{Duration, Instant};

use super::restart::SplitMix64;
use crate::limits;
use crate::mcp::CacheHints;

/// The freshness of one session's tool list.
#[derive(Debug)]
pub(crate) struct Freshness {
    hints: CacheHints,
    received: Instant,
    /// A background re-list is in flight: no second one starts.
    relisting: bool,
    /// Failed background re-lists since the last success, and when the next may start.
    failures: u32,
    retry_at: Option<Instant>,
    rng: SplitMix64,
}

impl Freshness {
    pub(crate) fn new(hints: CacheHints, received: Instant, seed: u64) -> Self {
        Self {
            hints,
            received,
            relisting: false,
            failures: 0,
            retry_at: None,
            rng: SplitMix64::new(seed),
        }
    }

    pub(crate) fn hints(&self) -> CacheHints {
        self.hints
    }

    /// Whether the list is fresh at `now` (a zero TTL is never fresh).
    pub(crate) fn is_fresh(&self, now: Instant) -> bool {
        now < self.received + self.hints.ttl
    }

    /// Called when the host reads the list: true when a background re-list should start now (the
    /// list has a positive TTL that ran out, none is in flight, no backoff is pending); the caller
    /// then owns the re-list and must end it with [`Freshness::listed`] or [`Freshness::failed`].
    pub(crate) fn claim_relist(&mut self, now: Instant) -> bool {
        let due = !self.hints.ttl.is_zero()
            && !self.is_fresh(now)
            && !self.relisting
            && self.retry_at.is_none_or(|at| now >= at);
        if due {
            self.relisting = true;
        }
        due
    }

    /// Whether a background re-list was claimed and has not ended yet.
    pub(crate) fn is_relisting(&self) -> bool {
        self.relisting
    }

    /// A re-list (for whatever reason) succeeded at `now` with these hints.
    pub(crate) fn listed(&mut self, hints: CacheHints, now: Instant) {
        self.hints = hints;
        self.received = now;
        self.relisting = false;
        self.failures = 0;
        self.retry_at = None;
    }

    /// A background re-list failed at `now`: the stale list stays; the next try waits the
    /// returned delay.
    pub(crate) fn failed(&mut self, now: Instant) -> Duration {
        self.relisting = false;
        self.failures = self.failures.saturating_add(1);
        let exponent = (self.failures - 1).min(20);
        let nominal = limits::RELIST_BACKOFF
            .saturating_mul(1u32 << exponent)
            .min(limits::MAX_RELIST_BACKOFF);
        let factor = 1.0 + limits::RESTART_JITTER * (2.0 * self.rng.next_unit() - 1.0);
        let delay = nominal.mul_f64(factor);
        self.retry_at = Some(now + delay);
        delay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(ms: u64) -> CacheHints {
        CacheHints {
            ttl: Duration::from_millis(ms),
            private: false,
        }
    }

    #[test]
    fn fresh_until_the_ttl_runs_out_then_one_relist_at_a_time() {
        let t0 = Instant::now();
        let mut f = Freshness::new(hints(100), t0, 1);
        assert!(f.is_fresh(t0 + Duration::from_millis(99)));
        assert!(!f.claim_relist(t0 + Duration::from_millis(99)));
        let stale = t0 + Duration::from_millis(100);
        assert!(!f.is_fresh(stale));
        assert!(f.claim_relist(stale));
        assert!(
            !f.claim_relist(stale),
            "a second re-list while one is in flight"
        );
        f.listed(hints(100), stale);
        assert!(!f.claim_relist(stale + Duration::from_millis(50)));
        assert!(f.claim_relist(stale + Duration::from_millis(100)));
    }

    #[test]
    fn a_zero_ttl_is_never_relisted_on_demand() {
        let t0 = Instant::now();
        let mut f = Freshness::new(hints(0), t0, 1);
        assert!(!f.is_fresh(t0));
        assert!(!f.claim_relist(t0 + Duration::from_secs(3600)));
    }

    #[test]
    fn failures_back_off_with_jitter_and_a_success_starts_over() {
        let t0 = Instant::now();
        let mut f = Freshness::new(hints(1), t0, 7);
        let mut now = t0 + Duration::from_millis(1);
        for n in 0..4u32 {
            assert!(f.claim_relist(now));
            let delay = f.failed(now);
            let nominal = limits::RELIST_BACKOFF * (1 << n);
            let (lo, hi) = (
                nominal.mul_f64(1.0 - limits::RESTART_JITTER),
                nominal.mul_f64(1.0 + limits::RESTART_JITTER),
            );
            assert!(delay >= lo && delay <= hi, "try {n}: {delay:?}");
            assert!(!f.claim_relist(now + delay - Duration::from_millis(1)));
            now += delay;
        }
        assert!(f.claim_relist(now));
        f.listed(hints(1), now);
        assert!(f.claim_relist(now + Duration::from_millis(1)));
        let first_step_again = f.failed(now);
        assert!(first_step_again <= limits::RELIST_BACKOFF.mul_f64(1.0 + limits::RESTART_JITTER));
    }

    #[test]
    fn the_backoff_is_capped() {
        let t0 = Instant::now();
        let mut f = Freshness::new(hints(1), t0, 3);
        let mut last = Duration::ZERO;
        for _ in 0..40 {
            last = f.failed(t0);
        }
        assert!(last <= limits::MAX_RELIST_BACKOFF.mul_f64(1.0 + limits::RESTART_JITTER));
    }
}
