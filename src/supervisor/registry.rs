//! The registry: every configured server, the host-facing operations on them, and the catalog built
//! from the servers whose tools are exposed. The state machine itself is in [`super::lifecycle`].
//!
//! Generations: each start of a server gets a new generation number, and every asynchronous outcome
//! (handshake finished, session closed, tool list changed, restart timer, keepalive, idle timer)
//! carries the generation it belongs to. An outcome whose generation is no longer current is
//! ignored, so a late event from an old process can never stop or corrupt its replacement.
//!
//! Lock order: `servers` (the map) before any server's `slot`; `rebuild` is taken with neither held.
//! No lock is held across an `.await`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

use super::cache::SchemaCache;
use super::catalog::{Catalog, Entry, Listing};
use super::lifecycle::StartKind;
use super::results::ResultStore;
use super::server::Server;
use super::status::ServerStatus;
use crate::config::{extras, validate_server_name, ResultPolicy, ServerSpec, Source};
use crate::convert::{self, budget, NameTemplate, Options, ToolFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::mcp::{self, ToolDef};
use crate::trust::request::Subject;

/// Session-wide settings fixed by the host's `initialize` (and the command line).
pub struct Settings {
    pub names: NameTemplate,
    pub format: ToolFormat,
    /// Where lazy servers' tool lists are cached; `None` disables the cache (every lazy server is
    /// started once to discover its tools).
    pub cache: Option<SchemaCache>,
    /// OpenAI strict mode for listings that do not say otherwise.
    pub strict: bool,
    /// `initialize {requireTrust: true}`: a server (stdio or remote) is started only with the digest of its
    /// launch config (`servers/add`/`servers/test {…, trust}`).
    pub require_trust: bool,
}

/// How a server is being added.
#[derive(Clone, Debug, Default)]
pub struct AddOptions {
    pub source: Source,
    /// The digest the host approved, when trust is required.
    pub trust: Option<String>,
    /// The plugin folder of a plugin's server (for the trust request's warnings).
    pub plugin_root: Option<std::path::PathBuf>,
}

impl Settings {
    /// The default definition options.
    pub fn options(&self) -> Options {
        Options {
            strict: self.strict,
        }
    }
}

/// What the registry tells its owner.
#[derive(Debug)]
pub enum Event {
    ServerChanged(Box<ServerStatus>),
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
    pub(super) settings: Settings,
    servers: Mutex<BTreeMap<String, Arc<Server>>>,
    catalog: RwLock<Arc<Catalog>>,
    /// Serialises catalog rebuilds so that `ToolsChanged` events describe consecutive snapshots.
    rebuild: Mutex<()>,
    events: mpsc::UnboundedSender<Event>,
    /// Set by `shutdown`: nothing starts any more.
    shutting_down: AtomicBool,
    /// Host-requested lifecycle operations (add, restart, remove) run as tracked tasks: a host that
    /// stops waiting for one (cancel) never leaves a server half-started, and `shutdown` waits for them.
    operations: TaskTracker,
    /// Full texts of truncated results, for `results/read`.
    results: ResultStore,
    /// Throwaway registries of `servers/test` runs in progress, stopped with this one.
    pub(super) probes: Mutex<Vec<Arc<Registry>>>,
}

impl Registry {
    pub fn new(settings: Settings, events: mpsc::UnboundedSender<Event>) -> Arc<Self> {
        Arc::new(Self {
            settings,
            servers: Mutex::new(BTreeMap::new()),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            rebuild: Mutex::new(()),
            events,
            shutting_down: AtomicBool::new(false),
            operations: TaskTracker::new(),
            results: ResultStore::default(),
            probes: Mutex::new(Vec::new()),
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub(super) fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
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

    pub(super) fn operations(&self) -> &TaskTracker {
        &self.operations
    }

    /// Server `name`, if registered.
    pub(super) fn server(&self, name: &str) -> Option<Arc<Server>> {
        self.servers().get(name).cloned()
    }

    pub fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.catalog.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Registers a server and starts it — or, when lazy, serves its tools from the schema cache (a
    /// miss starts it once to discover them). With `wait`, returns once that is done.
    pub async fn add(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        wait: bool,
    ) -> Result<ServerStatus> {
        self.add_with(name, config, wait, AddOptions::default())
            .await
    }

    /// [`Registry::add`] with a source and, when trust is required, the approved digest.
    pub async fn add_with(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        wait: bool,
        options: AddOptions,
    ) -> Result<ServerStatus> {
        validate_server_name(name)?;
        let (rest, extras) = extras::split(config)?;
        let subject = Subject::from_config(config);
        let secrets = subject.secrets();
        let mut spec = ServerSpec::from_json(&rest).map_err(|mut e| {
            e.message = secrets.mask(&e.message);
            e
        })?;
        if let Some(remote) = &mut spec.remote {
            // Headers named in `secretHeaders` are as secret as those marked inline.
            for h in &mut remote.headers {
                h.secret |= extras.secret_names.contains(&h.name);
            }
        }
        if self.settings.require_trust {
            let digest = subject.digest();
            if options.trust.as_deref() != Some(digest.as_str()) {
                let request = subject.to_json(options.source, options.plugin_root.as_deref());
                let why = if options.trust.is_some() {
                    "the approved digest does not match this launch config"
                } else {
                    "this server needs the host's approval before it is spawned"
                };
                let mut e = Error::new(ErrorCode::TrustRequired, format!("server `{name}`: {why}; approve it with servers/add {{…, trust: \"{digest}\"}}")).with("server", name);
                if let Value::Object(fields) = request {
                    e.details.extend(fields);
                }
                return Err(e);
            }
        }
        if self.is_shutting_down() {
            return Err(shutting_down());
        }
        let cache_key = (!spec.auto_start).then(|| SchemaCache::key(&spec));
        let server = {
            let mut servers = self.servers();
            if servers.contains_key(name) {
                return Err(Error::new(
                    ErrorCode::ServerExists,
                    format!("a server named `{name}` already exists"),
                )
                .with("server", name));
            }
            let server = Arc::new(Server::new(
                name,
                spec,
                cache_key,
                options.source,
                extras,
                secrets,
            ));
            servers.insert(name.to_owned(), Arc::clone(&server));
            server
        };
        let kind = if server.spec.auto_start {
            StartKind::Requested
        } else if let Some(tools) = self.cached_tools(&server) {
            tracing::info!(server = %server.name, tools = tools.len(), "lazy server: tools served from the schema cache");
            server.slot().dormant_tools = Some(Arc::new(tools));
            self.rebuild_catalog();
            self.emit_status(&server);
            return Ok(server.status());
        } else {
            StartKind::Discover
        };
        // `starting` is set before answering, so a `wait: false` caller sees it; the rest runs as a
        // tracked operation that a host cancelling its wait cannot interrupt.
        if let Some(begun) = self.begin_start(&server, kind) {
            let this = Arc::clone(self);
            let s = Arc::clone(&server);
            let started = self
                .operations
                .spawn(async move { this.finish_start(&s, begun, kind).await });
            if wait {
                let _ = started.await;
            }
        }
        Ok(server.status())
    }

    fn cached_tools(&self, server: &Server) -> Option<Vec<ToolDef>> {
        let (cache, key) = (self.settings.cache.as_ref()?, server.cache_key.as_deref()?);
        let tools = cache.load(key, &server.name)?;
        crate::config::policy::apply(&server.name, &server.extras, tools).ok()
    }

    /// Writes a lazy server's tools to the schema cache (off the runtime's worker threads).
    pub(super) async fn store_cache(&self, server: &Server, tools: Arc<Vec<ToolDef>>) {
        let (Some(cache), Some(key)) = (self.settings.cache.clone(), server.cache_key.clone())
        else {
            return;
        };
        let name = server.name.clone();
        let stored = tokio::task::spawn_blocking(move || cache.store(&key, &name, &tools)).await;
        match stored {
            Ok(Ok(())) => tracing::debug!(server = %server.name, "schema cache updated"),
            Ok(Err(e)) => {
                tracing::warn!(server = %server.name, "cannot write the schema cache: {e}")
            }
            Err(e) => tracing::warn!(server = %server.name, "cannot write the schema cache: {e}"),
        }
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

    /// Stops and starts a server again: a full new handshake and discovery. Clears the failure
    /// history, so a server in `error` after a crash loop gets a fresh start.
    pub async fn restart(self: &Arc<Self>, name: &str) -> Result<ServerStatus> {
        let server = self.find(name)?;
        if self.is_shutting_down() {
            return Err(shutting_down());
        }
        server.slot().restart.reset();
        let this = Arc::clone(self);
        let s = Arc::clone(&server);
        let _ = self
            .operations
            .spawn(async move { this.start(&s, StartKind::Requested).await })
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

    /// Stops every server in parallel; returns once every process tree is gone. Nothing starts
    /// after this (pending restarts are dropped).
    pub async fn shutdown(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
        let probes: Vec<Arc<Registry>> =
            std::mem::take(&mut *self.probes.lock().unwrap_or_else(|p| p.into_inner()));
        let servers: Vec<Arc<Server>> =
            std::mem::take(&mut *self.servers()).into_values().collect();
        let stops = servers.iter().map(|s| self.stop(s));
        futures_util::future::join_all(stops).await;
        // `servers/test` runs: their servers stop too (each probe waits for its own start).
        for probe in probes {
            Box::pin(probe.shutdown()).await;
        }
        // Operations that raced this stop see a stale generation and stop their own process.
        self.operations.close();
        self.operations.wait().await;
    }

    /// Whether `server` is still the one registered under its name.
    pub(super) fn is_registered(&self, server: &Arc<Server>) -> bool {
        self.servers()
            .get(&server.name)
            .is_some_and(|s| Arc::ptr_eq(s, server))
    }

    /// Tool entries in `format` (the session's default when `None`).
    pub fn tools(
        &self,
        format: Option<ToolFormat>,
        strict: Option<bool>,
        servers: Option<&[String]>,
    ) -> Result<Listing> {
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
        let options = Options {
            strict: strict.unwrap_or(self.settings.strict),
        };
        Ok(self
            .catalog()
            .listing(format.unwrap_or(self.settings.format), options, servers))
    }

    /// Validates the arguments against the tool's own schema, starts the server if it is dormant,
    /// calls the tool, and checks the result's size. Counts the call in the server's statistics.
    pub async fn call_tool(
        self: &Arc<Self>,
        name: &str,
        arguments: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<CallOutcome> {
        let catalog = self.catalog();
        let Some(entry) = catalog.get(name) else {
            return Err(self.withdrawn(name).unwrap_or_else(|| {
                Error::new(
                    ErrorCode::ToolNotFound,
                    format!("no tool named `{name}` ({} tools available)", catalog.len()),
                )
                .with("name", name)
            }));
        };
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
        // Arguments that fail only because of `null`s for optional properties (what a model in OpenAI
        // strict mode sends for "absent") are retried without those `null`s.
        let arguments = match mcp::tools::check_arguments(&entry.server, &entry.tool, &arguments) {
            Ok(()) => arguments,
            Err(e) => {
                let schema = entry.tool.raw.get("inputSchema").unwrap_or(&Value::Null);
                match convert::arguments::drop_optional_nulls(schema, &arguments) {
                    Some(cleaned)
                        if mcp::tools::check_arguments(&entry.server, &entry.tool, &cleaned)
                            .is_ok() =>
                    {
                        cleaned
                    }
                    _ => return Err(e.with("name", name)),
                }
            }
        };
        let server = self.find(&entry.server)?;
        // A call's error carries the server's stderr tail and upstream messages: no secret value
        // of its config may leave with them.
        let outcome = self
            .call_on(&server, entry, arguments, timeout)
            .await
            .map_err(|e| server.secrets.mask_error(e).with("name", name));
        server
            .stats
            .record(outcome.as_ref().ok().map(|o| o.duration));
        outcome
    }

    async fn call_on(
        self: &Arc<Self>,
        server: &Arc<Server>,
        entry: &Entry,
        arguments: Value,
        timeout: Option<Duration>,
    ) -> Result<CallOutcome> {
        let (session, _in_flight) = self.acquire(server).await?;
        let tool = entry.tool.name.as_str();
        // A dormant server may have come back with a different tool list.
        if !session.tools().iter().any(|t| t.name == tool) {
            return Err(Error::new(
                ErrorCode::ToolNotFound,
                format!("server `{}` no longer has a tool `{tool}`", entry.server),
            )
            .with("server", entry.server.as_str())
            .with("tool", tool));
        }
        let started = Instant::now();
        let reply = session
            .client
            .call_tool(
                tool,
                arguments,
                timeout.unwrap_or(session.limits.tool_timeout),
            )
            .await
            .map_err(|e| {
                e.with("tool", tool)
                    .with_stderr_tail(&session.stderr.text())
            })?;
        let duration = started.elapsed();
        let limits = session.limits;
        let original_bytes = reply.bytes;
        let over = original_bytes > limits.max_result_bytes;
        if over && limits.result_policy == ResultPolicy::Error {
            return Err(Error::new(
                ErrorCode::ResultTooLarge,
                format!(
                    "result of tool `{tool}` on server `{}` is {original_bytes} bytes, over maxResultBytes ({} bytes)",
                    entry.server, limits.max_result_bytes
                ),
            )
            .with("server", entry.server.as_str())
            .with("tool", tool)
            .with("setting", "maxResultBytes")
            .with("limit", limits.max_result_bytes as u64)
            .with("size", original_bytes as u64));
        }
        let result = session
            .client
            .reply_outcome(reply)
            .map_err(|e| e.with("tool", tool))?;
        if !result.is_object() {
            return Err(Error::new(
                ErrorCode::ProtocolError,
                format!(
                    "server `{}` answered tools/call `{tool}` with a result that is not an object",
                    entry.server
                ),
            )
            .with("server", entry.server.as_str())
            .with("tool", tool));
        }
        let (result, truncated) = if over {
            let (result, truncation) =
                self.truncate(&result, original_bytes, limits.max_result_bytes);
            tracing::debug!(server = %entry.server, tool, original_bytes, "result truncated to fit maxResultBytes");
            (result, Some(truncation))
        } else {
            (result, None)
        };
        Ok(CallOutcome {
            result,
            server: entry.server.clone(),
            tool: tool.to_owned(),
            duration,
            truncated,
        })
    }

    /// Cuts `result` to `budget` and keeps its full text for `results/read` (when it fits the store).
    fn truncate(
        &self,
        result: &Value,
        original_bytes: usize,
        budget: usize,
    ) -> (Value, Truncation) {
        let handle = self.results.next_handle();
        let mut fitted = budget::fit(result, budget, Some(&handle));
        let mut kept = fitted.full_text.is_some();
        if fitted
            .full_text
            .as_ref()
            .is_some_and(|full| !self.results.fits(full.len()))
        {
            fitted = budget::fit(result, budget, None);
            kept = false;
        }
        if let (true, Some(full)) = (kept, fitted.full_text) {
            self.results.insert(handle.clone(), full);
        }
        (
            fitted.result,
            Truncation {
                original_bytes,
                handle: kept.then_some(handle),
                cut: fitted.cut,
            },
        )
    }

    /// Part of a truncated result's full text: `length` bytes (at most, and by default,
    /// [`crate::limits::RESULT_READ_MAX_BYTES`]) from `offset`, both moved to char boundaries.
    pub fn read_result(
        &self,
        handle: &str,
        offset: usize,
        length: Option<usize>,
    ) -> Result<ReadOutcome> {
        let text = self.results.get(handle)?;
        let length = length
            .unwrap_or(crate::limits::RESULT_READ_MAX_BYTES)
            .min(crate::limits::RESULT_READ_MAX_BYTES);
        let (start, part) = budget::read(&text, offset, length);
        Ok(ReadOutcome {
            text: part.to_string(),
            offset: start,
            length: part.len(),
            total_bytes: text.len(),
            eof: start + part.len() >= text.len(),
        })
    }

    /// SERVER_UNAVAILABLE when `name` was exposed by a server that is down now.
    fn withdrawn(&self, name: &str) -> Option<Error> {
        let servers: Vec<Arc<Server>> = self.servers().values().cloned().collect();
        servers.iter().find_map(|s| {
            let slot = s.slot();
            (slot.exposed_tools().is_none() && slot.last_names.iter().any(|n| n == name))
                .then(|| s.unavailable(&slot).with("name", name))
        })
    }

    // ----- catalog and events -----

    /// Rebuilds the catalog from every server's exposed tools and tells the host if the tool set
    /// changed. Call with no lock held.
    pub(super) fn rebuild_catalog(&self) {
        let _serial = self.rebuild.lock().unwrap_or_else(|p| p.into_inner());
        let servers: Vec<Arc<Server>> = self.servers().values().cloned().collect();
        let exposed: Vec<(String, Arc<Vec<ToolDef>>)> = servers
            .iter()
            .filter_map(|s| s.slot().exposed_tools().map(|t| (s.name.clone(), t)))
            .collect();
        let next = Arc::new(Catalog::build(&self.settings.names, &exposed));
        for (name, _) in &exposed {
            if let Some(s) = servers.iter().find(|s| &s.name == name) {
                s.slot().last_names = next.names_of(name).map(str::to_owned).collect();
            }
        }
        let previous = {
            let mut current = self.catalog.write().unwrap_or_else(|p| p.into_inner());
            std::mem::replace(&mut *current, Arc::clone(&next))
        };
        let before: BTreeSet<&str> = previous.names().collect();
        let after: BTreeSet<&str> = next.names().collect();
        let old_fingerprint = previous
            .listing(self.settings.format, self.settings.options(), None)
            .fingerprint;
        let fingerprint = next
            .listing(self.settings.format, self.settings.options(), None)
            .fingerprint;
        if fingerprint != old_fingerprint {
            let _ = self.events.send(Event::ToolsChanged {
                fingerprint,
                added: after.difference(&before).map(|s| s.to_string()).collect(),
                removed: before.difference(&after).map(|s| s.to_string()).collect(),
            });
        }
    }

    /// Tells the host the server's new status and wakes callers waiting on its state.
    pub(super) fn emit_status(&self, server: &Server) {
        server.bump();
        let _ = self
            .events
            .send(Event::ServerChanged(Box::new(server.status())));
    }
}

pub(super) fn shutting_down() -> Error {
    Error::new(ErrorCode::ShuttingDown, "the sidecar is shutting down")
}
