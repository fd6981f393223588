//! `servers/test`: a config is started, handshaken, listed and stopped without being registered —
//! nothing in `servers/list`, the tool catalog or the notifications — under the same trust gate as
//! `servers/add`.

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

/// No server or tool notification was written (every `servers/*` notification precedes its answer,
/// so one would be held by now), and the session has no server and no tool.
fn nothing_registered(s: &mut Sidecar) {
    let held: Vec<Value> = s
        .held()
        .into_iter()
        .filter(|m| {
            m["method"]
                .as_str()
                .is_some_and(|m| m.starts_with("notifications/"))
        })
        .collect();
    assert!(
        held.is_empty(),
        "servers/test caused notifications: {held:?}"
    );
    assert_eq!(s.call("servers/list", json!({}))["servers"], json!([]));
    assert_eq!(s.call("tools/list", json!({}))["tools"], json!([]));
}

#[test]
fn reports_tools_and_server_info_then_stops_the_server() {
    let dir = temp_dir("probe");
    let pid_file = dir.join("pid.json");
    let mut s = Sidecar::initialized(json!({}));
    let mut config = fixture(&[
        "--name",
        "probed",
        "--stderr-line",
        "hello from stderr",
        "--pid-file",
        pid_file.to_str().unwrap(),
    ]);
    // A test starts the server whatever autoStart says.
    config["autoStart"] = json!(false);
    let r = s.call("servers/test", json!({"config": config}));
    assert_eq!(r["state"], "ready", "{r}");
    assert_eq!(r["transport"], "stdio");
    assert_eq!(r["serverInfo"]["name"], "probed", "{r}");
    assert_eq!(r["protocolVersion"], "2025-11-25", "{r}");
    let mut tools: Vec<&str> = r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    tools.sort_unstable();
    let mut want = FIXTURE_TOOLS;
    want.sort_unstable();
    assert_eq!(tools, want, "{r}");
    assert_eq!(r["toolsCount"], 7);
    let timings = &r["timings"];
    let (startup, list) = (
        timings["startupMs"].as_f64().unwrap(),
        timings["listMs"].as_f64().unwrap(),
    );
    assert!(startup > 0.0 && list > 0.0 && list <= startup, "{r}");
    assert_eq!(r["stderrTail"], "hello from stderr", "{r}");
    assert!(r.get("error").is_none(), "{r}");
    // The server is gone by the time of the answer.
    let pid = read_pid_file(&pid_file)["pid"].as_u64().unwrap() as u32;
    assert_eq!(r["pid"], pid, "{r}");
    assert!(
        !pid_alive(pid),
        "the tested server {pid} outlived servers/test"
    );
    nothing_registered(&mut s);
    // The tools policy applies as it would to an added server.
    let mut only_e = fixture(&[]);
    only_e["includeTools"] = json!(["e*"]);
    let r = s.call("servers/test", json!({"name": "fx", "config": only_e}));
    assert_eq!(r["tools"], json!(["echo", "environment", "exit"]), "{r}");
    assert_eq!(r["toolsCount"], 3);
    // A name given to the test is free afterwards.
    assert_eq!(s.add("fx", fixture(&[]))["state"], "ready");
}

#[test]
fn a_failing_start_reports_its_error_and_stderr_tail() {
    let mut s = Sidecar::initialized(json!({}));
    let r = s.call(
        "servers/test",
        json!({"config": fixture(&["--exit-on-start", "3"])}),
    );
    assert_eq!(r["state"], "error", "{r}");
    assert_eq!(r["tools"], json!([]));
    assert_eq!(r["toolsCount"], 0);
    assert!(r["timings"]["startupMs"].as_f64().unwrap() > 0.0, "{r}");
    assert!(r["timings"].get("listMs").is_none(), "{r}");
    assert!(
        r.get("serverInfo").is_none() && r.get("protocolVersion").is_none(),
        "{r}"
    );
    assert_eq!(r["stderrTail"], "fatal: exiting on start", "{r}");
    let e = &r["error"];
    assert_eq!(e["data"]["code"], "SERVER_UNAVAILABLE", "{r}");
    assert_eq!(e["data"]["server"], "test");
    assert_eq!(e["data"]["stderrTail"], "fatal: exiting on start", "{r}");
    assert_eq!(e["data"]["exit"], json!({"code": 3, "signal": null}), "{r}");
    nothing_registered(&mut s);
    // An invalid config is an error response, as for servers/add.
    let (code, e) = s.error_of(
        "servers/test",
        json!({"config": {"command": "x", "comand": "y"}}),
    );
    assert_eq!(code, "CONFIG_INVALID", "{e}");
    assert_eq!(e["data"]["field"], "comand");
    let (code, _) = s.error_of(
        "servers/test",
        json!({"config": fixture(&[]), "wait": true}),
    );
    assert_eq!(code, "INVALID_PARAMS", "servers/test params are strict");
    nothing_registered(&mut s);
}

#[test]
fn the_trust_gate_applies() {
    let dir = temp_dir("probe-trust");
    let pid_file = dir.join("pid.json");
    let mut s = Sidecar::initialized(json!({"requireTrust": true}));
    let config = fixture(&["--pid-file", pid_file.to_str().unwrap()]);
    let (code, e) = s.error_of("servers/test", json!({"name": "fx", "config": config}));
    assert_eq!(code, "TRUST_REQUIRED", "{e}");
    assert_eq!(e["code"], -32014);
    // Exactly what servers/add answers for the same config.
    let (add_code, add_e) = s.error_of("servers/add", json!({"name": "fx", "config": config}));
    assert_eq!(add_code, "TRUST_REQUIRED");
    assert_eq!(
        e["data"], add_e["data"],
        "servers/test and servers/add disagree"
    );
    let digest = e["data"]["digest"].as_str().unwrap().to_owned();
    assert!(!pid_file.exists(), "an untrusted config was spawned");
    let (code, _) = s.error_of(
        "servers/test",
        json!({"name": "fx", "config": config, "trust": "sha256:00"}),
    );
    assert_eq!(code, "TRUST_REQUIRED");
    assert!(
        !pid_file.exists(),
        "a config with a wrong digest was spawned"
    );
    nothing_registered(&mut s);
    let r = s.call(
        "servers/test",
        json!({"name": "fx", "config": config, "trust": digest}),
    );
    assert_eq!(r["state"], "ready", "{r}");
    assert_eq!(r["toolsCount"], 7);
    let pid = read_pid_file(&pid_file)["pid"].as_u64().unwrap() as u32;
    assert!(!pid_alive(pid));
    nothing_registered(&mut s);
}
