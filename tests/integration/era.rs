//! Protocol eras downstream (`protocolVersion`: `auto`, `legacy`, a pinned revision), against real
//! servers: the TypeScript SDK v2 server (`tests/remote/era-server.mjs`) modern-only and in both
//! eras, over stdio and Streamable HTTP, and the fixture as an rmcp-style server that exits on any
//! request before `initialize`. The host sees the same methods whichever era; the status says
//! which one was agreed.

#![allow(clippy::disallowed_methods)] // the tests spawn the servers under test

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use crate::remote_servers::node22;
use crate::support::{self, Sidecar};

fn era_server() -> PathBuf {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/remote/era-server.mjs");
    assert!(script.exists(), "{} is missing", script.display());
    script
}

/// A stdio config running the SDK server in `mode` (`modern` or `both`).
fn sdk_stdio(mode: &str, protocol: &str) -> Value {
    json!({"command": node22(), "args": [era_server(), "stdio", mode], "protocolVersion": protocol})
}

/// The SDK server over Streamable HTTP, killed on drop; its URL.
struct HttpServer(Child, String);

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn sdk_http(mode: &str) -> HttpServer {
    let mut child = Command::new(node22())
        .arg(era_server())
        .args(["http", mode])
        .current_dir(era_server().parent().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the SDK server");
    // The server says where it listens once it does: no polling.
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("read the server's port");
    let port = line
        .trim()
        .strip_prefix("listening ")
        .expect(&line)
        .to_owned();
    HttpServer(child, format!("http://127.0.0.1:{port}/mcp"))
}

/// Adds `config` as server `s`, calls its `echo` and `whoami`; the status and what `whoami` said.
fn ready_and_calling(s: &mut Sidecar, config: Value) -> (Value, String) {
    let status = s.add("s", config);
    assert_eq!(status["state"], "ready", "{status}");
    let echoed = s.call(
        "tools/call",
        json!({"name": "mcp__s__echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(echoed["text"], "echo: hi", "{echoed}");
    let whoami = s.call(
        "tools/call",
        json!({"name": "mcp__s__whoami", "arguments": {}}),
    );
    (
        status,
        whoami["text"].as_str().unwrap_or_default().to_owned(),
    )
}

fn assert_modern(status: &Value, whoami: &str) {
    assert_eq!(status["protocolVersion"], "2026-07-28", "{status}");
    assert_eq!(status["era"], "modern", "{status}");
    assert_eq!(whoami, "era: modern");
}

fn assert_legacy(status: &Value, whoami: &str) {
    assert_eq!(status["protocolVersion"], "2025-11-25", "{status}");
    assert_eq!(status["era"], "legacy", "{status}");
    assert_eq!(whoami, "era: legacy");
}

#[test]
fn a_modern_only_sdk_server_over_stdio_in_auto_and_pinned() {
    let mut s = Sidecar::initialized(json!({}));
    // auto: `initialize` first, refused with -32022 naming 2026-07-28, then server/discover on the
    // same process.
    let (status, whoami) = ready_and_calling(&mut s, sdk_stdio("modern", "auto"));
    assert_modern(&status, &whoami);
    assert_eq!(status["restarts"], 0, "{status}");
    s.call("servers/remove", json!({"name": "s"}));
    let (status, whoami) = ready_and_calling(&mut s, sdk_stdio("modern", "2026-07-28"));
    assert_modern(&status, &whoami);
    s.call("servers/remove", json!({"name": "s"}));
    // Pinned to the legacy era, it cannot start: the server's refusal is the error.
    let status = s.add("s", with_restart_never(sdk_stdio("modern", "legacy")));
    assert_ne!(status["state"], "ready", "{status}");
    assert_eq!(
        status["lastError"]["data"]["upstreamCode"], -32022,
        "{status}"
    );
}

fn with_restart_never(config: Value) -> Value {
    support::with_fields(config, json!({"restart": "never"}))
}

#[test]
fn a_both_eras_sdk_server_over_stdio_speaks_the_era_it_is_asked_for() {
    let mut s = Sidecar::initialized(json!({}));
    // auto on stdio never probes first: a server that speaks both is spoken to in the legacy era.
    let (status, whoami) = ready_and_calling(&mut s, sdk_stdio("both", "auto"));
    assert_legacy(&status, &whoami);
    s.call("servers/remove", json!({"name": "s"}));
    let (status, whoami) = ready_and_calling(&mut s, sdk_stdio("both", "2026-07-28"));
    assert_modern(&status, &whoami);
}

#[test]
fn sdk_servers_over_streamable_http_in_auto_and_pinned() {
    let mut s = Sidecar::initialized(json!({}));
    let modern = sdk_http("modern");
    let http = |url: &str, protocol: &str| json!({"type": "http", "url": url, "protocolVersion": protocol});
    // auto over HTTP: server/discover first.
    let (status, whoami) = ready_and_calling(&mut s, http(&modern.1, "auto"));
    assert_modern(&status, &whoami);
    s.call("servers/remove", json!({"name": "s"}));
    let both = sdk_http("both");
    let (status, whoami) = ready_and_calling(&mut s, http(&both.1, "auto"));
    assert_modern(&status, &whoami);
    s.call("servers/remove", json!({"name": "s"}));
    let (status, whoami) = ready_and_calling(&mut s, http(&both.1, "legacy"));
    assert_legacy(&status, &whoami);
    s.call("servers/remove", json!({"name": "s"}));
    let (status, whoami) = ready_and_calling(&mut s, http(&both.1, "2025-11-25"));
    assert_legacy(&status, &whoami);
}

/// An rmcp-style server exits on any request before `initialize`: in `auto` it comes up at the
/// first attempt (it is never probed), while a pin to 2026-07-28 shows what a probe would do to it.
#[test]
fn a_server_that_exits_on_an_early_request_comes_up_in_auto_without_a_restart() {
    let mut s = Sidecar::initialized(json!({}));
    let config = support::fixture(&["--exit-before-initialize"]);
    let status = s.add("s", config.clone());
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(
        (status["era"].as_str(), status["restarts"].as_u64()),
        (Some("legacy"), Some(0)),
        "{status}"
    );
    assert_eq!(status["generation"], 1, "{status}");
    let pinned = support::with_fields(
        config,
        json!({"protocolVersion": "2026-07-28", "restart": "never"}),
    );
    let status = s.add("p", pinned);
    assert_ne!(status["state"], "ready", "{status}");
    assert!(
        status["stderrTail"]
            .as_str()
            .unwrap_or_default()
            .contains("before initialize"),
        "{status}"
    );
}

/// The era verdict is kept per launch config: the second sidecar with the same cache directory
/// goes straight to `server/discover` for a modern-only server (no refused `initialize`).
#[test]
fn the_era_verdict_is_kept_and_skips_the_negotiation_next_time() {
    let cache = support::temp_dir("era-verdicts");
    let args = ["--cache-dir", cache.to_str().unwrap()];
    let config = support::fixture(&["--modern"]);
    let first = {
        let mut s = Sidecar::initialized_with(&args, json!({}));
        let status = s.add("m", config.clone());
        assert_eq!(
            (status["state"].as_str(), status["era"].as_str()),
            (Some("ready"), Some("modern")),
            "{status}"
        );
        // The verdict is written off the start's path: wait for it while this sidecar runs (one
        // that exits first may never write it).
        support::eventually("the modern verdict is kept", || {
            std::fs::read_dir(&cache)
                .unwrap()
                .filter_map(|e| e.ok())
                .any(|e| e.file_name().to_string_lossy().ends_with(".era.json"))
        });
        s.server_status("m")["stderrTail"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        first.contains("era: initialize refused") && first.contains("era: server/discover"),
        "{first}"
    );
    let verdicts: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".era.json"))
        .collect();
    assert_eq!(verdicts.len(), 1, "one verdict file in {}", cache.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            verdicts[0].metadata().unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let mut s = Sidecar::initialized_with(&args, json!({}));
    let status = s.add("m", config);
    assert_eq!(
        (status["state"].as_str(), status["era"].as_str()),
        (Some("ready"), Some("modern")),
        "{status}"
    );
    let second = s.server_status("m")["stderrTail"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        !second.contains("initialize") && second.contains("era: server/discover"),
        "{second}"
    );
}

/// A kept verdict only orders the handshakes: a server that is no longer of the era its verdict
/// names (another server now at the same URL, an upgrade) still comes up in the same start, in
/// its own era, with no failed start and no restart.
#[test]
fn a_stale_era_verdict_never_fails_a_start() {
    let cache = support::temp_dir("era-verdict-stale");
    let args = ["--cache-dir", cache.to_str().unwrap()];
    let config = support::fixture(&[]);
    let verdict_file = || {
        std::fs::read_dir(&cache)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(".era.json"))
    };
    {
        let mut s = Sidecar::initialized_with(&args, json!({}));
        let status = s.add("l", config.clone());
        assert_eq!(status["era"], "legacy", "{status}");
        // Written off the start's path: wait while this sidecar still runs.
        support::eventually("the legacy verdict is kept", || verdict_file().is_some());
    }
    let path = verdict_file().unwrap();
    let mut verdict: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(verdict["era"], "legacy", "{verdict}");
    verdict["era"] = json!("modern");
    verdict["version"] = json!("2026-07-28");
    std::fs::write(&path, verdict.to_string()).unwrap();

    let mut s = Sidecar::initialized_with(&args, json!({}));
    let status = s.add("l", config);
    assert_eq!(
        (
            status["state"].as_str(),
            status["era"].as_str(),
            status["generation"].as_u64(),
            status["restarts"].as_u64()
        ),
        (Some("ready"), Some("legacy"), Some(1), Some(0)),
        "{status}"
    );
}

/// MRTR: a 2026-07-28 server's `input_required` becomes the host's own `elicitation/create`
/// (the same request a legacy server's question would be), the answer goes back in a retry with
/// the `requestState` unchanged; a server that never stops asking is cut off after the round cap.
#[test]
fn input_required_is_asked_of_the_host_and_its_rounds_are_bounded() {
    let mut s = Sidecar::initialized(json!({"capabilities": {"elicitation": {"form": {}}}}));
    let pinned = json!({"protocolVersion": "2026-07-28"});
    let asking = support::with_fields(
        support::fixture(&["--modern", "--extra-tool", "ask_input"]),
        pinned.clone(),
    );
    assert_eq!(s.add("m", asking)["state"], "ready");
    let call = s.send(
        "tools/call",
        json!({"name": "mcp__m__ask_input", "arguments": {"message": "x"}}),
    );
    let request = s.wait_for(|m| m["method"] == "elicitation/create" && m.get("id").is_some());
    assert_eq!(
        (
            request["params"]["server"].as_str(),
            request["params"]["message"].as_str()
        ),
        (Some("m"), Some("Who is asking?")),
        "{request}"
    );
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"name": "ada"}}});
    s.write_raw(format!("{answer}\n").as_bytes());
    let result = s.response(call);
    assert_eq!(result["result"]["text"], "hello ada", "{result}");

    let looping = support::with_fields(
        support::fixture(&["--modern", "--extra-tool", "input_forever"]),
        pinned,
    );
    assert_eq!(s.add("f", looping)["state"], "ready");
    let (code, error) = s.error_of(
        "tools/call",
        json!({"name": "mcp__f__input_forever", "arguments": {"message": "x"}}),
    );
    assert_eq!(code, "PROTOCOL_ERROR", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("INPUT_REQUIRED_MAX_ROUNDS"),
        "{error}"
    );
    let tail = s.server_status("f")["stderrTail"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // The first request and ten retries, then no more.
    assert_eq!(
        tail.matches("input_forever asked again").count(),
        11,
        "{tail}"
    );
}
