//! What a server is told again after every start (a restart of any kind, or a dormant server
//! woken): its log level, and the resources the host subscribed to — each then announced to the
//! host as updated, since it may have changed while the server was down.

use std::sync::Arc;

use super::events::Event;
use super::roster::Roster;
use super::server::Server;
use super::session::Session;
use crate::mcp::Capability;

/// After a start: the server's log level and resource subscriptions are sent again (best
/// effort, logged), and each resubscribed resource is announced as updated — it may have changed
/// while the server was down.
pub(super) async fn after_ready(roster: Arc<Roster>, server: Arc<Server>, session: Arc<Session>) {
    let handshake = session.client.handshake();
    let timeout = server.spec.tool_timeout;
    if let Some(level) = roster.log_level(&server) {
        if handshake.declares(Capability::Logging) {
            if let Err(e) = session.client.set_log_level(level, timeout).await {
                tracing::warn!(server = %server.name, "cannot set the log level: {}", server.secrets.mask(&e.message));
            }
        }
    }
    let uris: Vec<String> = server.slot().subscriptions.iter().cloned().collect();
    if uris.is_empty() || !handshake.declares(Capability::ResourceSubscriptions) {
        return;
    }
    for uri in uris {
        if session.ended.is_cancelled() {
            return;
        }
        match session.client.subscribe(&uri, true, timeout).await {
            Ok(()) => roster.send(Event::ResourceUpdated {
                server: server.name.clone(),
                uri: Some(uri),
            }),
            Err(e) => {
                tracing::warn!(server = %server.name, "cannot subscribe again to a resource: {}", server.secrets.mask(&e.message));
            }
        }
    }
}
