//! Requests allowed, refused and failed per `host:port`, for the server's status. At most
//! [`EGRESS_STATS_MAX_HOSTS`] hosts are counted by name; the rest together as `(other)`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;

use crate::limits::EGRESS_STATS_MAX_HOSTS;

/// The key the hosts past the bound are counted under.
pub(super) const OTHER_HOSTS: &str = "(other)";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostCounts {
    /// Tunnels opened and plain requests forwarded.
    pub allowed: u64,
    /// Requests the allow list or the address check refused (answered 403).
    pub refused: u64,
    /// Allowed requests whose host could not be resolved or reached (answered 502).
    pub failed: u64,
}

#[derive(Debug, Default)]
pub(super) struct Stats {
    hosts: Mutex<BTreeMap<String, HostCounts>>,
}

#[derive(Clone, Copy)]
pub(super) enum Outcome {
    Allowed,
    Refused,
    Failed,
}

impl Stats {
    pub(super) fn count(&self, host: &str, outcome: Outcome) {
        let mut hosts = self
            .hosts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let key = if hosts.contains_key(host) || hosts.len() < EGRESS_STATS_MAX_HOSTS {
            host
        } else {
            OTHER_HOSTS
        };
        let counts = hosts.entry(key.to_owned()).or_default();
        match outcome {
            Outcome::Allowed => counts.allowed += 1,
            Outcome::Refused => counts.refused += 1,
            Outcome::Failed => counts.failed += 1,
        }
    }

    pub(super) fn snapshot(&self) -> BTreeMap<String, HostCounts> {
        self.hosts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_past_the_bound_share_one_entry() {
        let stats = Stats::default();
        for i in 0..EGRESS_STATS_MAX_HOSTS + 10 {
            stats.count(&format!("h{i}:443"), Outcome::Refused);
        }
        stats.count("h0:443", Outcome::Allowed);
        let snap = stats.snapshot();
        assert_eq!(snap.len(), EGRESS_STATS_MAX_HOSTS + 1);
        assert_eq!(snap[OTHER_HOSTS].refused, 10);
        assert_eq!(
            snap["h0:443"],
            HostCounts {
                allowed: 1,
                refused: 1,
                failed: 0
            }
        );
    }
}
