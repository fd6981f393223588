//! `mcp-sidecar inspect FILE`: start every server of a servers file, report each one's status and the
//! converted tool list, then stop them all. Useful as a health check and as a demo.

use std::path::Path;
use std::sync::Arc;

use crate::config::diagnostics::Diagnostic;
use crate::config::expand::process_env;
use crate::config::load::{load_path, Sources};
use crate::convert::{NameTemplate, ToolFormat};
use crate::error::{Error, Result};
use crate::store::{Listing, SchemaCache};
use crate::supervisor::{Registry, ServerState, ServerStatus, Settings};

pub struct Report {
    pub servers: Vec<ServerStatus>,
    /// Servers whose config was rejected before anything was started.
    pub rejected: Vec<(String, Error)>,
    /// Every problem found in the files (any dialect; see `config::load`).
    pub diagnostics: Vec<Diagnostic>,
    pub listing: Listing,
}

impl Report {
    /// True when every server in the file reached `ready` (or, lazy, has its tools listed).
    pub fn all_ready(&self) -> bool {
        self.rejected.is_empty()
            && !self.diagnostics.iter().any(Diagnostic::is_error)
            && self.servers.iter().all(|s| {
                s.state == ServerState::Ready
                    || (s.state == ServerState::Stopped && s.tools_count > 0)
            })
    }
}

pub async fn inspect(
    path: &Path,
    format: ToolFormat,
    strict: bool,
    cache: Option<SchemaCache>,
) -> Result<Report> {
    let inputs = Default::default();
    let loaded = load_path(
        path,
        None,
        &Sources {
            env: &process_env,
            inputs: &inputs,
        },
    );
    let registry = Registry::new(
        Settings {
            names: NameTemplate::default(),
            format,
            strict,
            cache,
            require_trust: false,
            // Nobody answers a server's own requests here: each is refused (-32601).
            asker: crate::ask::nobody(),
            defer: Default::default(),
        },
        // Nobody reads the events: the report reads the statuses once every start has ended.
        crate::supervisor::EventSender::discarding(),
    );
    let mut tasks = Vec::new();
    for c in loaded.servers {
        let registry = Arc::clone(&registry);
        tasks.push(tokio::spawn(async move {
            let name = c.name;
            let options = crate::supervisor::AddOptions {
                source: c.source,
                trust: None,
                plugin_root: c.plugin_root,
            };
            let outcome = registry.add_with(&name, &c.config, true, options).await;
            (name, outcome)
        }));
    }
    let mut rejected = Vec::new();
    for task in tasks {
        if let Ok((name, Err(e))) = task.await {
            rejected.push((name, e));
        }
    }
    let servers = registry.list();
    let listing = registry.tools(Some(format), Some(strict), None)?;
    registry.shutdown().await;
    Ok(Report {
        servers,
        rejected,
        diagnostics: loaded.diagnostics,
        listing,
    })
}
