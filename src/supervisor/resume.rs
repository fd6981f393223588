//! What a server is told again at every start (a restart of any kind, or a dormant server woken):
//! its log level, before the start is announced ready, and the resources the host subscribed to,
//! after — each then announced to the host as updated, since it may have changed while the server
//! was down.

use std::sync::Arc;

use super::events::Event;
use super::roster::Roster;
use super::server::Server;
use super::session::Session;
use crate::mcp::Capability;

/// Before a start is announced ready: the server's log level (its own, else the session's), when
/// it declared `logging` — so a ready server already has it. Bounded by `deadline` (the start's);
/// a failure is logged, not fatal: logs are a courtesy of the server.
pub(super) async fn log_level(
    roster: &Roster,
    server: &Server,
    session: &Session,
    deadline: tokio::time::Instant,
) {
    let Some(level) = roster.log_level(server) else {
        return;
    };
    if !session.client.handshake().declares(Capability::Logging) {
        return;
    }
    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
    if let Err(e) = session.client.set_log_level(level, left).await {
        tracing::warn!(server = %server.name, "cannot set the log level: {}", server.secrets.mask(&e.message));
    }
}

/// After a start: the resources the host subscribed to are subscribed again (best effort, one
/// at a time, logged), and each is announced as updated — it may have changed while the server
/// was down.
pub(super) async fn subscriptions(roster: Arc<Roster>, server: Arc<Server>, session: Arc<Session>) {
    let uris: Vec<String> = server.slot().subscriptions.iter().cloned().collect();
    let handshake = session.client.handshake();
    if uris.is_empty() || !handshake.declares(Capability::ResourceSubscriptions) {
        return;
    }
    for uri in uris {
        if session.ended.is_cancelled() {
            return;
        }
        match session
            .client
            .subscribe(&uri, true, server.spec.tool_timeout)
            .await
        {
            Ok(()) => roster.send(Event::ResourceUpdated {
                server: server.name.to_string(),
                uri: Some(uri),
            }),
            Err(e) => {
                tracing::warn!(server = %server.name, "cannot subscribe again to a resource: {}", server.secrets.mask(&e.message));
            }
        }
    }
}
