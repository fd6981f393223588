//! The commands for people, end to end: the real binary runs `list`, `call`, `test` and `inspect`
//! against fixture servers from config files, and each test checks the human report, the JSON
//! document and the exit status. (Progress on a terminal and signals: `cli_terminal`.)

#![allow(clippy::disallowed_methods)] // the tests run the binary under test

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use serde_json::{json, Value};

use crate::support::{fixture_bin, sidecar_bin, temp_dir, WAIT};

/// What one run of the binary gave.
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {}", self.stdout))
    }
}

/// Runs `mcp-sidecar ARGS` with stdin from `input`, and waits (bounded) for it to exit.
pub(crate) fn run_with_input(args: &[&str], input: &str) -> Run {
    let mut child = Command::new(sidecar_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp-sidecar");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = rx
        .recv_timeout(WAIT * 2)
        .unwrap_or_else(|_| panic!("mcp-sidecar {args:?} did not exit"))
        .unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

pub(crate) fn run(args: &[&str]) -> Run {
    run_with_input(args, "")
}

/// A Claude Desktop file of `servers` in a fresh directory.
pub(crate) fn config_file(tag: &str, servers: Value) -> PathBuf {
    document_file(tag, json!({ "mcpServers": servers }))
}

/// A config file holding `doc` (any dialect) in a fresh directory.
pub(crate) fn document_file(tag: &str, doc: Value) -> PathBuf {
    let path = temp_dir(tag).join("servers.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

pub(crate) fn fixture_with(args: &[&str]) -> Value {
    json!({"command": fixture_bin(), "args": args})
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn two_servers() -> PathBuf {
    config_file(
        "cli-two",
        json!({"alpha": fixture_with(&["--name", "alpha"]), "beta": fixture_with(&["--name", "beta", "--protocol-version", "2025-06-18"])}),
    )
}

#[test]
fn list_shows_each_servers_state_statistics_and_tools() {
    let file = two_servers();
    let r = run(&["list", "--config", path(&file)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let header = r.stdout.lines().next().unwrap();
    for column in ["SERVER", "STATE", "TOOLS", "STARTUP", "IN", "OUT", "UPTIME"] {
        assert!(header.contains(column), "{header}");
    }
    // A fresh run has made no calls and had no restarts: those columns would be empty.
    for column in ["CALLS", "ERRORS", "P50", "P99", "RESTARTS"] {
        assert!(!header.contains(column), "{header}");
    }
    let alpha = r.stdout.lines().find(|l| l.starts_with("alpha ")).unwrap();
    assert!(alpha.contains("ready") && alpha.contains(" 7 "), "{alpha}");
    assert!(
        r.stdout
            .contains("alpha: alpha 1.0.0 (MCP 2025-11-25), 7 tools"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("beta: beta 1.0.0 (MCP 2025-06-18), 7 tools"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .lines()
            .any(|l| l.trim_start().starts_with("echo")
                && l.contains("Returns the message unchanged")),
        "{}",
        r.stdout
    );
    // stderr is a pipe here: no progress lines, and nothing logged below `error`.
    assert_eq!(r.stderr, "");
}

#[test]
fn list_json_carries_statuses_with_their_statistics() {
    let file = two_servers();
    let doc = run(&["list", "--config", path(&file), "--json"]).json();
    let servers = doc["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 2);
    for s in servers {
        assert_eq!(s["state"], "ready", "{s}");
        let stats = &s["stats"];
        // The handshake and the tool list crossed both ways, and the start's phases are known.
        assert!(stats["bytesIn"].as_u64().unwrap() > 1000, "{stats}");
        assert!(stats["bytesOut"].as_u64().unwrap() > 100, "{stats}");
        for phase in ["spawnMs", "initializeMs", "listMs", "totalMs"] {
            assert!(
                stats["startup"][phase].as_f64().is_some(),
                "{phase}: {stats}"
            );
        }
        assert_eq!(stats["total"]["calls"], 0);
        assert_eq!(stats["recent"]["windowSeconds"], 300);
    }
    let tools = doc["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 14);
    // `openai` by default, as `inspect` and `call`: one default format for every command.
    assert!(
        tools[0]["definition"]["function"]["parameters"].is_object(),
        "{}",
        tools[0]
    );
    let doc = run(&["list", "--config", path(&file), "--json", "--format", "mcp"]).json();
    assert!(
        doc["tools"][0]["definition"]["inputSchema"].is_object(),
        "{doc}"
    );
    assert_eq!(doc["diagnostics"], json!([]));
}

#[test]
fn servers_are_selected_by_name_after_the_command_or_with_server() {
    let file = two_servers();
    for args in [
        vec!["list", "beta", "--config", path(&file), "--json"],
        vec![
            "list",
            "--server",
            "beta",
            "--config",
            path(&file),
            "--json",
        ],
    ] {
        let doc = run(&args).json();
        let names: Vec<&str> = doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["beta"], "{args:?}");
    }
    let r = run(&["list", "alhpa", "--config", path(&file)]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("no server named `alhpa` in the configuration (did you mean `alpha`?)"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_server_that_does_not_start_exits_1_with_its_reason_and_stderr() {
    let file = config_file(
        "cli-fail",
        json!({"ok": fixture_with(&[]), "dies": fixture_with(&["--exit-on-start", "3"])}),
    );
    let r = run(&["list", "--config", path(&file)]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("dies: not started:"), "{}", r.stdout);
    assert!(
        r.stdout.contains("stderr | fatal: exiting on start"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("ok: "), "{}", r.stdout);
}

#[test]
fn usage_and_configuration_errors_have_their_own_statuses() {
    // No configuration at all (none given, none in a scratch home), an unknown flag: usage (2).
    let nowhere = temp_dir("cli-nowhere");
    let r = crate::cli_usability::run_in(&["list"], &nowhere, &nowhere);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--config FILE"), "{}", r.stderr);
    assert_eq!(run(&["list", "--no-such-flag"]).code, 2);
    // A file that is not JSON: configuration invalid (3), with line and column.
    let broken = temp_dir("cli-broken").join("servers.json");
    std::fs::write(&broken, "{\"mcpServers\": {\"a\": }").unwrap();
    let r = run(&["list", "--config", path(&broken)]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("config error: ") && r.stdout.contains(":1:"),
        "{}",
        r.stdout
    );
    // One rejected entry next to a good one: the good one runs, the status says invalid.
    let typo = config_file(
        "cli-typo",
        json!({"ok": fixture_with(&[]), "typo": {"comand": "x"}}),
    );
    let r = run(&["test", "--config", path(&typo)]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("unknown field `comand` (did you mean `command`?)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.lines().any(|l| l.starts_with("ok    ok")),
        "{}",
        r.stdout
    );
}

#[test]
fn call_prints_the_converted_result_with_arguments_typed_by_the_schema() {
    let file = config_file("cli-call", json!({"fx": fixture_with(&[])}));
    let f = path(&file);
    // `ms` is an integer in the tool's schema: "5" is sent as 5 (as a string the call would fail).
    let r = run(&["call", "fx", "sleep", "--arg", "ms=5", "--config", f]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "slept 5 ms\n"),
        "{}",
        r.stderr
    );
    // `message` is a string: "123" stays text.
    let r = run(&["call", "fx", "echo", "-a", "message=123", "--config", f]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "123\n"), "{}", r.stderr);
    // The arguments as one JSON object, from the command line or from stdin.
    let r = run(&[
        "call",
        "fx",
        "echo",
        "--json",
        r#"{"message": "as json"}"#,
        "--config",
        f,
    ]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "as json\n"),
        "{}",
        r.stderr
    );
    let r = run_with_input(
        &["call", "fx", "echo", "--json", "-", "--config", f],
        r#"{"message": "from stdin"}"#,
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "from stdin\n"),
        "{}",
        r.stderr
    );
    // Another provider's shape.
    let r = run(&[
        "call",
        "fx",
        "echo",
        "-a",
        "message=hi",
        "--format",
        "anthropic",
        "--config",
        f,
    ]);
    assert_eq!(
        serde_json::from_str::<Value>(&r.stdout).unwrap(),
        json!([{"type": "text", "text": "hi"}])
    );
}

#[test]
fn call_shows_the_raw_result_and_the_whole_result_for_scripts() {
    let file = config_file("cli-call-raw", json!({"fx": fixture_with(&[])}));
    let f = path(&file);
    // The tool reports an error: printed, and the status is 5.
    let r = run(&["call", "fx", "fail", "--raw", "--config", f]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    let (converted, raw) = r.stdout.split_once("\n--- raw MCP result ---\n").unwrap();
    assert_eq!(converted, "fixture failure\n");
    assert_eq!(
        serde_json::from_str::<Value>(raw).unwrap(),
        json!({"content": [{"type": "text", "text": "fixture failure"}], "isError": true})
    );
    // A bare --json: the whole call result, as tools/call gives it.
    let r = run(&[
        "call",
        "fx",
        "echo",
        "--args",
        r#"{"message": "hi"}"#,
        "--json",
        "--raw",
        "--config",
        f,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = r.json();
    assert_eq!(
        (
            doc["isError"].clone(),
            doc["text"].clone(),
            doc["output"].clone()
        ),
        (json!(false), json!("hi"), json!("hi"))
    );
    assert_eq!(
        (doc["server"].clone(), doc["tool"].clone()),
        (json!("fx"), json!("echo"))
    );
    assert!(doc["durationMs"].as_f64().is_some());
    assert_eq!(
        doc["raw"]["structuredContent"],
        json!({"message": "hi", "length": 2})
    );
}

#[test]
fn call_failures_exit_with_their_own_status_and_say_why() {
    let file = config_file("cli-call-fail", json!({"fx": fixture_with(&[])}));
    let f = path(&file);
    // Unknown tool (4), with the nearest name.
    let r = run(&["call", "fx", "ehco", "--config", f]);
    assert_eq!(r.code, 4);
    assert!(
        r.stderr
            .contains("server `fx` has no tool `ehco` (did you mean `echo`?)"),
        "{}",
        r.stderr
    );
    // A value that does not fit the schema's type: a usage error (2), nothing called.
    let r = run(&["call", "fx", "sleep", "--arg", "ms=soon", "--config", f]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("the tool's schema wants an integer for `ms`"),
        "{}",
        r.stderr
    );
    // Arguments the server's schema rejects (4), each violation listed.
    let r = run(&[
        "call",
        "fx",
        "sleep",
        "--json",
        r#"{"ms": -1}"#,
        "--config",
        f,
    ]);
    assert_eq!(r.code, 4);
    assert!(
        r.stderr.contains("INVALID_ARGUMENTS")
            && r.stderr.contains("/ms: -1 is less than the minimum of 0"),
        "{}",
        r.stderr
    );
    // A timeout (4), and with --json the error object on stdout.
    let r = run(&[
        "call",
        "fx",
        "sleep",
        "-a",
        "ms=60000",
        "--timeout",
        "0.2",
        "--json",
        "--config",
        f,
    ]);
    assert_eq!(r.code, 4);
    assert_eq!(r.json()["error"]["data"]["code"], "TOOL_TIMEOUT");
    // A server the file does not define (3).
    let r = run(&["call", "fz", "echo", "--config", f]);
    assert_eq!(r.code, 3);
    assert!(r.stderr.contains("did you mean `fx`"), "{}", r.stderr);
}

#[test]
fn test_tries_each_server_and_exits_1_when_one_fails() {
    let file = config_file(
        "cli-test",
        json!({"good": fixture_with(&[]), "bad": fixture_with(&["--exit-on-start", "3"])}),
    );
    let r = run(&["test", "--config", path(&file)]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let good = r.stdout.lines().find(|l| l.contains("good")).unwrap();
    assert!(
        good.starts_with("ok") && good.contains("7 tools, MCP 2025-11-25"),
        "{good}"
    );
    assert!(
        good.contains("spawn") && good.contains("initialize") && good.contains("tools/list"),
        "{good}"
    );
    assert!(
        r.stdout.lines().any(|l| l.starts_with("FAIL  bad")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("stderr | fatal: exiting on start"),
        "{}",
        r.stdout
    );
    let doc = run(&["test", "good", "--config", path(&file), "--json"]).json();
    let report = &doc["servers"][0];
    assert_eq!(
        (report["name"].clone(), report["state"].clone()),
        (json!("good"), json!("ready"))
    );
    for phase in ["startupMs", "spawnMs", "initializeMs", "listMs"] {
        assert!(report["timings"][phase].as_f64().is_some(), "{report}");
    }
}

#[test]
fn inspect_file_works_as_it_always_has() {
    let file = two_servers();
    let r = run(&["inspect", path(&file)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("SERVER           STATE"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("14 tools (openai format), fingerprint sha256:"),
        "{}",
        r.stdout
    );
    let doc = run(&["inspect", path(&file), "--json", "--format", "gemini"]).json();
    assert_eq!(doc["tools"].as_array().unwrap().len(), 14);
    assert!(doc["tools"][0]["definition"]["name"].is_string());
    // The same with --config, and one server only.
    let doc = run(&[
        "inspect",
        "--config",
        path(&file),
        "--server",
        "alpha",
        "--json",
    ])
    .json();
    assert_eq!(doc["servers"].as_array().unwrap().len(), 1);
    let failing = config_file(
        "cli-inspect-fail",
        json!({"dies": fixture_with(&["--exit-on-start", "3"])}),
    );
    assert_eq!(run(&["inspect", path(&failing)]).code, 1);
}
