//! `mcp-sidecar inspect FILE`: start every server of a servers file, report each one's status and the
//! converted tool list, then stop them all. Useful as a health check and as a demo.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::config::load_servers_file;
use crate::convert::{NameTemplate, ToolFormat};
use crate::error::{Error, Result};
use crate::supervisor::{Listing, Registry, SchemaCache, ServerState, ServerStatus, Settings};

pub struct Report {
    pub servers: Vec<ServerStatus>,
    /// Servers whose config was rejected before anything was started.
    pub rejected: Vec<(String, Error)>,
    pub listing: Listing,
}

impl Report {
    /// True when every server in the file reached `ready` (or, lazy, has its tools listed).
    pub fn all_ready(&self) -> bool {
        self.rejected.is_empty()
            && self.servers.iter().all(|s| s.state == ServerState::Ready || (s.state == ServerState::Stopped && s.tools_count > 0))
    }
}

pub async fn inspect(path: &Path, format: ToolFormat, strict: bool, cache: Option<SchemaCache>) -> Result<Report> {
    let file = load_servers_file(path)?;
    let (events, _ignored) = mpsc::unbounded_channel();
    let registry = Registry::new(Settings { names: NameTemplate::default(), format, strict, cache }, events);
    let mut tasks = Vec::new();
    for (name, config) in file.servers {
        let registry = Arc::clone(&registry);
        tasks.push(tokio::spawn(async move {
            let outcome = registry.add(&name, &config, true).await;
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
        listing,
    })
}
