//! A call to a name the catalog does not have yet, while a server that may expose it is on its
//! first start (its tools are not known, so not listed): the call waits for that server's start
//! alone — never for the other servers — and looks the name up again once it has ended. So a
//! host that loads many servers without waiting (`servers/load {wait: false}`) can call a tool of a
//! slow server as soon as it knows its name, and calls to fast servers never queue behind it.

use std::sync::Arc;
use std::time::Duration;

use super::roster::Roster;
use super::server::Server;
use super::status::ServerState;
use crate::error::Error;
use crate::limits;
use crate::store::Catalog;

/// Beyond a server's own `startupTimeoutSeconds`: the start may first stop an older process tree.
const SLACK: Duration = limits::STOP_AFTER_STDIN_CLOSE
    .saturating_add(limits::STOP_AFTER_SIGTERM)
    .saturating_add(limits::STOP_AFTER_SIGKILL);

/// What waiting for the servers that may have a name came to.
pub(super) enum Waited {
    /// The name is in this catalog now.
    Found(Arc<Catalog>),
    /// The only server that could have it failed to start: why (SERVER_UNAVAILABLE).
    Failed(Error),
    /// No server that may have it was starting, or none turned out to have it.
    Nothing,
}

/// Waits for the first start of each server that may own `name` (one after the other, in name
/// order) until the name is in the catalog.
pub(super) async fn catalog_with(roster: &Roster, name: &str) -> Waited {
    let candidates: Vec<Arc<Server>> = roster
        .all()
        .into_iter()
        .filter(|s| first_start_in_progress(s) && roster.settings.names.may_name(&s.name, name))
        .collect();
    let only_one = candidates.len() == 1;
    for server in candidates {
        tracing::debug!(server = %server.name, name, "a call waits for the start of the server that may have its tool");
        started(&server).await;
        let catalog = roster.catalog();
        if catalog.get(name).is_some() {
            return Waited::Found(catalog);
        }
        let slot = server.slot();
        if only_one && matches!(slot.state, ServerState::Error | ServerState::Unhealthy) {
            return Waited::Failed(server.unavailable(&slot));
        }
    }
    Waited::Nothing
}

/// Starting, with no tools listed yet (a restart by the host keeps the old ones listed, and then
/// the name would have been found).
fn first_start_in_progress(server: &Server) -> bool {
    let slot = server.slot();
    slot.state == ServerState::Starting && slot.exposed_tools().is_none()
}

/// Returns once `server` is no longer starting, or after its startup timeout (and the slack for
/// stopping an older tree) has run out.
async fn started(server: &Server) {
    let deadline = tokio::time::Instant::now() + server.spec.startup_timeout + SLACK;
    // Subscribed before the look, so a change between the look and the wait is not missed.
    let mut changes = server.subscribe();
    while server.slot().state == ServerState::Starting {
        match tokio::time::timeout_at(deadline, changes.changed()).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) | Err(_) => return,
        }
    }
}
