//! One configured server: its spec, its slot (state, generation, current process and session,
//! failure history, and what outlives a generation: tool pins, resource subscriptions, its log
//! level, its instructions), its call statistics, and its status snapshot.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use tokio::sync::{watch, Semaphore};

use super::overload::CallCount;
use super::pins::Pins;
use super::restart::{self, RestartTracker};
use super::session::{ProcessControl, SandboxReport, Session};
use super::stats::CallStats;
use super::status::{ServerState, ServerStats, ServerStatus};
use super::timings::StartTimings;
use crate::config::{Extras, ServerSpec, Source};
use crate::error::{Error, ErrorCode};
use crate::mcp::{LogLevel, ToolDef, Traffic};
use crate::names::ServerName;
use crate::oauth::ServerAuth;
use crate::process::{ExitInfo, StderrTail};
use crate::time::rfc3339;

use super::timings::millis;
use crate::trust::secrets::{Secrets, MIN_RESULT_MASKED_LEN};

pub(super) struct Server {
    pub name: ServerName,
    pub spec: ServerSpec,
    /// How the server arrived (shown in status; never read from its config).
    pub source: Source,
    /// Tools policy and secret marks.
    pub extras: Extras,
    /// Secret values of its env and headers, masked in everything the host sees.
    pub secrets: Secrets,
    /// The secrets masked in its tool results (those of 8 bytes or more); `None` when there is none
    /// or the config opted out (`maskSecretsInResults: false`), so the result path skips at once.
    result_secrets: Option<Secrets>,
    /// Schema-cache key, for lazy servers (`autoStart: false`).
    pub cache_key: Option<String>,
    pub stats: CallStats,
    /// Bytes of every message exchanged with the server, over every generation.
    pub traffic: Arc<Traffic>,
    /// Calls in flight, for `maxInflight`.
    pub calls: CallCount,
    /// OAuth of a remote server (not of one whose config sends its own `Authorization`).
    pub auth: Option<Arc<ServerAuth>>,
    /// The OAuth tokens as a mask, rebuilt when they change.
    token_mask: Mutex<(Vec<String>, Option<Secrets>)>,
    /// `resourcesAsTools` (the config's, else the session's): its resources as two tools.
    pub resources_as_tools: bool,
    /// `supportsParallel: false`: the fair queue (one permit) its calls take turns in.
    pub serial: Option<Semaphore>,
    slot: Mutex<Slot>,
    /// Bumped after every state change; a call waiting for a start in progress watches it.
    changed: watch::Sender<u64>,
}

pub(super) struct Slot {
    pub generation: u64,
    pub state: ServerState,
    pub process: Option<Arc<ProcessControl>>,
    pub session: Option<Arc<Session>>,
    pub stderr: Arc<StderrTail>,
    pub started_at: Option<SystemTime>,
    /// Where the time of the last start (finished or failed) went.
    pub startup: Option<StartTimings>,
    pub last_exit: Option<ExitInfo>,
    pub last_error: Option<Error>,
    /// Tools exposed while no session serves them (`stopped` or `starting` on demand): from the
    /// schema cache, or the last session before an idle stop or a restart by the host.
    pub dormant_tools: Option<Arc<Vec<ToolDef>>>,
    pub restart: RestartTracker,
    pub restarts: u64,
    pub next_restart_at: Option<SystemTime>,
    /// The exposed names this server had when it last had tools, to answer a call to a withdrawn
    /// name with SERVER_UNAVAILABLE rather than TOOL_NOT_FOUND.
    pub last_names: Vec<String>,
    /// The definitions its tools were listed with: changes, and the pins of `pinTools`.
    pub pins: Pins,
    /// Resource URIs the host subscribed to; subscribed again after every restart.
    pub subscriptions: BTreeSet<String>,
    /// Its own `logging/setLevel`; `None`: the session's level.
    pub log_level: Option<LogLevel>,
    /// `instructions` of its last handshake, kept while it is stopped.
    pub instructions: Option<String>,
    /// The sandbox of its last spawn (its level; what it saw of the tree's end).
    pub sandbox: Option<Arc<SandboxReport>>,
}

impl Slot {
    /// The tools the server serves right now, held ones included: those of a ready session, or
    /// those kept while it is stopped or starting.
    pub(super) fn served_tools(&self) -> Option<Arc<Vec<ToolDef>>> {
        match (self.state, &self.session) {
            (ServerState::Ready, Some(session)) => Some(session.tools()),
            (ServerState::Stopped | ServerState::Starting, _) => self.dormant_tools.clone(),
            _ => None,
        }
    }

    /// The tools this server contributes to the catalog right now: those it serves, minus those
    /// held by `pinTools` until the host accepts them.
    pub(super) fn exposed_tools(&self) -> Option<Arc<Vec<ToolDef>>> {
        let served = self.served_tools()?;
        if !served.iter().any(|t| self.pins.holds(t)) {
            return Some(served);
        }
        Some(Arc::new(
            served
                .iter()
                .filter(|t| !self.pins.holds(t))
                .cloned()
                .collect(),
        ))
    }

    /// The tools held out of the catalog by `pinTools`.
    pub(super) fn held_tools(&self) -> Vec<ToolDef> {
        self.served_tools()
            .map(|served| {
                served
                    .iter()
                    .filter(|t| self.pins.holds(t))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Takes the current session and process out of the slot (the caller stops them) and ends the
    /// session's generation for its watchers.
    pub(super) fn take_running(&mut self) -> (Option<Arc<Session>>, Option<Arc<ProcessControl>>) {
        let session = self.session.take();
        if let Some(s) = &session {
            s.ended.cancel();
        }
        if self.process.is_some() {
            // `lastExit` describes the process being taken down only once it has been reaped.
            self.last_exit = None;
        }
        (session, self.process.take())
    }
}

/// What the model is shown of a server beyond its tools, from its config or else the session.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Exposure {
    pub resources_as_tools: bool,
    pub pin_tools: bool,
}

impl Server {
    pub(super) fn new(
        name: &str,
        spec: ServerSpec,
        cache_key: Option<String>,
        source: Source,
        (extras, exposure): (Extras, Exposure),
        secrets: Secrets,
        auth: Option<Arc<ServerAuth>>,
    ) -> Self {
        let tracker = RestartTracker::new(spec.restart_backoff, restart::seed(name));
        let serial = (!extras.supports_parallel).then(|| Semaphore::new(1));
        let result_secrets = extras
            .mask_secrets_in_results
            .then(|| secrets.at_least(MIN_RESULT_MASKED_LEN))
            .filter(|s| !s.is_empty());
        Self {
            name: ServerName::from(name),
            spec,
            source,
            extras,
            secrets,
            result_secrets,
            cache_key,
            stats: CallStats::default(),
            traffic: Arc::default(),
            calls: CallCount::default(),
            auth,
            token_mask: Mutex::default(),
            resources_as_tools: exposure.resources_as_tools,
            serial,
            slot: Mutex::new(Slot {
                generation: 0,
                state: ServerState::Stopped,
                process: None,
                session: None,
                stderr: Arc::new(StderrTail::default()),
                started_at: None,
                startup: None,
                last_exit: None,
                last_error: None,
                dormant_tools: None,
                restart: tracker,
                restarts: 0,
                next_restart_at: None,
                last_names: Vec::new(),
                pins: Pins::new(exposure.pin_tools),
                subscriptions: BTreeSet::new(),
                log_level: None,
                instructions: None,
                sandbox: None,
            }),
            changed: watch::channel(0).0,
        }
    }

    pub(super) fn slot(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wakes everyone waiting for a state change.
    pub(super) fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    pub(super) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// SERVER_UNAVAILABLE for a call that cannot run now, naming the state, the last error, the next
    /// restart and the stderr tail; AUTH_REQUIRED for a server that waits for a login.
    pub(super) fn unavailable(&self, slot: &Slot) -> Error {
        if slot.state == ServerState::NeedsLogin {
            let why = slot
                .last_error
                .as_ref()
                .map(|e| format!(": {}", e.message))
                .unwrap_or_default();
            let mut e = Error::new(
                ErrorCode::AuthRequired,
                format!(
                    "server `{}` needs a login (state needs_login; servers/login or `mcp-sidecar login {}`){why}",
                    self.name, self.name
                ),
            )
            .with("server", self.name.as_str())
            .with("state", "needs_login");
            if let Some(url) = self.auth.as_ref().and_then(|a| a.pending_url()) {
                e = e.with("authorizationUrl", url);
            }
            return self.mask_error(e);
        }
        let state = serde_json::to_value(slot.state)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let mut why = format!("server `{}` is unavailable (state {state}", self.name);
        if let Some(at) = slot.next_restart_at {
            let wait = at.duration_since(SystemTime::now()).unwrap_or_default();
            why.push_str(&format!(", restarting in {:.1} s", wait.as_secs_f64()));
        } else if slot.state == ServerState::Error {
            why.push_str(", call servers/restart to start it again");
        }
        why.push(')');
        if let Some(e) = &slot.last_error {
            why.push_str(": ");
            why.push_str(&e.message);
        }
        let mut e = Error::new(ErrorCode::ServerUnavailable, why)
            .with("server", self.name.as_str())
            .with("state", state);
        if let Some(exit) = slot.last_exit {
            e = e.with("exit", exit.to_json());
        }
        self.mask_error(e.with_stderr_tail(&slot.stderr.text()))
    }

    /// The tools held by `pinTools`, as `tools/list` lists them: `{server, tool, hash,
    /// acceptedHash, definition}` (the definition as the server lists it, secrets masked), sorted
    /// by tool.
    pub(super) fn withheld(&self, slot: &Slot) -> Vec<serde_json::Value> {
        let mut held = slot.held_tools();
        held.sort_by(|a, b| a.name.cmp(&b.name));
        held.into_iter()
            .map(|tool| {
                let mut definition = tool.raw.clone();
                self.mask_result(&mut definition);
                serde_json::json!({
                    "server": self.name,
                    "tool": tool.name,
                    "hash": tool.hash,
                    "acceptedHash": slot.pins.accepted(tool.name.as_str()),
                    "definition": definition,
                })
            })
            .collect()
    }

    /// A tool result on its way to the host (and a model provider): its secret values masked,
    /// unless there is none or the config opted out — then this is one check (two with OAuth).
    pub(super) fn mask_result(&self, result: &mut serde_json::Value) {
        if let Some(secrets) = &self.result_secrets {
            secrets.mask_json(result);
        }
        if self.extras.mask_secrets_in_results {
            if let Some(tokens) = self.token_secrets() {
                tokens.mask_json(result);
            }
        }
    }

    /// `e` with every secret of the server masked: its config's and its OAuth tokens.
    pub(super) fn mask_error(&self, e: Error) -> Error {
        let e = self.secrets.mask_error(e);
        match self.token_secrets() {
            Some(tokens) => tokens.mask_error(e),
            None => e,
        }
    }

    /// The server's OAuth tokens as a mask, when it has any.
    fn token_secrets(&self) -> Option<Secrets> {
        let values = self.auth.as_ref()?.secret_values();
        let mut cached = self.token_mask.lock().unwrap_or_else(|p| p.into_inner());
        if cached.0 != values {
            let mask = (!values.is_empty()).then(|| Secrets::from_values(values.iter().cloned()));
            *cached = (values, mask);
        }
        cached.1.clone()
    }

    pub(super) fn status(&self) -> ServerStatus {
        let slot = self.slot();
        let session = slot.session.as_ref();
        let handshake = session.map(|s| s.client.handshake());
        let stats = self.stats.snapshot();
        let mut last_error = slot.last_error.as_ref().map(Error::to_rpc_error);
        if let Some(e) = &mut last_error {
            self.secrets.mask_json(e);
            if let Some(tokens) = self.token_secrets() {
                tokens.mask_json(e);
            }
        }
        ServerStatus {
            name: self.name.to_string(),
            prefix: crate::convert::server_prefix(self.name.as_str()).into_owned(),
            source: self.source,
            state: slot.state,
            generation: slot.generation,
            command: self.secrets.mask(&self.spec.display_command()),
            transport: self
                .spec
                .remote
                .as_ref()
                .map_or("stdio", |r| r.kind.as_str()),
            url: self
                .spec
                .remote
                .as_ref()
                .map(|r| self.secrets.mask(r.url.as_str())),
            headers: self
                .spec
                .remote
                .as_ref()
                .map(|r| r.headers.iter().map(|h| h.name.clone()).collect()),
            pid: slot.process.as_ref().map(|p| p.pid),
            protocol_version: handshake.map(|h| h.protocol_version.clone()),
            era: handshake.map(|h| h.era.as_str()),
            server_info: handshake.map(|h| h.server_info.clone()),
            instructions: handshake.and_then(|h| h.instructions.clone()),
            capabilities: handshake.map(|h| h.capabilities.clone()),
            tools_count: slot.exposed_tools().map_or(0, |t| t.len()),
            started_at: slot.started_at.map(rfc3339),
            last_exit: slot.last_exit.map(ExitInfo::to_json),
            last_error,
            stderr_tail: self.secrets.mask_excerpt(&slot.stderr.text()),
            restarts: slot.restarts,
            next_restart_at: slot.next_restart_at.map(rfc3339),
            calls: stats.calls,
            errors: stats.errors,
            p50_latency_ms: stats.p50_ms,
            authorization_url: self.auth.as_ref().and_then(|a| a.pending_url()),
            // The last spawn's level; before any, what this host would enforce.
            sandbox: self.spec.sandbox.as_ref().map(|policy| {
                let level = match &slot.sandbox {
                    Some(report) => report.level.to_json(),
                    None => crate::sandbox::probe(policy).to_json(),
                };
                let mut level = level;
                self.secrets.mask_json(&mut level);
                level
            }),
        }
    }

    /// The server's entry of `servers/stats`.
    pub(super) fn stats(&self) -> ServerStats {
        let (total, recent) = self.stats.windows();
        let (bytes_in, bytes_out) = self.traffic.totals();
        let slot = self.slot();
        let uptime = match (slot.state, &slot.session) {
            (ServerState::Ready, Some(session)) => Some(millis(session.started.elapsed())),
            _ => None,
        };
        ServerStats {
            name: self.name.to_string(),
            state: slot.state,
            generation: slot.generation,
            started_at: slot.started_at.map(rfc3339),
            uptime_ms: uptime,
            restarts: slot.restarts,
            bytes_in,
            bytes_out,
            startup: slot.startup.map(|t| t.to_json()),
            total,
            recent,
        }
    }
}
