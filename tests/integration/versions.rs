//! Downstream MCP handshake outcomes: every supported protocol revision, and each way a server can
//! fail to start (the add answers with `state: "error"` and a `lastError`, not a JSON-RPC error).

use std::cell::RefCell;

use serde_json::{json, Value};

use crate::support::{eventually, fixture, pid_alive, read_pid_file, temp_dir, Sidecar};

/// Adds a server that must fail to start; returns its status after checking the common shape.
fn failed_start(s: &mut Sidecar, name: &str, config: Value) -> Value {
    let status = s.add(name, config);
    assert_eq!(status["state"], "error", "{status}");
    assert!(
        status.get("pid").is_none(),
        "a failed server has no pid: {status}"
    );
    assert_eq!(status["toolsCount"], 0, "{status}");
    assert!(status["lastError"]["message"].is_string(), "{status}");
    let listing = s.call("tools/list", json!({}));
    let leaked = listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["server"] == name);
    assert!(!leaked, "a failed server exposes tools: {listing}");
    let list = s.call("servers/list", json!({}));
    let listed = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == name)
        .cloned();
    assert_eq!(
        listed.map(|x| x["state"].clone()),
        Some(json!("error")),
        "{list}"
    );
    status
}

fn error_code(status: &Value) -> &str {
    status["lastError"]["data"]["code"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn every_supported_protocol_version_is_accepted() {
    let mut s = Sidecar::initialized(json!({}));
    for (i, version) in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
        .into_iter()
        .enumerate()
    {
        let status = s.add(&format!("v{i}"), fixture(&["--protocol-version", version]));
        assert_eq!(status["state"], "ready", "{version}: {status}");
        assert_eq!(status["protocolVersion"], version, "{status}");
        assert_eq!(status["toolsCount"], 7, "{status}");
    }
    assert_eq!(
        s.call("tools/list", json!({}))["tools"]
            .as_array()
            .unwrap()
            .len(),
        28
    );
}

#[test]
fn unsupported_protocol_version_fails_the_start_and_stops_the_process() {
    let mut s = Sidecar::initialized(json!({}));
    let pid_file = temp_dir("version").join("pid.json");
    let args = [
        "--protocol-version",
        "1999-01-01",
        "--pid-file",
        pid_file.to_str().unwrap(),
    ];
    let status = failed_start(&mut s, "old", fixture(&args));
    assert_eq!(error_code(&status), "VERSION_UNSUPPORTED", "{status}");
    assert_eq!(
        status["lastError"]["data"]["protocolVersion"], "1999-01-01",
        "{status}"
    );
    let pid = read_pid_file(&pid_file)["pid"].as_u64().unwrap() as u32;
    assert!(
        !pid_alive(pid),
        "the rejected server (pid {pid}) is still running"
    );
}

#[test]
fn server_without_tools_capability_is_ready_with_no_tools() {
    let mut s = Sidecar::initialized(json!({}));
    let status = s.add("bare", fixture(&["--no-tools-capability"]));
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["toolsCount"], 0, "{status}");
    assert_eq!(s.call("tools/list", json!({}))["tools"], json!([]));
}

#[test]
fn invalid_initialize_result_is_a_protocol_error() {
    let mut s = Sidecar::initialized(json!({}));
    let status = failed_start(&mut s, "bad", fixture(&["--invalid-initialize"]));
    assert_eq!(error_code(&status), "PROTOCOL_ERROR", "{status}");
    assert!(
        status["lastError"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize"),
        "{status}"
    );
}

#[test]
fn one_invalid_tool_schema_rejects_every_tool_of_the_server() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("good", fixture(&[]));
    let status = failed_start(&mut s, "bad", fixture(&["--invalid-schema"]));
    assert_eq!(error_code(&status), "PROTOCOL_ERROR", "{status}");
    assert_eq!(status["lastError"]["data"]["tool"], "echo", "{status}");
    assert!(
        status["lastError"]["message"]
            .as_str()
            .unwrap()
            .contains("`echo`"),
        "{status}"
    );
    let listing = s.call("tools/list", json!({}));
    let servers: Vec<&str> = listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["server"].as_str().unwrap())
        .collect();
    assert_eq!(servers.len(), 7, "{listing}");
    assert!(
        servers.iter().all(|s| *s == "good"),
        "a tool of the rejected server is exposed: {servers:?}"
    );
}

#[test]
fn exit_on_start_reports_stderr_tail_and_exit_code() {
    let mut s = Sidecar::initialized(json!({}));
    let status = failed_start(&mut s, "dies", fixture(&["--exit-on-start", "7"]));
    assert_eq!(status["lastExit"]["code"], 7, "{status}");
    assert_eq!(status["lastError"]["data"]["exit"]["code"], 7, "{status}");
    let s = RefCell::new(&mut s);
    eventually("the stderr tail in servers/list", || {
        let list = s.borrow_mut().call("servers/list", json!({}));
        list["servers"][0]["stderrTail"]
            .as_str()
            .is_some_and(|t| t.contains("fatal: exiting on start"))
    });
}

#[test]
fn failed_start_error_includes_the_last_stderr_line_written_before_exit() {
    // The process wrote its last words and exited before the add answered, so they belong in the
    // recorded error. Rounds of twenty starts at once, because one start loses the race only
    // some of the time.
    let mut s = Sidecar::initialized(json!({}));
    for round in 0..10 {
        let ids: Vec<i64> = (0..20)
            .map(|i| {
                let config = fixture(&["--exit-on-start", "7"]);
                s.send(
                    "servers/add",
                    json!({"name": format!("r{round}-{i}"), "config": config}),
                )
            })
            .collect();
        for id in ids {
            let r = s.response(id);
            let status = &r["result"];
            assert_eq!(status["state"], "error", "{r}");
            let tail = status["lastError"]["data"]["stderrTail"]
                .as_str()
                .unwrap_or_default();
            assert!(
                tail.contains("fatal: exiting on start"),
                "lastError lacks the stderr tail: {status}"
            );
        }
    }
}

#[test]
fn missing_command_reports_not_found_enoent() {
    let mut s = Sidecar::initialized(json!({}));
    let status = failed_start(
        &mut s,
        "ghost",
        json!({"command": "/nonexistent/mcp-sidecar-test-no-such-binary"}),
    );
    let message = status["lastError"]["message"].as_str().unwrap();
    assert!(
        message.contains("not found") && message.contains("ENOENT"),
        "{status}"
    );
    assert_eq!(error_code(&status), "SERVER_UNAVAILABLE", "{status}");
}

#[test]
fn startup_timeout_fails_the_start_naming_startup_timeout_seconds() {
    let mut s = Sidecar::initialized(json!({}));
    // A start gate never opened: the handshake cannot finish, however fast the machine.
    let gate = temp_dir("startup-timeout").join("never");
    let mut config = fixture(&["--start-gate", gate.to_str().unwrap()]);
    config["startupTimeoutSeconds"] = json!(0.5);
    let status = failed_start(&mut s, "slow", config);
    let message = status["lastError"]["message"].as_str().unwrap();
    assert!(message.contains("startupTimeoutSeconds"), "{status}");
    assert_eq!(
        status["lastError"]["data"]["setting"], "startupTimeoutSeconds",
        "{status}"
    );
}
