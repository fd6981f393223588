//! `mcp-sidecar doctor`, end to end: each diagnosis provoked for real — a command that is not on
//! the server's PATH, a launcher writing junk (and a byte-order mark) to stdout, a protocol
//! revision the sidecar does not speak, a tool with an invalid schema, a start that exits, a start
//! that never finishes, a slow start in each phase, a remote server that wants credentials — each
//! checked for its evidence and its fix, in the human report and the JSON document.

use serde_json::{json, Value};

use crate::cli::{config_file, document_file, fixture_with, run};
use crate::remote::HttpFixture;
use crate::support::fixture_bin;

/// `doctor --json` over `servers`: the status and each server's entry by name.
fn doctor(tag: &str, servers: Value, extra: &[&str]) -> (i32, Value) {
    let file = config_file(tag, servers);
    let mut args = vec!["doctor", "--config", file.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let r = run(&args);
    (r.code, r.json())
}

fn server<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {doc}"))
}

fn first_finding<'a>(doc: &'a Value, name: &str) -> &'a Value {
    &server(doc, name)["findings"][0]
}

fn has_line(list: &Value, pred: impl Fn(&str) -> bool) -> bool {
    list.as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .any(pred)
}

#[test]
fn a_healthy_server_is_ok() {
    let (code, doc) = doctor("doctor-ok", json!({"fine": fixture_with(&[])}), &[]);
    assert_eq!(code, 0, "{doc}");
    let s = server(&doc, "fine");
    assert_eq!(
        (s["ok"].clone(), s["findings"].clone()),
        (json!(true), json!([]))
    );
    assert_eq!(s["toolsCount"], 7);
}

#[test]
fn a_missing_command_shows_the_path_searched_and_the_nearest_match() {
    let dir = fixture_bin().parent().unwrap().to_str().unwrap().to_owned();
    let path = format!("/nonexistent-dir:{dir}");
    let (code, doc) = doctor(
        "doctor-missing",
        json!({"typo": {"command": "mcp-fixtur", "env": {"PATH": path}}}),
        &[],
    );
    assert_eq!(code, 1, "{doc}");
    let f = first_finding(&doc, "typo");
    assert_eq!(f["kind"], "command-not-found", "{f}");
    assert_eq!(f["summary"], "command `mcp-fixtur` not found");
    let searched =
        format!("the server's PATH (from its `env.PATH`), 2 directories searched: {path}");
    assert!(has_line(&f["evidence"], |l| l == searched), "{f}");
    // A name on PATH is corrected by a name, the file it found given as evidence.
    let nearest = format!("nearest match: mcp-fixture ({})", fixture_bin().display());
    assert!(has_line(&f["evidence"], |l| l == nearest), "{f}");
    assert!(
        has_line(&f["fix"], |l| l.contains("\"command\": \"mcp-fixture\"")),
        "{f}"
    );
}

#[test]
fn junk_on_stdout_is_shown_byte_for_byte() {
    let (code, doc) = doctor(
        "doctor-junk",
        json!({
            "npx": fixture_with(&["--stdout-junk", "npm WARN exec The following package was not found and will be installed: x@1"]),
            "bom": fixture_with(&["--stdout-junk", "\u{feff}{\"jsonrpc\": \"2.0\"}"]),
        }),
        &[],
    );
    assert_eq!(code, 1, "{doc}");
    let f = first_finding(&doc, "npx");
    assert_eq!(f["kind"], "stdout-not-json", "{f}");
    assert!(
        has_line(&f["evidence"], |l| {
            l == "offending bytes: npm WARN exec The following package was not found and will be installed: x@1"
        }),
        "{f}"
    );
    assert!(
        has_line(&f["fix"], |l| l.contains("stdout for JSON-RPC")),
        "{f}"
    );
    let f = first_finding(&doc, "bom");
    assert!(
        has_line(&f["evidence"], |l| l
            .starts_with("offending bytes: \\xef\\xbb\\xbf{\"jsonrpc\"")),
        "{f}"
    );
    assert!(
        has_line(&f["evidence"], |l| l.contains("byte-order mark")),
        "{f}"
    );
}

#[test]
fn a_protocol_revision_the_sidecar_does_not_speak() {
    let (code, doc) = doctor(
        "doctor-version",
        json!({"old": fixture_with(&["--protocol-version", "1999-01-01"]), "new": fixture_with(&["--protocol-version", "2999-01-01"])}),
        &[],
    );
    assert_eq!(code, 1);
    let f = first_finding(&doc, "old");
    assert_eq!(f["kind"], "protocol-version");
    assert!(
        f["summary"].as_str().unwrap().contains("\"1999-01-01\""),
        "{f}"
    );
    assert!(
        has_line(&f["evidence"], |l| l
            .contains("2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05")),
        "{f}"
    );
    assert!(has_line(&f["fix"], |l| l.contains("older revision")), "{f}");
    assert!(has_line(&first_finding(&doc, "new")["fix"], |l| l
        .contains("newer mcp-sidecar")));
}

#[test]
fn a_tool_with_an_invalid_schema_is_named() {
    let (code, doc) = doctor(
        "doctor-schema",
        json!({"schema": fixture_with(&["--invalid-schema"])}),
        &[],
    );
    assert_eq!(code, 1);
    let f = first_finding(&doc, "schema");
    assert_eq!(f["kind"], "invalid-tool-schema");
    assert!(
        f["summary"]
            .as_str()
            .unwrap()
            .starts_with("tool `echo` has an invalid definition"),
        "{f}"
    );
    assert!(
        has_line(&f["evidence"], |l| l.contains("not-a-type")),
        "{f}"
    );
}

#[test]
fn a_server_that_exits_on_start_shows_its_last_words() {
    let (_, doc) = doctor(
        "doctor-exit",
        json!({"dies": fixture_with(&["--exit-on-start", "3"])}),
        &[],
    );
    let f = first_finding(&doc, "dies");
    assert_eq!(f["kind"], "exited-on-start");
    assert_eq!(
        f["summary"],
        "the server exited with status 3 before answering `initialize`"
    );
    assert!(
        has_line(&f["evidence"], |l| l == "stderr | fatal: exiting on start"),
        "{f}"
    );
    assert!(
        has_line(&f["fix"], |l| l.starts_with("run it by hand")),
        "{f}"
    );
}

#[test]
fn a_start_that_never_finishes_names_the_phase_it_was_in() {
    // The server answers `initialize` and then nothing: the listing runs out of time. (An epoch
    // file: its `connect_timeout` is the startup timeout.)
    let config =
        json!({"command": fixture_bin(), "args": ["--hang-after-init"], "connect_timeout": 0.5});
    let file = document_file("doctor-timeout", json!({"servers": {"hangs": config}}));
    let r = run(&["doctor", "--config", file.to_str().unwrap(), "--json"]);
    let (code, doc) = (r.code, r.json());
    assert_eq!(code, 1);
    let f = first_finding(&doc, "hangs");
    assert_eq!(f["kind"], "start-timeout");
    assert_eq!(
        f["summary"],
        "the server took longer than startupTimeoutSeconds (0.5 s) to list its tools (`tools/list`)"
    );
    assert!(
        has_line(&f["fix"], |l| l.contains("raise `startupTimeoutSeconds`")),
        "{f}"
    );
}

#[test]
fn a_slow_start_says_where_the_time_went() {
    let (code, doc) = doctor(
        "doctor-slow",
        json!({
            "slow-init": fixture_with(&["--slow-start", "600"]),
            "slow-list": fixture_with(&["--slow-list", "600"]),
        }),
        &["--slow", "0.3"],
    );
    // Slow is a warning: every server serves.
    assert_eq!(code, 0, "{doc}");
    let f = first_finding(&doc, "slow-init");
    assert_eq!(
        (f["kind"].clone(), f["severity"].clone()),
        (json!("slow-start"), json!("warning"))
    );
    assert!(
        f["summary"].as_str().unwrap().ends_with("in initialize)"),
        "{f}"
    );
    assert!(
        has_line(&f["evidence"], |l| l.starts_with("timings: after")
            && l.contains("initialize")),
        "{f}"
    );
    assert!(
        server(&doc, "slow-init")["timings"]["initializeMs"]
            .as_f64()
            .unwrap()
            >= 600.0
    );
    let f = first_finding(&doc, "slow-list");
    assert!(
        f["summary"].as_str().unwrap().ends_with("in tools/list)"),
        "{f}"
    );
}

#[test]
fn a_remote_server_that_wants_credentials() {
    let fx = HttpFixture::start(&["--require-header", "authorization=Bearer right"]);
    let (code, doc) = doctor(
        "doctor-login",
        json!({"remote": {"type": "http", "url": format!("{}/mcp", fx.base)}}),
        &[],
    );
    assert_eq!(code, 1);
    let f = first_finding(&doc, "remote");
    assert_eq!(f["kind"], "needs-login", "{f}");
    assert!(f["summary"].as_str().unwrap().contains("HTTP 401"), "{f}");
    assert!(has_line(&f["fix"], |l| l.contains("Authorization")), "{f}");
}

#[test]
fn the_human_report_gives_a_verdict_per_server_then_evidence_and_fixes() {
    let file = config_file(
        "doctor-human",
        json!({"fine": fixture_with(&[]), "dies": fixture_with(&["--exit-on-start", "3"]), "typo": {"comand": "x"}}),
    );
    let r = run(&["doctor", "--config", file.to_str().unwrap()]);
    // A rejected entry makes the configuration invalid, which wins over the failed server.
    assert_eq!(r.code, 3, "{}", r.stdout);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ok    fine") && l.contains("ready, 7 tools")),
        "{}",
        r.stdout
    );
    let dies = lines
        .iter()
        .position(|l| l.starts_with("FAIL  dies"))
        .unwrap();
    assert!(lines[dies + 1..]
        .iter()
        .take_while(|l| l.starts_with(' '))
        .any(|l| l.trim() == "stderr | fatal: exiting on start"));
    assert!(lines[dies + 1..]
        .iter()
        .take_while(|l| l.starts_with(' '))
        .any(|l| l.trim().starts_with("fix: run it by hand")));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("FAIL  typo") && l.contains("did you mean `command`")),
        "{}",
        r.stdout
    );
}

#[test]
fn a_timed_out_start_shows_its_limit_and_not_the_broken_pipe_its_stop_caused() {
    // A server that says one thing, never answers, and writes Node's EPIPE trace once the sidecar
    // closes its stdin (as a Node server writing to a closed pipe does).
    let script = "echo 'connecting to the database' >&2; cat >/dev/null; \
                  printf 'node:events:497\\n      throw er;\\n\\nError: write EPIPE\\n    at afterWriteDispatched\\n' >&2";
    let (code, doc) = doctor(
        "doctor-epipe",
        json!({"stuck": {"command": "sh", "args": ["-c", script], "startupTimeoutSeconds": 1}}),
        &[],
    );
    assert_eq!(code, 1, "{doc}");
    let f = first_finding(&doc, "stuck");
    assert_eq!(f["kind"], "start-timeout", "{f}");
    assert!(
        has_line(&f["evidence"], |l| l
            == "stderr | connecting to the database"),
        "{f}"
    );
    assert!(
        !has_line(&f["evidence"], |l| l.contains("EPIPE")
            && !l.contains("left out")),
        "{f}"
    );
    assert!(
        !has_line(&f["evidence"], |l| l.contains("node:events")),
        "{f}"
    );
    // The limit as configured; the stop that followed, apart.
    assert!(
        has_line(&f["evidence"], |l| l
            .starts_with("timings: stopped at startupTimeoutSeconds (1 s)")
            && l.contains("(the stop grace)")),
        "{f}"
    );
}
