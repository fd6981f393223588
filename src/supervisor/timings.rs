//! Where a start's time went: spawning (or building a remote transport), the MCP handshake, tool
//! discovery. Recorded for the last start of each server, finished or failed, so `servers/stats`,
//! `servers/test` and the command line's `doctor` can say which phase was slow, or which one a
//! failed start never got past.

use std::time::Duration;

use serde_json::{json, Value};

/// The phases of one start. A phase that did not finish (the start failed in it or before) is
/// `None`; `total` always runs until the start ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StartTimings {
    /// Spawning the process (stdio), or building the HTTP transport (remote: no connection yet).
    pub spawn: Option<Duration>,
    /// From sending `initialize` until its answer and `notifications/initialized` (for a remote
    /// server this includes connecting).
    pub initialize: Option<Duration>,
    /// Every page of `tools/list`.
    pub list: Option<Duration>,
    /// The whole start, until ready or failed.
    pub total: Duration,
}

impl StartTimings {
    /// `{spawnMs?, initializeMs?, listMs?, totalMs}`, fractional milliseconds.
    pub(crate) fn to_json(self) -> Value {
        let mut out = json!({ "totalMs": millis(self.total) });
        for (key, phase) in [
            ("spawnMs", self.spawn),
            ("initializeMs", self.initialize),
            ("listMs", self.list),
        ] {
            if let Some(d) = phase {
                out[key] = json!(millis(d));
            }
        }
        out
    }
}

/// Milliseconds with microsecond resolution (enough, and short in JSON).
pub(crate) fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_are_reported_in_milliseconds() {
        let ms = Duration::from_millis;
        let t = StartTimings {
            spawn: Some(ms(2)),
            initialize: Some(ms(40)),
            list: Some(ms(8)),
            total: ms(50),
        };
        assert_eq!(
            t.to_json(),
            json!({"spawnMs": 2.0, "initializeMs": 40.0, "listMs": 8.0, "totalMs": 50.0})
        );
    }
}
