//! Each server's state machine: starts (and why), what a failure leads to (a scheduled restart or a
//! stop), and the watch over a ready generation; getting a session for a call (starting a dormant
//! server on the way) is in [`super::acquire`]. How a generation is brought up is in
//! [`super::launch`], how it ends in [`super::teardown`], its timers in [`super::upkeep`].
//!
//! ```text
//!            add / restart / call on a dormant server / restart timer
//! stopped ─────────────────────────────► starting ──ok──► ready ──idle, lifetime──► stopped (dormant)
//!    ▲                                     │                │
//!    │ remove/shutdown                     │ failed         │ crash, bad output, missed keepalive
//!    │                                     ▼                ▼
//!    └──────────────────────────────── error ◄─crash loop─ unhealthy ──backoff timer──► starting
//! ```
//!
//! Generations: each start of a server gets a new generation number, and every asynchronous outcome
//! (handshake finished, session closed, tool list changed, restart timer, keepalive, idle timer)
//! carries the generation it belongs to. Every transition happens under the server's slot lock and
//! bumps the generation when it ends or begins a process; every continuation re-checks the
//! generation it was started for and does nothing if it moved on, so a late event from an old
//! process can never stop or corrupt its replacement.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::mpsc;

use super::announce;
use super::launch::{self, Connected};
use super::lazy;
use super::login;
use super::roster::{shutting_down, Roster};
use super::server::{Server, Slot};
use super::session::{ProcessControl, Session};
use super::status::ServerState;
use super::teardown::{self, ParkReason, Running};
use super::timings::StartTimings;
use super::upkeep::{Due, Upkeep};
use crate::config::ServerSpec;
use crate::error::{Error, ErrorCode};
use crate::mcp::ClientEvent;
use crate::package;
use crate::process::StderrTail;

/// Why a server is being started; decides what a failure means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StartKind {
    /// `servers/add` or `servers/restart`: a failure is reported (`error`), not retried.
    Requested,
    /// A lazy server's first start, to discover its tools; stopped again once they are cached.
    Discover,
    /// A call found the server dormant (lazy, idle-stopped, recycled).
    OnDemand,
    /// The restart policy, after a failure: a failure here counts toward the crash loop.
    Automatic,
}

/// A start that has begun: its generation and whatever ran before (to be stopped first).
pub(super) type Begun = (u64, Running);

/// Moves the slot to `starting` under a new generation; returns it and whatever ran before.
pub(super) fn begin_start_locked(slot: &mut Slot, kind: StartKind) -> Begun {
    // Tools stay listed through a host's restart and an on-demand start; after a failure they left.
    let keep = match kind {
        StartKind::Requested | StartKind::OnDemand => slot.served_tools(),
        StartKind::Discover | StartKind::Automatic => None,
    };
    let old = slot.take_running();
    slot.generation += 1;
    slot.state = ServerState::Starting;
    slot.dormant_tools = keep;
    slot.next_restart_at = None;
    if kind == StartKind::Requested {
        slot.last_error = None;
        slot.last_exit = None;
    }
    slot.stderr = Arc::new(StderrTail::default());
    slot.started_at = Some(SystemTime::now());
    (slot.generation, old)
}

/// Starts (or restarts) a server and returns once it is ready or has failed.
pub(super) async fn start(roster: &Arc<Roster>, server: &Arc<Server>, kind: StartKind) {
    if let Some(begun) = begin_start(roster, server, kind) {
        finish_start(roster, server, begun, kind).await;
    }
}

/// The synchronous half of a start: a new generation in `starting`, announced. `None` when the
/// server was removed or the registry shut down meanwhile (a restart racing a removal or a
/// shutdown must not leave a process behind).
pub(super) fn begin_start(roster: &Roster, server: &Arc<Server>, kind: StartKind) -> Option<Begun> {
    if roster.is_shutting_down() || !roster.is_registered(server) {
        return None;
    }
    let begun = begin_start_locked(&mut server.slot(), kind);
    roster.transitioned(server);
    Some(begun)
}

/// The asynchronous half: stop what ran before, spawn, handshake, discover.
pub(super) async fn finish_start(
    roster: &Arc<Roster>,
    server: &Arc<Server>,
    (generation, old): Begun,
    kind: StartKind,
) {
    teardown::stop_running(old).await;
    run_start(roster, server, generation, kind).await;
}

async fn run_start(roster: &Arc<Roster>, server: &Arc<Server>, generation: u64, kind: StartKind) {
    let mut begun = Instant::now();
    let Some(prepared) = prepared_spec(roster, server, (generation, kind), begun).await else {
        return;
    };
    let mut timings = StartTimings::default();
    // A start that needs a login may ask the host's browser step once, then go on with a new
    // deadline (a person's time is not the server's startup time, nor in its timings).
    let mut asked = false;
    let launched = loop {
        let deadline = tokio::time::Instant::now() + server.spec.startup_timeout;
        let stderr_tail = Arc::clone(&server.slot().stderr);
        let opened = launch::open(server, prepared.as_ref(), &stderr_tail);
        timings.spawn = opened.is_ok().then(|| begun.elapsed());
        let (transport, control) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                timings.total = begun.elapsed();
                return fail_start(roster, server, (generation, kind), e, None, timings).await;
            }
        };
        if !adopt_process(server, generation, &control) {
            if let Some(control) = control {
                control.stop().await;
            }
            return;
        }
        roster.emit_status(server);
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let asker = &roster.settings.asker;
        let connected = launch::connect(
            server,
            asker,
            roster.settings.cache.as_ref(),
            transport,
            deadline,
            events_tx,
            &mut timings,
        )
        .await;
        timings.total = begun.elapsed();
        match connected {
            Ok(connected) => {
                break Launched {
                    connected,
                    control,
                    stderr_tail,
                    events: events_rx,
                    deadline,
                    timings,
                }
            }
            Err(e) if !asked && login::needs_login(&e) => {
                asked = true;
                match login::during_start(roster, server, generation, &e).await {
                    Some(Ok(())) => {
                        (timings, begun) = (StartTimings::default(), Instant::now());
                        continue;
                    }
                    // A login that failed (declined, a refused answer…) leaves the server waiting
                    // for the next one, whatever the reason.
                    Some(Err(failed)) => {
                        let needs = Some(ServerState::NeedsLogin);
                        let at = (generation, kind);
                        return fail_start_as(roster, server, at, failed, control, timings, needs)
                            .await;
                    }
                    None => {
                        return fail_start(roster, server, (generation, kind), e, control, timings)
                            .await
                    }
                }
            }
            Err(e) => {
                return fail_start(roster, server, (generation, kind), e, control, timings).await
            }
        }
    };
    go_live(roster, server, (generation, kind), launched).await;
}

/// A `package` server's program comes from the cache, fetched and verified there on its first
/// start (a pin that does not match fails the start before anything is spawned). `None` when the
/// start failed here (reported), or the registry is shutting down.
async fn prepared_spec(
    roster: &Arc<Roster>,
    server: &Arc<Server>,
    at: (u64, StartKind),
    begun: Instant,
) -> Option<Option<ServerSpec>> {
    let mut timings = StartTimings::default();
    if roster.is_shutting_down() {
        fail_start(roster, server, at, shutting_down(), None, timings).await;
        return None;
    }
    let packages = roster.settings.packages.as_deref();
    match package::prepare(server.name.as_str(), &server.spec, packages).await {
        Ok(prepared) => Some(prepared),
        Err(e) => {
            timings.total = begun.elapsed();
            fail_start(roster, server, at, e, None, timings).await;
            None
        }
    }
}

/// A generation whose handshake succeeded, not yet ready.
struct Launched {
    connected: Connected,
    control: Option<Arc<ProcessControl>>,
    stderr_tail: Arc<StderrTail>,
    events: mpsc::UnboundedReceiver<ClientEvent>,
    deadline: tokio::time::Instant,
    timings: StartTimings,
}

/// A launched generation made ready (unless it was replaced meanwhile), then watched: its log
/// level and subscriptions restored, its tools remembered, its session and timers watched; a
/// discovery start parks it again.
async fn go_live(
    roster: &Arc<Roster>,
    server: &Arc<Server>,
    (generation, kind): (u64, StartKind),
    launched: Launched,
) {
    let Launched {
        connected,
        control,
        stderr_tail,
        events: events_rx,
        deadline,
        timings,
    } = launched;
    let session = launch::new_session(server, generation, connected, stderr_tail);
    super::resume::log_level(roster, server, &session, deadline).await;
    if !go_ready(server, generation, &session, timings) {
        teardown::close_session(&session).await;
        if let Some(control) = control {
            control.stop().await;
        }
        return;
    }
    tracing::info!(server = %server.name, generation, tools = session.tools().len(), ?kind, "server ready");
    roster.transitioned(server);
    tokio::spawn(super::resume::subscriptions(
        Arc::clone(roster),
        Arc::clone(server),
        Arc::clone(&session),
    ));
    roster.note_list_ttl(session.freshness().hints());
    lazy::remember(roster.settings.cache.as_ref(), server, &session).await;
    tokio::spawn(watch_session(
        Arc::clone(roster),
        Arc::clone(server),
        Arc::clone(&session),
        events_rx,
    ));
    if let Some(upkeep) = Upkeep::new(Arc::clone(server), Arc::clone(&session)) {
        tokio::spawn(run_upkeep(Arc::clone(roster), Arc::clone(server), upkeep));
    }
    if kind == StartKind::Discover {
        teardown::park(roster, server, generation, ParkReason::Discovered).await;
    }
}

/// Records the new process in the slot; false when generation `generation` is no longer current
/// (then the caller stops the process).
fn adopt_process(server: &Server, generation: u64, control: &Option<Arc<ProcessControl>>) -> bool {
    let mut slot = server.slot();
    let current = slot.generation == generation;
    if current {
        slot.process.clone_from(control);
        slot.sandbox = control.as_ref().and_then(|c| c.sandbox.clone());
    }
    current
}

/// Moves the slot to `ready` with `session` (its tools recorded in the pin ledger, its
/// instructions kept); false when the generation moved on meanwhile.
fn go_ready(
    server: &Server,
    generation: u64,
    session: &Arc<Session>,
    timings: StartTimings,
) -> bool {
    let mut slot = server.slot();
    let current = slot.generation == generation;
    if current {
        slot.pins.observe(&session.tools());
        slot.instructions = session.client.handshake().instructions.clone();
        slot.state = ServerState::Ready;
        slot.session = Some(Arc::clone(session));
        slot.dormant_tools = None;
        slot.startup = Some(timings);
    }
    current
}

/// A start of generation `generation` (begun for `kind`) failed with `error`.
async fn fail_start(
    roster: &Arc<Roster>,
    server: &Arc<Server>,
    (generation, kind): (u64, StartKind),
    error: Error,
    control: Option<Arc<ProcessControl>>,
    timings: StartTimings,
) {
    // Reconnecting never fixes an authorization: no restart, and `needs_login` when a login would.
    // Nor does fetching again fix a package whose hash is not the pinned one: `error`, no restart.
    let auth = auth_outcome(&error)
        .or_else(|| (error.code == ErrorCode::PackageIntegrity).then_some(ServerState::Error));
    fail_start_as(
        roster,
        server,
        (generation, kind),
        error,
        control,
        timings,
        auth,
    )
    .await;
}

/// [`fail_start`] with the state an authorization failure leads to given (`None`: not one).
async fn fail_start_as(
    roster: &Arc<Roster>,
    server: &Arc<Server>,
    (generation, kind): (u64, StartKind),
    error: Error,
    control: Option<Arc<ProcessControl>>,
    timings: StartTimings,
    auth: Option<ServerState>,
) {
    let exit = teardown::reap(server, control).await;
    let retry = {
        let mut slot = server.slot();
        if slot.generation != generation {
            return;
        }
        slot.startup = Some(timings);
        let error = teardown::final_error(server, &slot, error, exit);
        tracing::warn!(server = %server.name, generation, ?kind, "start failed: {}", server.secrets.mask(&error.message));
        slot.process = None;
        slot.dormant_tools = None;
        slot.last_exit = exit;
        slot.last_error = Some(error);
        let restartable =
            kind == StartKind::Automatic && !roster.is_shutting_down() && auth.is_none();
        teardown::after_failure(
            server,
            &mut slot,
            restartable,
            auth.unwrap_or(ServerState::Error),
        )
    };
    roster.transitioned(server);
    if let Some(delay) = retry {
        schedule_restart(roster, server, generation, delay);
    }
    // A host that can show a login was asked during the start already.
    let asked = server.auth.as_ref().is_some_and(|a| a.can_ask());
    if auth == Some(ServerState::NeedsLogin) && !asked {
        login::in_background(roster, server, generation, restart_after_login);
    }
}

/// The state an authorization failure leaves a server in (`None`: not one): `needs_login` when a
/// login would help, `error` when the authorization cannot work as set up.
fn auth_outcome(error: &Error) -> Option<ServerState> {
    match error.code {
        ErrorCode::AuthRequired => Some(ServerState::NeedsLogin),
        ErrorCode::AuthFailed => Some(ServerState::Error),
        _ => None,
    }
}

/// The start after a login in the background brought a `needs_login` server back.
fn restart_after_login(
    roster: Arc<Roster>,
    server: Arc<Server>,
) -> futures_util::future::BoxFuture<'static, ()> {
    Box::pin(async move {
        tracing::info!(server = %server.name, "logged in; starting the server again");
        start(&roster, &server, StartKind::Requested).await;
    })
}

/// After `delay`, restarts the server — unless generation `failed` is no longer current (the
/// host restarted, removed or stopped it meanwhile): then this timer is stale and does nothing.
fn schedule_restart(roster: &Arc<Roster>, server: &Arc<Server>, failed: u64, delay: Duration) {
    let roster = Arc::clone(roster);
    let server = Arc::clone(server);
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        let (generation, old) = {
            let mut slot = server.slot();
            if slot.generation != failed
                || slot.state != ServerState::Unhealthy
                || roster.is_shutting_down()
            {
                tracing::debug!(server = %server.name, failed, current = slot.generation, "stale restart timer ignored");
                return;
            }
            slot.restarts += 1;
            begin_start_locked(&mut slot, StartKind::Automatic)
        };
        roster.transitioned(&server);
        teardown::stop_running(old).await;
        run_start(&roster, &server, generation, StartKind::Automatic).await;
    });
}

/// Follows one ready generation until it ends: a closed session fails it; a changed tool list is
/// listed again (and a failure to do so fails it); a list the host found past its `ttlMs`
/// ([`Session::claim_relist`]) is listed again in the background (a failure keeps the stale list
/// and backs off); the server's other announcements go on to the host ([`forward`]).
///
/// The session's events keep being taken while the list is re-read: announcements that arrive
/// meanwhile make one more re-read, not one each, so a server flooding
/// `notifications/tools/list_changed` costs a bounded queue and a re-read at a time.
async fn watch_session(
    roster: Arc<Roster>,
    server: Arc<Server>,
    session: Arc<Session>,
    mut events: mpsc::UnboundedReceiver<ClientEvent>,
) {
    let mut open = true;
    loop {
        // Whether this re-list was only because the list expired: then a failure is not fatal.
        let mut expired_only = tokio::select! {
            event = events.recv() => match event {
                None => return,
                Some(ClientEvent::Closed { error }) => {
                    return fail_session(&roster, &server, session.generation, error).await;
                }
                Some(ClientEvent::ToolsListChanged) => false,
                Some(other) => {
                    announce::forward(&roster, &server, other);
                    continue;
                }
            },
            // A claim that a change's re-list already served (it ends the claim) needs no other.
            () = session.relist_due.notified() => {
                if !session.freshness().is_relisting() {
                    continue;
                }
                true
            }
        };
        let mut again = true;
        while again {
            again = false;
            let relist = launch::relist(&server, &session.client);
            tokio::pin!(relist);
            let listed = loop {
                tokio::select! {
                    listed = &mut relist => break listed,
                    event = events.recv(), if open => match event {
                        Some(ClientEvent::ToolsListChanged) => {
                            again = true;
                            expired_only = false;
                        }
                        Some(ClientEvent::Closed { error }) => {
                            return fail_session(&roster, &server, session.generation, error).await;
                        }
                        Some(other) => announce::forward(&roster, &server, other),
                        None => open = false,
                    },
                }
            };
            match listed {
                Ok((tools, hints)) => {
                    session.freshness().listed(hints, std::time::Instant::now());
                    roster.note_list_ttl(hints);
                    let current = {
                        let mut slot = server.slot();
                        let current = slot.generation == session.generation;
                        if current {
                            // Under the slot lock, so the next rebuild sees the news and the tools
                            // together.
                            slot.pins.observe(&tools);
                            session.replace_tools(tools);
                        }
                        current
                    };
                    if current {
                        roster.transitioned(&server);
                        lazy::remember(roster.settings.cache.as_ref(), &server, &session).await;
                    }
                }
                // The spec allows serving a stale list when its refetch fails: the server stays
                // ready with the tools it had, and the next host read after the backoff retries.
                Err(e) if expired_only && !again => {
                    let wait = session.freshness().failed(std::time::Instant::now());
                    tracing::warn!(server = %server.name, retry_in_ms = wait.as_millis() as u64, "re-listing an expired tool list failed; the stale list is kept: {e}");
                }
                Err(e) => return fail_session(&roster, &server, session.generation, e).await,
            }
        }
        if !open {
            return;
        }
    }
}

/// Drives one generation's timers: parks it when idle or too old, fails it on a missed ping.
async fn run_upkeep(roster: Arc<Roster>, server: Arc<Server>, mut upkeep: Upkeep) {
    let generation = upkeep.generation();
    loop {
        match upkeep.next().await {
            // A park refused (a call slipped in) leaves the generation running: keep watching.
            Due::Park(reason) => {
                if teardown::park(&roster, &server, generation, reason).await {
                    return;
                }
            }
            Due::Fail(error) => return fail_session(&roster, &server, generation, error).await,
            Due::Ended => return,
        }
    }
}

/// A ready generation broke: its tools leave, pending calls fail, the process tree is stopped,
/// and the restart policy decides what comes next.
async fn fail_session(roster: &Arc<Roster>, server: &Arc<Server>, generation: u64, error: Error) {
    let auth = auth_outcome(&error);
    let (session, control) = {
        let mut slot = server.slot();
        if slot.generation != generation || slot.state != ServerState::Ready {
            return;
        }
        // An authorization failure is never shown as `unhealthy`: no restart will follow it.
        slot.state = auth.unwrap_or(ServerState::Unhealthy);
        // The status never shows `unhealthy` without a reason; refined below with the exit.
        slot.last_error = Some(
            error
                .clone()
                .with("server", server.name.as_str())
                .with_stderr_tail(&slot.stderr.text()),
        );
        slot.take_running()
    };
    roster.transitioned(server);
    if let Some(session) = &session {
        teardown::close_session(session).await;
    }
    let exit = teardown::reap(server, control).await;
    let retry = {
        let mut slot = server.slot();
        if slot.generation != generation {
            return;
        }
        let error = teardown::final_error(server, &slot, error, exit);
        tracing::warn!(server = %server.name, generation, "server unhealthy: {}", server.secrets.mask(&error.message));
        slot.last_exit = exit;
        slot.last_error = Some(error);
        let restartable = !roster.is_shutting_down() && auth.is_none();
        teardown::after_failure(
            server,
            &mut slot,
            restartable,
            auth.unwrap_or(ServerState::Unhealthy),
        )
    };
    roster.emit_status(server);
    if let Some(delay) = retry {
        schedule_restart(roster, server, generation, delay);
    }
    if auth == Some(ServerState::NeedsLogin) {
        login::in_background(roster, server, generation, restart_after_login);
    }
}
