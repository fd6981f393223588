//! What the registry tells of its servers: statuses, states for readiness, `/metrics` samples,
//! statistics.

use crate::error::Result;
use crate::supervisor::status::{ServerState, ServerStats, ServerStatus};

use super::Registry;

impl Registry {
    pub(crate) fn list(&self) -> Vec<ServerStatus> {
        self.roster.all().iter().map(|s| s.status()).collect()
    }

    /// Each server's name and state, and whether it starts with the sidecar (`autoStart`, true
    /// by default) rather than on its first call: what a readiness check reads, without the rest
    /// of a status.
    pub(crate) fn states(&self) -> Vec<(String, ServerState, bool)> {
        self.roster
            .all()
            .iter()
            .map(|s| (s.name.to_string(), s.slot().state, s.spec.auto_start))
            .collect()
    }

    /// Each server as `/metrics` shows it, from its own statistics (state, restarts, calls in
    /// flight, bytes each way).
    pub(crate) fn metric_samples(&self) -> Vec<crate::metrics::ServerSample> {
        self.roster
            .all()
            .iter()
            .map(|s| {
                let (bytes_in, bytes_out) = s.traffic.totals();
                let slot = s.slot();
                crate::metrics::ServerSample {
                    name: s.name.to_string(),
                    state: slot.state.as_str(),
                    restarts: slot.restarts,
                    in_flight: s.calls.current() as u64,
                    bytes_in,
                    bytes_out,
                }
            })
            .collect()
    }

    /// Statistics of every server (sorted by name), or of those named (SERVER_NOT_FOUND for a
    /// name that is not registered).
    pub(crate) fn stats(&self, servers: Option<&[String]>) -> Result<Vec<ServerStats>> {
        match servers {
            None => Ok(self.roster.all().iter().map(|s| s.stats()).collect()),
            Some(names) => {
                let mut found = names
                    .iter()
                    .map(|n| self.roster.find(n))
                    .collect::<Result<Vec<_>>>()?;
                found.sort_by(|a, b| a.name.cmp(&b.name));
                found.dedup_by(|a, b| a.name == b.name);
                Ok(found.iter().map(|s| s.stats()).collect())
            }
        }
    }
}
