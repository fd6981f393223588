//! The roster: the table of registered servers, the catalog built from their exposed tools, the
//! events that announce a change of either, and the shutdown flag. The registry (the host-facing
//! API) and the per-server lifecycle both work through it; it knows neither of them.
//!
//! Lock order: `servers` (the map) before any server's `slot`; `rebuild` is taken with neither held.
//! No lock is held across an `.await`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use super::events::{Event, EventSender, ToolsChange, Withheld};
use super::server::Server;
use super::settings::Settings;
use crate::error::{Error, ErrorCode, Result};
use crate::mcp::{CacheHints, LogLevel};
use crate::names::ServerName;
use crate::store::{Catalog, ServerInfo, ServerTools};

pub(super) struct Roster {
    pub settings: Settings,
    servers: Mutex<BTreeMap<ServerName, Arc<Server>>>,
    catalog: RwLock<Arc<Catalog>>,
    /// Serialises catalog rebuilds so that `ToolsChanged` events describe consecutive snapshots.
    rebuild: Mutex<()>,
    /// Coalesced (`events`): a storm of changes while the host is not reading stays bounded.
    events: EventSender,
    /// Set by `shutdown`: nothing starts any more.
    shutting_down: AtomicBool,
    /// Set once any server listed its tools with a positive `ttlMs`: until then a host's read of
    /// the tools costs one load of this flag, not a walk over the servers.
    lists_expire: AtomicBool,
    /// The session's server log level (`initialize {serverLogs}`, `logging/setLevel` without a
    /// server); a server's own level takes precedence.
    log_level: Mutex<Option<LogLevel>>,
}

impl Roster {
    pub(super) fn new(settings: Settings, events: EventSender) -> Self {
        Self {
            log_level: Mutex::new(settings.server_logs),
            settings,
            servers: Mutex::new(BTreeMap::new()),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            rebuild: Mutex::new(()),
            events,
            shutting_down: AtomicBool::new(false),
            lists_expire: AtomicBool::new(false),
        }
    }

    // ----- the table -----

    /// The table, locked. Take it before any server's slot, and never across an `.await`.
    pub(super) fn servers(&self) -> MutexGuard<'_, BTreeMap<ServerName, Arc<Server>>> {
        self.servers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every registered server, in name order, with the table unlocked again.
    pub(super) fn all(&self) -> Vec<Arc<Server>> {
        self.servers().values().cloned().collect()
    }

    /// Server `name`, or SERVER_NOT_FOUND.
    pub(super) fn find(&self, name: &str) -> Result<Arc<Server>> {
        self.server(name).ok_or_else(|| not_found(name))
    }

    /// Server `name`, if registered.
    pub(super) fn server(&self, name: &str) -> Option<Arc<Server>> {
        self.servers().get(name).cloned()
    }

    /// Whether `server` is still the one registered under its name.
    pub(super) fn is_registered(&self, server: &Arc<Server>) -> bool {
        self.servers()
            .get(server.name.as_str())
            .is_some_and(|s| Arc::ptr_eq(s, server))
    }

    // ----- shutdown -----

    pub(super) fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }

    /// Raises the shutdown flag and empties the table; returns the servers that were in it.
    pub(super) fn close(&self) -> Vec<Arc<Server>> {
        self.shutting_down.store(true, Ordering::SeqCst);
        std::mem::take(&mut *self.servers()).into_values().collect()
    }

    // ----- catalog and events -----

    pub(super) fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.catalog.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// After a transition: the catalog follows the exposed tools; the host hears of the new state.
    pub(super) fn transitioned(&self, server: &Server) {
        self.rebuild_catalog();
        self.emit_status(server);
    }

    /// Rebuilds the catalog from every server's exposed tools and tells the host if the tool set
    /// changed. Call with no lock held.
    pub(super) fn rebuild_catalog(&self) {
        let _serial = self.rebuild.lock().unwrap_or_else(|p| p.into_inner());
        let servers = self.all();
        let exposed: Vec<ServerTools> = servers
            .iter()
            .filter_map(|s| {
                let slot = s.slot();
                let tools = slot.exposed_tools()?;
                Some(ServerTools {
                    name: s.name.clone(),
                    tools,
                    info: ServerInfo {
                        defer: s.extras.defer,
                        // Those of its last handshake: kept while it is stopped.
                        instructions: slot.instructions.clone(),
                        withheld: s.withheld(&slot),
                    },
                })
            })
            .collect();
        // Tools that did not change keep their renderings from the current catalog.
        let next = Arc::new(Catalog::build(
            &self.settings.names,
            self.settings.defer,
            &exposed,
            Some(&self.catalog()),
        ));
        for server in &exposed {
            if let Some(s) = servers.iter().find(|s| s.name == server.name) {
                s.slot().last_names = next
                    .names_of(server.name.as_str())
                    .map(str::to_owned)
                    .collect();
            }
        }
        let (changed, withheld) = definition_news(&servers, &next);
        let previous = {
            let mut current = self.catalog.write().unwrap_or_else(|p| p.into_inner());
            std::mem::replace(&mut *current, Arc::clone(&next))
        };
        self.announce_tools(&previous, &next, changed, withheld);
    }

    /// `ToolsChanged`, when the default listing's fingerprint moved from `previous` to `next`, or
    /// a definition changed (even one the converted definitions do not show, such as an
    /// annotation), or a tool was newly held by `pinTools`.
    fn announce_tools(
        &self,
        previous: &Catalog,
        next: &Catalog,
        changed: Vec<String>,
        withheld: Vec<Withheld>,
    ) {
        let (format, options) = (self.settings.format, self.settings.options());
        let old_fingerprint = previous.fingerprint(format, options);
        let fingerprint = next.fingerprint(format, options);
        if fingerprint == old_fingerprint && changed.is_empty() && withheld.is_empty() {
            return;
        }
        let before: BTreeSet<&str> = previous.names().collect();
        let after: BTreeSet<&str> = next.names().collect();
        self.events.send(Event::ToolsChanged(Box::new(ToolsChange {
            fingerprint,
            added: after.difference(&before).map(|s| s.to_string()).collect(),
            removed: before.difference(&after).map(|s| s.to_string()).collect(),
            changed,
            withheld,
        })));
    }

    // ----- list freshness (2026-07-28 `ttlMs`) -----

    /// A server listed its tools with these hints.
    pub(super) fn note_list_ttl(&self, hints: CacheHints) {
        if !hints.ttl.is_zero() {
            self.lists_expire.store(true, Ordering::Relaxed);
        }
    }

    /// The host is reading the tools: every ready server whose list is past its positive `ttlMs`
    /// is re-listed in the background (the host is answered from the cached lists meanwhile).
    pub(super) fn relist_expired(&self) {
        if !self.lists_expire.load(Ordering::Relaxed) {
            return;
        }
        let now = std::time::Instant::now();
        for server in self.all() {
            let session = server.slot().session.clone();
            if let Some(session) = session {
                session.claim_relist(now);
            }
        }
    }

    /// Queues an event about a server (a list change, a resource update, a log message).
    pub(super) fn send(&self, event: Event) {
        self.events.send(event);
    }

    /// The log level of `server`: its own, else the session's; `None`: its logs stay here.
    pub(super) fn log_level(&self, server: &Server) -> Option<LogLevel> {
        server.slot().log_level.or(*self.session_log_level())
    }

    /// The session's log level, locked (never across an `.await`).
    pub(super) fn session_log_level(&self) -> MutexGuard<'_, Option<LogLevel>> {
        self.log_level.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Tells the host the server's new status and wakes callers waiting on its state.
    pub(super) fn emit_status(&self, server: &Server) {
        server.bump();
        self.events
            .send(Event::ServerChanged(Box::new(server.status())));
    }
}

/// What the servers' pin ledgers learnt since the last rebuild: the exposed names (in `next`) of
/// tools whose definition changed, sorted, and the tools newly held by `pinTools`.
fn definition_news(servers: &[Arc<Server>], next: &Catalog) -> (Vec<String>, Vec<Withheld>) {
    let mut changed = BTreeSet::new();
    let mut withheld = Vec::new();
    for server in servers {
        let news = server.slot().pins.take_news();
        changed.extend(
            next.entries_of(server.name.as_str())
                .filter(|e| news.changed.contains(&e.tool.name))
                .map(|e| e.name.clone()),
        );
        withheld.extend(news.held.into_iter().map(|(tool, hash)| Withheld {
            server: server.name.clone(),
            tool,
            hash,
        }));
    }
    (changed.into_iter().collect(), withheld)
}

/// SERVER_NOT_FOUND for `name`.
pub(super) fn not_found(name: &str) -> Error {
    Error::new(
        ErrorCode::ServerNotFound,
        format!("no server named `{name}`"),
    )
    .with("server", name)
}

/// SHUTTING_DOWN: the answer to anything that would start a server after `shutdown`.
pub(super) fn shutting_down() -> Error {
    Error::new(ErrorCode::ShuttingDown, "the sidecar is shutting down")
}
