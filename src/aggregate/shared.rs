//! The aggregate: one registry of servers, loaded once from the config files, that every client of
//! `mcp-sidecar mcp` shares (one over stdio, any number over HTTP). It owns what each client is
//! served from it: the tools as MCP tool objects (converted once per tool set), the servers'
//! instructions, the identity it answers with, and the changes every listening client is told of.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::{broadcast, watch, Notify};

use super::requests::asks::ClientAsks;
use super::requests::input::ParkedCalls;
use super::requests::listing::{Listed, Listings};
use super::requests::logs;
use super::requests::owners::Owners;
use crate::convert::{self, ToolFormat};
use crate::limits;
use crate::store::Catalog;
use crate::supervisor::{
    event_queue, ConfigFiles, ConfigRead as Read, Event, EventReceiver, LogLevel, Registry,
    ServerLog, ServerState, Settings,
};

/// A change a listening client is told of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Notice {
    ToolsChanged,
    ResourcesChanged,
    PromptsChanged,
    /// A subscribed resource changed (its original URI); each client subscribed to it is told.
    ResourceUpdated(Arc<str>),
}

/// The resource URIs some client is subscribed to, each with its server and how many clients:
/// the server is subscribed on the first, unsubscribed after the last.
#[derive(Default)]
pub(super) struct Subscribers(Mutex<HashMap<String, (String, usize)>>);

impl Subscribers {
    /// One more client on `uri` (of `server`); `true` when it is the first.
    pub(super) fn hold(&self, uri: &str, server: &str) -> bool {
        let mut map = self.lock();
        let entry = map
            .entry(uri.to_owned())
            .or_insert_with(|| (server.to_owned(), 0));
        entry.1 += 1;
        entry.1 == 1
    }

    /// One client fewer on `uri`; its server when it was the last.
    pub(super) fn release(&self, uri: &str) -> Option<String> {
        let mut map = self.lock();
        let entry = map.get_mut(uri)?;
        entry.1 = entry.1.saturating_sub(1);
        if entry.1 > 0 {
            return None;
        }
        map.remove(uri).map(|(server, _)| server)
    }

    /// The URIs held of `server` (a server's coalesced update may concern any of them).
    fn of_server(&self, server: &str) -> Vec<String> {
        self.lock()
            .iter()
            .filter(|(_, (owner, _))| owner == server)
            .map(|(uri, _)| uri.clone())
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, usize)>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A catalog and its tools as MCP tool objects.
type Converted = (Arc<Catalog>, Arc<Vec<Value>>);

pub(super) struct Aggregate {
    registry: Arc<Registry>,
    format: ToolFormat,
    notices: broadcast::Sender<Notice>,
    /// The servers' log messages, for every client that takes them (each filters them by the level
    /// it asked for, `logs`); apart from `notices`, so that a flood of logs never costs a change.
    logs: broadcast::Sender<Arc<ServerLog>>,
    /// `true` once the config files are read and each of their servers registered (starting).
    registered: watch::Sender<bool>,
    /// `true` once the config files' servers are each ready or failed.
    settled: watch::Sender<bool>,
    /// Pinged on every server state change (while loading, to see when none is starting).
    changed: Arc<Notify>,
    /// Lists wait for [`Aggregate::settled`] (`--wait-for-servers`); otherwise they answer with the
    /// servers ready and each later one is announced (`list_changed`).
    wait_for_servers: bool,
    /// The catalog last converted, and its tools as MCP tool objects.
    listing: Mutex<Option<Converted>>,
    /// `tools/list`'s listings as text, per rule set, of the catalog last listed.
    listings: Listings,
    server_info: Value,
    /// Who answers the servers' questions (each client, in turn).
    asks: Arc<ClientAsks>,
    /// 2026-07-28 calls waiting for their clients' answers.
    parked: ParkedCalls,
    /// `tools/list`'s page size (`--page-size`); `None`: one page.
    page_size: Option<usize>,
    /// The level the servers were asked to log at: the most verbose any client asked for. Held
    /// across the servers' `logging/setLevel`, so that concurrent asks end at the lowest.
    servers_log_level: tokio::sync::Mutex<Option<LogLevel>>,
    /// Who owns each resource URI and prompt name listed.
    owners: Owners,
    /// The resources clients are subscribed to.
    subscribers: Arc<Subscribers>,
}

impl Aggregate {
    /// A new aggregate with no server yet (see [`Aggregate::load`]); must run inside the runtime.
    /// Its servers' questions are asked of its clients (`settings.asker` is replaced).
    pub(super) fn new(
        mut settings: Settings,
        wait_for_servers: bool,
        page_size: Option<usize>,
    ) -> Arc<Aggregate> {
        let format = settings.format;
        let asks = Arc::new(ClientAsks::default());
        settings.asker = Arc::clone(&asks) as Arc<dyn crate::ask::Asker>;
        let (events_tx, events_rx) = event_queue();
        let (notices, _) = broadcast::channel(limits::AGGREGATE_NOTICES_QUEUE);
        let (logs, _) = broadcast::channel(limits::AGGREGATE_LOGS_QUEUE);
        let aggregate = Arc::new(Aggregate {
            registry: Registry::new(settings, events_tx),
            format,
            notices: notices.clone(),
            logs: logs.clone(),
            registered: watch::Sender::new(false),
            settled: watch::Sender::new(false),
            changed: Arc::new(Notify::new()),
            wait_for_servers,
            listing: Mutex::new(None),
            listings: Listings::default(),
            server_info: json!({"name": "mcp-sidecar", "version": env!("CARGO_PKG_VERSION")}),
            asks,
            parked: ParkedCalls::default(),
            page_size,
            servers_log_level: tokio::sync::Mutex::new(None),
            owners: Owners::default(),
            subscribers: Arc::default(),
        });
        let quiet_until_settled = wait_for_servers.then(|| aggregate.settled.subscribe());
        let changed = Arc::clone(&aggregate.changed);
        let to = Forwarded {
            notices,
            logs,
            subscribers: Arc::clone(&aggregate.subscribers),
        };
        tokio::spawn(forward(events_rx, to, quiet_until_settled, changed));
        aggregate
    }

    pub(super) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Adds every server of the config files, all at once, and waits until each is ready or has
    /// failed (see [`Aggregate::settled`]).
    pub(super) async fn load(&self, files: &ConfigFiles, read: Read) {
        files.add(&self.registry, read, false).await;
        self.registered.send_replace(true);
        loop {
            // Enabled before the look, so a change between the two is not missed.
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let starting = self
                .registry
                .list()
                .iter()
                .any(|s| s.state == ServerState::Starting);
            if !starting {
                break;
            }
            changed.await;
        }
        self.settled.send_replace(true);
        let servers = self.registry.list();
        let ready = servers
            .iter()
            .filter(|s| s.state == ServerState::Ready)
            .count();
        let tools = self.registry.catalog().len();
        tracing::info!(
            servers = servers.len(),
            ready,
            tools,
            "the aggregate is loaded"
        );
    }

    /// The servers themselves changed (a config reload): every client re-lists resources and
    /// prompts (tools are announced by the catalog's own change).
    pub(super) fn surface_changed(&self) {
        // An error only means nobody listens right now.
        let _ = self.notices.send(Notice::ResourcesChanged);
        let _ = self.notices.send(Notice::PromptsChanged);
    }

    /// Returns once the config files' servers have each started or failed. Bounded: every start
    /// is bounded by its server's `startupTimeoutSeconds`.
    pub(super) async fn settled(&self) {
        let mut settled = self.settled.subscribe();
        // An error: the sender is gone with the aggregate, nothing is left to wait for.
        let _ = settled.wait_for(|done| *done).await;
    }

    /// Returns once the config files are read and their servers registered (each starting, ready,
    /// failed or dormant): from then on a call to any of their tools finds its server.
    pub(super) async fn registered(&self) {
        let mut registered = self.registered.subscribe();
        let _ = registered.wait_for(|done| *done).await;
    }

    /// Whether the config files are read and their servers registered (see
    /// [`Aggregate::registered`]), without waiting.
    pub(super) fn is_registered(&self) -> bool {
        *self.registered.borrow()
    }

    /// Before a list: with `--wait-for-servers`, until every server started or failed, so that a
    /// client that ignores `list_changed` still sees every tool; else for the first moments of
    /// the load only ([`limits::AGGREGATE_INITIALIZE_WAIT`]), so a client that lists at once (a
    /// 2026-07-28 client has no `initialize` to wait in) still sees the servers quick to start,
    /// and the slow ones are announced as they become ready.
    pub(super) async fn before_listing(&self) {
        if self.wait_for_servers {
            self.settled().await;
        } else {
            self.registered().await;
            self.settled_within(limits::AGGREGATE_INITIALIZE_WAIT).await;
        }
    }

    /// [`Aggregate::settled`], but for at most `wait`.
    pub(super) async fn settled_within(&self, wait: std::time::Duration) {
        let _ = tokio::time::timeout(wait, self.settled()).await;
    }

    /// Every exposed tool as an MCP tool object, converted once per tool set.
    pub(super) fn tools(&self) -> Arc<Vec<Value>> {
        self.converted().1
    }

    /// The tools `rules` allow (`None`: all), as `tools/list` serves them: text built once per
    /// tool set and rule set (`listing`).
    pub(super) fn listing(&self, rules: Option<&super::access::Rules>) -> Arc<Listed> {
        let (catalog, tools) = self.converted();
        self.listings.get(&catalog, &tools, rules)
    }

    /// The current catalog and its tools as MCP tool objects, converted once per tool set.
    fn converted(&self) -> Converted {
        let catalog = self.registry.catalog();
        let mut listing = self.listing.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, tools)) = listing.as_ref() {
            if Arc::ptr_eq(seen, &catalog) {
                return (catalog, Arc::clone(tools));
            }
        }
        let options = self.registry.settings().options();
        let tools: Arc<Vec<Value>> = Arc::new(
            catalog
                .entries()
                .map(|e| convert::mcp_tool(self.format, options, &e.name, &e.tool.raw).definition)
                .collect(),
        );
        *listing = Some((Arc::clone(&catalog), Arc::clone(&tools)));
        (catalog, tools)
    }

    /// Each server's `instructions` under a heading with its name, cut to
    /// [`limits::AGGREGATE_INSTRUCTIONS_MAX_BYTES`]; `None` when no server gave any.
    pub(super) fn instructions(&self) -> Option<String> {
        let mut text = String::new();
        for status in self.registry.list() {
            if let Some(theirs) = status
                .instructions
                .as_deref()
                .filter(|t| !t.trim().is_empty())
            {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(&format!("## {}\n{}", status.name, theirs.trim()));
            }
        }
        if text.len() > limits::AGGREGATE_INSTRUCTIONS_MAX_BYTES {
            let mut end = limits::AGGREGATE_INSTRUCTIONS_MAX_BYTES;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
        }
        (!text.is_empty()).then_some(text)
    }

    /// `tools/list`'s page size; `None`: one page.
    pub(super) fn page_size(&self) -> Option<usize> {
        self.page_size
    }

    /// Who answers the servers' questions.
    pub(super) fn asks(&self) -> &Arc<ClientAsks> {
        &self.asks
    }

    /// The 2026-07-28 calls waiting for their clients' answers.
    pub(super) fn parked(&self) -> &ParkedCalls {
        &self.parked
    }

    /// `{name, version}` of the sidecar, as `initialize` and every modern result name it.
    pub(super) fn server_info(&self) -> &Value {
        &self.server_info
    }

    /// A client wants the servers' logs at `level` or above: unless the servers already log at it
    /// or a more verbose one, every server is asked to (`logging/setLevel`, and each server that
    /// starts later). Never raised again: another client may want the more verbose ones, and
    /// each client filters for itself (`logs`).
    pub(super) async fn want_logs(&self, level: LogLevel) {
        let mut asked = self.servers_log_level.lock().await;
        if asked.is_some_and(|current| current <= level) {
            return;
        }
        *asked = Some(level);
        match self.registry.set_log_level(None, level).await {
            Ok(outcome) => {
                tracing::debug!(level = level.as_str(), %outcome, "asked the servers to log")
            }
            Err(e) => tracing::warn!(
                level = level.as_str(),
                "asking the servers to log failed: {}",
                e.message
            ),
        }
    }

    /// Who owns each resource URI and prompt name listed.
    pub(super) fn owners(&self) -> &Owners {
        &self.owners
    }

    /// The resources clients are subscribed to.
    pub(super) fn subscribers(&self) -> &Subscribers {
        &self.subscribers
    }

    /// The same, to keep past a request.
    pub(super) fn subscribers_arc(&self) -> Arc<Subscribers> {
        Arc::clone(&self.subscribers)
    }

    /// The changes from now on.
    pub(super) fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.notices.subscribe()
    }

    /// The servers' log messages from now on.
    pub(super) fn subscribe_logs(&self) -> broadcast::Receiver<Arc<ServerLog>> {
        self.logs.subscribe()
    }

    /// Stops every server; returns once every process tree is gone.
    pub(super) async fn shutdown(&self) {
        self.registry.shutdown().await;
    }
}

/// Where registry events go.
struct Forwarded {
    notices: broadcast::Sender<Notice>,
    logs: broadcast::Sender<Arc<ServerLog>>,
    subscribers: Arc<Subscribers>,
}

/// Registry events → notices and logs: a change of the exposed tools is one `ToolsChanged` — each server
/// that becomes ready is one — except, with `--wait-for-servers`, before the config's servers are
/// loaded (every list waits for them then, and sees them all); a server's log message goes to the
/// logs (the registry passes on only those at or above the level the servers were asked for).
async fn forward(
    mut events: EventReceiver,
    to: Forwarded,
    quiet_until_settled: Option<watch::Receiver<bool>>,
    changed: Arc<Notify>,
) {
    while let Some(event) = events.recv().await {
        match event {
            Event::ServerChanged(_) => changed.notify_waiters(),
            Event::ToolsChanged { .. } => {
                if quiet_until_settled.as_ref().is_some_and(|s| !*s.borrow()) {
                    continue;
                }
                // An error only means nobody listens right now.
                let _ = to.notices.send(Notice::ToolsChanged);
            }
            Event::ResourcesChanged { .. } => {
                let _ = to.notices.send(Notice::ResourcesChanged);
            }
            Event::PromptsChanged { .. } => {
                let _ = to.notices.send(Notice::PromptsChanged);
            }
            Event::ResourceUpdated { uri: Some(uri), .. } => {
                let _ = to.notices.send(Notice::ResourceUpdated(uri.into()));
            }
            // Coalesced: any resource of the server subscribed to may have changed.
            Event::ResourceUpdated { server, uri: None } => {
                for uri in to.subscribers.of_server(&server) {
                    let _ = to.notices.send(Notice::ResourceUpdated(uri.into()));
                }
            }
            Event::ServerLog(log) => {
                let _ = to.logs.send(Arc::new(*log));
            }
            Event::LogsDropped { server, count } => {
                let _ = to.logs.send(Arc::new(logs::dropped(&server, count)));
            }
            Event::Barrier(ack) => {
                let _ = ack.send(());
            }
        }
    }
}
