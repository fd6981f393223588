//! `mcp-sidecar doctor`: try each selected server (as `servers/test` does, all at once), then
//! explain each one that fails — and each one that starts slowly — from the evidence the trial
//! left: its error's code and data, its stderr, the time of each phase, and for a program that
//! could not be spawned, where it was looked for. Exits 1 when a server cannot start.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::command::{self, Resolution};
use super::diagnose::diagnose;
use super::finding::{finding, CommandFacts, Evidence, Finding, Severity};
use super::render::{self, Verdict};
use crate::cli::exit::Exit;
use crate::cli::output::{pretty, stdout, usage, Paint};
use crate::cli::progress::Progress;
use crate::cli::run::{self, Context};
use crate::cli::selection::{select, Selection, Withheld};
use crate::config::dialects::Candidate;
use crate::config::expand::process_env;
use crate::config::{extras, ServerSpec};
use crate::convert::ToolFormat;
use crate::error::Result;
use crate::trust::secrets::Secrets;

pub(crate) struct DoctorArgs {
    pub servers: Vec<String>,
    pub json: bool,
    /// A start slower than this is reported (`--slow`).
    pub slow: Duration,
}

pub(crate) async fn run(context: &Context, args: DoctorArgs) -> Exit {
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
    let mut verdicts = Vec::new();
    for (c, report) in selection.servers.iter().zip(&reports) {
        verdicts.push(verdict(c, report, &selection, args.slow).await);
    }
    verdicts.extend(rejected_entries(&selection, args.slow));
    verdicts.extend(selection.withheld.iter().map(withheld_entry));
    let mut exit = selection.exit();
    if verdicts.iter().any(|v| v.worst() == Some(Severity::Error)) {
        exit = exit.and(Exit::ServerFailed);
    }
    if args.json {
        let doc = render::json_document(&verdicts, &selection.unknown);
        stdout(&format!("{}\n", pretty(&doc)));
    } else {
        stdout(&render::human(
            &verdicts,
            &selection.unknown,
            Paint::for_stdout(),
        ));
    }
    exit
}

/// The findings about one server that had a trial start (or whose config was refused at it).
async fn verdict(
    c: &Candidate,
    report: &Result<Value>,
    selection: &Selection,
    slow: Duration,
) -> Verdict {
    let parsed = parse(c);
    let (report, rejected) = match report {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e.message.as_str())),
    };
    let command = match (&parsed, report) {
        (Some((spec, _)), Some(r)) if spawn_failed(r) && spec.remote.is_none() => {
            Some(lookup(spec).await)
        }
        _ => None,
    };
    let timeout = parsed
        .as_ref()
        .map_or(crate::limits::DEFAULT_STARTUP_TIMEOUT, |(s, _)| {
            s.startup_timeout
        });
    let command_line = parsed
        .as_ref()
        .map(|(s, _)| s.display_command())
        .unwrap_or_default();
    let evidence = Evidence {
        report,
        rejected,
        diagnostics: selection.diagnostics_of(&c.name).collect(),
        unpinned: parsed
            .as_ref()
            .and_then(|(s, _)| crate::config::package_in_command(&s.command, &s.args)),
        command: command
            .as_ref()
            .map(|(spec_path, from_config, resolution)| CommandFacts {
                program: parsed.as_ref().map_or("", |(s, _)| s.command.as_str()),
                path_var: spec_path,
                path_from_config: *from_config,
                cwd: parsed.as_ref().and_then(|(s, _)| s.cwd.as_deref()),
                resolution: resolution.clone(),
            }),
        command_line: &command_line,
        startup_timeout: timeout,
        slow,
    };
    let mut found = diagnose(&evidence);
    if let Some((_, secrets)) = &parsed {
        mask(&mut found, secrets);
    }
    Verdict {
        name: c.name.clone(),
        state: report
            .and_then(|r| r["state"].as_str())
            .unwrap_or("rejected")
            .to_owned(),
        timings: report.map(|r| r["timings"].clone()),
        tools: report.and_then(|r| r["toolsCount"].as_u64()),
        findings: found,
    }
}

/// Entries the files rejected (not loaded at all): their diagnostics are their findings.
fn rejected_entries(selection: &Selection, slow: Duration) -> Vec<Verdict> {
    let mut names: Vec<&str> = selection
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .filter_map(|d| d.server.as_deref())
        .filter(|n| !selection.servers.iter().any(|c| c.name == *n))
        .collect();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let evidence = Evidence {
                report: None,
                rejected: None,
                diagnostics: selection.diagnostics_of(name).collect(),
                command: None,
                unpinned: None,
                command_line: "",
                startup_timeout: crate::limits::DEFAULT_STARTUP_TIMEOUT,
                slow,
            };
            Verdict {
                name: name.to_owned(),
                state: "rejected".into(),
                timings: None,
                tools: None,
                findings: diagnose(&evidence),
            }
        })
        .collect()
}

/// A server of a project's file that was not approved: not tried, and how to approve it.
fn withheld_entry(w: &Withheld) -> Verdict {
    let mut f = finding(
        "not-approved",
        Severity::Warning,
        format!("not started: {} is a project's file, not approved", w.file),
    );
    f.evidence.push(format!("defined in {}", w.file));
    f.fix.push(format!(
        "run with --config {} to start the servers of that file",
        w.file
    ));
    f.fix
        .push("or run with --allow-project to start those of every project file".into());
    if w.file.ends_with(".mcp.json") && !w.file.contains("/.cursor/") {
        f.fix.push(
            "or approve it in Claude Code (its answer, kept in ~/.claude.json, is honoured)".into(),
        );
    }
    Verdict {
        name: w.name.clone(),
        state: Withheld::REASON.into(),
        timings: None,
        tools: None,
        findings: vec![f],
    }
}

/// The parsed launch config and its secrets, when the entry parses.
fn parse(c: &Candidate) -> Option<(ServerSpec, Secrets)> {
    let (rest, extras) = extras::split(&c.config).ok()?;
    let spec = ServerSpec::from_json(&rest).ok()?;
    let secrets = Secrets::for_server(&spec, &extras, &process_env);
    Some((spec, secrets))
}

fn spawn_failed(report: &Value) -> bool {
    report["state"] == "error"
        && report["error"]["data"].get("command").is_some()
        && report["timings"].get("spawnMs").is_none()
}

/// Where the program was looked for: the server's own `PATH` (whether the config set it), and
/// what was found. File-system reads, off the runtime thread.
async fn lookup(spec: &ServerSpec) -> (String, bool, Resolution) {
    let path_var = crate::process::child_env(spec)
        .into_iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v)
        .unwrap_or_default();
    let from_config = spec.env.contains_key("PATH");
    let (program, cwd): (String, Option<PathBuf>) = (spec.command.clone(), spec.cwd.clone());
    let searched = path_var.clone();
    let resolution =
        tokio::task::spawn_blocking(move || command::resolve(&program, &searched, cwd.as_deref()))
            .await
            .unwrap_or(Resolution::Missing {
                searched: Vec::new(),
                nearest: None,
            });
    (path_var, from_config, resolution)
}

/// No secret value of the server's config leaves in a finding.
fn mask(found: &mut [Finding], secrets: &Secrets) {
    for f in found {
        f.summary = secrets.mask(&f.summary);
        for line in f.evidence.iter_mut().chain(f.fix.iter_mut()) {
            *line = secrets.mask(line);
        }
    }
}
