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

use super::catalog::{Catalog, Listing};
use super::process;
use super::results::ResultStore;
use super::session::{CallLimits, ProcessControl, Session};
use super::status::{rfc3339, ServerState, ServerStatus};
use super::stderr::{self, StderrTail};
use crate::config::{validate_server_name, ResultPolicy, ServerSpec};
use crate::convert::{self, budget, NameTemplate, Options, ToolFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::mcp::{self, transport, Client, ClientEvent, ClientOptions};

/// How long a failed start waits for the process's exit status before reporting without it.
const EXIT_STATUS_GRACE: Duration = Duration::from_millis(200);

/// Session-wide settings fixed by the host's `initialize`.
pub struct Settings {
    pub names: NameTemplate,
    pub format: ToolFormat,
    /// OpenAI strict mode for listings that do not say otherwise.
    pub strict: bool,
}

impl Settings {
    /// The default definition options.
    pub fn options(&self) -> Options {
        Options { strict: self.strict }
    }
}

/// What the registry tells its owner.
#[derive(Debug)]
pub enum Event {
    ServerChanged(ServerStatus),
    ToolsChanged { fingerprint: String, added: Vec<String>, removed: Vec<String> },
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
    /// Set when the result was over `maxResultBytes` and cut to fit (`resultPolicy: "truncate"`).
    pub truncated: Option<Truncation>,
}

/// How a result was made to fit its budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Truncation {
    /// Size of the server's whole answer, in bytes.
    pub original_bytes: usize,
    /// Where the full text can be read, when part of the text was cut and it could be kept.
    pub handle: Option<String>,
    /// The cut part of the text, when there is one.
    pub cut: Option<budget::Cut>,
}

impl Truncation {
    /// `{originalBytes, handle?, offset?, length?, totalBytes?}`.
    pub fn to_json(&self) -> Value {
        let mut out = serde_json::json!({ "originalBytes": self.original_bytes });
        if let Some(handle) = &self.handle {
            out["handle"] = Value::from(handle.as_str());
        }
        if let Some(cut) = self.cut {
            out["offset"] = Value::from(cut.offset);
            out["length"] = Value::from(cut.length);
            out["totalBytes"] = Value::from(cut.total_bytes);
        }
        out
    }
}

/// One `results/read` answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOutcome {
    pub text: String,
    /// Where `text` starts (the requested offset moved down to a char boundary).
    pub offset: usize,
    /// Bytes of `text`.
    pub length: usize,
    pub total_bytes: usize,
    /// `offset + length == total_bytes`.
    pub eof: bool,
}

pub struct Registry {
    settings: Settings,
    servers: Mutex<BTreeMap<String, Arc<Server>>>,
    catalog: RwLock<Arc<Catalog>>,
    /// Serialises catalog rebuilds so that `ToolsChanged` events describe consecutive snapshots.
    rebuild: Mutex<()>,
    events: mpsc::UnboundedSender<Event>,
    results: ResultStore,
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
            results: ResultStore::default(),
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
            Error::new(ErrorCode::ServerNotFound, format!("no server named `{name}`")).with("server", name)
        })
    }

    pub fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.catalog.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Registers a server and starts it. With `wait`, returns once it is ready or has failed.
    pub async fn add(self: &Arc<Self>, name: &str, config: &Value, wait: bool) -> Result<ServerStatus> {
        validate_server_name(name)?;
        let spec = ServerSpec::from_json(config)?;
        let server = {
            let mut servers = self.servers();
            if servers.contains_key(name) {
                return Err(Error::new(ErrorCode::ServerExists, format!("a server named `{name}` already exists"))
                    .with("server", name));
            }
            let server = Arc::new(Server { name: name.to_owned(), spec, slot: Mutex::new(Slot::default()) });
            servers.insert(name.to_owned(), Arc::clone(&server));
            server
        };
        if wait {
            self.start(&server).await;
        } else {
            let generation = self.begin_start(&server);
            let this = Arc::clone(self);
            let s = Arc::clone(&server);
            tokio::spawn(async move { this.run_start(&s, generation).await });
        }
        Ok(server.status())
    }

    /// Stops a server (tools leave first) and forgets it; returns once its process tree is gone.
    pub async fn remove(&self, name: &str) -> Result<()> {
        let server = self.servers().remove(name).ok_or_else(|| {
            Error::new(ErrorCode::ServerNotFound, format!("no server named `{name}`")).with("server", name)
        })?;
        self.stop(&server).await;
        Ok(())
    }

    /// Stops and starts a server again: a full new handshake and discovery.
    pub async fn restart(self: &Arc<Self>, name: &str) -> Result<ServerStatus> {
        let server = self.find(name)?;
        self.stop(&server).await;
        self.start(&server).await;
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
        let servers: Vec<Arc<Server>> = std::mem::take(&mut *self.servers()).into_values().collect();
        let stops = servers.iter().map(|s| self.stop(s));
        futures_join_all(stops).await;
    }

    /// Tool entries in `format`, strict or not (the session's defaults when `None`).
    pub fn tools(&self, format: Option<ToolFormat>, strict: Option<bool>, servers: Option<&[String]>) -> Result<Listing> {
        if let Some(only) = servers {
            let known = self.servers();
            if let Some(missing) = only.iter().find(|s| !known.contains_key(s.as_str())) {
                return Err(Error::new(ErrorCode::ServerNotFound, format!("no server named `{missing}`"))
                    .with("server", missing.as_str()));
            }
        }
        let options = Options { strict: strict.unwrap_or(self.settings.strict) };
        Ok(self.catalog().listing(format.unwrap_or(self.settings.format), options, servers))
    }

    /// Validates the arguments against the tool's own schema, calls it, and checks the result's size
    /// (over `maxResultBytes`: RESULT_TOO_LARGE, or cut to fit under `resultPolicy: "truncate"`).
    ///
    /// Arguments that fail validation only because of `null`s for optional properties (what a
    /// model in OpenAI strict mode sends for "absent") are retried without those `null`s.
    pub async fn call_tool(&self, name: &str, arguments: Option<Value>, timeout: Option<Duration>) -> Result<CallOutcome> {
        let catalog = self.catalog();
        let entry = catalog.get(name).ok_or_else(|| {
            Error::new(ErrorCode::ToolNotFound, format!("no tool named `{name}` ({} tools available)", catalog.len()))
                .with("tool", name)
        })?;
        let arguments = match arguments {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(a @ Value::Object(_)) => a,
            Some(_) => {
                return Err(Error::new(ErrorCode::InvalidArguments, format!("arguments for tool `{name}` must be an object"))
                    .with("tool", name))
            }
        };
        let arguments = match mcp::tools::check_arguments(&entry.server, &entry.tool, &arguments) {
            Ok(()) => arguments,
            Err(e) => {
                let schema = entry.tool.raw.get("inputSchema").unwrap_or(&Value::Null);
                match convert::arguments::drop_optional_nulls(schema, &arguments) {
                    Some(cleaned) if mcp::tools::check_arguments(&entry.server, &entry.tool, &cleaned).is_ok() => cleaned,
                    _ => return Err(e),
                }
            }
        };
        let session = &entry.session;
        let started = Instant::now();
        let reply = session
            .client
            .call_tool(&entry.tool.name, arguments, timeout.unwrap_or(session.limits.tool_timeout))
            .await
            .map_err(|e| e.with("tool", entry.tool.name.as_str()).with_stderr_tail(&session.stderr.text()))?;
        let duration = started.elapsed();
        let limits = session.limits;
        let original_bytes = reply.bytes;
        let over = original_bytes > limits.max_result_bytes;
        if over && limits.result_policy == ResultPolicy::Error {
            return Err(Error::new(
                ErrorCode::ResultTooLarge,
                format!(
                    "result of tool `{}` on server `{}` is {} bytes, over maxResultBytes ({} bytes)",
                    entry.tool.name, entry.server, original_bytes, limits.max_result_bytes
                ),
            )
            .with("server", entry.server.as_str())
            .with("tool", entry.tool.name.as_str())
            .with("limit", limits.max_result_bytes as u64)
            .with("size", original_bytes as u64));
        }
        let result = session.client.reply_outcome(reply).map_err(|e| e.with("tool", entry.tool.name.as_str()))?;
        if !result.is_object() {
            return Err(Error::new(
                ErrorCode::ProtocolError,
                format!("server `{}` answered tools/call `{}` with a result that is not an object", entry.server, entry.tool.name),
            )
            .with("server", entry.server.as_str())
            .with("tool", entry.tool.name.as_str()));
        }
        let (result, truncated) = if over {
            let (result, truncation) = self.truncate(&result, original_bytes, limits.max_result_bytes);
            tracing::debug!(server = %entry.server, tool = %entry.tool.name, original_bytes, "result truncated to fit maxResultBytes");
            (result, Some(truncation))
        } else {
            (result, None)
        };
        Ok(CallOutcome { result, server: entry.server.clone(), tool: entry.tool.name.clone(), duration, truncated })
    }

    /// Cuts `result` to `budget` and keeps its full text for `results/read` (when it fits the store).
    fn truncate(&self, result: &Value, original_bytes: usize, budget: usize) -> (Value, Truncation) {
        let handle = self.results.next_handle();
        let mut fitted = budget::fit(result, budget, Some(&handle));
        let mut kept = fitted.full_text.is_some();
        if fitted.full_text.as_ref().is_some_and(|full| !self.results.fits(full.len())) {
            fitted = budget::fit(result, budget, None);
            kept = false;
        }
        if let (true, Some(full)) = (kept, fitted.full_text) {
            self.results.insert(handle.clone(), full);
        }
        (fitted.result, Truncation { original_bytes, handle: kept.then_some(handle), cut: fitted.cut })
    }

    /// Part of a truncated result's full text: `length` bytes (at most, and by default,
    /// [`crate::limits::RESULT_READ_MAX_BYTES`]) from `offset`, both moved to char boundaries.
    pub fn read_result(&self, handle: &str, offset: usize, length: Option<usize>) -> Result<ReadOutcome> {
        let text = self.results.get(handle)?;
        let length = length.unwrap_or(crate::limits::RESULT_READ_MAX_BYTES).min(crate::limits::RESULT_READ_MAX_BYTES);
        let (start, part) = budget::read(&text, offset, length);
        Ok(ReadOutcome {
            text: part.to_string(),
            offset: start,
            length: part.len(),
            total_bytes: text.len(),
            eof: start + part.len() >= text.len(),
        })
    }

    // ----- lifecycle -----

    async fn start(self: &Arc<Self>, server: &Arc<Server>) {
        let generation = self.begin_start(server);
        self.run_start(server, generation).await;
    }

    /// Moves the server to `starting` under a new generation.
    fn begin_start(&self, server: &Server) -> u64 {
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
        generation
    }

    async fn run_start(self: &Arc<Self>, server: &Arc<Server>, generation: u64) {
        let spec = &server.spec;
        let deadline = tokio::time::Instant::now() + spec.startup_timeout;
        let stderr_tail = Arc::clone(&server.slot().stderr);

        let spawned = match process::spawn(&server.name, spec) {
            Ok(s) => s,
            Err(e) => return self.fail_start(server, generation, e, None).await,
        };
        let transport = transport::stdio::transport(spawned.stdin, spawned.stdout, spec.max_message_bytes);
        tokio::spawn(stderr::drain(spawned.stderr, Arc::clone(&stderr_tail), server.name.clone()));
        let control = Arc::new(ProcessControl::start(spawned.child, spawned.pid, Arc::clone(&transport.sink)));
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
            .with("limit", "startupTimeoutSeconds"))
        });
        let (client, tools) = match connected {
            Ok(ok) => ok,
            Err(e) => return self.fail_start(server, generation, e, Some(control)).await,
        };
        let limits = CallLimits {
            tool_timeout: spec.tool_timeout,
            max_result_bytes: spec.max_result_bytes,
            result_policy: spec.result_policy,
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

    async fn fail_start(&self, server: &Arc<Server>, generation: u64, error: Error, control: Option<Arc<ProcessControl>>) {
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
        {
            let mut slot = server.slot();
            if slot.generation != generation {
                return;
            }
            let error = error.with("server", server.name.as_str()).with_stderr_tail(&slot.stderr.text());
            tracing::warn!(server = %server.name, generation, "start failed: {}", error.message);
            slot.state = Some(ServerState::Error);
            slot.process = None;
            slot.last_exit = exit;
            slot.last_error = Some(error);
        }
        self.emit_status(server);
    }

    /// Follows one ready generation until it ends.
    async fn watch_session(self: Arc<Self>, server: Arc<Server>, session: Arc<Session>, mut events: mpsc::UnboundedReceiver<ClientEvent>) {
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
        {
            let mut slot = server.slot();
            if slot.generation != generation {
                return;
            }
            let mut error = error.with("server", server.name.as_str()).with_stderr_tail(&slot.stderr.text());
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
                    (Some(ServerState::Ready), Some(session)) => Some((s.name.clone(), Arc::clone(session))),
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
        let old_fingerprint = previous.listing(self.settings.format, self.settings.options(), None).fingerprint;
        let fingerprint = next.listing(self.settings.format, self.settings.options(), None).fingerprint;
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
async fn futures_join_all<F: std::future::Future<Output = ()>>(futures: impl IntoIterator<Item = F>) {
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
