//! `mcp-sidecar list`: start the selected servers, then show each one's state and statistics
//! (`servers/stats`: its start's time, bytes in and out, calls, errors, latency percentiles,
//! restarts, uptime) and its tools, and stop them again. The table leaves out the statistics that
//! are nothing in every row (a fresh run has made no calls); with servers named, each tool shows
//! its parameters as a signature ([`super::signature`]) above its description.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::exit::Exit;
use super::output::{pretty, stdout, usage};
use super::progress::Progress;
use super::run::{self, Context};
use super::selection::{select, Selection, Withheld};
use super::signature;
use super::table::{self, Align, Table};
use crate::convert::ToolFormat;
use crate::supervisor::{ServerStats, ServerStatus};

pub(crate) struct ListArgs {
    /// The servers to list (all when empty).
    pub servers: Vec<String>,
    /// The format of the tool entries in the JSON document.
    pub format: ToolFormat,
    pub json: bool,
}

pub(crate) async fn run(context: &Context, args: ListArgs) -> Exit {
    let selection = match select(&context.sources, &args.servers).await {
        Ok(s) => s,
        Err(e) => return usage(&e.to_string()),
    };
    // The human report shows no definitions: the servers' own (MCP) ones give its descriptions,
    // token counts and signatures without converting every tool.
    let format = if args.json {
        args.format
    } else {
        ToolFormat::Mcp
    };
    let registry = run::registry(context, format, false);
    let mut progress = Progress::new(
        selection.servers.iter().map(|c| c.name.as_str()),
        context.quiet,
    );
    let started = run::until_stopped(
        &context.stop,
        run::start_all(&registry, &selection.servers, &mut progress),
    )
    .await;
    let Some(outcomes) = started else {
        registry.shutdown().await;
        return Exit::Interrupted;
    };
    let statuses = registry.list();
    let stats = registry.stats(None).unwrap_or_default();
    let listing = registry.tools(Some(format), None, None);
    registry.shutdown().await;
    let mut exit = selection.exit();
    let mut rejected = Vec::new();
    for (c, outcome) in selection.servers.iter().zip(&outcomes) {
        match outcome {
            Ok(status) if run::started(status) => {}
            Ok(_) => exit = exit.and(Exit::ServerFailed),
            Err(e) => {
                exit = exit.and(Exit::ConfigInvalid);
                rejected.push((c.name.clone(), e.clone()));
            }
        }
    }
    let tools: Vec<Value> = listing.map(|l| (*l.tools).clone()).unwrap_or_default();
    if args.json {
        let servers: Vec<Value> = statuses
            .iter()
            .map(|s| {
                let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
                if let Some(st) = stats.iter().find(|st| st.name == s.name) {
                    v["stats"] = serde_json::to_value(st).unwrap_or(Value::Null);
                }
                v
            })
            .collect();
        let rejected: Vec<Value> = rejected
            .iter()
            .map(|(name, e)| json!({"name": name, "error": e.to_rpc_error()}))
            .collect();
        let skipped: Vec<Value> = selection
            .withheld
            .iter()
            .map(|w| json!({"name": w.name, "file": w.file, "reason": Withheld::REASON}))
            .collect();
        let doc = json!({
            "servers": servers,
            "rejected": rejected,
            "skipped": skipped,
            "tools": tools,
            "diagnostics": selection.diagnostics,
            "unknownServers": selection.unknown,
        });
        stdout(&format!("{}\n", pretty(&doc)));
    } else {
        let signatures = (!args.servers.is_empty()).then_some(tools.as_slice());
        stdout(&human(
            &statuses, &stats, &tools, signatures, &selection, &rejected,
        ));
    }
    exit
}

/// The table of servers, then each server's tools (or why it has none), then the files' problems.
fn human(
    statuses: &[ServerStatus],
    stats: &[ServerStats],
    tools: &[Value],
    signatures: Option<&[Value]>,
    selection: &Selection,
    rejected: &[(String, crate::error::Error)],
) -> String {
    let mut out = String::new();
    if statuses.is_empty() && selection.withheld.is_empty() {
        out.push_str("no servers to list\n");
    } else {
        out.push_str(&stats_table(statuses, stats, &selection.withheld));
    }
    for s in statuses {
        out.push('\n');
        let info = s
            .server_info
            .as_ref()
            .map(|i| {
                let version = i["version"].as_str().unwrap_or("");
                format!("{} {version}", i["name"].as_str().unwrap_or(""))
                    .trim()
                    .to_owned()
            })
            .unwrap_or_default();
        if run::started(s) {
            let protocol = s
                .protocol_version
                .as_deref()
                .map(|v| format!(" (MCP {v})"))
                .unwrap_or_default();
            // A name a provider would refuse ("Time Server") is exposed under its prefix.
            let exposed = if s.prefix == s.name {
                String::new()
            } else {
                format!(" (exposed as {})", s.prefix)
            };
            let _ = writeln!(
                out,
                "{}{exposed}: {info}{protocol}, {} tools, ~{} tokens of definitions",
                s.name,
                s.tools_count,
                tokens_of(&s.name, tools)
            );
            match signatures {
                Some(originals) => out.push_str(&signatures_of(&s.name, originals)),
                None => out.push_str(&tools_of(&s.name, tools)),
            }
        } else {
            let _ = writeln!(out, "{}: not started: {}", s.name, run::status_problem(s));
            out.push_str(&run::tail_lines(&s.stderr_tail, 5, "  "));
        }
    }
    for (name, e) in rejected {
        let _ = writeln!(out, "\n{name}: rejected: {}", e.message);
    }
    let notes = run::diagnostics_text(selection);
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes);
    }
    out
}

/// The columns always shown; the statistics after them only when some row has one.
const ALWAYS: usize = 4;

fn stats_table(statuses: &[ServerStatus], stats: &[ServerStats], withheld: &[Withheld]) -> String {
    let columns = [
        ("SERVER", Align::Left),
        ("STATE", Align::Left),
        ("TRANSPORT", Align::Left),
        ("TOOLS", Align::Right),
        ("STARTUP", Align::Right),
        ("IN", Align::Right),
        ("OUT", Align::Right),
        ("CALLS", Align::Right),
        ("ERRORS", Align::Right),
        ("P50", Align::Right),
        ("P99", Align::Right),
        ("RESTARTS", Align::Right),
        ("UPTIME", Align::Right),
    ];
    let mut rows = Vec::new();
    let ms = |v: Option<f64>| v.map(table::millis).unwrap_or_else(|| "-".into());
    for s in statuses {
        let Some(st) = stats.iter().find(|st| st.name == s.name) else {
            continue;
        };
        rows.push(vec![
            s.name.clone(),
            run::state_name(s.state),
            s.transport.to_owned(),
            s.tools_count.to_string(),
            ms(st.startup.as_ref().and_then(|t| t["totalMs"].as_f64())),
            table::bytes(st.bytes_in),
            table::bytes(st.bytes_out),
            st.total.calls.to_string(),
            st.total.errors.to_string(),
            ms(st.total.p50_ms),
            ms(st.total.p99_ms),
            st.restarts.to_string(),
            ms(st.uptime_ms),
        ]);
    }
    // A server withheld is a row too: the person sees it exists and was not started.
    for w in withheld {
        let mut row = vec![w.name.clone(), "skipped".into(), "-".into(), "-".into()];
        row.resize(columns.len(), "-".into());
        rows.push(row);
    }
    // A column of zeros and dashes in every row says nothing (no calls yet, no restarts).
    let kept: Vec<usize> = (0..columns.len())
        .filter(|&i| i < ALWAYS || rows.iter().any(|r| !matches!(r[i].as_str(), "0" | "-")))
        .collect();
    let mut t = Table::new(&kept.iter().map(|&i| columns[i]).collect::<Vec<_>>());
    for row in rows {
        t.row(kept.iter().map(|&i| row[i].clone()).collect());
    }
    t.render()
}

/// A server's tools for a closer look: each one's signature, then its description's first line.
fn signatures_of(server: &str, originals: &[Value]) -> String {
    let mut out = String::new();
    for t in originals.iter().filter(|t| t["server"] == server) {
        let name = t["tool"].as_str().unwrap_or("");
        let _ = writeln!(
            out,
            "  {}",
            signature::signature(name, &t["definition"]["inputSchema"])
        );
        let description = description_of(t);
        if !description.is_empty() {
            let _ = writeln!(out, "      {description}");
        }
    }
    out
}

/// The estimated tokens of a server's tool definitions (each entry's `tokens`, in the listing's
/// format).
fn tokens_of(server: &str, tools: &[Value]) -> u64 {
    tools
        .iter()
        .filter(|t| t["server"] == server)
        .filter_map(|t| t["tokens"].as_u64())
        .sum()
}

/// A server's tools: the tool's name on the server, then the first line of its description.
fn tools_of(server: &str, tools: &[Value]) -> String {
    let mine: Vec<&Value> = tools.iter().filter(|t| t["server"] == server).collect();
    let width = mine
        .iter()
        .map(|t| t["tool"].as_str().unwrap_or("").chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for t in mine {
        let name = t["tool"].as_str().unwrap_or("");
        let description = description_of(t);
        let line = format!("  {name:<width$}  {description}");
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// The first line of a tool's description, from whichever format its definition is in, cut to
/// fit a terminal line.
fn description_of(entry: &Value) -> String {
    const MAX: usize = 100;
    let d = &entry["definition"];
    let text = [
        &d["description"],
        &d["function"]["description"],
        &entry["title"],
    ]
    .into_iter()
    .find_map(Value::as_str)
    .unwrap_or("");
    let line = run::first_line(text);
    if line.chars().count() > MAX {
        format!("{}…", line.chars().take(MAX - 1).collect::<String>())
    } else {
        line.to_owned()
    }
}
