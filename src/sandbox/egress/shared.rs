//! What every connection of one proxy shares: the server's name, its allow list, the bounds and
//! the counts; and the one place a refusal is counted and logged.

use std::sync::Arc;

use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::CancellationToken;

use super::options::EgressOptions;
use super::patterns::AllowList;
use super::stats::{Outcome, Stats};
use super::target::Target;

pub(super) struct Shared {
    pub server: String,
    pub allow: AllowList,
    pub options: EgressOptions,
    pub stats: Stats,
    /// Cancelled when the proxy is dropped: every connection and tunnel ends.
    pub stop: CancellationToken,
}

/// One accepted connection: the proxy's shared state and the slot it holds under
/// `max_connections` (a tunnel keeps it after its connection was handed over).
#[derive(Clone)]
pub(super) struct Connection {
    pub shared: Arc<Shared>,
    /// Held, never read: dropping the last clone gives the slot back.
    #[allow(dead_code)]
    pub slot: Arc<OwnedSemaphorePermit>,
}

impl Shared {
    /// Counts and logs a refusal; the log line reaches the sidecar's stderr and `doctor`.
    pub(super) fn refused(&self, target: &Target, why: &str) {
        self.stats.count(&target.to_string(), Outcome::Refused);
        tracing::warn!(server = %self.server, host = %target, "egress refused: {why}");
    }

    pub(super) fn allowed(&self, target: &Target) {
        self.stats.count(&target.to_string(), Outcome::Allowed);
        tracing::debug!(server = %self.server, host = %target, "egress allowed");
    }

    pub(super) fn failed(&self, target: &Target, why: &str) {
        self.stats.count(&target.to_string(), Outcome::Failed);
        tracing::warn!(server = %self.server, host = %target, "egress failed: {why}");
    }
}
