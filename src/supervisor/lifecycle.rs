//! Each server's state machine: starts (and why), failures and the restart policy, stops, idle
//! parks, and getting a session for a call (starting a dormant server on the way).
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
//! Every transition happens under the server's slot lock and bumps the generation when it ends or
//! begins a process; every asynchronous continuation (start finished, session closed, restart
//! timer, upkeep) re-checks the generation it was started for and does nothing if it moved on.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::mpsc;

use super::process;
use super::registry::{shutting_down, Registry};
use super::restart::Decision;
use super::server::{Server, Slot};
use super::session::{CallGuard, CallLimits, ProcessControl, Session};
use super::status::ServerState;
use super::stderr::{self, StderrTail};
use super::upkeep;
use crate::config::RestartPolicy;
use crate::error::{Error, ErrorCode, Result};
use crate::limits;
use crate::mcp::transport::http_common::RemoteOptions;
use crate::mcp::{self, transport, Client, ClientEvent, ClientOptions};

/// How long a failed start waits for the process's exit status before reporting without it.
const EXIT_STATUS_GRACE: Duration = Duration::from_millis(200);

/// How long an error report waits for the rest of a dead server's stderr (its last words).
const STDERR_EOF_GRACE: Duration = Duration::from_millis(200);

/// Upper bound on the wait for a start someone else began (a restart may first stop the old tree).
const START_WAIT_SLACK: Duration = limits::STOP_AFTER_STDIN_CLOSE
    .saturating_add(limits::STOP_AFTER_SIGTERM)
    .saturating_add(limits::STOP_AFTER_SIGKILL);

/// Most state changes a call waits through before giving up (each is a start finishing or failing).
const MAX_START_WAITS: usize = 64;

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

/// Why a ready server is stopped while keeping its tools listed.
#[derive(Clone, Copy, Debug)]
pub(super) enum ParkReason {
    Discovered,
    Idle,
    Lifetime,
}

pub(super) type Running = (Option<Arc<Session>>, Option<Arc<ProcessControl>>);

/// Moves the slot to `starting` under a new generation; returns it and whatever ran before.
fn begin_start_locked(slot: &mut Slot, kind: StartKind) -> (u64, Running) {
    // Tools stay listed through a host's restart and an on-demand start; after a failure they left.
    let keep = match kind {
        StartKind::Requested | StartKind::OnDemand => slot.exposed_tools(),
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

impl Registry {
    /// Starts (or restarts) a server and returns once it is ready or has failed.
    pub(super) async fn start(self: &Arc<Self>, server: &Arc<Server>, kind: StartKind) {
        if let Some(begun) = self.begin_start(server, kind) {
            self.finish_start(server, begun, kind).await;
        }
    }

    /// The synchronous half of a start: a new generation in `starting`, announced. `None` when the
    /// server was removed or the registry shut down meanwhile (a restart racing a removal or a
    /// shutdown must not leave a process behind).
    pub(super) fn begin_start(
        &self,
        server: &Arc<Server>,
        kind: StartKind,
    ) -> Option<(u64, Running)> {
        if self.is_shutting_down() || !self.is_registered(server) {
            return None;
        }
        let begun = begin_start_locked(&mut server.slot(), kind);
        self.transitioned(server);
        Some(begun)
    }

    /// The asynchronous half: stop what ran before, spawn, handshake, discover.
    pub(super) async fn finish_start(
        self: &Arc<Self>,
        server: &Arc<Server>,
        begun: (u64, Running),
        kind: StartKind,
    ) {
        let (generation, old) = begun;
        stop_running(old).await;
        self.run_start(server, generation, kind).await;
    }

    /// After a transition: the catalog follows the exposed tools; the host hears of the new state.
    fn transitioned(&self, server: &Server) {
        self.rebuild_catalog();
        self.emit_status(server);
    }

    async fn run_start(self: &Arc<Self>, server: &Arc<Server>, generation: u64, kind: StartKind) {
        if self.is_shutting_down() {
            return self
                .fail_start(server, generation, shutting_down(), None, kind)
                .await;
        }
        let spec = &server.spec;
        let deadline = tokio::time::Instant::now() + spec.startup_timeout;
        let stderr_tail = Arc::clone(&server.slot().stderr);

        let (transport, control) = match &spec.remote {
            // A remote server has no process: its transport is the whole of it.
            Some(remote) => {
                let options = RemoteOptions {
                    server: server.name.clone(),
                    url: remote.url.clone(),
                    headers: remote.headers.clone(),
                    max_message_bytes: spec.max_message_bytes,
                    connect_timeout: spec.startup_timeout,
                };
                match transport::http::transport(options, remote.kind) {
                    Ok(t) => (t, None),
                    Err(why) => {
                        let e = why.for_server(&server.name);
                        return self.fail_start(server, generation, e, None, kind).await;
                    }
                }
            }
            None => {
                let spawned = match process::spawn(&server.name, spec) {
                    Ok(s) => s,
                    Err(e) => return self.fail_start(server, generation, e, None, kind).await,
                };
                let transport = transport::stdio::transport(
                    spawned.stdin,
                    spawned.stdout,
                    spec.max_message_bytes,
                );
                tokio::spawn(stderr::drain(
                    spawned.stderr,
                    Arc::clone(&stderr_tail),
                    server.name.clone(),
                    server.secrets.clone(),
                ));
                let control = Arc::new(ProcessControl::start(
                    spawned.child,
                    spawned.pid,
                    spawned.origin,
                    Arc::clone(&transport.sink),
                ));
                (transport, Some(control))
            }
        };
        let current = {
            let mut slot = server.slot();
            let current = slot.generation == generation;
            if current {
                slot.process.clone_from(&control);
            }
            current
        };
        if !current {
            if let Some(control) = control {
                control.stop().await;
            }
            return;
        }
        self.emit_status(server);

        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let connected = tokio::time::timeout_at(deadline, async {
            let options = ClientOptions { server: server.name.clone(), secrets: server.secrets.clone() };
            let client = Client::connect(transport, options, deadline, events_tx).await?;
            let listing = Instant::now();
            let raw_tools = client.list_tools(deadline).await?;
            let discovery = listing.elapsed();
            let tools = mcp::validate_tools(&server.name, raw_tools)?;
            // The tools policy: an `expectTools` mismatch or an undeclared permission fails the start.
            let tools = crate::config::policy::apply(&server.name, &server.extras, tools)?;
            Ok::<_, Error>((client, tools, discovery))
        })
        .await
        .unwrap_or_else(|_| {
            Err(Error::new(
                ErrorCode::ServerUnavailable,
                format!(
                    "server `{}` did not finish its handshake and tool discovery within startupTimeoutSeconds ({} s)",
                    server.name,
                    spec.startup_timeout.as_secs_f64()
                ),
            )
            .with("server", server.name.as_str())
            .with("setting", "startupTimeoutSeconds"))
        })
        .map_err(|e| {
            // Whichever request ran out of the startup deadline, report the bound's value too.
            if e.details.get("setting").and_then(serde_json::Value::as_str) == Some("startupTimeoutSeconds") {
                e.with("limit", spec.startup_timeout.as_secs_f64())
            } else {
                e
            }
        });
        let (client, tools, discovery) = match connected {
            Ok(ok) => ok,
            Err(e) => return self.fail_start(server, generation, e, control, kind).await,
        };
        let limits = CallLimits {
            tool_timeout: spec.tool_timeout,
            max_result_bytes: spec.max_result_bytes,
            result_policy: spec.result_policy,
        };
        let session = Arc::new(Session::new(
            generation,
            client,
            tools,
            limits,
            stderr_tail,
            discovery,
        ));
        let current = {
            let mut slot = server.slot();
            let current = slot.generation == generation;
            if current {
                slot.state = ServerState::Ready;
                slot.session = Some(Arc::clone(&session));
                slot.dormant_tools = None;
            }
            current
        };
        if !current {
            close_session(&session).await;
            if let Some(control) = control {
                control.stop().await;
            }
            return;
        }
        tracing::info!(server = %server.name, generation, tools = session.tools().len(), ?kind, "server ready");
        self.transitioned(server);
        if server.cache_key.is_some() {
            self.store_cache(server, session.tools()).await;
        }
        let this = Arc::clone(self);
        let (s, sess) = (Arc::clone(server), Arc::clone(&session));
        tokio::spawn(async move { this.watch_session(s, sess, events_rx).await });
        let spec = &server.spec;
        if spec.keepalive.is_some() || spec.idle_timeout.is_some() || spec.max_lifetime.is_some() {
            tokio::spawn(upkeep::run(
                Arc::clone(self),
                Arc::clone(server),
                Arc::clone(&session),
            ));
        }
        if kind == StartKind::Discover {
            self.park(server, generation, ParkReason::Discovered).await;
        }
    }

    async fn fail_start(
        self: &Arc<Self>,
        server: &Arc<Server>,
        generation: u64,
        error: Error,
        control: Option<Arc<ProcessControl>>,
        kind: StartKind,
    ) {
        let exit = reap(server, control).await;
        let retry = {
            let mut slot = server.slot();
            if slot.generation != generation {
                return;
            }
            let error = final_error(server, &slot, error, exit);
            tracing::warn!(server = %server.name, generation, ?kind, "start failed: {}", server.secrets.mask(&error.message));
            slot.process = None;
            slot.dormant_tools = None;
            slot.last_exit = exit;
            slot.last_error = Some(error);
            self.after_failure(
                server,
                &mut slot,
                kind == StartKind::Automatic,
                ServerState::Error,
            )
        };
        self.transitioned(server);
        if let Some(delay) = retry {
            self.schedule_restart(server, generation, delay);
        }
    }

    /// Applies the restart policy to a failure already recorded in the slot; returns the backoff
    /// delay when a restart is due. `down` is the state when no restart follows.
    fn after_failure(
        &self,
        server: &Server,
        slot: &mut Slot,
        restartable: bool,
        down: ServerState,
    ) -> Option<Duration> {
        if !restartable || server.spec.restart == RestartPolicy::Never || self.is_shutting_down() {
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

    /// After `delay`, restarts the server — unless generation `failed` is no longer current (the
    /// host restarted, removed or stopped it meanwhile): then this timer is stale and does nothing.
    fn schedule_restart(self: &Arc<Self>, server: &Arc<Server>, failed: u64, delay: Duration) {
        let this = Arc::clone(self);
        let server = Arc::clone(server);
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let (generation, old) = {
                let mut slot = server.slot();
                if slot.generation != failed
                    || slot.state != ServerState::Unhealthy
                    || this.is_shutting_down()
                {
                    tracing::debug!(server = %server.name, failed, current = slot.generation, "stale restart timer ignored");
                    return;
                }
                slot.restarts += 1;
                begin_start_locked(&mut slot, StartKind::Automatic)
            };
            this.transitioned(&server);
            stop_running(old).await;
            this.run_start(&server, generation, StartKind::Automatic)
                .await;
        });
    }

    /// Follows one ready generation until it ends.
    async fn watch_session(
        self: Arc<Self>,
        server: Arc<Server>,
        session: Arc<Session>,
        mut events: mpsc::UnboundedReceiver<ClientEvent>,
    ) {
        while let Some(event) = events.recv().await {
            match event {
                ClientEvent::Closed { error } => {
                    self.fail_session(&server, session.generation, error).await;
                    return;
                }
                ClientEvent::ToolsListChanged => {
                    let deadline = tokio::time::Instant::now() + server.spec.startup_timeout;
                    let listed = session.client.list_tools(deadline).await;
                    match listed
                        .and_then(|raw| mcp::validate_tools(&server.name, raw))
                        .and_then(|t| crate::config::policy::apply(&server.name, &server.extras, t))
                    {
                        Ok(tools) => {
                            if server.slot().generation == session.generation {
                                session.replace_tools(tools);
                                self.transitioned(&server);
                                if server.cache_key.is_some() {
                                    self.store_cache(&server, session.tools()).await;
                                }
                            }
                        }
                        Err(e) => {
                            self.fail_session(&server, session.generation, e).await;
                            return;
                        }
                    }
                }
            }
        }
    }

    /// A ready generation broke: its tools leave, pending calls fail, the process tree is stopped,
    /// and the restart policy decides what comes next.
    pub(super) async fn fail_session(
        self: &Arc<Self>,
        server: &Arc<Server>,
        generation: u64,
        error: Error,
    ) {
        let (session, control) = {
            let mut slot = server.slot();
            if slot.generation != generation || slot.state != ServerState::Ready {
                return;
            }
            slot.state = ServerState::Unhealthy;
            // The status never shows `unhealthy` without a reason; refined below with the exit.
            slot.last_error = Some(
                error
                    .clone()
                    .with("server", server.name.as_str())
                    .with_stderr_tail(&slot.stderr.text()),
            );
            slot.take_running()
        };
        self.transitioned(server);
        if let Some(session) = &session {
            close_session(session).await;
        }
        let exit = reap(server, control).await;
        let retry = {
            let mut slot = server.slot();
            if slot.generation != generation {
                return;
            }
            let error = final_error(server, &slot, error, exit);
            tracing::warn!(server = %server.name, generation, "server unhealthy: {}", server.secrets.mask(&error.message));
            slot.last_exit = exit;
            slot.last_error = Some(error);
            self.after_failure(server, &mut slot, true, ServerState::Unhealthy)
        };
        self.emit_status(server);
        if let Some(delay) = retry {
            self.schedule_restart(server, generation, delay);
        }
    }

    /// Stops whatever generation is current, for good (remove, shutdown). Tools leave first.
    pub(super) async fn stop(&self, server: &Arc<Server>) {
        let old = {
            let mut slot = server.slot();
            slot.generation += 1;
            slot.state = ServerState::Stopped;
            slot.dormant_tools = None;
            slot.next_restart_at = None;
            slot.take_running()
        };
        self.transitioned(server);
        if let Some(exit) = stop_running(old).await {
            server.slot().last_exit = Some(exit);
        }
        self.emit_status(server);
    }

    /// Stops a ready, idle generation but keeps its tools listed: the next call starts it again.
    /// Does nothing if the generation moved on or a call is in flight.
    pub(super) async fn park(
        &self,
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
            let tools = slot.exposed_tools();
            let old = slot.take_running();
            slot.generation += 1;
            slot.state = ServerState::Stopped;
            slot.dormant_tools = tools;
            (slot.generation, old)
        };
        tracing::info!(server = %server.name, generation, ?reason, "stopping an idle server; its tools stay listed");
        self.transitioned(server);
        let exit = stop_running(old).await;
        {
            let mut slot = server.slot();
            if slot.generation == parked {
                slot.last_exit = exit;
            }
        }
        self.emit_status(server);
        true
    }

    /// A session for one call, with the call counted in flight. Starts a dormant server and waits
    /// for a start in progress; fails at once with SERVER_UNAVAILABLE when the server is down.
    pub(super) async fn acquire(
        self: &Arc<Self>,
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
                        if self.is_shutting_down() {
                            return Err(shutting_down());
                        }
                        Some(begin_start_locked(&mut slot, StartKind::OnDemand))
                    }
                    (ServerState::Starting, _) => None,
                    _ => return Err(server.unavailable(&slot)),
                }
            };
            if let Some((generation, old)) = begun {
                tracing::info!(server = %server.name, generation, "starting a dormant server for a call");
                self.transitioned(server);
                let this = Arc::clone(self);
                let s = Arc::clone(server);
                // Its own task: a call cancelled by the host must not abandon a half-done start.
                tokio::spawn(async move {
                    stop_running(old).await;
                    this.run_start(&s, generation, StartKind::OnDemand).await;
                });
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => break,
            }
        }
        let slot = server.slot();
        Err(server.unavailable(&slot))
    }
}

/// Ends a session's pending requests and closes its input, without waiting on a stuck writer.
/// After a failure: the process's exit status (waiting briefly, or stopping it), and the rest of its
/// stderr (its last words belong in the report).
async fn reap(server: &Server, control: Option<Arc<ProcessControl>>) -> Option<process::ExitInfo> {
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
fn final_error(
    server: &Server,
    slot: &Slot,
    error: Error,
    exit: Option<process::ExitInfo>,
) -> Error {
    let error = error
        .with("server", server.name.as_str())
        .with_stderr_tail(&slot.stderr.text());
    match exit {
        Some(info) => error.with("exit", info.to_json()),
        None => error,
    }
}

async fn close_session(session: &Session) {
    let _ = tokio::time::timeout(limits::STOP_AFTER_STDIN_CLOSE, session.client.close()).await;
}

/// Stops a generation taken out of its slot; returns how its process ended.
async fn stop_running((session, control): Running) -> Option<process::ExitInfo> {
    if let Some(session) = &session {
        close_session(session).await;
    }
    match control {
        Some(control) => control.stop().await,
        None => None,
    }
}
