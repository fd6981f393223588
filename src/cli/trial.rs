//! `mcp-sidecar test`: try each selected server as `servers/test` does — start it, handshake,
//! list its tools, stop it — all at once, and report each one: ready (how long each phase took,
//! how many tools) or failed (why, and the end of its stderr). Exits 1 when one failed.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::exit::Exit;
use super::output::{pretty, stdout, usage, Paint};
use super::progress::Progress;
use super::run::{self, Context};
use super::selection::select;
use super::table;
use crate::convert::ToolFormat;
use crate::error::Result;

pub(crate) struct TestArgs {
    pub servers: Vec<String>,
    pub json: bool,
}

pub(crate) async fn run(context: &Context, args: TestArgs) -> Exit {
    let selection = match select(&context.sources, &args.servers).await {
        Ok(s) => s,
        Err(e) => return usage(&e.to_string()),
    };
    let registry = run::registry(context, ToolFormat::default(), false);
    let mut progress = Progress::new(
        selection.servers.iter().map(|c| c.name.as_str()),
        context.quiet,
    );
    let probed = run::until_stopped(
        &context.stop,
        run::probe_all(&registry, &selection.servers, &mut progress),
    )
    .await;
    registry.shutdown().await;
    let Some(reports) = probed else {
        return Exit::Interrupted;
    };
    let names: Vec<&str> = selection.servers.iter().map(|c| c.name.as_str()).collect();
    let mut exit = selection.exit();
    for report in &reports {
        match report {
            Ok(r) if r["state"] == "ready" => {}
            Ok(_) => exit = exit.and(Exit::ServerFailed),
            Err(_) => exit = exit.and(Exit::ConfigInvalid),
        }
    }
    if args.json {
        let servers: Vec<Value> = names
            .iter()
            .zip(&reports)
            .map(|(name, r)| match r {
                Ok(report) => {
                    let mut v = report.clone();
                    v["name"] = Value::from(*name);
                    v
                }
                Err(e) => json!({"name": name, "state": "rejected", "error": e.to_rpc_error()}),
            })
            .collect();
        let doc = json!({
            "servers": servers,
            "diagnostics": selection.diagnostics,
            "unknownServers": selection.unknown,
        });
        stdout(&format!("{}\n", pretty(&doc)));
    } else {
        let mut out = human(&names, &reports);
        let notes = run::diagnostics_text(&selection);
        if !notes.is_empty() {
            out.push('\n');
            out.push_str(&notes);
        }
        stdout(&out);
    }
    exit
}

fn human(names: &[&str], reports: &[Result<Value>]) -> String {
    let paint = Paint::for_stdout();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (name, report) in names.iter().zip(reports) {
        match report {
            Ok(r) if r["state"] == "ready" => {
                let _ = writeln!(
                    out,
                    "{}  {name:<width$}  {} tools, MCP {}, {}",
                    paint.good("ok  "),
                    r["toolsCount"].as_u64().unwrap_or(0),
                    r["protocolVersion"].as_str().unwrap_or("?"),
                    phases(&r["timings"]),
                );
            }
            Ok(r) => {
                let _ = writeln!(
                    out,
                    "{}  {name:<width$}  {}",
                    paint.bad("FAIL"),
                    r["error"]["message"].as_str().unwrap_or("the start failed")
                );
                let indent = " ".repeat(width + 8);
                let _ = writeln!(out, "{indent}{}", phases(&r["timings"]));
                out.push_str(&run::tail_lines(
                    r["stderrTail"].as_str().unwrap_or(""),
                    10,
                    &indent,
                ));
            }
            Err(e) => {
                let _ = writeln!(out, "{}  {name:<width$}  {}", paint.bad("FAIL"), e.message);
            }
        }
    }
    out
}

/// `ready in 23.1 ms (spawn 1.2 ms, initialize 15.0 ms, tools/list 6.9 ms)`.
pub(crate) fn phases(timings: &Value) -> String {
    let mut parts = Vec::new();
    for (key, label) in [
        ("spawnMs", "spawn"),
        ("initializeMs", "initialize"),
        ("listMs", "tools/list"),
    ] {
        if let Some(ms) = timings[key].as_f64() {
            parts.push(format!("{label} {}", table::millis(ms)));
        }
    }
    let total = timings["startupMs"]
        .as_f64()
        .map(table::millis)
        .unwrap_or_else(|| "?".into());
    if parts.is_empty() {
        format!("after {total}")
    } else {
        format!("after {total} ({})", parts.join(", "))
    }
}
