//! Where a start's time went: spawning (or building a remote transport), the MCP handshake, tool
//! discovery. Recorded for the last start of each server, finished or failed, so `servers/stats`,
//! `servers/test` and the command line's `doctor` can say which phase was slow, or which one a
//! failed start never got past.

use std::time::Duration;

use serde_json::{json, Value};

/// The phases of one start. A phase that did not finish (the start failed in it or before) is
/// `None`; `total` always runs until the start ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StartTimings {
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

/// The phase a start was in when it ended or ran out of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Spawn,
    Initialize,
    ToolsList,
    Done,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Spawn => "spawn",
            Phase::Initialize => "initialize",
            Phase::ToolsList => "tools/list",
            Phase::Done => "done",
        }
    }
}

impl StartTimings {
    /// The first phase that did not finish (`Done` when every one did).
    pub fn phase_reached(&self) -> Phase {
        match (self.spawn, self.initialize, self.list) {
            (None, _, _) => Phase::Spawn,
            (Some(_), None, _) => Phase::Initialize,
            (Some(_), Some(_), None) => Phase::ToolsList,
            _ => Phase::Done,
        }
    }

    /// The time spent in the phase the start was in when it ended, if it did not finish: the
    /// total less the finished phases.
    pub fn unfinished(&self) -> Duration {
        let finished = [self.spawn, self.initialize, self.list]
            .into_iter()
            .flatten()
            .sum::<Duration>();
        self.total.saturating_sub(finished)
    }

    /// `{spawnMs?, initializeMs?, listMs?, totalMs}`, fractional milliseconds.
    pub fn to_json(&self) -> Value {
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
pub fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phase_reached_is_the_first_unfinished_one() {
        let ms = Duration::from_millis;
        let mut t = StartTimings {
            total: ms(50),
            ..Default::default()
        };
        assert_eq!(t.phase_reached(), Phase::Spawn);
        t.spawn = Some(ms(2));
        assert_eq!(t.phase_reached(), Phase::Initialize);
        assert_eq!(t.unfinished(), ms(48));
        t.initialize = Some(ms(40));
        assert_eq!(t.phase_reached(), Phase::ToolsList);
        t.list = Some(ms(8));
        assert_eq!(t.phase_reached(), Phase::Done);
        assert_eq!(t.unfinished(), Duration::ZERO);
        assert_eq!(
            t.to_json(),
            json!({"spawnMs": 2.0, "initializeMs": 40.0, "listMs": 8.0, "totalMs": 50.0})
        );
    }
}
