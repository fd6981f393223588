//! The servers of a set of config files kept in force: every file read at once (the first
//! definition of a name wins), the servers added, and on a reload (an edit seen, SIGHUP) the files
//! read again and compared entry by entry with what is running — a server whose entry is unchanged
//! is not touched, a changed one is stopped (its whole tree) and added again (so admission and the
//! trust gate see it afresh), a removed one is stopped, a new one is added. The registry's catalog
//! follows, and with it the clients' `list_changed`.
//!
//! A reload that cannot read a file as a whole (unreadable, not JSON, no dialect) changes nothing
//! and says why; an entry that is now invalid leaves its server running as it was.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

use serde_json::Value;
use tokio::sync::Notify;

use super::registry::Registry;
use super::settings::AddOptions;
use crate::config::diagnostics::Diagnostic;
use crate::config::dialects::Candidate;
use crate::config::expand::process_env;
use crate::config::load::{load, Loaded, Request};
use crate::config::{Dialect, Source};
use crate::error::ErrorCode;
use crate::limits;

/// One server's entry as its file gives it: what a reload compares.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    config: Value,
    source: Source,
    plugin_root: Option<PathBuf>,
}

impl Entry {
    fn of(c: &Candidate) -> Entry {
        Entry {
            config: c.config.clone(),
            source: c.source,
            plugin_root: c.plugin_root.clone(),
        }
    }
}

/// Every file of the set as read once: the servers (first definition of a name), and the problems.
pub(crate) struct Read {
    /// The files, as given.
    files: Vec<String>,
    servers: Vec<Candidate>,
    diagnostics: Vec<Diagnostic>,
}

impl Read {
    /// Why there is nothing to serve, in one line naming the file and the cause; `None` when some
    /// server is defined.
    pub(crate) fn nothing_to_serve(&self) -> Option<String> {
        if !self.servers.is_empty() {
            return None;
        }
        Some(match self.diagnostics.iter().find(|d| d.is_error()) {
            Some(d) => describe(d),
            None => format!("{} defines no server", self.files.join(", ")),
        })
    }

    /// Errors that concern a whole file (not one server's entry): a reload stops at them.
    fn file_errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.is_error() && d.server.is_none())
    }

    /// Servers whose entry was rejected.
    fn rejected(&self) -> BTreeSet<&str> {
        self.diagnostics
            .iter()
            .filter(|d| d.is_error())
            .filter_map(|d| d.server.as_deref())
            .collect()
    }
}

/// What a reload did, by server name.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Reloaded {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    pub unchanged: usize,
}

impl Reloaded {
    /// Whether any server was added, restarted or removed.
    pub(crate) fn touched_any(&self) -> bool {
        !(self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty())
    }
}

/// A set of config files and the entries of the servers it added.
pub(crate) struct ConfigFiles {
    paths: Vec<PathBuf>,
    /// Read as this dialect instead of detecting it (`servers/load {dialect}`).
    dialect: Option<Dialect>,
    /// `${input:ID}` values (`servers/load {inputs}`).
    inputs: BTreeMap<String, String>,
    /// Approved digests by name, when the registry requires trust.
    trust: BTreeMap<String, String>,
    /// The entry each running server of this set was added from.
    in_force: Mutex<BTreeMap<String, Entry>>,
    /// One reload at a time (a second waits, then reads the files as they are then).
    reloading: tokio::sync::Mutex<()>,
}

impl ConfigFiles {
    pub(crate) fn new(paths: Vec<PathBuf>, trust: BTreeMap<String, String>) -> ConfigFiles {
        ConfigFiles {
            paths,
            dialect: None,
            inputs: BTreeMap::new(),
            trust,
            in_force: Mutex::new(BTreeMap::new()),
            reloading: tokio::sync::Mutex::new(()),
        }
    }

    /// Files read as `dialect` (when given) with `inputs` for `${input:ID}`.
    pub(crate) fn reading_as(
        mut self,
        dialect: Option<Dialect>,
        inputs: BTreeMap<String, String>,
    ) -> Self {
        self.dialect = dialect;
        self.inputs = inputs;
        self
    }

    pub(crate) fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Takes `servers` (added to the registry by another path, `servers/load`) as this set's.
    pub(crate) fn adopt<'a>(&self, servers: impl IntoIterator<Item = &'a Candidate>) {
        for c in servers {
            self.remember(c);
        }
    }

    /// Reloads each time `wake` fires (an edit seen, SIGHUP), the events of one save settled
    /// first, and tells `after` what each reload did; ends once the registry is gone or shutting
    /// down.
    pub(crate) async fn keep_in_force(
        &self,
        registry: Weak<Registry>,
        wake: Arc<Notify>,
        after: impl Fn(&Reloaded),
    ) {
        loop {
            wake.notified().await;
            tokio::time::sleep(limits::CONFIG_RELOAD_SETTLE).await;
            let Some(registry) = registry.upgrade() else {
                return;
            };
            if registry.is_shutting_down() {
                return;
            }
            after(&self.reload(&registry).await);
        }
    }

    /// Reads every file at once (any dialect, `${VAR}` from the process environment).
    pub(crate) async fn read(&self) -> Read {
        let loads = self.paths.iter().map(|path| async move {
            let loaded = load(
                Request::Path(path.clone()),
                self.dialect,
                self.inputs.clone(),
                process_env,
            )
            .await;
            (path, loaded)
        });
        let mut read = Read {
            files: self.paths.iter().map(|p| p.display().to_string()).collect(),
            servers: Vec::new(),
            diagnostics: Vec::new(),
        };
        for (
            path,
            Loaded {
                servers,
                diagnostics,
            },
        ) in futures_util::future::join_all(loads).await
        {
            let file = path.display().to_string();
            read.diagnostics
                .extend(diagnostics.into_iter().map(|d| d.in_file(Some(&file))));
            for c in servers {
                if read.servers.iter().any(|seen| seen.name == c.name) {
                    tracing::warn!(
                        file = %file,
                        server = %c.name,
                        "--config: server `{}` is defined again in {file}; the first definition is used",
                        c.name
                    );
                } else {
                    read.servers.push(c);
                }
            }
        }
        read
    }

    /// Adds every server `read` holds (all at once; with `wait`, returns once each is ready or
    /// failed). Problems go to the log, one line each.
    pub(crate) async fn add(&self, registry: &Arc<Registry>, read: Read, wait: bool) {
        for d in &read.diagnostics {
            log_diagnostic(d);
        }
        let servers: Vec<&Candidate> = read.servers.iter().collect();
        self.add_each(registry, &servers, wait).await;
    }

    /// Reads the files again and applies the difference (see the module doc).
    pub(crate) async fn reload(&self, registry: &Arc<Registry>) -> Reloaded {
        let _one_at_a_time = self.reloading.lock().await;
        let read = self.read().await;
        let mut file_errors = read.file_errors().peekable();
        if file_errors.peek().is_some() {
            for d in file_errors {
                tracing::error!(
                    file = d.file.as_deref().unwrap_or_default(),
                    "config reload refused, every server runs on as it was: {}",
                    describe(d)
                );
            }
            return Reloaded::default();
        }
        let rejected = read.rejected();
        for d in &read.diagnostics {
            log_diagnostic(d);
        }
        let in_force = self.in_force_now();
        let wanted: BTreeMap<&str, &Candidate> =
            read.servers.iter().map(|c| (c.name.as_str(), c)).collect();
        let mut done = Reloaded::default();
        let mut stop = Vec::new();
        let mut start = Vec::new();
        for (name, entry) in &in_force {
            match wanted.get(name.as_str()) {
                Some(c) if Entry::of(c) == *entry => done.unchanged += 1,
                Some(c) => {
                    done.changed.push(name.clone());
                    stop.push(name.clone());
                    start.push(*c);
                }
                // An entry that is now invalid is a bad edit: its server runs on.
                None if rejected.contains(name.as_str()) => done.unchanged += 1,
                None => {
                    done.removed.push(name.clone());
                    stop.push(name.clone());
                }
            }
        }
        for c in read.servers.iter() {
            if !in_force.contains_key(&c.name) {
                done.added.push(c.name.clone());
                start.push(c);
            }
        }
        let stops = stop.iter().map(|name| registry.remove(name));
        for (name, stopped) in stop.iter().zip(futures_util::future::join_all(stops).await) {
            self.forget(name);
            if let Err(e) = stopped {
                tracing::debug!(server = %name, "reload: stopping: {}", e.message);
            }
        }
        // Until each start has ended: what follows a reload (the clients' lists) sees them.
        self.add_each(registry, &start, true).await;
        tracing::info!(
            added = ?done.added,
            changed = ?done.changed,
            removed = ?done.removed,
            unchanged = done.unchanged,
            "config reloaded"
        );
        done
    }

    /// Adds `servers` at once, remembering the entry of each that the registry took.
    async fn add_each(&self, registry: &Arc<Registry>, servers: &[&Candidate], wait: bool) {
        let adds = servers.iter().map(|c| {
            let options = AddOptions {
                source: c.source,
                trust: self.trust.get(&c.name).cloned(),
                plugin_root: c.plugin_root.clone(),
            };
            registry.add_with(&c.name, &c.config, wait, options)
        });
        let added = futures_util::future::join_all(adds).await;
        for (c, added) in servers.iter().zip(added) {
            match added {
                // A server that failed to start is still in the registry (restarts, a retry).
                Ok(_) => self.remember(c),
                Err(e) if e.code == ErrorCode::TrustRequired => tracing::warn!(
                    server = %c.name,
                    "--config: server `{}` needs approval of its launch digest; not started: {}",
                    c.name,
                    e.message
                ),
                Err(e) => tracing::warn!(
                    server = %c.name,
                    "--config: server `{}` not added: {}",
                    c.name,
                    e.message
                ),
            }
        }
    }

    fn in_force_now(&self) -> BTreeMap<String, Entry> {
        self.in_force
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn remember(&self, c: &Candidate) {
        self.in_force
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(c.name.clone(), Entry::of(c));
    }

    fn forget(&self, name: &str) {
        self.in_force
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name);
    }
}

/// `FILE: PATH: message` (what a person reads; the path only when there is one).
fn describe(d: &Diagnostic) -> String {
    let mut out = String::new();
    if let Some(file) = &d.file {
        out.push_str(file);
        out.push_str(": ");
    }
    if !d.path.is_empty() {
        out.push_str(&d.path);
        out.push_str(": ");
    }
    out.push_str(&d.message);
    out
}

fn log_diagnostic(d: &Diagnostic) {
    if d.is_error() {
        tracing::warn!("--config: {}", describe(d));
    } else {
        tracing::info!("--config: {}", describe(d));
    }
}
