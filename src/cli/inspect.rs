//! `mcp-sidecar inspect [FILE]`: start every selected server of the files, report each one's
//! status and the converted tool list ([`super::report`]), then stop them all. Useful as a health
//! check and as a demo.

use std::path::PathBuf;

use super::exit::Exit;
use super::output::{stderr_line, usage};
use super::progress::Progress;
use super::report::{self, Report};
use super::run::{self, Context};
use super::selection::select;
use crate::convert::ToolFormat;
use crate::error::Error;

pub(crate) struct InspectArgs {
    /// A file or directory given without `--config` (as the command has always taken it).
    pub file: Option<PathBuf>,
    pub servers: Vec<String>,
    pub format: ToolFormat,
    pub strict: bool,
    pub json: bool,
}

pub(crate) async fn run(context: &Context, args: InspectArgs) -> Exit {
    let mut sources = context.sources.clone();
    if let Some(file) = args.file {
        sources.files.insert(0, file);
    }
    let selection = match select(&sources, &args.servers).await {
        Ok(s) => s,
        Err(e) => return usage(&e.to_string()),
    };
    let registry = run::registry(context, args.format, args.strict);
    let mut progress = Progress::new(
        selection.servers.iter().map(|c| c.name.as_str()),
        context.quiet,
    );
    let started = run::until_stopped(
        &context.stop,
        run::start_all(&registry, &selection.servers, &mut progress),
    )
    .await;
    let servers = registry.list();
    let listing = registry.tools(Some(args.format), Some(args.strict), None);
    registry.shutdown().await;
    let Some(outcomes) = started else {
        return Exit::Interrupted;
    };
    let rejected: Vec<(String, Error)> = selection
        .servers
        .iter()
        .zip(outcomes)
        .filter_map(|(c, o)| o.err().map(|e| (c.name.clone(), e)))
        .collect();
    let listing = match listing {
        Ok(l) => l,
        Err(e) => {
            stderr_line(&format!("mcp-sidecar: {}", e.message));
            return Exit::ServerFailed;
        }
    };
    for u in &selection.unknown {
        stderr_line(&format!("mcp-sidecar: {u}"));
    }
    let mut exit = selection.exit();
    if !rejected.is_empty() {
        exit = exit.and(Exit::ConfigInvalid);
    }
    let report = Report {
        servers,
        rejected,
        diagnostics: selection.diagnostics,
        listing,
    };
    if !report.all_ready() {
        exit = exit.and(Exit::ServerFailed);
    }
    report::print(&report, args.format, args.json);
    exit
}
