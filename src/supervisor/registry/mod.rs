//! The registry: the host-facing operations on the configured servers — add (and lazy start from the
//! schema cache), add every server of a loaded configuration, remove, restart, list, status, test,
//! shutdown — on the tools they expose — listing, calls, reading truncated results, held
//! definitions and their acceptance — and on the rest of their surface (resources, prompts,
//! completion, log levels). Each operation admits, looks up or hands over; the
//! state machine behind it is in [`super::lifecycle`] and [`super::teardown`], the shared table and
//! catalog in [`super::roster`], a call's checks and budget in [`super::call`].
//!
//! [`Registry`] and its construction are here; its operations are `impl Registry` blocks, one file
//! per concern:
//! - `servers`: `add`, `add_with`, `add_loaded`, `load_files`, `remove`, `restart`, `login`,
//!   `logout`.
//! - `status`: `list`, `states`, `metric_samples`, `status`, `stats`.
//! - `stop`: `test` (a throwaway registry), `is_shutting_down`, `shutdown`.
//! - `tools`: `tools`, `tools_answer`, `relist_expired`, `check_servers`, `format_options`,
//!   `call_tool`, `call_tool_with`, `roots_changed`, `read_result`, `accept`.
//! - `resources`: `resources`, `resource_templates`, `prompts`, `read_resource`, `subscribe`,
//!   `get_prompt`, `complete`, `set_log_level`.

mod resources;
mod servers;
mod status;
mod stop;
mod tools;

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio_util::task::TaskTracker;

use super::events::EventSender;
use super::roster::Roster;
use super::settings::Settings;
use super::status::ServerStatus;
use crate::config::diagnostics::Diagnostic;
use crate::store::{Catalog, ResultStore};

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
}
