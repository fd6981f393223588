//! A session for a call: the ready server's, or one a dormant server is started for (waiting for
//! a start in progress); a server that is down fails at once.

use std::sync::Arc;
use std::time::Duration;

use super::lifecycle::{begin_start_locked, finish_start, StartKind};
use super::roster::{shutting_down, Roster};
use super::server::Server;
use super::session::{CallGuard, Session};
use super::status::ServerState;
use crate::error::Result;
use crate::limits;

/// Upper bound on the wait for a start someone else began (a restart may first stop the old tree).
const START_WAIT_SLACK: Duration = limits::STOP_AFTER_STDIN_CLOSE
    .saturating_add(limits::STOP_AFTER_SIGTERM)
    .saturating_add(limits::STOP_AFTER_SIGKILL);

/// Most state changes a call waits through before giving up (each is a start finishing or failing).
const MAX_START_WAITS: usize = 64;

/// The session of a ready server, with one use counted in flight; `None` when it is not ready
/// (nothing is started).
pub(super) fn ready_session(server: &Server) -> Option<(Arc<Session>, CallGuard)> {
    let slot = server.slot();
    match (slot.state, &slot.session) {
        (ServerState::Ready, Some(session)) => Some((Arc::clone(session), session.begin_call())),
        _ => None,
    }
}

/// A session for one call, with the call counted in flight. Starts a dormant server and waits
/// for a start in progress; fails at once with SERVER_UNAVAILABLE when the server is down.
pub(super) async fn acquire(
    roster: &Arc<Roster>,
    server: &Arc<Server>,
) -> Result<(Arc<Session>, CallGuard)> {
    let deadline = tokio::time::Instant::now() + server.spec.startup_timeout + START_WAIT_SLACK;
    // Subscribed before the first look, so a change between the look and the wait is not missed.
    let mut changes = server.subscribe();
    for _ in 0..MAX_START_WAITS {
        let begun = {
            let mut slot = server.slot();
            match (slot.state, &slot.session) {
                (ServerState::Ready, Some(session)) => {
                    let guard = session.begin_call();
                    return Ok((Arc::clone(session), guard));
                }
                (ServerState::Stopped, _) if slot.dormant_tools.is_some() => {
                    if roster.is_shutting_down() {
                        return Err(shutting_down());
                    }
                    Some(begin_start_locked(&mut slot, StartKind::OnDemand))
                }
                (ServerState::Starting, _) => None,
                _ => return Err(server.unavailable(&slot)),
            }
        };
        if let Some(begun) = begun {
            tracing::info!(server = %server.name, generation = begun.0, "starting a dormant server for a call");
            roster.transitioned(server);
            let (roster, s) = (Arc::clone(roster), Arc::clone(server));
            // Its own task: a call cancelled by the host must not abandon a half-done start.
            tokio::spawn(
                async move { finish_start(&roster, &s, begun, StartKind::OnDemand).await },
            );
        }
        match tokio::time::timeout_at(deadline, changes.changed()).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) | Err(_) => break,
        }
    }
    let slot = server.slot();
    Err(server.unavailable(&slot))
}
