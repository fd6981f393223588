//! What the commands for people share: the registry they start servers in, starting (or trying)
//! every selected server at once with a progress line as each ends, stopping on a signal, and the
//! human form of the files' diagnostics.
//!
//! Trust: these commands never ask for approval. The person who runs `mcp-sidecar list --config
//! FILE` is the one approving: they named the file and see its servers start, exactly as if they
//! had typed each command line themselves, so `requireTrust` (which exists for a host that starts
//! servers on someone else's behalf) is off. A host embedding the sidecar keeps its own gate.
//! Run without a file, a command reads the configs the person's own hosts use, in their home and
//! in the folder they run it from; the line saying which files were read comes before any server
//! starts. A project's own files came with the folder, not from the person: their servers are
//! withheld until approved (`--config` naming the file, `--allow-project`, or Claude Code's own
//! approval of the project's `.mcp.json`; see `selection`).

use std::fmt::Write as _;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::browser_step::PrintUrl;
use super::progress::Progress;
use super::selection::{Selection, Sources};
use crate::config::diagnostics::{Diagnostic, Severity};
use crate::config::dialects::Candidate;
use crate::convert::{NameTemplate, ToolFormat};
use crate::error::{Error, Result};
use crate::store::SchemaCache;
use crate::supervisor::{
    AddOptions, AuthSettings, EventSender, Registry, ServerState, ServerStatus, Settings,
};

/// What every command gets from the command line.
pub(crate) struct Context {
    pub sources: Sources,
    /// The schema cache of lazy servers (`--cache-dir`, else the platform's).
    pub cache: Option<SchemaCache>,
    /// Cancelled by the first SIGINT/SIGTERM/SIGHUP: stop every server and exit 130.
    pub stop: CancellationToken,
    /// `--quiet`: no progress lines.
    pub quiet: bool,
}

/// A registry for one command: tools named and converted as a host with default settings would
/// see them, and no trust gate (see the module doc).
pub(crate) fn registry(context: &Context, format: ToolFormat, strict: bool) -> Arc<Registry> {
    let logs_in = context
        .sources
        .ad_hoc
        .iter()
        .any(|c| c.config.get("url").is_some());
    Registry::new(
        Settings {
            names: NameTemplate::default(),
            format,
            strict,
            cache: context.cache.clone(),
            packages: Settings::packages_in(context.cache.as_ref()),
            require_trust: false,
            // Nobody answers a server's own requests here: each is refused (-32601). A server
            // given with `--url` that needs a login gets one on the way: its URL on stderr for the
            // person to open, the start going on after the redirect.
            asker: if logs_in {
                Arc::new(PrintUrl::on_stderr())
            } else {
                crate::ask::nobody()
            },
            defer: Default::default(),
            // Tokens a `login` kept are used; the servers of files are never logged in to here
            // (that is `login`'s job; `doctor` says so), only a `--url` one.
            auth: AuthSettings {
                interactive: logs_in,
                ..AuthSettings::for_cache(context.cache.as_ref())
            },
            resources_as_tools: false,
            pin_tools: false,
            server_logs: None,
        },
        // Nobody reads the events: each command reads statuses when the starts have ended.
        EventSender::discarding(),
    )
}

/// `work`, unless a termination signal comes first (`None`).
pub(crate) async fn until_stopped<T>(
    stop: &CancellationToken,
    work: impl Future<Output = T>,
) -> Option<T> {
    tokio::select! {
        // A signal wins a tie: the person asked to stop.
        biased;
        _ = stop.cancelled() => None,
        done = work => Some(done),
    }
}

/// Adds every server and waits for each start to end, all at once; one progress line per server.
/// Results in the order of `servers`.
pub(crate) async fn start_all(
    registry: &Arc<Registry>,
    servers: &[Candidate],
    progress: &mut Progress,
) -> Vec<Result<ServerStatus>> {
    let registry = Arc::clone(registry);
    each_server(
        servers,
        move |c| {
            let registry = Arc::clone(&registry);
            async move {
                let options = AddOptions {
                    source: c.source,
                    trust: None,
                    plugin_root: c.plugin_root,
                };
                registry.add_with(&c.name, &c.config, true, options).await
            }
        },
        |name, outcome| match outcome {
            Ok(status) if started(status) => {
                progress.finished(name, Ok(&format!("{} tools", status.tools_count)))
            }
            Ok(status) => progress.finished(name, Err(&status_problem(status))),
            Err(e) => progress.finished(name, Err(first_line(&e.message))),
        },
    )
    .await
}

/// Tries every server as `servers/test` does (start, list, stop), all at once; one progress line
/// per server. Reports in the order of `servers`.
pub(crate) async fn probe_all(
    registry: &Arc<Registry>,
    servers: &[Candidate],
    progress: &mut Progress,
) -> Vec<Result<Value>> {
    let registry = Arc::clone(registry);
    each_server(
        servers,
        move |c| {
            let registry = Arc::clone(&registry);
            async move { registry.test(&c.name, &c.config, None).await }
        },
        |name, outcome| match outcome {
            Ok(report) if report["state"] == "ready" => progress.finished(
                name,
                Ok(&format!(
                    "{} tools",
                    report["toolsCount"].as_u64().unwrap_or(0)
                )),
            ),
            Ok(report) => progress.finished(
                name,
                Err(first_line(
                    report["error"]["message"].as_str().unwrap_or("failed"),
                )),
            ),
            Err(e) => progress.finished(name, Err(first_line(&e.message))),
        },
    )
    .await
}

/// Runs `work` for every server at once, tells `done` of each outcome as it comes, and returns
/// the outcomes in the order of `servers`.
async fn each_server<V, F, Fut>(
    servers: &[Candidate],
    work: F,
    mut done: impl FnMut(&str, &Result<V>),
) -> Vec<Result<V>>
where
    F: Fn(Candidate) -> Fut,
    Fut: Future<Output = Result<V>> + Send + 'static,
    V: Send + 'static,
{
    let mut set = JoinSet::new();
    for (i, c) in servers.iter().cloned().enumerate() {
        let name = c.name.clone();
        let task = work(c);
        set.spawn(async move { (i, name, task.await) });
    }
    let mut out: Vec<Option<Result<V>>> = servers.iter().map(|_| None).collect();
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((i, name, outcome)) => {
                done(&name, &outcome);
                out[i] = Some(outcome);
            }
            Err(e) => tracing::error!("a server's start did not finish: {e}"),
        }
    }
    out.into_iter()
        .map(|o| o.unwrap_or_else(|| Err(Error::internal("the server's start did not finish"))))
        .collect()
}

/// Whether a status after a start means the server can serve: ready, or lazy with its tools.
pub(crate) fn started(status: &ServerStatus) -> bool {
    status.state == ServerState::Ready
        || (status.state == ServerState::Stopped && status.tools_count > 0)
}

/// One line on why a server did not start.
pub(crate) fn status_problem(status: &ServerStatus) -> String {
    status
        .last_error
        .as_ref()
        .and_then(|e| e["message"].as_str())
        .map(|m| first_line(m).to_owned())
        .unwrap_or_else(|| format!("state {}", state_name(status.state)))
}

/// A state's protocol name (`ready`).
pub(crate) fn state_name(state: ServerState) -> String {
    serde_json::to_value(state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

pub(crate) fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// The last `n` lines of a stderr tail, each indented for a report.
pub(crate) fn tail_lines(tail: &str, n: usize, indent: &str) -> String {
    let lines: Vec<&str> = tail.lines().collect();
    let mut out = String::new();
    for line in &lines[lines.len().saturating_sub(n)..] {
        let _ = writeln!(out, "{indent}stderr | {line}");
    }
    out
}

/// The files' problems and the unknown names, one line each, for a human report.
pub(crate) fn diagnostics_text(selection: &Selection) -> String {
    let mut out = String::new();
    for d in &selection.diagnostics {
        let _ = writeln!(out, "{}", diagnostic_line(d));
    }
    for u in &selection.unknown {
        let _ = writeln!(out, "config error: {u}");
    }
    for w in &selection.withheld {
        let _ = writeln!(out, "{}", w.sentence());
    }
    out
}

/// `config error: FILE:LINE:COL PATH: message` (the parts that are known).
pub(crate) fn diagnostic_line(d: &Diagnostic) -> String {
    let severity = match d.severity {
        Severity::Error => "config error",
        Severity::Warning => "config warning",
    };
    let mut place = d.file.clone().unwrap_or_default();
    if let (Some(line), Some(column)) = (d.line, d.column) {
        let _ = write!(place, ":{line}:{column}");
    }
    if !d.path.is_empty() {
        if !place.is_empty() {
            place.push(' ');
        }
        place.push_str(&d.path);
    }
    if place.is_empty() {
        format!("{severity}: {}", d.message)
    } else {
        format!("{severity}: {place}: {}", d.message)
    }
}
