//! What the host sees of a server: its state and a status snapshot.

use serde::Serialize;
use serde_json::Value;

/// Server states.
///
/// - `stopped`: no process. Either never started (a lazy server, whose tools are served from the
///   schema cache), stopped after `idleTimeoutSeconds` / `maxLifetimeSeconds` (tools still listed; the
///   next call starts it), or being removed.
/// - `starting`: spawn, handshake and discovery in progress.
/// - `ready`: serving calls.
/// - `unhealthy`: a running session broke (crash, bad output, missed keepalive); with the
///   `on-failure` policy a restart is scheduled (`nextRestartAt`), with `never` it stays down.
/// - `error`: a start failed, or the server crash-looped; only `servers/restart` starts it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerState {
    Stopped,
    Starting,
    Ready,
    Unhealthy,
    Error,
}

/// The `status` object of host protocol v1 (see proto/PROTOCOL.md).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub name: String,
    /// `user`, `host` or `plugin`: how the server arrived.
    pub source: crate::config::Source,
    pub state: ServerState,
    /// Increments on every start; events of older generations are ignored.
    pub generation: u64,
    /// The command line; for a remote server its URL.
    pub command: String,
    /// `stdio`, `http` or `sse`: the configured kind (`http` when only a `url` is given, even if
    /// the server turns out to speak legacy SSE).
    pub transport: &'static str,
    /// A remote server's URL (never with credentials; header values are never shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Names of the configured headers of a remote server (values are never shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    pub tools_count: usize,
    /// RFC 3339, UTC, when the current generation was spawned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// How the last process ended, `{code, signal}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_exit: Option<Value>,
    /// The last error as a JSON-RPC error object (`{code, message, data}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<Value>,
    pub stderr_tail: String,
    /// Automatic restarts after failures (restart policy), over the server's life.
    pub restarts: u64,
    /// When the next automatic restart is due (RFC 3339), while one is scheduled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_restart_at: Option<String>,
    /// Tool calls routed to this server, and how many of them ended in an error response.
    pub calls: u64,
    pub errors: u64,
    /// Median latency of the most recent successful calls, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_latency_ms: Option<f64>,
}

/// Formats a system time as RFC 3339 in UTC with millisecond precision.
pub fn rfc3339(t: std::time::SystemTime) -> String {
    let since = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 to (year, month, day), Howard Hinnant's algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn formats_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_764_450_000_123);
        assert_eq!(rfc3339(t), "2025-11-29T21:00:00.123Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00.000Z"
        );
    }

    #[test]
    fn states_serialise_lowercase() {
        assert_eq!(
            serde_json::to_string(&ServerState::Unhealthy).unwrap(),
            r#""unhealthy""#
        );
    }
}
