//! `servers/test`: what a trial start of one server found, as the report the host receives. The
//! registry runs the trial in a throwaway registry with the session's settings (so the trust gate,
//! naming and tools policy are the same) and stops it again; this file shapes the config going in
//! and the report coming out.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::server::Server;
use super::status::ServerStatus;
use super::teardown::STDERR_EOF_GRACE;

/// The config to start: a test is a start, whatever `autoStart` says (the field is outside the
/// launch digest, so the trust gate is unaffected).
pub(super) fn config(config: &Value) -> Value {
    let mut config = config.clone();
    if let Value::Object(map) = &mut config {
        map.remove("autoStart");
        map.remove("auto_start");
    }
    config
}

/// `{state, transport, serverInfo?, protocolVersion?, instructions?, tools, toolsCount,
/// timings: {startupMs, spawnMs?, initializeMs?, listMs?}, stderrTail, pid?, error?}` of the
/// started `server`, whose add returned `status` after `startup`.
pub(super) fn report(status: ServerStatus, server: Option<&Server>, startup: Duration) -> Value {
    let session = server.and_then(|s| s.slot().session.clone());
    let phases = server.and_then(|s| s.slot().startup);
    let (tools, discovery) = match session {
        Some(session) => (
            session
                .tools()
                .iter()
                .map(|t| t.name.clone())
                .collect::<Vec<_>>(),
            Some(session.discovery),
        ),
        None => (Vec::new(), None),
    };
    let mut timings = json!({ "startupMs": millis(startup) });
    if let Some(d) = discovery {
        timings["listMs"] = json!(millis(d));
    }
    // The phases of the start (those it finished): where the time went, or where it stopped.
    for (key, phase) in phases
        .map(|p| {
            [
                ("spawnMs", p.spawn),
                ("initializeMs", p.initialize),
                ("listMs", p.list),
            ]
        })
        .into_iter()
        .flatten()
    {
        if let Some(d) = phase {
            timings[key] = json!(millis(d));
        }
    }
    let mut out = json!({
        "state": status.state,
        "transport": status.transport,
        "toolsCount": tools.len(),
        "tools": tools,
        "timings": timings,
        "stderrTail": status.stderr_tail,
    });
    for (key, value) in [
        ("serverInfo", status.server_info),
        ("protocolVersion", status.protocol_version.map(Value::from)),
        ("instructions", status.instructions.map(Value::from)),
        ("pid", status.pid.map(Value::from)),
        ("error", status.last_error),
    ] {
        if let Some(v) = value {
            out[key] = v;
        }
    }
    out
}

/// Once the trial's process tree is gone: the whole stderr tail, its last words included.
pub(super) async fn with_last_words(mut report: Value, server: &Arc<Server>) -> Value {
    let tail = Arc::clone(&server.slot().stderr);
    tail.drained_within(STDERR_EOF_GRACE).await;
    report["stderrTail"] = Value::from(server.secrets.mask_excerpt(&tail.text()));
    report
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_starts_the_server_whatever_auto_start_says() {
        let given =
            json!({"command": "srv", "autoStart": false, "auto_start": false, "args": ["a"]});
        assert_eq!(config(&given), json!({"command": "srv", "args": ["a"]}));
    }
}
