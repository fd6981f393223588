//! Per-server call statistics: how many calls, how many failed, and their latency percentiles,
//! over two windows — everything since the server was added (`total`) and the recent calls
//! (`recent`: the current minute and the four before it, so 4 to 5 minutes, moving each minute) —
//! plus the median of the last [`limits::LATENCY_SAMPLES`] successful calls that a status carries
//! (`p50LatencyMs`).
//!
//! Memory is fixed per server whatever the number of calls: latency histograms
//! ([`super::latency`]), allocated at the first call, and a ring of samples. Counted across
//! generations. A call "errors" when it ends in a JSON-RPC error (timeout, server gone, upstream
//! error, result too large); a tool result with `isError: true` is a successful call. Latencies are
//! those of successful calls (from sending the call to the server's answer).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::latency::Histogram;
use super::timings::millis;
use crate::limits;

/// Length of one slot of the recent window.
pub(crate) const RECENT_SLOT: Duration = Duration::from_secs(60);
/// Slots in the recent window (the current one included).
pub(crate) const RECENT_SLOTS: usize = 5;

pub(crate) struct CallStats {
    /// When the statistics began: slot numbers count minutes from here.
    origin: Instant,
    inner: Mutex<Inner>,
}

impl Default for CallStats {
    fn default() -> Self {
        Self {
            origin: Instant::now(),
            inner: Mutex::default(),
        }
    }
}

#[derive(Default)]
struct Inner {
    total: Counts,
    /// `None` until the first call: a server nobody calls costs no histogram.
    histograms: Option<Box<Histograms>>,
    /// The most recent successful latencies, for a status's exact `p50LatencyMs`.
    latencies: VecDeque<Duration>,
}

struct Histograms {
    total: Histogram,
    /// A ring of one-minute slots; a slot is reused once its minute is past the window.
    recent: [Minute; RECENT_SLOTS],
}

/// One slot of the recent window: the calls that ended in one minute.
#[derive(Default, Clone)]
struct Minute {
    /// Which minute (counted from `origin`) the slot holds.
    minute: u64,
    counts: Counts,
    latencies: Histogram,
}

#[derive(Default, Clone, Copy, Debug, PartialEq)]
struct Counts {
    calls: u64,
    errors: u64,
}

/// What a status shows of the calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Snapshot {
    pub calls: u64,
    pub errors: u64,
    /// Median latency of the recent successful calls, in milliseconds.
    pub p50_ms: Option<f64>,
}

/// One window of `servers/stats`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Window {
    /// The window's length (`recent` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_seconds: Option<u64>,
    pub calls: u64,
    pub errors: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99_ms: Option<f64>,
}

impl CallStats {
    /// Records one finished call: `Some(latency)` when it succeeded, `None` when it failed.
    pub(crate) fn record(&self, outcome: Option<Duration>) {
        self.record_at(Instant::now(), outcome);
    }

    fn record_at(&self, now: Instant, outcome: Option<Duration>) {
        let minute = self.minute(now);
        let mut s = self.lock();
        let failed = u64::from(outcome.is_none());
        s.total.calls += 1;
        s.total.errors += failed;
        let histograms = s.histograms.get_or_insert_with(|| {
            Box::new(Histograms {
                total: Histogram::default(),
                recent: Default::default(),
            })
        });
        let slot = &mut histograms.recent[(minute % RECENT_SLOTS as u64) as usize];
        if slot.minute != minute || slot.counts.calls == 0 {
            *slot = Minute {
                minute,
                ..Minute::default()
            };
        }
        slot.counts.calls += 1;
        slot.counts.errors += failed;
        if let Some(latency) = outcome {
            slot.latencies.record(latency);
            histograms.total.record(latency);
            if s.latencies.len() == limits::LATENCY_SAMPLES {
                s.latencies.pop_front();
            }
            s.latencies.push_back(latency);
        }
    }

    /// Calls, errors and the median of the last successful calls, for a status.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let (calls, errors, mut sorted) = {
            let s = self.lock();
            (
                s.total.calls,
                s.total.errors,
                s.latencies.iter().copied().collect::<Vec<_>>(),
            )
        };
        sorted.sort_unstable();
        Snapshot {
            calls,
            errors,
            p50_ms: median(&sorted).map(millis),
        }
    }

    /// `(total, recent)` windows for `servers/stats`.
    pub(crate) fn windows(&self) -> (Window, Window) {
        self.windows_at(Instant::now())
    }

    fn windows_at(&self, now: Instant) -> (Window, Window) {
        let minute = self.minute(now);
        let s = self.lock();
        let empty = Histogram::default();
        let total_latencies = s.histograms.as_ref().map_or(&empty, |h| &h.total);
        let total = window(None, s.total, total_latencies);
        let mut counts = Counts::default();
        let mut latencies = Histogram::default();
        for slot in s.histograms.iter().flat_map(|h| h.recent.iter()) {
            let in_window = slot.counts.calls > 0
                && slot.minute <= minute
                && minute - slot.minute < RECENT_SLOTS as u64;
            if in_window {
                counts.calls += slot.counts.calls;
                counts.errors += slot.counts.errors;
                latencies.merge(&slot.latencies);
            }
        }
        let seconds = RECENT_SLOT.as_secs() * RECENT_SLOTS as u64;
        (total, window(Some(seconds), counts, &latencies))
    }

    fn minute(&self, now: Instant) -> u64 {
        now.saturating_duration_since(self.origin).as_secs() / RECENT_SLOT.as_secs()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn window(window_seconds: Option<u64>, counts: Counts, latencies: &Histogram) -> Window {
    Window {
        window_seconds,
        calls: counts.calls,
        errors: counts.errors,
        p50_ms: latencies.quantile(0.50).map(millis),
        p99_ms: latencies.quantile(0.99).map(millis),
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

    #[test]
    fn without_calls_the_windows_are_empty() {
        let s = CallStats::default();
        let (total, recent) = s.windows();
        assert_eq!((total.calls, total.p50_ms, total.p99_ms), (0, None, None));
        assert_eq!(recent.window_seconds, Some(300));
        assert_eq!(total.window_seconds, None);
    }

    #[test]
    fn the_recent_window_forgets_calls_older_than_five_minutes() {
        let s = CallStats::default();
        let at = |minutes: u64| s.origin + Duration::from_secs(minutes * 60 + 1);
        // Minute 0: ten slow calls and a failure; minute 3: ten fast calls.
        for _ in 0..10 {
            s.record_at(at(0), Some(Duration::from_millis(500)));
        }
        s.record_at(at(0), None);
        for _ in 0..10 {
            s.record_at(at(3), Some(Duration::from_millis(5)));
        }
        let (total, recent) = s.windows_at(at(4));
        assert_eq!((total.calls, total.errors), (21, 1));
        assert_eq!((recent.calls, recent.errors), (21, 1));
        let p99 = recent.p99_ms.unwrap();
        assert!((p99 - 500.0).abs() <= 500.0 * 0.0625, "{p99}");
        // Minute 5: minute 0 left the window, minute 3 is still in it.
        let (total, recent) = s.windows_at(at(5));
        assert_eq!((total.calls, total.errors), (21, 1));
        assert_eq!((recent.calls, recent.errors), (10, 0));
        let p99 = recent.p99_ms.unwrap();
        assert!((p99 - 5.0).abs() <= 5.0 * 0.0625, "{p99}");
        // A call in minute 5 reuses minute 0's slot without mixing the two.
        s.record_at(at(5), Some(Duration::from_millis(5)));
        assert_eq!(s.windows_at(at(5)).1.calls, 11);
        // Minute 10: everything recent is gone; the totals stay.
        let (total, recent) = s.windows_at(at(10));
        assert_eq!((recent.calls, recent.p50_ms), (0, None));
        assert_eq!(total.calls, 22);
        let p50 = total.p50_ms.unwrap();
        assert!((p50 - 5.0).abs() <= 5.0 * 0.0625, "{p50}");
    }
}
