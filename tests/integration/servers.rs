//! Server lifecycle over host protocol v1: `servers/add` (status, notifications, validation),
//! `servers/remove`, `servers/restart`, and starts that run in parallel.

use serde_json::{json, Value};

use crate::support::{fixture, pid_alive, read_pid_file, temp_dir, Sidecar};

const FIXTURE_TOOLS: [&str; 7] = [
    "echo",
    "fail",
    "sleep",
    "large",
    "environment",
    "exit",
    "image",
];

fn tool_names(listing: &Value) -> Vec<String> {
    listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn exposed(server: &str) -> Vec<String> {
    let mut names: Vec<String> = FIXTURE_TOOLS
        .iter()
        .map(|t| format!("mcp__{server}__{t}"))
        .collect();
    names.sort();
    names
}

fn config_error(s: &mut Sidecar, name: &str, config: Value) -> Value {
    let (code, e) = s.error_of("servers/add", json!({"name": name, "config": config}));
    assert_eq!(code, "CONFIG_INVALID", "{e}");
    assert_eq!(e["code"], -32010, "{e}");
    let list = s.call("servers/list", json!({}));
    assert_eq!(
        list["servers"],
        json!([]),
        "a rejected config must not register a server: {list}"
    );
    e
}

#[test]
fn add_returns_ready_status_with_handshake_details_and_all_paginated_tools() {
    let mut s = Sidecar::initialized(json!({}));
    let status = s.add("fx", fixture(&[]));
    assert_eq!(status["name"], "fx", "{status}");
    assert_eq!(status["state"], "ready", "{status}");
    assert!(status["pid"].as_u64().is_some_and(|p| p > 0), "{status}");
    assert!(pid_alive(status["pid"].as_u64().unwrap() as u32));
    assert_eq!(status["protocolVersion"], "2025-11-25", "{status}");
    assert_eq!(
        status["serverInfo"],
        json!({"name": "mcp-fixture", "version": "1.0.0"}),
        "{status}"
    );
    // Seven tools over two tools/list pages: the second page was followed.
    assert_eq!(status["toolsCount"], 7, "{status}");
    assert_eq!(status["generation"], 1, "{status}");
    assert!(
        status["command"].as_str().unwrap().contains("mcp-fixture"),
        "{status}"
    );
    assert!(
        status["startedAt"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "{status}"
    );
    assert_eq!(tool_names(&s.call("tools/list", json!({}))), exposed("fx"));
}

#[test]
fn add_emits_starting_then_ready_and_tools_changed() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", fixture(&[]));
    let starting = s.notification("notifications/servers/changed", |p| {
        p["status"]["state"] == "starting"
    });
    assert_eq!(starting["params"]["status"]["name"], "fx");
    // A second `starting` once the process is spawned, with its pid.
    let spawned = s.notification("notifications/servers/changed", |p| {
        p["status"]["state"] == "starting" && p["status"]["pid"].is_u64()
    });
    assert_eq!(spawned["params"]["status"]["name"], "fx");
    let ready = s.notification("notifications/servers/changed", |p| {
        p["status"]["state"] == "ready"
    });
    assert_eq!(ready["params"]["status"]["toolsCount"], 7, "{ready}");
    let changed = s.notification("notifications/tools/changed", |_| true);
    let p = &changed["params"];
    let mut added: Vec<String> = serde_json::from_value(p["added"].clone()).unwrap();
    added.sort();
    assert_eq!(added, exposed("fx"), "{changed}");
    assert_eq!(p["removed"], json!([]), "{changed}");
    let listing = s.call("tools/list", json!({}));
    assert_eq!(p["fingerprint"], listing["fingerprint"], "{changed}");
    assert!(
        p["fingerprint"].as_str().unwrap().starts_with("sha256:"),
        "{changed}"
    );
}

#[test]
fn duplicate_server_name_fails_server_exists() {
    let mut s = Sidecar::initialized(json!({}));
    let first = s.add("fx", fixture(&[]));
    let (code, e) = s.error_of("servers/add", json!({"name": "fx", "config": fixture(&[])}));
    assert_eq!(code, "SERVER_EXISTS", "{e}");
    assert_eq!(e["data"]["server"], "fx", "{e}");
    // The first server is untouched.
    let list = s.call("servers/list", json!({}));
    assert_eq!(list["servers"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["servers"][0]["pid"], first["pid"], "{list}");
    assert_eq!(list["servers"][0]["state"], "ready", "{list}");
}

#[test]
fn unknown_config_field_is_config_invalid_naming_it_with_a_hint() {
    let mut s = Sidecar::initialized(json!({}));
    let mut config = fixture(&[]);
    config["comand"] = json!("x");
    let e = config_error(&mut s, "fx", config);
    assert_eq!(e["data"]["field"], "comand", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `command`"),
        "{e}"
    );
}

#[test]
fn missing_command_is_config_invalid_naming_command() {
    let mut s = Sidecar::initialized(json!({}));
    let e = config_error(&mut s, "fx", json!({"args": ["--name", "x"]}));
    assert_eq!(e["data"]["field"], "command", "{e}");
}

#[test]
fn config_field_of_wrong_type_is_config_invalid_naming_it() {
    let mut s = Sidecar::initialized(json!({}));
    let mut config = fixture(&[]);
    config["startupTimeoutSeconds"] = json!("5");
    let e = config_error(&mut s, "fx", config);
    assert_eq!(e["data"]["field"], "startupTimeoutSeconds", "{e}");
    let mut config = fixture(&[]);
    config["args"] = json!(["--name", 3]);
    let e = config_error(&mut s, "fx", config);
    assert_eq!(e["data"]["field"], "args[1]", "{e}");
}

#[test]
fn bad_server_name_is_config_invalid_naming_name() {
    let mut s = Sidecar::initialized(json!({}));
    for bad in ["", "line\nbreak", "tab\there", &"x".repeat(129)] {
        let e = config_error(&mut s, bad, fixture(&[]));
        assert_eq!(e["data"]["field"], "name", "{bad:?}: {e}");
    }
}

/// Names Claude Desktop accepts ("Time Server", "my.server") are the server's name everywhere;
/// its tools are exposed under a prefix every provider accepts, shown in its status.
#[test]
fn a_name_people_write_is_kept_and_its_tools_exposed_under_its_prefix() {
    let mut s = Sidecar::initialized(json!({}));
    let status = s.add("Time Server", fixture(&[]));
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["name"], "Time Server");
    let prefix = status["prefix"].as_str().unwrap().to_owned();
    let hash = prefix
        .strip_prefix("time_server_")
        .unwrap_or_else(|| panic!("{prefix}"));
    assert!(
        hash.len() == 6 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "{prefix}"
    );
    let plain = s.add("plain-name", fixture(&[]));
    assert_eq!(
        plain["prefix"], "plain-name",
        "a valid name is its own prefix"
    );
    let listed = s.server_status("Time Server");
    assert_eq!(listed["prefix"], prefix.as_str());
    let called = s.request(
        "tools/call",
        json!({"name": format!("mcp__{prefix}__echo"), "arguments": {"message": "hi"}}),
    );
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(called["result"]["server"], "Time Server", "{called}");
}

#[test]
fn remove_answers_after_the_process_is_gone_and_its_tools_leave() {
    let mut s = Sidecar::initialized(json!({}));
    let pid_file = temp_dir("remove").join("pid.json");
    let status = s.add(
        "fx",
        fixture(&["--grandchild", "--pid-file", pid_file.to_str().unwrap()]),
    );
    let pid = status["pid"].as_u64().unwrap() as u32;
    let record = read_pid_file(&pid_file);
    assert_eq!(record["pid"], pid, "{record}");
    let grandchild = record["grandchildren"][0].as_u64().unwrap() as u32;
    assert!(pid_alive(grandchild));
    let r = s.call("servers/remove", json!({"name": "fx"}));
    assert_eq!(r, json!({}));
    assert!(
        !pid_alive(pid),
        "server pid {pid} still alive when remove answered"
    );
    assert!(
        !pid_alive(grandchild),
        "grandchild {grandchild} still alive when remove answered"
    );
    assert_eq!(s.call("servers/list", json!({}))["servers"], json!([]));
    assert_eq!(s.call("tools/list", json!({}))["tools"], json!([]));
    let changed = s.notification("notifications/tools/changed", |p| {
        !p["removed"].as_array().unwrap().is_empty()
    });
    let mut removed: Vec<String> =
        serde_json::from_value(changed["params"]["removed"].clone()).unwrap();
    removed.sort();
    assert_eq!(removed, exposed("fx"), "{changed}");
    let (code, _) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "x"}}),
    );
    assert_eq!(code, "TOOL_NOT_FOUND");
}

#[test]
fn remove_unknown_server_fails_server_not_found() {
    let mut s = Sidecar::initialized(json!({}));
    let (code, e) = s.error_of("servers/remove", json!({"name": "ghost"}));
    assert_eq!(code, "SERVER_NOT_FOUND", "{e}");
    assert_eq!(e["data"]["server"], "ghost", "{e}");
}

#[test]
fn restart_brings_a_new_generation_and_process_with_the_same_tools() {
    let mut s = Sidecar::initialized(json!({}));
    let before = s.add("fx", fixture(&[]));
    let fingerprint = s.call("tools/list", json!({}))["fingerprint"].clone();
    let after = s.call("servers/restart", json!({"name": "fx"}));
    assert_eq!(after["state"], "ready", "{after}");
    // Incremented on every start and every stop; servers/restart is one start (PROTOCOL.md §8.1).
    let expected = before["generation"].as_u64().unwrap() + 1;
    assert_eq!(after["generation"], expected, "{after}");
    assert_ne!(after["pid"], before["pid"], "{after}");
    assert!(
        !pid_alive(before["pid"].as_u64().unwrap() as u32),
        "old process survived the restart"
    );
    assert_eq!(after["toolsCount"], 7, "{after}");
    let listing = s.call("tools/list", json!({}));
    assert_eq!(listing["fingerprint"], fingerprint);
    assert_eq!(tool_names(&listing), exposed("fx"));
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "again"}}),
    );
    assert_eq!(r["text"], "again");
}

#[test]
fn restart_unknown_server_fails_server_not_found() {
    let mut s = Sidecar::initialized(json!({}));
    let (code, e) = s.error_of("servers/restart", json!({"name": "ghost"}));
    assert_eq!(code, "SERVER_NOT_FOUND", "{e}");
}

#[test]
fn a_slow_server_does_not_delay_another_servers_start() {
    // The slow server's start cannot finish before the gate file exists: a quick start that
    // waited behind it would never come (the harness's wait fails the test).
    let gate = temp_dir("slow-start").join("gate");
    let mut s = Sidecar::initialized(json!({}));
    let slow = s.call(
        "servers/add",
        json!({"name": "slow", "config": fixture(&["--start-gate", gate.to_str().unwrap()]), "wait": false}),
    );
    assert_eq!(
        slow["state"], "starting",
        "wait:false answers before the handshake: {slow}"
    );
    let quick = s.add("quick", fixture(&[]));
    assert_eq!(quick["state"], "ready", "{quick}");
    let list = s.call("servers/list", json!({}));
    let slow_now = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "slow")
        .unwrap();
    assert_eq!(slow_now["state"], "starting", "{list}");
    std::fs::write(&gate, b"").unwrap();
    let ready = s.server_changed("slow", |st| st["state"] != "starting");
    assert_eq!(ready["state"], "ready", "{ready}");
}

#[test]
fn add_answers_after_the_notifications_it_caused() {
    // PROTOCOL.md §3: a servers/* response follows every notification it caused before answering.
    let mut s = Sidecar::initialized(json!({}));
    let id = s.send("servers/add", json!({"name": "fx", "config": fixture(&[])}));
    let mut seen = Vec::new();
    loop {
        let m = s.wait_for(|_| true);
        if m["id"] == id {
            break;
        }
        seen.push(
            m["method"].as_str().unwrap_or_default().to_owned()
                + " "
                + m["params"]["status"]["state"].as_str().unwrap_or_default(),
        );
    }
    assert!(
        seen.contains(&"notifications/servers/changed ready".to_owned()),
        "{seen:?}"
    );
    assert!(
        seen.contains(&"notifications/tools/changed ".to_owned()),
        "{seen:?}"
    );
}
