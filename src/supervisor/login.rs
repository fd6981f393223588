//! The `needs_login` state of a remote server that uses OAuth. A start or a session that failed
//! with AUTH_REQUIRED lands there — never in the restart policy: reconnecting does not fix an
//! authorization. What brings it back is a login: asked of the host's browser step while a start
//! waits (the start then goes on), or run in the background — the host's browser step, or the
//! loopback listener with its URL in the status — and followed by a new start, or asked for with
//! `servers/login`. A logout puts a server there too.
//!
//! Below the lifecycle: the start that follows a background login is the lifecycle's, handed in as
//! a [`Restart`].

use std::sync::{Arc, Weak};

use futures_util::future::BoxFuture;

use super::roster::Roster;
use super::server::Server;
use super::status::ServerState;
use super::teardown;
use crate::error::{Error, ErrorCode};
use crate::oauth::AuthError;

/// Starts a server again (the lifecycle's `start`), handed down so this file needs no import of it.
pub(super) type Restart = fn(Arc<Roster>, Arc<Server>) -> BoxFuture<'static, ()>;

/// Whether only a login can fix `error`.
pub(super) fn needs_login(error: &Error) -> bool {
    error.code == ErrorCode::AuthRequired
}

/// An OAuth failure of `server`, as the host sees it: named after the server, secrets masked.
pub(super) fn auth_error(server: &Server, e: AuthError) -> Error {
    let mut error = Error::from(e);
    error.message = format!("server `{}`: {}", server.name, error.message);
    server.mask_error(error.with("server", server.name.as_str()))
}

/// A start of generation `generation` failed for want of a login (`error`). When the host can show
/// one, the server waits in `needs_login` (announced; its authorization URL in the status as soon
/// as there is one) while the login runs, and `Some(Ok)` says the start may go on; `Some(Err)` is
/// the login's failure. `None`: there is nobody to ask (or the generation moved on).
pub(super) async fn during_start(
    roster: &Roster,
    server: &Arc<Server>,
    generation: u64,
    error: &Error,
) -> Option<Result<(), Error>> {
    let auth = server.auth.clone().filter(|a| a.can_ask())?;
    {
        let mut slot = server.slot();
        if slot.generation != generation {
            return None;
        }
        slot.state = ServerState::NeedsLogin;
        slot.last_error = Some(error.clone().with("server", server.name.as_str()));
    }
    roster.transitioned(server);
    let outcome = auth.login(false).await.map_err(|e| auth_error(server, e));
    if outcome.is_ok() {
        let mut slot = server.slot();
        if slot.generation != generation {
            return None;
        }
        slot.state = ServerState::Starting;
        slot.last_error = None;
        drop(slot);
        roster.transitioned(server);
    }
    Some(outcome)
}

/// Generation `generation` settled in `needs_login`: one login in the background — the host's
/// browser step, or the loopback listener (its URL in the status) when the session allows those —
/// and, once it succeeds, a new start. Not a loop: a login that fails leaves its reason in
/// `lastError` and the server waits for `servers/login`.
pub(super) fn in_background(
    roster: &Arc<Roster>,
    server: &Arc<Server>,
    generation: u64,
    restart: Restart,
) {
    let Some(auth) = server.auth.clone() else {
        return;
    };
    if !auth.can_ask() && !roster.settings.auth.loopback_logins {
        return;
    }
    let (roster, server) = (Arc::downgrade(roster), Arc::downgrade(server));
    tokio::spawn(async move {
        let outcome = auth.login(false).await;
        let (Some(roster), Some(server)) = (roster.upgrade(), server.upgrade()) else {
            return;
        };
        let current = {
            let slot = server.slot();
            slot.generation == generation && slot.state == ServerState::NeedsLogin
        };
        if !current || roster.is_shutting_down() || !roster.is_registered(&server) {
            return;
        }
        match outcome {
            Ok(()) => restart(roster, server).await,
            Err(e) => {
                tracing::warn!(server = %server.name, "login failed: {e}");
                server.slot().last_error = Some(auth_error(&server, e));
                roster.emit_status(&server);
            }
        }
    });
}

/// Stops whatever generation runs and leaves the server in `needs_login` with `error` (a logout).
pub(super) async fn require(roster: &Roster, server: &Arc<Server>, error: Error) {
    let old = {
        let mut slot = server.slot();
        slot.generation += 1;
        slot.state = ServerState::NeedsLogin;
        slot.dormant_tools = None;
        slot.next_restart_at = None;
        slot.last_error = Some(error.with("server", server.name.as_str()));
        slot.take_running()
    };
    roster.transitioned(server);
    teardown::stop_running(old).await;
    roster.emit_status(server);
}

/// Sends a status notification whenever the server's authorization changes (a login starts
/// waiting for the browser, or ends). Ends with the server.
pub(super) fn forward_status(roster: &Arc<Roster>, server: &Arc<Server>) {
    let Some(auth) = &server.auth else {
        return;
    };
    let mut changes = auth.status();
    let (roster, server): (Weak<Roster>, Weak<Server>) =
        (Arc::downgrade(roster), Arc::downgrade(server));
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            let (Some(roster), Some(server)) = (roster.upgrade(), server.upgrade()) else {
                return;
            };
            if roster.is_registered(&server) {
                roster.emit_status(&server);
            }
        }
    });
}
