//! What the host sees of a server: its state, a status snapshot, and its statistics.

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
/// - `needs_login`: a remote server refused the sidecar without a login (no token, a refresh
///   refused, a scope lacking, a logout); reconnecting never fixes that, so no restart is scheduled.
///   A login (the host's browser step, the loopback listener, `servers/login`, `mcp-sidecar login`)
///   brings it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ServerState {
    Stopped,
    Starting,
    Ready,
    Unhealthy,
    Error,
    #[serde(rename = "needs_login")]
    NeedsLogin,
}

impl ServerState {
    /// Every state, in the order they are listed (`/metrics` shows each, zero included).
    pub(crate) const ALL: [ServerState; 6] = [
        Self::Stopped,
        Self::Starting,
        Self::Ready,
        Self::Unhealthy,
        Self::Error,
        Self::NeedsLogin,
    ];

    /// The state as the protocol spells it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Stopped => "stopped",
            Self::Starting => "starting",
            Self::Ready => "ready",
            Self::Unhealthy => "unhealthy",
            Self::Error => "error",
            Self::NeedsLogin => "needs_login",
        }
    }
}

/// The `status` object of host protocol v1 (see proto/PROTOCOL.md).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerStatus {
    pub name: String,
    /// What the server's tools and prompts are exposed under (`{server}` in the name template):
    /// the name itself, or for a name a provider would refuse ("Time Server") a slug of it and a
    /// hash (`convert::server_prefix`).
    pub prefix: String,
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
    /// `legacy` (an `initialize` session) or `modern` (2026-07-28), while `ready`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub era: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The capabilities the server declared in its handshake (while `ready`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Value>,
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
    /// While a login of this server waits for the browser: the URL a person opens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization_url: Option<String>,
    /// A sandboxed server's level: `{enforced, missing, preset, why?}` (of its last spawn, or what
    /// this host would enforce before its first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Value>,
}

/// One server's entry of `servers/stats` (see proto/PROTOCOL.md).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerStats {
    pub name: String,
    pub state: ServerState,
    pub generation: u64,
    /// RFC 3339, UTC, when the current or last generation started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// Milliseconds since the current session became ready (while `ready`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uptime_ms: Option<f64>,
    /// Automatic restarts after failures, over the server's life.
    pub restarts: u64,
    /// Bytes of the JSON-RPC messages read from and written to the server, over its life.
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Where the time of the last start went: `{spawnMs?, initializeMs?, listMs?, totalMs}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup: Option<Value>,
    /// Every call since the server was added.
    pub total: super::stats::Window,
    /// The calls of the last minutes (`windowSeconds`).
    pub recent: super::stats::Window,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_serialise_lowercase() {
        assert_eq!(
            serde_json::to_string(&ServerState::Unhealthy).unwrap(),
            r#""unhealthy""#
        );
        assert_eq!(
            serde_json::to_string(&ServerState::NeedsLogin).unwrap(),
            r#""needs_login""#
        );
    }
}
