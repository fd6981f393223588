//! A client's rate limit: a token bucket of `burst` tokens refilled at `perMinute` a minute. Each
//! request takes one; an empty bucket refuses it and says how long until the next token (the
//! `Retry-After` of the 429). The clock is passed in, so the arithmetic is tested without waiting.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A client's `rateLimit`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RateLimit {
    pub per_minute: f64,
    pub burst: f64,
}

pub(crate) struct Bucket {
    limit: RateLimit,
    state: Mutex<(f64, Instant)>,
}

impl Bucket {
    /// A full bucket.
    pub(crate) fn new(limit: RateLimit, now: Instant) -> Bucket {
        Bucket {
            limit,
            state: Mutex::new((limit.burst, now)),
        }
    }

    pub(crate) fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Takes a token at `now`: `Ok`, or `Err(how long until one is there)`.
    pub(crate) fn take(&self, now: Instant) -> Result<(), Duration> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (tokens, then) = *state;
        let per_second = self.limit.per_minute / 60.0;
        let elapsed = now.saturating_duration_since(then).as_secs_f64();
        let tokens = (tokens + elapsed * per_second).min(self.limit.burst);
        if tokens >= 1.0 {
            *state = (tokens - 1.0, now);
            Ok(())
        } else {
            *state = (tokens, now);
            Err(Duration::from_secs_f64((1.0 - tokens) / per_second))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_one_token_per_interval() {
        let start = Instant::now();
        let bucket = Bucket::new(
            RateLimit {
                per_minute: 60.0,
                burst: 3.0,
            },
            start,
        );
        for _ in 0..3 {
            assert!(bucket.take(start).is_ok());
        }
        let wait = bucket.take(start).unwrap_err();
        assert!((wait.as_secs_f64() - 1.0).abs() < 1e-6, "{wait:?}");
        let half = start + Duration::from_millis(500);
        let wait = bucket.take(half).unwrap_err();
        assert!((wait.as_secs_f64() - 0.5).abs() < 1e-6, "{wait:?}");
        assert!(bucket.take(start + Duration::from_secs(1)).is_ok());
        assert!(bucket.take(start + Duration::from_secs(1)).is_err());
        // A long pause refills to the burst, no further.
        let later = start + Duration::from_secs(3600);
        for _ in 0..3 {
            assert!(bucket.take(later).is_ok());
        }
        assert!(bucket.take(later).is_err());
    }
}
