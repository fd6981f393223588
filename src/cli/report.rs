//! The `inspect` subcommand's report on stdout: a human table (states, stderr tails, diagnostics,
//! the converted tools) or one JSON document. Formatting builds text; [`print`] hands it to the
//! commands' one stdout writer.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::config::diagnostics::Diagnostic;
use crate::convert::ToolFormat;
use crate::error::Error;
use crate::store::Listing;
use crate::supervisor::{ServerState, ServerStatus};

/// What `inspect` found.
pub(crate) struct Report {
    pub servers: Vec<ServerStatus>,
    /// Servers whose config was rejected before anything was started.
    pub rejected: Vec<(String, Error)>,
    /// Every problem found in the files (any dialect; see `config::load`).
    pub diagnostics: Vec<Diagnostic>,
    pub listing: Listing,
}

impl Report {
    /// True when every server in the file reached `ready` (or, lazy, has its tools listed).
    pub(crate) fn all_ready(&self) -> bool {
        self.rejected.is_empty()
            && !self.diagnostics.iter().any(Diagnostic::is_error)
            && self.servers.iter().all(|s| {
                s.state == ServerState::Ready
                    || (s.state == ServerState::Stopped && s.tools_count > 0)
            })
    }
}

/// Prints the report: one JSON document with `json`, else the human table.
pub(crate) fn print(report: &Report, format: ToolFormat, json: bool) {
    let text = if json {
        json_document(report)
    } else {
        human(report, format)
    };
    super::output::stdout(&text);
}

/// The human report: one line per server, diagnostic and rejected server, then the tools.
pub(crate) fn human(report: &Report, format: ToolFormat) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:<10} {:>7}  {:<11} {:>5}  detail",
        "SERVER", "STATE", "PID", "PROTOCOL", "TOOLS"
    );
    for s in &report.servers {
        server_lines(&mut out, s);
    }
    for d in &report.diagnostics {
        let _ = writeln!(
            out,
            "{:<16} {:<10} {}:{} {}",
            d.server.as_deref().unwrap_or("-"),
            as_text(serde_json::to_value(d.severity).ok()),
            d.file.as_deref().unwrap_or(""),
            d.path,
            d.message
        );
    }
    for (name, e) in &report.rejected {
        let _ = writeln!(
            out,
            "{name:<16} {:<10} {:>7}  {:<11} {:>5}  {}",
            "rejected", "-", "-", 0, e.message
        );
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{} tools ({} format), fingerprint {}",
        report.listing.tools.len(),
        format.as_str(),
        report.listing.fingerprint
    );
    let definitions: Vec<&Value> = report
        .listing
        .tools
        .iter()
        .map(|t| &t["definition"])
        .collect();
    let _ = writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(&definitions).unwrap_or_default()
    );
    out
}

/// A server's line, and after a failure the last lines of its stderr.
fn server_lines(out: &mut String, s: &ServerStatus) {
    let detail = s
        .last_error
        .as_ref()
        .and_then(|e| e.get("message"))
        .and_then(|m| m.as_str())
        .map(str::to_owned)
        .or_else(|| {
            s.server_info.as_ref().map(|i| {
                format!(
                    "{} {}",
                    i["name"].as_str().unwrap_or(""),
                    i["version"].as_str().unwrap_or("")
                )
            })
        })
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{:<16} {:<10} {:>7}  {:<11} {:>5}  {}",
        s.name,
        as_text(serde_json::to_value(s.state).ok()),
        s.pid.map(|p| p.to_string()).unwrap_or_else(|| "-".into()),
        s.protocol_version.as_deref().unwrap_or("-"),
        s.tools_count,
        detail
    );
    if s.last_error.is_some() && !s.stderr_tail.is_empty() {
        for line in s
            .stderr_tail
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let _ = writeln!(out, "{:<16} stderr: {line}", "");
        }
    }
}

/// A serialised enum's name (`"ready"` → `ready`); empty when it is not a string.
fn as_text(value: Option<Value>) -> String {
    value
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The report as one JSON document (`--json`).
pub(crate) fn json_document(report: &Report) -> String {
    let rejected: Vec<Value> = report
        .rejected
        .iter()
        .map(|(name, e)| json!({"name": name, "error": e.to_rpc_error()}))
        .collect();
    let doc = json!({
        "servers": report.servers,
        "rejected": rejected,
        "diagnostics": report.diagnostics,
        "tools": *report.listing.tools,
        "fingerprint": report.listing.fingerprint,
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
