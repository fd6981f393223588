//! The registry: every configured server, its state machine, and the catalog built from the ready ones.
//!
//! Generations: each start of a server gets a new generation number, and every asynchronous outcome
//! (handshake finished, session closed, tool list changed) carries the generation it belongs to. An
//! outcome whose generation is no longer current is ignored, so a late event from an old process can
//! never stop or corrupt its replacement.
//!
//! Lock order: `servers` (the map) before any server's `slot`; `rebuild` is taken with neither held.
//! No lock is held across an `.await`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

use super::catalog::{Catalog, Listing};
use super::process;
use super::session::{CallLimits, ProcessControl, Session};
use super::status::{rfc3339, ServerState, ServerStatus};
use super::stderr::{self, StderrTail};
use crate::config::{validate_server_name, ServerSpec};
use crate::convert::{NameTemplate, ToolFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::mcp::{self, transport, Client, ClientEvent, ClientOptions};

/// How long a failed start waits for the process's exit status before reporting without it.
const EXIT_STATUS_GRACE: Duration = Duration::from_millis(200);

/// How long an error report waits for the rest of a dead server's stderr.
const STDERR_EOF_GRACE: Duration = Duration::from_millis(200);

/// Session-wide settings fixed by the host's `initialize`.
pub struct Settings {
    pub names: NameTemplate,
    pub format: ToolFormat,
}

/// What the registry tells its owner.
#[derive(Debug)]
pub enum Event {
    ServerChanged(ServerStatus),
    ToolsChanged {
        fingerprint: String,
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// Not from the registry: an owner sends it into its own event channel and is acknowledged once
    /// every event queued before it has been handled (used to order the `shutdown` answer last).
    Barrier(tokio::sync::oneshot::Sender<()>),
}

/// A successful tool call.
pub struct CallOutcome {
    pub result: Value,
    pub server: String,
    pub tool: String,
    pub duration: Duration,
}

pub struct Registry {
    settings: Settings,
    servers: Mutex<BTreeMap<String, Arc<Server>>>,
    catalog: RwLock<Arc<Catalog>>,
    /// Serialises catalog rebuilds so that `ToolsChanged` events describe consecutive snapshots.
    rebuild: Mutex<()>,
    events: mpsc::UnboundedSender<Event>,
    /// Every lifecycle operation (start, stop, restart) runs as a tracked task: a host that stops
    /// waiting for one (cancel) never leaves a server half-started, and `shutdown` waits for them all.
    operations: TaskTracker,
    /// Set by `shutdown`: no server may start after it.
    closed: std::sync::atomic::AtomicBool,
}

struct Server {
    name: String,
    spec: ServerSpec,
    slot: Mutex<Slot>,
}

#[derive(Default)]
struct Slot {
    generation: u64,
    state: Option<ServerState>,
    process: Option<Arc<ProcessControl>>,
    session: Option<Arc<Session>>,
    stderr: Arc<StderrTail>,
    started_at: Option<SystemTime>,
    last_exit: Option<process::ExitInfo>,
    last_error: Option<Error>,
}

impl Server {
    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn status(&self) -> ServerStatus {
        let slot = self.slot();
        let session = slot.session.as_ref();
        let handshake = session.map(|s| s.client.handshake());
        ServerStatus {
            name: self.name.clone(),
            state: slot.state.unwrap_or(ServerState::Stopped),
            generation: slot.generation,
            command: self.spec.display_command(),
            pid: slot.process.as_ref().map(|p| p.pid),
            protocol_version: handshake.map(|h| h.protocol_version.clone()),
            server_info: handshake.map(|h| h.server_info.clone()),
            instructions: handshake.and_then(|h| h.instructions.clone()),
            tools_count: session.map_or(0, |s| s.tools().len()),
            started_at: slot.started_at.map(rfc3339),
            last_exit: slot.last_exit.map(process::ExitInfo::to_json),
            last_error: slot.last_error.as_ref().map(Error::to_rpc_error),
            stderr_tail: slot.stderr.text(),
        }
    }
}

impl Registry {
    pub fn new(settings: Settings, events: mpsc::UnboundedSender<Event>) -> Arc<Self> {
        Arc::new(Self {
            settings,
            servers: Mutex::new(BTreeMap::new()),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            rebuild: Mutex::new(()),
            events,
            operations: TaskTracker::new(),
            closed: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    fn servers(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<Server>>> {
        self.servers.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn find(&self, name: &str) -> Result<Arc<Server>> {
        self.servers().get(name).cloned().ok_or_else(|| {
            Error::new(
                ErrorCode::ServerNotFound,
                format!("no server named `{name}`"),
            )
            .with("server", name)
        })
    }

    pub fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.catalog.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Registers a server and starts it. With `wait`, returns once it is ready or has failed.
    pub async fn add(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        wait: bool,
    ) -> Result<ServerStatus> {
        validate_server_name(name)?;
        let spec = ServerSpec::from_json(config)?;
        let server = {
            let mut servers = self.servers();
            if servers.contains_key(name) {
                return Err(Error::new(
                    ErrorCode::ServerExists,
                    format!("a server named `{name}` already exists"),
                )
                .with("server", name));
            }
            let server = Arc::new(Server {
                name: name.to_owned(),
                spec,
                slot: Mutex::new(Slot::default()),
            });
            servers.insert(name.to_owned(), Arc::clone(&server));
            server
        };
        // `starting` is set before answering, so a `wait: false` caller sees it in the returned status.
        if let Some(generation) = self.begin_start(&server) {
            let this = Arc::clone(self);
            let s = Arc::clone(&server);
            let started = self
                .operations
                .spawn(async move { this.run_start(&s, generation).await });
            if wait {
                let _ = started.await;
            }
        }
        Ok(server.status())
    }

    /// Stops a server (tools leave first) and forgets it; returns once its process tree is gone.
    pub async fn remove(self: &Arc<Self>, name: &str) -> Result<()> {
        let server = self.servers().remove(name).ok_or_else(|| {
            Error::new(
                ErrorCode::ServerNotFound,
                format!("no server named `{name}`"),
            )
            .with("server", name)
        })?;
        let this = Arc::clone(self);
        let _ = self
            .operations
            .spawn(async move { this.stop(&server).await })
            .await;
        Ok(())
    }

    /// Stops and starts a server again: a full new handshake and discovery.
    pub async fn restart(self: &Arc<Self>, name: &str) -> Result<ServerStatus> {
        let server = self.find(name)?;
        let this = Arc::clone(self);
        let s = Arc::clone(&server);
        let _ = self
            .operations
            .spawn(async move {
                this.stop(&s).await;
                this.start(&s).await;
            })
            .await;
        Ok(server.status())
    }

    pub fn list(&self) -> Vec<ServerStatus> {
        let servers: Vec<Arc<Server>> = self.servers().values().cloned().collect();
        servers.iter().map(|s| s.status()).collect()
    }

    pub fn status(&self, name: &str) -> Result<ServerStatus> {
        Ok(self.find(name)?.status())
    }

    /// Stops every server in parallel; returns once every process tree is gone.
    pub async fn shutdown(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        let servers: Vec<Arc<Server>> =
            std::mem::take(&mut *self.servers()).into_values().collect();
        let stops = servers.iter().map(|s| self.stop(s));
        futures_join_all(stops).await;
        // Starts that lost the race with this stop see a stale generation and stop their own process.
        self.operations.close();
        self.operations.wait().await;
    }

    /// Tool entries in `format` (the session's default when `None`).
    pub fn tools(&self, format: Option<ToolFormat>, servers: Option<&[String]>) -> Result<Listing> {
        if let Some(only) = servers {
            let known = self.servers();
            if let Some(missing) = only.iter().find(|s| !known.contains_key(s.as_str())) {
                return Err(Error::new(
                    ErrorCode::ServerNotFound,
                    format!("no server named `{missing}`"),
                )
                .with("server", missing.as_str()));
            }
        }
        Ok(self
            .catalog()
            .listing(format.unwrap_or(self.settings.format), servers))
    }

    /// Validates the arguments against the tool's own schema, calls it, and checks the result's size.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<CallOutcome> {
        let catalog = self.catalog();
        let entry = catalog.get(name).ok_or_else(|| {
            Error::new(
                ErrorCode::ToolNotFound,
                format!("no tool named `{name}` ({} tools available)", catalog.len()),
            )
            .with("name", name)
        })?;
        let arguments = match arguments {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(a @ Value::Object(_)) => a,
            Some(_) => {
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    format!("arguments for tool `{name}` must be an object"),
                )
                .with("name", name)
                .with("server", entry.server.as_str())
                .with("tool", entry.tool.name.as_str()))
            }
        };
        mcp::tools::check_arguments(&entry.server, &entry.tool, &arguments)
            .map_err(|e| e.with("name", name))?;
        let session = &entry.session;
        let started = Instant::now();
        let reply = session
            .client
            .call_tool(
                &entry.tool.name,
                arguments,
                timeout.unwrap_or(session.limits.tool_timeout),
            )
            .await
            .map_err(|e| {
                e.with("name", name)
                    .with("tool", entry.tool.name.as_str())
                    .with_stderr_tail(&session.stderr.text())
            })?;
        let duration = started.elapsed();
        if reply.bytes > session.limits.max_result_bytes {
            return Err(Error::new(
                ErrorCode::ResultTooLarge,
                format!(
                    "result of tool `{}` on server `{}` is {} bytes, over maxResultBytes ({} bytes)",
                    entry.tool.name, entry.server, reply.bytes, session.limits.max_result_bytes
                ),
            )
            .with("name", name)
            .with("server", entry.server.as_str())
            .with("tool", entry.tool.name.as_str())
            .with("setting", "maxResultBytes")
            .with("limit", session.limits.max_result_bytes as u64)
            .with("size", reply.bytes as u64));
        }
        let result = session
            .client
            .reply_outcome(reply)
            .map_err(|e| e.with("name", name).with("tool", entry.tool.name.as_str()))?;
        if !result.is_object() {
            return Err(Error::new(
                ErrorCode::ProtocolError,
                format!(
                    "server `{}` answered tools/call `{}` with a result that is not an object",
                    entry.server, entry.tool.name
                ),
            )
            .with("name", name)
            .with("server", entry.server.as_str())
            .with("tool", entry.tool.name.as_str()));
        }
        Ok(CallOutcome {
            result,
            server: entry.server.clone(),
            tool: entry.tool.name.clone(),
            duration,
        })
    }

    // ----- lifecycle -----

    /// Starts a server unless it was removed or the registry shut down in the meantime (a restart
    /// racing a shutdown must not leave a process behind).
    async fn start(self: &Arc<Self>, server: &Arc<Server>) {
        if let Some(generation) = self.begin_start(server) {
            self.run_start(server, generation).await;
        }
    }

    /// Moves the server to `starting` under a new generation.
    fn begin_start(&self, server: &Arc<Server>) -> Option<u64> {
        let registered = {
            let servers = self.servers();
            servers
                .get(&server.name)
                .is_some_and(|s| Arc::ptr_eq(s, server))
        };
        if !registered || self.closed.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        let generation = {
            let mut slot = server.slot();
            slot.generation += 1;
            slot.state = Some(ServerState::Starting);
            slot.session = None;
            slot.process = None;
            slot.last_error = None;
            slot.last_exit = None;
            slot.stderr = Arc::new(StderrTail::default());
            slot.started_at = Some(SystemTime::now());
            slot.generation
        };
        self.emit_status(server);
        Some(generation)
    }

    async fn run_start(self: &Arc<Self>, server: &Arc<Server>, generation: u64) {
        let spec = &server.spec;
        let deadline = tokio::time::Instant::now() + spec.startup_timeout;
        let stderr_tail = Arc::clone(&server.slot().stderr);

        let spawned = match process::spawn(&server.name, spec) {
            Ok(s) => s,
            Err(e) => return self.fail_start(server, generation, e, None).await,
        };
        let transport =
            transport::stdio::transport(spawned.stdin, spawned.stdout, spec.max_message_bytes);
        tokio::spawn(stderr::drain(
            spawned.stderr,
            Arc::clone(&stderr_tail),
            server.name.clone(),
        ));
        let control = Arc::new(ProcessControl::start(
            spawned.child,
            spawned.pid,
            Arc::clone(&transport.sink),
        ));
        let current = {
            let mut slot = server.slot();
            let current = slot.generation == generation;
            if current {
                slot.process = Some(Arc::clone(&control));
            }
            current
        };
        if !current {
            control.stop().await;
            return;
        }
        self.emit_status(server);

        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let connected = tokio::time::timeout_at(deadline, async {
            let options = ClientOptions { server: server.name.clone() };
            let client = Client::connect(transport, options, deadline, events_tx).await?;
            let raw_tools = client.list_tools(deadline).await?;
            let tools = mcp::validate_tools(&server.name, raw_tools)?;
            Ok::<_, Error>((client, tools))
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
            .with("setting", "startupTimeoutSeconds")
            .with("limit", spec.startup_timeout.as_secs_f64()))
        });
        let connected = connected.map_err(|e| {
            // A request that ran out of the startup deadline reports the same bound as the outer timeout.
            if e.details.get("setting").and_then(Value::as_str) == Some("startupTimeoutSeconds") {
                e.with("limit", spec.startup_timeout.as_secs_f64())
            } else {
                e
            }
        });
        let (client, tools) = match connected {
            Ok(ok) => ok,
            Err(e) => return self.fail_start(server, generation, e, Some(control)).await,
        };
        let limits = CallLimits {
            tool_timeout: spec.tool_timeout,
            max_result_bytes: spec.max_result_bytes,
        };
        let session = Arc::new(Session::new(generation, client, tools, limits, stderr_tail));
        let current = {
            let mut slot = server.slot();
            let current = slot.generation == generation;
            if current {
                slot.state = Some(ServerState::Ready);
                slot.session = Some(Arc::clone(&session));
            }
            current
        };
        if !current {
            session.client.close().await;
            control.stop().await;
            return;
        }
        tracing::info!(server = %server.name, generation, tools = session.tools().len(), "server ready");
        self.rebuild_catalog();
        self.emit_status(server);
        let this = Arc::clone(self);
        let s = Arc::clone(server);
        tokio::spawn(async move { this.watch_session(s, session, events_rx).await });
    }

    async fn fail_start(
        &self,
        server: &Arc<Server>,
        generation: u64,
        error: Error,
        control: Option<Arc<ProcessControl>>,
    ) {
        let exit = match &control {
            Some(c) => match c.exited_within(EXIT_STATUS_GRACE).await {
                Some(info) => Some(info),
                None => c.stop().await,
            },
            None => None,
        };
        let mut error = error;
        if let Some(info) = exit {
            error = error.with("exit", info.to_json());
        }
        let tail = Arc::clone(&server.slot().stderr);
        tail.drained_within(STDERR_EOF_GRACE).await;
        {
            let mut slot = server.slot();
            if slot.generation != generation {
                return;
            }
            let error = error
                .with("server", server.name.as_str())
                .with_stderr_tail(&slot.stderr.text());
            tracing::warn!(server = %server.name, generation, "start failed: {}", error.message);
            slot.state = Some(ServerState::Error);
            slot.process = None;
            slot.last_exit = exit;
            slot.last_error = Some(error);
        }
        self.emit_status(server);
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
                    match listed.and_then(|raw| mcp::validate_tools(&server.name, raw)) {
                        Ok(tools) => {
                            if server.slot().generation == session.generation {
                                session.replace_tools(tools);
                                self.rebuild_catalog();
                                self.emit_status(&server);
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

    /// A ready generation broke: its tools leave, pending calls have already failed, the process
    /// tree is stopped, and the server stays `unhealthy` until restarted.
    async fn fail_session(&self, server: &Arc<Server>, generation: u64, error: Error) {
        let (session, control) = {
            let mut slot = server.slot();
            if slot.generation != generation || slot.state != Some(ServerState::Ready) {
                return;
            }
            slot.state = Some(ServerState::Unhealthy);
            slot.last_error = Some(
                error
                    .clone()
                    .with("server", server.name.as_str())
                    .with_stderr_tail(&slot.stderr.text()),
            );
            (slot.session.take(), slot.process.clone())
        };
        self.rebuild_catalog();
        if let Some(session) = session {
            session.client.close().await;
        }
        let exit = match control {
            Some(c) => match c.exited_within(EXIT_STATUS_GRACE).await {
                Some(info) => Some(info),
                None => c.stop().await,
            },
            None => None,
        };
        let tail = Arc::clone(&server.slot().stderr);
        tail.drained_within(STDERR_EOF_GRACE).await;
        {
            let mut slot = server.slot();
            if slot.generation != generation {
                return;
            }
            let mut error = error
                .with("server", server.name.as_str())
                .with_stderr_tail(&slot.stderr.text());
            if let Some(info) = exit {
                error = error.with("exit", info.to_json());
            }
            tracing::warn!(server = %server.name, generation, "server unhealthy: {}", error.message);
            slot.process = None;
            slot.last_exit = exit;
            slot.last_error = Some(error);
        }
        self.emit_status(server);
    }

    /// Stops whatever generation is current. Tools leave the catalog before the process is touched.
    async fn stop(&self, server: &Arc<Server>) {
        let (session, control) = {
            let mut slot = server.slot();
            slot.generation += 1;
            slot.state = Some(ServerState::Stopped);
            (slot.session.take(), slot.process.take())
        };
        self.rebuild_catalog();
        if let Some(session) = &session {
            session.client.close().await;
        }
        if let Some(control) = control {
            let exit = control.stop().await;
            server.slot().last_exit = exit;
        }
        self.emit_status(server);
    }

    // ----- catalog and events -----

    fn rebuild_catalog(&self) {
        let _serial = self.rebuild.lock().unwrap_or_else(|p| p.into_inner());
        let servers: Vec<Arc<Server>> = self.servers().values().cloned().collect();
        let sessions: Vec<(String, Arc<Session>)> = servers
            .iter()
            .filter_map(|s| {
                let slot = s.slot();
                match (&slot.state, &slot.session) {
                    (Some(ServerState::Ready), Some(session)) => {
                        Some((s.name.clone(), Arc::clone(session)))
                    }
                    _ => None,
                }
            })
            .collect();
        let next = Arc::new(Catalog::build(&self.settings.names, &sessions));
        let previous = {
            let mut current = self.catalog.write().unwrap_or_else(|p| p.into_inner());
            std::mem::replace(&mut *current, Arc::clone(&next))
        };
        let before: BTreeSet<&str> = previous.names().collect();
        let after: BTreeSet<&str> = next.names().collect();
        let old_fingerprint = previous.listing(self.settings.format, None).fingerprint;
        let fingerprint = next.listing(self.settings.format, None).fingerprint;
        if fingerprint != old_fingerprint {
            let _ = self.events.send(Event::ToolsChanged {
                fingerprint,
                added: after.difference(&before).map(|s| s.to_string()).collect(),
                removed: before.difference(&after).map(|s| s.to_string()).collect(),
            });
        }
    }

    fn emit_status(&self, server: &Server) {
        let _ = self.events.send(Event::ServerChanged(server.status()));
    }
}

/// Awaits every future concurrently (a tiny `join_all` without a dependency).
async fn futures_join_all<F: std::future::Future<Output = ()>>(
    futures: impl IntoIterator<Item = F>,
) {
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    std::future::poll_fn(|cx| {
        set.retain_mut(|f| f.as_mut().poll(cx).is_pending());
        if set.is_empty() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}
