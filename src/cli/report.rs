//! The `inspect` subcommand's report on stdout: a human table (states, stderr tails, diagnostics,
//! the converted tools) or one JSON document. Formatting builds text; [`print`] is the one place
//! that writes it.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::inspect::Report;
use crate::convert::ToolFormat;
use crate::supervisor::ServerStatus;

/// Prints the report: one JSON document with `json`, else the human table.
// stdout is the report here; in serve mode it is protocol-only (the writer task owns it).
#[allow(clippy::print_stdout)]
pub fn print(report: &Report, format: ToolFormat, json: bool) {
    let text = if json {
        json_document(report)
    } else {
        human(report, format)
    };
    print!("{text}");
}

/// The human report: one line per server, diagnostic and rejected server, then the tools.
pub fn human(report: &Report, format: ToolFormat) -> String {
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
pub fn json_document(report: &Report) -> String {
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
