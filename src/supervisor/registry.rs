//! The registry: the host-facing operations on the configured servers — add (and lazy start from the
//! schema cache), add every server of a loaded configuration, remove, restart, list, status, test,
//! shutdown — on the tools they expose — listing, calls, reading truncated results, held
//! definitions and their acceptance — and on the rest of their surface (resources, prompts,
//! completion, log levels). Each operation admits, looks up or hands over; the
//! state machine behind it is in [`super::lifecycle`] and [`super::teardown`], the shared table and
//! catalog in [`super::roster`], a call's checks and budget in [`super::call`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Map, Value};
use tokio_util::task::TaskTracker;

use super::accept::{self, Acceptance};
use super::admission::{self, Admitted};
use super::awaiting::{self, Waited};
use super::call::{self, CallOptions, CallOutcome};
use super::events::EventSender;
use super::lazy;
use super::lifecycle::{self, StartKind};
use super::listing;
use super::login;
use super::probe;
use super::roster::{not_found, shutting_down, Roster};
use super::server::Server;
use super::settings::{AddOptions, Settings};
use super::status::{ServerState, ServerStats, ServerStatus};
use super::surface::{self, PromptGot, ResourceRead};
use super::teardown;
use crate::config::diagnostics::{Diagnostic, Kind};
use crate::config::expand::process_env;
use crate::config::load::{load, Loaded, Request};
use crate::config::{validate_server_name, ServerSpec};
use crate::convert::{Options, ToolFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::mcp::{LogLevel, SurfaceList};
use crate::oauth::ServerAuth;
use crate::store::{Catalog, Listing, ListingRequest, ReadOutcome, Rendered, ResultStore};

/// What [`Registry::add_loaded`] did with each server of a configuration.
#[derive(Default)]
pub(crate) struct LoadOutcome {
    pub added: Vec<ServerStatus>,
    pub diagnostics: Vec<Diagnostic>,
    /// The trust request (with its `name`) of each server the trust gate held back.
    pub trust_required: Vec<Value>,
}

pub(crate) struct Registry {
    /// The servers, the catalog and the events, shared with every server's lifecycle tasks.
    roster: Arc<Roster>,
    /// Host-requested lifecycle operations (add, restart, remove, test) run as tracked tasks: a host
    /// that stops waiting for one (cancel) never leaves a server half-started, and `shutdown` waits
    /// for them.
    operations: TaskTracker,
    /// Full texts of truncated results, for `results/read`.
    results: ResultStore,
    /// Throwaway registries of `servers/test` runs in progress, stopped with this one.
    probes: Mutex<Vec<Arc<Registry>>>,
}

impl Registry {
    pub(crate) fn new(settings: Settings, events: EventSender) -> Arc<Self> {
        Arc::new(Self {
            roster: Arc::new(Roster::new(settings, events)),
            operations: TaskTracker::new(),
            results: ResultStore::default(),
            probes: Mutex::new(Vec::new()),
        })
    }

    pub(crate) fn settings(&self) -> &Settings {
        &self.roster.settings
    }

    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.roster.catalog()
    }

    // ----- servers -----

    /// Registers a server and starts it — or, when lazy, serves its tools from the schema cache (a
    /// miss starts it once to discover them); with `wait`, returns once that is done. The source
    /// and, when trust is required, the approved digest come in `options`.
    pub(crate) async fn add_with(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        wait: bool,
        options: AddOptions,
    ) -> Result<ServerStatus> {
        let admitted = admission::admit(name, config, &options, self.settings().require_trust)?;
        // Read before the server is registered: nothing can race a half-added server.
        let (cache_key, cached) = lazy::lookup(
            self.settings().cache.as_ref(),
            name,
            &admitted.spec,
            &admitted.extras,
        )
        .await;
        let server = self.register(name, admitted, cache_key, options)?;
        let kind = if server.spec.auto_start {
            StartKind::Requested
        } else if let Some(tools) = cached {
            tracing::info!(server = %server.name, tools = tools.len(), "lazy server: tools served from the schema cache");
            let mut slot = server.slot();
            slot.pins.observe(&tools);
            slot.dormant_tools = Some(Arc::new(tools));
            drop(slot);
            self.roster.transitioned(&server);
            return Ok(server.status());
        } else {
            StartKind::Discover
        };
        // `starting` is set before answering, so a `wait: false` caller sees it; the rest runs as a
        // tracked operation that a host cancelling its wait cannot interrupt.
        if let Some(begun) = lifecycle::begin_start(&self.roster, &server, kind) {
            let (roster, s) = (Arc::clone(&self.roster), Arc::clone(&server));
            let started = self
                .operations
                .spawn(async move { lifecycle::finish_start(&roster, &s, begun, kind).await });
            if wait {
                let _ = started.await;
            }
        }
        Ok(server.status())
    }

    /// Adds every server of a loaded configuration, all at once and each on its own: a slow one
    /// never holds up the others; a server that cannot be added becomes a diagnostic, one the trust
    /// gate holds back a trust request (`trust` holds the approved digests by name), so one bad
    /// server never stops the others. With `wait`, returns once the last has ended. Results keep
    /// the file's order.
    pub(crate) async fn add_loaded(
        self: &Arc<Self>,
        loaded: Loaded,
        trust: &BTreeMap<String, String>,
        wait: bool,
    ) -> LoadOutcome {
        let mut outcome = LoadOutcome {
            diagnostics: loaded.diagnostics,
            ..Default::default()
        };
        let adds = loaded.servers.iter().map(|c| {
            let options = AddOptions {
                source: c.source,
                trust: trust.get(&c.name).cloned(),
                plugin_root: c.plugin_root.clone(),
            };
            self.add_with(&c.name, &c.config, wait, options)
        });
        let added = futures_util::future::join_all(adds).await;
        for (c, added) in loaded.servers.iter().zip(added) {
            match added {
                Ok(status) => outcome.added.push(status),
                Err(e) if e.code == ErrorCode::TrustRequired => {
                    let mut request = Value::Object(e.details.clone());
                    request["name"] = Value::from(c.name.as_str());
                    outcome.trust_required.push(request);
                }
                Err(e) => {
                    let kind = if e.code == ErrorCode::ServerExists {
                        Kind::Duplicate
                    } else {
                        Kind::Invalid
                    };
                    let d = Diagnostic::error(kind, c.path.clone(), e.message).for_server(&c.name);
                    outcome.diagnostics.push(d);
                }
            }
        }
        outcome
    }

    /// Reads each config file or directory (any dialect, `${VAR}` from the process environment)
    /// and adds its servers (source `user`), all files at once; with `wait`, returns once every
    /// server is ready or has failed. Problems (and trust requests) go to the log.
    pub(crate) async fn load_files(self: &Arc<Self>, paths: Vec<PathBuf>, wait: bool) {
        let loads = paths.into_iter().map(|path| async move {
            let loaded = load(
                Request::Path(path.clone()),
                None,
                BTreeMap::new(),
                process_env,
            )
            .await;
            let outcome = self.add_loaded(loaded, &BTreeMap::new(), wait).await;
            let problems = outcome
                .diagnostics
                .iter()
                .map(|d| serde_json::to_value(d).unwrap_or_default());
            for problem in problems.chain(outcome.trust_required) {
                tracing::warn!(file = %path.display(), "--config: {problem}");
            }
        });
        futures_util::future::join_all(loads).await;
    }

    /// Puts an admitted server in the table (SERVER_EXISTS if the name is taken).
    fn register(
        &self,
        name: &str,
        admitted: Admitted,
        cache_key: Option<String>,
        options: AddOptions,
    ) -> Result<Arc<Server>> {
        if self.roster.is_shutting_down() {
            return Err(shutting_down());
        }
        let mut servers = self.roster.servers();
        if servers.contains_key(name) {
            return Err(Error::new(
                ErrorCode::ServerExists,
                format!("a server named `{name}` already exists"),
            )
            .with("server", name));
        }
        let Admitted {
            spec,
            extras,
            secrets,
        } = admitted;
        let auth = oauth_of(name, &spec, self.settings())?;
        let exposure = self.settings().exposure(&extras);
        let server = Arc::new(Server::new(
            name,
            spec,
            cache_key,
            options.source,
            (extras, exposure),
            secrets,
            auth,
        ));
        servers.insert(name.to_owned(), Arc::clone(&server));
        login::forward_status(&self.roster, &server);
        Ok(server)
    }

    /// Stops a server (tools leave first) and forgets it; returns once its process tree is gone.
    /// Its tokens stay in the store (`servers/logout` removes them).
    pub(crate) async fn remove(self: &Arc<Self>, name: &str) -> Result<()> {
        let server = self
            .roster
            .servers()
            .remove(name)
            .ok_or_else(|| not_found(name))?;
        if let Some(auth) = &server.auth {
            auth.cancel_login();
        }
        let roster = Arc::clone(&self.roster);
        let _ = self
            .operations
            .spawn(async move { teardown::stop(&roster, &server).await })
            .await;
        Ok(())
    }

    /// Stops and starts a server again: a full new handshake and discovery. Clears the failure
    /// history, so a server in `error` after a crash loop gets a fresh start.
    pub(crate) async fn restart(self: &Arc<Self>, name: &str) -> Result<ServerStatus> {
        let server = self.roster.find(name)?;
        if self.roster.is_shutting_down() {
            return Err(shutting_down());
        }
        server.slot().restart.reset();
        let (roster, s) = (Arc::clone(&self.roster), Arc::clone(&server));
        let _ = self
            .operations
            .spawn(async move { lifecycle::start(&roster, &s, StartKind::Requested).await })
            .await;
        Ok(server.status())
    }

    /// A login for a server that uses OAuth (its browser step: the host's, or the loopback
    /// listener with the URL in the status), then a start unless it is ready. With `wait`, returns
    /// once that is done; without, as soon as the login waits for the browser (the status carries
    /// `authorizationUrl`) or has ended.
    pub(crate) async fn login(self: &Arc<Self>, name: &str, wait: bool) -> Result<ServerStatus> {
        let server = self.roster.find(name)?;
        let auth = server.auth.clone().ok_or_else(|| {
            Error::invalid_params(format!(
                "server `{name}` does not use OAuth (a stdio server, or its config sends its own Authorization header)"
            ))
            .with("field", "name")
            .with("server", name)
        })?;
        if self.roster.is_shutting_down() {
            return Err(shutting_down());
        }
        let mut pending = auth.status();
        pending.mark_unchanged();
        let (roster, s) = (Arc::clone(&self.roster), Arc::clone(&server));
        let mut run = self.operations.spawn(async move {
            if let Err(e) = auth.login(true).await {
                let e = login::auth_error(&s, e);
                let mut slot = s.slot();
                if slot.state == ServerState::NeedsLogin {
                    slot.last_error = Some(e.clone());
                }
                drop(slot);
                roster.emit_status(&s);
                return Err(e);
            }
            if s.slot().state != ServerState::Ready {
                lifecycle::start(&roster, &s, StartKind::Requested).await;
            }
            Ok(())
        });
        let finished = |joined: std::result::Result<Result<()>, tokio::task::JoinError>| {
            joined
                .unwrap_or_else(|e| Err(Error::internal(format!("the login did not finish: {e}"))))
        };
        if wait {
            finished((&mut run).await)?;
        } else {
            tokio::select! {
                joined = &mut run => finished(joined)?,
                _ = pending.wait_for(|s| s.pending_url.is_some()) => {}
            }
        }
        Ok(server.status())
    }

    /// Forgets the server's tokens (memory and store), ends a login in progress, stops its session
    /// and leaves it in `needs_login` until the next login.
    pub(crate) async fn logout(self: &Arc<Self>, name: &str) -> Result<ServerStatus> {
        let server = self.roster.find(name)?;
        let Some(auth) = server.auth.clone() else {
            return Err(Error::invalid_params(format!(
                "server `{name}` does not use OAuth; there is nothing to log out of"
            ))
            .with("field", "name")
            .with("server", name));
        };
        let (roster, s) = (Arc::clone(&self.roster), Arc::clone(&server));
        let _ = self
            .operations
            .spawn(async move {
                auth.logout().await;
                let why = Error::new(
                    ErrorCode::AuthRequired,
                    format!("server `{}`: logged out; a login is needed", s.name),
                );
                login::require(&roster, &s, why).await;
            })
            .await;
        Ok(server.status())
    }

    pub(crate) fn list(&self) -> Vec<ServerStatus> {
        self.roster.all().iter().map(|s| s.status()).collect()
    }

    /// Each server's name and state, and whether it starts with the sidecar (`autoStart`, true
    /// by default) rather than on its first call: what a readiness check reads, without the rest
    /// of a status.
    pub(crate) fn states(&self) -> Vec<(String, ServerState, bool)> {
        self.roster
            .all()
            .iter()
            .map(|s| (s.name.clone(), s.slot().state, s.spec.auto_start))
            .collect()
    }

    /// Each server as `/metrics` shows it, from its own statistics (state, restarts, calls in
    /// flight, bytes each way).
    pub(crate) fn metric_samples(&self) -> Vec<crate::metrics::ServerSample> {
        self.roster
            .all()
            .iter()
            .map(|s| {
                let (bytes_in, bytes_out) = s.traffic.totals();
                let slot = s.slot();
                crate::metrics::ServerSample {
                    name: s.name.clone(),
                    state: slot.state.as_str(),
                    restarts: slot.restarts,
                    in_flight: s.calls.current() as u64,
                    bytes_in,
                    bytes_out,
                }
            })
            .collect()
    }

    /// Statistics of every server (sorted by name), or of those named (SERVER_NOT_FOUND for a
    /// name that is not registered).
    pub(crate) fn stats(&self, servers: Option<&[String]>) -> Result<Vec<ServerStats>> {
        match servers {
            None => Ok(self.roster.all().iter().map(|s| s.stats()).collect()),
            Some(names) => {
                let mut found = names
                    .iter()
                    .map(|n| self.roster.find(n))
                    .collect::<Result<Vec<_>>>()?;
                found.sort_by(|a, b| a.name.cmp(&b.name));
                found.dedup_by(|a, b| a.name == b.name);
                Ok(found.iter().map(|s| s.stats()).collect())
            }
        }
    }

    /// Starts `config` as server `name` in a throwaway registry, reports what the start found (see
    /// [`probe::report`]), and returns once its process tree is gone. Nothing is registered here.
    ///
    /// A config that cannot be parsed is CONFIG_INVALID and one the trust gate refuses is
    /// TRUST_REQUIRED, as for `servers/add`; a start that fails is a result with `state: "error"`.
    pub(crate) async fn test(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        trust: Option<String>,
    ) -> Result<Value> {
        validate_server_name(name)?;
        let probe = {
            // Checked and recorded under one lock, so a concurrent `shutdown` always sees the probe.
            let mut probes = self.probes();
            if self.roster.is_shutting_down() {
                return Err(shutting_down());
            }
            // No one listens: the probe's servers never reach the host's notifications.
            let probe = Registry::new(self.settings().without_cache(), EventSender::discarding());
            probes.push(Arc::clone(&probe));
            probe
        };
        let (this, name, config) = (Arc::clone(self), name.to_owned(), probe::config(config));
        // A tracked task: a host that cancels its wait never leaves the probe's server running, and
        // `shutdown` waits for it.
        let run = self.operations.spawn(async move {
            let begun = Instant::now();
            let options = AddOptions {
                trust,
                ..Default::default()
            };
            let added = probe.add_with(&name, &config, true, options).await;
            let server = probe.roster.server(&name);
            let report =
                added.map(|status| probe::report(status, server.as_deref(), begun.elapsed()));
            probe.shutdown().await;
            let report = match (report, server) {
                (Ok(report), Some(server)) => Ok(probe::with_last_words(report, &server).await),
                (report, _) => report,
            };
            this.probes().retain(|p| !Arc::ptr_eq(p, &probe));
            report
        });
        run.await
            .unwrap_or_else(|e| Err(Error::internal(format!("servers/test did not finish: {e}"))))
    }

    fn probes(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Registry>>> {
        self.probes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether [`Registry::shutdown`] has begun: nothing is added from then on.
    pub(crate) fn is_shutting_down(&self) -> bool {
        self.roster.is_shutting_down()
    }

    /// Stops every server in parallel; returns once every process tree is gone. Nothing starts
    /// after this (pending restarts are dropped).
    pub(crate) async fn shutdown(&self) {
        let servers = self.roster.close();
        for auth in servers.iter().filter_map(|s| s.auth.as_ref()) {
            auth.cancel_login();
        }
        let probes = std::mem::take(&mut *self.probes());
        futures_util::future::join_all(servers.iter().map(|s| teardown::stop(&self.roster, s)))
            .await;
        // `servers/test` runs: their servers stop too (each probe waits for its own start).
        for probe in probes {
            Box::pin(probe.shutdown()).await;
        }
        // Operations that raced this stop see a stale generation and stop their own process.
        self.operations.close();
        self.operations.wait().await;
    }

    // ----- tools -----

    /// Tool entries in `format` (the session's default when `None`), as values.
    pub(crate) fn tools(
        &self,
        format: Option<ToolFormat>,
        strict: Option<bool>,
        servers: Option<&[String]>,
    ) -> Result<Listing> {
        self.check_servers(servers)?;
        let (format, options) = self.format_options(format, strict);
        Ok(self.catalog().listing(format, options, servers))
    }

    /// The `tools/list` result as JSON text: cached per format and options until the tool set
    /// changes (filtered by `servers`: rendered from the cached pieces each time).
    pub(crate) fn tools_answer(
        &self,
        format: Option<ToolFormat>,
        strict: Option<bool>,
        defer: Option<bool>,
        servers: Option<&[String]>,
    ) -> Result<Arc<Rendered>> {
        self.check_servers(servers)?;
        self.relist_expired();
        let (format, options) = self.format_options(format, strict);
        Ok(self.catalog().answer(&ListingRequest {
            format,
            options,
            defer,
            servers,
        }))
    }

    /// Starts a background re-list of every list past its positive `ttlMs` (stale-while-
    /// revalidate: the caller answers from the cached catalog now; a changed list reaches the host
    /// as `notifications/tools/changed`). One atomic load while no server sent a positive TTL.
    pub(crate) fn relist_expired(&self) {
        self.roster.relist_expired();
    }

    /// SERVER_NOT_FOUND for the first of `servers` that is not registered.
    pub(crate) fn check_servers(&self, servers: Option<&[String]>) -> Result<()> {
        if let Some(only) = servers {
            let known = self.roster.servers();
            if let Some(missing) = only.iter().find(|s| !known.contains_key(s.as_str())) {
                return Err(not_found(missing));
            }
        }
        Ok(())
    }

    /// A request's format and options, the session's where it gives none.
    pub(crate) fn format_options(
        &self,
        format: Option<ToolFormat>,
        strict: Option<bool>,
    ) -> (ToolFormat, Options) {
        let settings = self.settings();
        let options = Options {
            strict: strict.unwrap_or(settings.strict),
        };
        (format.unwrap_or(settings.format), options)
    }

    /// Validates the arguments against the tool's own schema, starts the server if it is dormant,
    /// calls the tool, and checks the result's size; `options` carry the host's progress and
    /// bounds. A name not listed yet waits for the first start of the server that may have it.
    /// Counted in the metrics: a success's duration by server and tool, a failure by its code.
    pub(crate) async fn call_tool_with(
        self: &Arc<Self>,
        name: &str,
        arguments: Option<Value>,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        let outcome = self.call_listed(name, arguments, options).await;
        let metrics = crate::metrics::global();
        match &outcome {
            Ok(o) => metrics.call(&o.server, &o.tool, Ok(o.duration)),
            Err(e) => metrics.call("", "", Err(e.code.as_str())),
        }
        outcome
    }

    async fn call_listed(
        self: &Arc<Self>,
        name: &str,
        arguments: Option<Value>,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        let mut catalog = self.catalog();
        if catalog.get(name).is_none() {
            match awaiting::catalog_with(&self.roster, name).await {
                Waited::Found(updated) => catalog = updated,
                Waited::Failed(e) => return Err(e.with("name", name)),
                Waited::Nothing => {}
            }
        }
        let Some(entry) = catalog.get(name) else {
            return Err(
                call::withdrawn(&self.roster.all(), name).unwrap_or_else(|| {
                    Error::new(
                        ErrorCode::ToolNotFound,
                        format!("no tool named `{name}` ({} tools available)", catalog.len()),
                    )
                    .with("name", name)
                }),
            );
        };
        let arguments = call::arguments(name, entry, arguments)?;
        let server = self.roster.find(&entry.server)?;
        // A call's error carries the server's stderr tail and upstream messages: no secret value
        // of its config may leave with them.
        let outcome = call::call(
            &self.roster,
            &self.results,
            &server,
            entry,
            arguments,
            options,
        )
        .await
        .map_err(|e| server.mask_error(e).with("name", name));
        server
            .stats
            .record(outcome.as_ref().ok().map(|o| o.duration));
        outcome
    }

    /// Tells every running server that the host's roots changed
    /// (`notifications/roots/list_changed`); a server that cannot be written to is skipped.
    pub(crate) async fn roots_changed(&self) {
        let sessions: Vec<_> = self
            .roster
            .all()
            .iter()
            .filter_map(|s| s.slot().session.clone())
            .collect();
        for session in sessions {
            session.client.roots_list_changed().await;
        }
    }

    /// Part of a truncated result's full text: `length` bytes (at most, and by default,
    /// [`crate::limits::RESULT_READ_MAX_BYTES`]) from `offset`, both moved to char boundaries.
    pub(crate) fn read_result(
        &self,
        handle: &str,
        offset: usize,
        length: Option<usize>,
    ) -> Result<ReadOutcome> {
        self.results.read(handle, offset, length)
    }

    /// `tools/accept`: lets each held definition whose hash the host gives back into the tool set.
    pub(crate) fn accept(&self, items: &[Acceptance]) -> Value {
        accept::accept(&self.roster, items)
    }

    // ----- resources, prompts, completion, logs -----

    /// One host page of `resources/list` over every ready server (or `server` alone).
    pub(crate) async fn resources(
        &self,
        server: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Value> {
        listing::page(&self.roster, SurfaceList::Resources, server, cursor).await
    }

    /// One host page of `resources/templates/list`.
    pub(crate) async fn resource_templates(
        &self,
        server: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Value> {
        listing::page(&self.roster, SurfaceList::ResourceTemplates, server, cursor).await
    }

    /// One host page of `prompts/list`.
    pub(crate) async fn prompts(
        &self,
        server: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Value> {
        listing::page(&self.roster, SurfaceList::Prompts, server, cursor).await
    }

    /// `resources/read`: held to `maxResultBytes` like a tool result.
    pub(crate) async fn read_resource(&self, server: &str, uri: &str) -> Result<ResourceRead> {
        surface::read_resource(&self.roster, &self.results, server, uri).await
    }

    /// `resources/subscribe` (`on`) or `resources/unsubscribe`.
    pub(crate) async fn subscribe(&self, server: &str, uri: &str, on: bool) -> Result<()> {
        if on {
            surface::subscribe(&self.roster, server, uri).await
        } else {
            surface::unsubscribe(&self.roster, server, uri).await
        }
    }

    pub(crate) async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Result<PromptGot> {
        surface::get_prompt(&self.roster, server, name, arguments).await
    }

    pub(crate) async fn complete(&self, server: &str, params: &Value) -> Result<Value> {
        surface::complete(&self.roster, server, params).await
    }

    pub(crate) async fn set_log_level(
        &self,
        server: Option<&str>,
        level: LogLevel,
    ) -> Result<Value> {
        surface::set_log_level(&self.roster, server, level).await
    }
}

/// The OAuth of a remote server that uses it (see [`crate::config::RemoteSpec::uses_oauth`]).
fn oauth_of(name: &str, spec: &ServerSpec, settings: &Settings) -> Result<Option<Arc<ServerAuth>>> {
    let Some(remote) = spec.remote.as_ref().filter(|r| r.uses_oauth()) else {
        return Ok(None);
    };
    let auth = ServerAuth::new(
        name,
        remote.url.clone(),
        remote.oauth.clone(),
        Arc::clone(&settings.auth.store),
        settings
            .auth
            .interactive
            .then(|| Arc::clone(&settings.asker)),
    )
    .map_err(|e| Error::from(e).with("server", name))?;
    Ok(Some(Arc::new(auth)))
}
