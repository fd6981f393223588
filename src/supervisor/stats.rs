//! Per-server call statistics for `servers/list`: calls, failed calls, and the median latency of the
//! most recent calls (a fixed ring of [`limits::LATENCY_SAMPLES`], so memory does not grow).
//!
//! Counted over the server's whole life in the registry, across generations. A call "errors" when
//! it ends in a JSON-RPC error (timeout, server gone, upstream error, result too large); a tool
//! result with `isError: true` is a successful call.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use crate::limits;

#[derive(Default)]
pub struct CallStats {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    calls: u64,
    errors: u64,
    latencies: VecDeque<Duration>,
}

/// A snapshot for status.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Snapshot {
    pub calls: u64,
    pub errors: u64,
    /// Median latency of the recent successful calls, in milliseconds.
    pub p50_ms: Option<f64>,
}

impl CallStats {
    /// Records one finished call: `Some(latency)` when it succeeded, `None` when it failed.
    pub fn record(&self, outcome: Option<Duration>) {
        let mut s = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        s.calls += 1;
        match outcome {
            Some(latency) => {
                if s.latencies.len() == limits::LATENCY_SAMPLES {
                    s.latencies.pop_front();
                }
                s.latencies.push_back(latency);
            }
            None => s.errors += 1,
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        let (calls, errors, mut sorted) = {
            let s = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            (
                s.calls,
                s.errors,
                s.latencies.iter().copied().collect::<Vec<_>>(),
            )
        };
        sorted.sort_unstable();
        // Microsecond resolution is plenty and keeps the JSON short.
        let p50_ms = median(&sorted).map(|d| (d.as_secs_f64() * 1_000_000.0).round() / 1000.0);
        Snapshot {
            calls,
            errors,
            p50_ms,
        }
    }
}

fn median(sorted: &[Duration]) -> Option<Duration> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_median() {
        let s = CallStats::default();
        assert_eq!(
            s.snapshot(),
            Snapshot {
                calls: 0,
                errors: 0,
                p50_ms: None
            }
        );
        for ms in [5, 1, 3] {
            s.record(Some(Duration::from_millis(ms)));
        }
        s.record(None);
        assert_eq!(
            s.snapshot(),
            Snapshot {
                calls: 4,
                errors: 1,
                p50_ms: Some(3.0)
            }
        );
        s.record(Some(Duration::from_millis(4)));
        assert_eq!(s.snapshot().p50_ms, Some(3.5));
    }

    #[test]
    fn the_ring_keeps_only_recent_calls() {
        let s = CallStats::default();
        for _ in 0..limits::LATENCY_SAMPLES {
            s.record(Some(Duration::from_secs(1)));
        }
        for _ in 0..limits::LATENCY_SAMPLES {
            s.record(Some(Duration::from_millis(2)));
        }
        assert_eq!(s.snapshot().p50_ms, Some(2.0));
        assert_eq!(s.snapshot().calls, 2 * limits::LATENCY_SAMPLES as u64);
    }
}
