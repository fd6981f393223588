//! `servers/test`: one server started in a throwaway registry with the session's settings (so the
//! trust gate, naming and tools policy are the same), handshaken, its tools listed, then stopped. Nothing
//! is registered in the session: the probe has its own server table, catalog and event channel.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::registry::{shutting_down, AddOptions, Registry, Settings};
use crate::config::validate_server_name;
use crate::error::{Error, Result};

impl Registry {
    /// Starts `config` as server `name` in a throwaway registry, reports what the start found, and
    /// returns once its process tree is gone:
    /// `{state, transport, serverInfo?, protocolVersion?, instructions?, tools, toolsCount,
    /// timings: {startupMs, listMs?}, stderrTail, pid?, error?}`.
    ///
    /// A config that cannot be parsed is CONFIG_INVALID and one the trust gate refuses is
    /// TRUST_REQUIRED, as for `servers/add`; a start that fails is a result with `state: "error"`.
    pub async fn test(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        trust: Option<String>,
    ) -> Result<Value> {
        validate_server_name(name)?;
        let probe = {
            // Checked and recorded under one lock, so a concurrent `shutdown` always sees the probe.
            let mut probes = self.probes.lock().unwrap_or_else(|p| p.into_inner());
            if self.is_shutting_down() {
                return Err(shutting_down());
            }
            // No one listens: the probe's servers never reach the host's notifications.
            let (events, _) = mpsc::unbounded_channel();
            let settings = Settings {
                names: self.settings.names.clone(),
                format: self.settings.format,
                strict: self.settings.strict,
                cache: None,
                require_trust: self.settings.require_trust,
            };
            let probe = Registry::new(settings, events);
            probes.push(Arc::clone(&probe));
            probe
        };
        // A test is a start, whatever `autoStart` says (the field is outside the launch digest).
        let mut config = config.clone();
        if let Value::Object(map) = &mut config {
            map.remove("autoStart");
            map.remove("auto_start");
        }
        let this = Arc::clone(self);
        let name = name.to_owned();
        // A tracked task: a host that cancels its wait never leaves the probe's server running, and
        // `shutdown` waits for it.
        let run = self.operations().spawn(async move {
            let outcome = probe.run_probe(&name, &config, trust).await;
            let server = probe.server(&name);
            probe.shutdown().await;
            // The whole tail: the server's last words arrive once its process tree is gone.
            let outcome = match (outcome, server) {
                (Ok(mut report), Some(server)) => {
                    let tail = Arc::clone(&server.slot().stderr);
                    tail.drained_within(STDERR_EOF_GRACE).await;
                    report["stderrTail"] = Value::from(server.secrets.mask(&tail.text()));
                    Ok(report)
                }
                (outcome, _) => outcome,
            };
            this.probes
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|p| !Arc::ptr_eq(p, &probe));
            outcome
        });
        run.await
            .unwrap_or_else(|e| Err(Error::internal(format!("servers/test did not finish: {e}"))))
    }

    async fn run_probe(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        trust: Option<String>,
    ) -> Result<Value> {
        let begun = Instant::now();
        let options = AddOptions {
            trust,
            ..Default::default()
        };
        let status = self.add_with(name, config, true, options).await?;
        let startup = begun.elapsed();
        let session = self.server(name).and_then(|s| s.slot().session.clone());
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
        Ok(out)
    }
}

/// How long the report waits for the rest of a stopped server's stderr.
const STDERR_EOF_GRACE: Duration = Duration::from_millis(200);

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
