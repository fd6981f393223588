//! Slow servers never block fast ones: `servers/load` starts every server at once; with
//! `wait: false` each server's tools are announced as it becomes ready, and a call to a tool of a
//! server still starting waits for that server alone. The slow server is held by a start gate
//! (a file the test creates), so every step waits for an event, never for time.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::{fixture_bin, temp_dir, Sidecar};

/// `a-slow` (held until `gate` exists) and `b-fast`, in that order in the file.
fn servers(gate: &Path) -> Value {
    json!({"mcpServers": {
        "a-slow": {"command": fixture_bin(), "args": ["--start-gate", gate]},
        "b-fast": {"command": fixture_bin()},
    }})
}

fn answered(s: &Sidecar, id: i64) -> bool {
    s.held()
        .iter()
        .any(|m| m["id"] == id && m.get("method").is_none())
}

#[test]
fn a_slow_server_never_holds_up_a_fast_one_and_a_call_waits_for_its_own_server() {
    let gate = temp_dir("progressive").join("gate");
    let mut s = Sidecar::initialized(json!({}));
    let loaded = s.call(
        "servers/load",
        json!({"json": servers(&gate), "wait": false}),
    );
    let states: Vec<(&str, &str)> = loaded["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|st| (st["name"].as_str().unwrap(), st["state"].as_str().unwrap()))
        .collect();
    assert_eq!(states, [("a-slow", "starting"), ("b-fast", "starting")]);
    // The fast server's tools are announced while the slow one is still held at its gate.
    s.notification("notifications/tools/changed", |p| {
        p["added"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "mcp__b-fast__echo")
    });
    // A call to the slow server's tool waits for it...
    let slow_call = s.send(
        "tools/call",
        json!({"name": "mcp__a-slow__echo", "arguments": {"message": "waited"}}),
    );
    // ... while calls to the fast one are answered.
    let fast = s.call(
        "tools/call",
        json!({"name": "mcp__b-fast__echo", "arguments": {"message": "now"}}),
    );
    assert_eq!(fast["text"], "now");
    assert_eq!(s.call("ping", json!({})), json!({}));
    assert!(
        !answered(&s, slow_call),
        "answered before its server could start: {:?}",
        s.held()
    );
    assert_eq!(s.server_status("a-slow")["state"], "starting");
    // Its server starts: the call goes through.
    std::fs::write(&gate, "").unwrap();
    let r = s.response(slow_call);
    assert_eq!(r["result"]["text"], "waited", "{r}");
    assert_eq!(r["result"]["server"], "a-slow");
}

#[test]
fn with_wait_the_load_answers_once_every_server_started_and_they_start_at_once() {
    let gate = temp_dir("progressive-wait").join("gate");
    let mut s = Sidecar::initialized(json!({}));
    let load = s.send("servers/load", json!({"json": servers(&gate)}));
    // The fast server, second in the file, is ready while the first is still held.
    s.server_changed("b-fast", |st| st["state"] == "ready");
    assert!(!answered(&s, load));
    std::fs::write(&gate, "").unwrap();
    let r = s.response(load);
    let states: Vec<(&str, &str)> = r["result"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|st| (st["name"].as_str().unwrap(), st["state"].as_str().unwrap()))
        .collect();
    assert_eq!(states, [("a-slow", "ready"), ("b-fast", "ready")], "{r}");
}

#[test]
fn a_name_no_starting_server_can_have_fails_at_once() {
    let gate = temp_dir("progressive-none").join("gate");
    let mut s = Sidecar::initialized(json!({}));
    s.call(
        "servers/load",
        json!({"json": servers(&gate), "wait": false}),
    );
    s.server_changed("b-fast", |st| st["state"] == "ready");
    // `a-slow` is still starting, but neither name can be one of its tools: no wait.
    for name in ["mcp__zzz__echo", "mcp__b-fast__nope"] {
        let (code, e) = s.error_of("tools/call", json!({"name": name}));
        assert_eq!(code, "TOOL_NOT_FOUND", "{e}");
    }
    assert_eq!(s.server_status("a-slow")["state"], "starting");
    std::fs::write(&gate, "").unwrap();
    // Once it is ready, a name it does not have is not found either.
    s.server_changed("a-slow", |st| st["state"] == "ready");
    let (code, _) = s.error_of("tools/call", json!({"name": "mcp__a-slow__nope"}));
    assert_eq!(code, "TOOL_NOT_FOUND");
}

#[test]
fn a_call_waiting_for_a_start_that_fails_gets_the_servers_failure() {
    let gate = temp_dir("progressive-fails").join("gate");
    let mut s = Sidecar::initialized(json!({}));
    // Held at its gate, then it answers with a revision the sidecar does not speak.
    let config = json!({"mcpServers": {"doomed": {"command": fixture_bin(),
        "args": ["--start-gate", gate, "--protocol-version", "1999-01-01"]}}});
    s.call("servers/load", json!({"json": config, "wait": false}));
    let call = s.send("tools/call", json!({"name": "mcp__doomed__echo"}));
    assert_eq!(s.call("ping", json!({})), json!({}));
    assert!(!answered(&s, call));
    std::fs::write(&gate, "").unwrap();
    let r = s.response(call);
    let data = &r["error"]["data"];
    assert_eq!(data["code"], "SERVER_UNAVAILABLE", "{r}");
    assert_eq!(
        (data["server"].clone(), data["name"].clone()),
        (json!("doomed"), json!("mcp__doomed__echo"))
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1999-01-01"),
        "{r}"
    );
}
