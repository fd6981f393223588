//! How a generation ends: stopped for good (remove, shutdown), parked with its tools still listed
//! (discovered, idle, recycled), or failed — then reaped, its error recorded with the exit status and
//! stderr tail, and the restart policy consulted. Scheduling the restart itself is the lifecycle's.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::restart::Decision;
use super::roster::Roster;
use super::server::{Server, Slot};
use super::session::{ProcessControl, Session};
use super::status::ServerState;
use crate::config::RestartPolicy;
use crate::error::{Error, ErrorCode};
use crate::limits;
use crate::process::ExitInfo;

/// How long a failed start waits for the process's exit status before reporting without it.
const EXIT_STATUS_GRACE: Duration = Duration::from_millis(200);

/// How long an error report waits for the rest of a dead server's stderr (its last words).
pub(super) const STDERR_EOF_GRACE: Duration = Duration::from_millis(200);

/// A generation taken out of its slot, to be stopped by whoever took it.
pub(super) type Running = (Option<Arc<Session>>, Option<Arc<ProcessControl>>);

/// Why a ready server is stopped while keeping its tools listed.
#[derive(Clone, Copy, Debug)]
pub(super) enum ParkReason {
    Discovered,
    Idle,
    Lifetime,
}

/// Stops whatever generation is current, for good (remove, shutdown). Tools leave first.
pub(super) async fn stop(roster: &Roster, server: &Arc<Server>) {
    let old = {
        let mut slot = server.slot();
        slot.generation += 1;
        slot.state = ServerState::Stopped;
        slot.dormant_tools = None;
        slot.next_restart_at = None;
        slot.take_running()
    };
    roster.transitioned(server);
    if let Some(exit) = stop_running(old).await {
        server.slot().last_exit = Some(exit);
    }
    roster.emit_status(server);
}

/// Stops a ready, idle generation but keeps its tools listed: the next call starts it again.
/// Does nothing (and returns false) if the generation moved on or a call is in flight.
pub(super) async fn park(
    roster: &Roster,
    server: &Arc<Server>,
    generation: u64,
    reason: ParkReason,
) -> bool {
    let (parked, old) = {
        let mut slot = server.slot();
        let idle = slot.session.as_ref().is_some_and(|s| s.in_flight() == 0);
        if slot.generation != generation || slot.state != ServerState::Ready || !idle {
            return false;
        }
        let tools = slot.served_tools();
        let old = slot.take_running();
        slot.generation += 1;
        slot.state = ServerState::Stopped;
        slot.dormant_tools = tools;
        (slot.generation, old)
    };
    tracing::info!(server = %server.name, generation, ?reason, "stopping an idle server; its tools stay listed");
    roster.transitioned(server);
    let exit = stop_running(old).await;
    {
        let mut slot = server.slot();
        if slot.generation == parked {
            slot.last_exit = exit;
        }
    }
    roster.emit_status(server);
    true
}

/// After a failure: the process's exit status (waiting briefly, or stopping it), and the rest of its
/// stderr (its last words belong in the report).
pub(super) async fn reap(
    server: &Server,
    control: Option<Arc<ProcessControl>>,
) -> Option<ExitInfo> {
    let exit = match control {
        Some(c) => match c.exited_within(EXIT_STATUS_GRACE).await {
            Some(info) => Some(info),
            None => c.stop().await,
        },
        None => None,
    };
    let tail = Arc::clone(&server.slot().stderr);
    tail.drained_within(STDERR_EOF_GRACE).await;
    exit
}

/// A failure's error as recorded in `lastError`: the server, its stderr tail and its exit status.
pub(super) fn final_error(
    server: &Server,
    slot: &Slot,
    error: Error,
    exit: Option<ExitInfo>,
) -> Error {
    let error = sandbox_denial(server, slot, error)
        .with("server", server.name.as_str())
        .with_stderr_tail(&slot.stderr.text());
    match exit {
        Some(info) => error.with("exit", info.to_json()),
        None => error,
    }
}

/// A sandboxed server's failure that its stderr tail (or its memory limit's kills) shows to be a
/// refusal of its sandbox: SANDBOX_DENIED naming what was refused and the key that would allow
/// it, the failure's own message after it.
fn sandbox_denial(server: &Server, slot: &Slot, error: Error) -> Error {
    if server.spec.sandbox.is_none() || error.code == ErrorCode::SandboxDenied {
        return error;
    }
    let oom_kills = slot.sandbox.as_ref().map_or(0, |r| r.oom_kills());
    let mut readable: Vec<std::path::PathBuf> = slot
        .sandbox
        .as_ref()
        .map(|r| r.readable.clone())
        .unwrap_or_default();
    if let Some(policy) = &server.spec.sandbox {
        readable.extend(policy.read.iter().chain(&policy.write).cloned());
    }
    let Some(denial) = crate::sandbox::denial::find(&slot.stderr.text(), oom_kills, &readable)
    else {
        return error;
    };
    let mut denied = denial.to_error(server.name.as_str());
    denied.message = format!("{} (the server: {})", denied.message, error.message);
    for (key, value) in error.details {
        denied.details.entry(key).or_insert(value);
    }
    denied
}

/// Applies the restart policy to a failure already recorded in the slot; returns the backoff
/// delay when a restart is due. `down` is the state when no restart follows; a failure that is not
/// `restartable` (a host's request, or during shutdown) never restarts.
pub(super) fn after_failure(
    server: &Server,
    slot: &mut Slot,
    restartable: bool,
    down: ServerState,
) -> Option<Duration> {
    if !restartable || server.spec.restart == RestartPolicy::Never {
        slot.state = down;
        return None;
    }
    match slot.restart.on_failure(Instant::now()) {
        Decision::RetryAfter(delay) => {
            slot.state = ServerState::Unhealthy;
            slot.next_restart_at = Some(SystemTime::now() + delay);
            tracing::info!(server = %server.name, delay_ms = delay.as_millis() as u64, "restart scheduled");
            Some(delay)
        }
        Decision::GiveUp { failures } => {
            slot.state = ServerState::Error;
            let window = limits::CRASH_LOOP_WINDOW.as_secs();
            if let Some(e) = slot.last_error.take() {
                let message = format!(
                    "{} (crash loop: {failures} failures within {window} s; not restarting until servers/restart)",
                    e.message
                );
                slot.last_error = Some(
                    Error { message, ..e }
                        .with("crashLoop", true)
                        .with("failures", failures as u64),
                );
            }
            tracing::warn!(server = %server.name, failures, "crash loop; giving up until servers/restart");
            None
        }
    }
}

/// Ends a session's pending requests and closes its input, without waiting on a stuck writer.
pub(super) async fn close_session(session: &Session) {
    let _ = tokio::time::timeout(limits::STOP_AFTER_STDIN_CLOSE, session.client.close()).await;
}

/// Stops a generation taken out of its slot; returns how its process ended.
pub(super) async fn stop_running((session, control): Running) -> Option<ExitInfo> {
    if let Some(session) = &session {
        close_session(session).await;
    }
    match control {
        Some(control) => control.stop().await,
        None => None,
    }
}
