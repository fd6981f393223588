//! What `doctor` says about a server: a finding (what is wrong, the evidence it rests on, how to
//! fix it) and the evidence it is drawn from; small helpers the diagnoses share.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::command::Resolution;
use crate::config::diagnostics::Diagnostic;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Severity {
    /// The server cannot serve.
    Error,
    /// It serves, but something is worth fixing.
    Warning,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(super) struct Finding {
    /// A stable name for scripts: `command-not-found`, `stdout-not-json`, `slow-start`, …
    pub kind: &'static str,
    pub severity: Severity,
    /// One sentence: what is wrong.
    pub summary: String,
    /// What the conclusion rests on (paths searched, offending bytes, timings, stderr).
    pub evidence: Vec<String>,
    /// What to do about it.
    pub fix: Vec<String>,
}

/// A stdio server's program and where it was looked for.
pub(super) struct CommandFacts<'a> {
    pub program: &'a str,
    /// The `PATH` the server is spawned with.
    pub path_var: &'a str,
    /// Whether that `PATH` is the config's own (`env.PATH`) rather than the sidecar's.
    pub path_from_config: bool,
    pub cwd: Option<&'a Path>,
    pub resolution: Resolution,
}

/// Everything known about one server.
pub(super) struct Evidence<'a> {
    /// The trial start's report (`servers/test`), absent when the entry was rejected.
    pub report: Option<&'a Value>,
    /// Why the entry was rejected before any start, when it was.
    pub rejected: Option<&'a str>,
    pub diagnostics: Vec<&'a Diagnostic>,
    pub command: Option<CommandFacts<'a>>,
    /// The server's display command line, for "run it by hand".
    pub command_line: &'a str,
    /// The registry package an `npx`/`uvx` command runs unpinned, when it does.
    pub unpinned: Option<crate::config::CommandPackage>,
    pub startup_timeout: Duration,
    /// A start slower than this is reported.
    pub slow: Duration,
}

pub(super) fn finding(kind: &'static str, severity: Severity, summary: String) -> Finding {
    Finding {
        kind,
        severity,
        summary,
        evidence: Vec::new(),
        fix: Vec::new(),
    }
}

/// `spawn 1.2 ms, initialize 4.20 s, tools/list 8.0 ms (total 4.21 s)`.
pub(super) fn phases(timings: &Value) -> String {
    format!("timings: {}", crate::cli::trial::phases(timings))
}

/// The launcher a command runs through, when it is one that fetches packages.
pub(super) fn launcher<'a>(e: &Evidence<'a>) -> Option<&'a str> {
    let program = e.command.as_ref()?.program;
    let base = Path::new(program).file_name()?.to_str()?;
    let base = base.strip_suffix(".cmd").unwrap_or(base);
    [
        "npx", "pnpx", "pnpm", "bunx", "uvx", "pipx", "yarn", "npm", "deno", "docker",
    ]
    .contains(&base)
    .then_some(base)
}

pub(super) fn last_lines(text: &str, n: usize) -> impl Iterator<Item = &str> {
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(n);
    lines.into_iter().skip(from)
}
