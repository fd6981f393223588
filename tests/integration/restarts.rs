//! Health and restarts: crash → backoff → recovery with the same tools, crash loops, stale
//! generations, keepalive, and the per-server statistics in `servers/list`.

use serde_json::{json, Value};

use crate::support::*;

/// A fixture config with a short restart backoff (and extra config fields).
fn quick(args: &[&str], extra: Value) -> Value {
    let mut config = fixture(args);
    config["restartBackoffMs"] = json!(50);
    if let (Some(c), Some(e)) = (config.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    config
}

#[test]
fn crash_backs_off_and_recovers_with_the_same_tools() {
    let mut sc = Sidecar::initialized(json!({}));
    let first = sc.add("fx", quick(&["--stderr-line", "fixture booted"], json!({})));
    assert_eq!(first["state"], "ready");
    sc.notification("notifications/tools/changed", |p| {
        p["added"].as_array().is_some_and(|a| a.len() == 7)
    });
    let before = sc.call("tools/list", json!({}));
    // A call in flight when the server dies fails at once, with the stderr tail.
    let pending = sc.send(
        "tools/call",
        json!({ "name": "mcp__fx__sleep", "arguments": { "ms": 60000 } }),
    );
    let (code, error) = sc.error_of(
        "tools/call",
        json!({ "name": "mcp__fx__exit", "arguments": { "code": 7 } }),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE", "{error}");
    assert!(
        error["data"]["stderrTail"]
            .as_str()
            .unwrap_or("")
            .contains("fixture booted"),
        "{error}"
    );
    let pending = sc.response(pending);
    assert_eq!(
        pending["error"]["data"]["code"], "SERVER_UNAVAILABLE",
        "{pending}"
    );
    // Tools leave, a restart is scheduled, the server comes back, the tools return unchanged.
    sc.notification("notifications/tools/changed", |p| {
        p["removed"].as_array().is_some_and(|r| r.len() == 7)
    });
    let down = sc.server_changed("fx", |s| {
        s["state"] == "unhealthy" && s.get("nextRestartAt").is_some()
    });
    assert_eq!(down["lastExit"]["code"], 7, "{down}");
    let back = sc.server_changed("fx", |s| {
        s["state"] == "ready" && s["generation"].as_u64() > first["generation"].as_u64()
    });
    assert_eq!(back["restarts"], 1);
    assert_ne!(back["pid"], first["pid"]);
    let returned = sc.notification("notifications/tools/changed", |p| {
        p["added"].as_array().is_some_and(|a| a.len() == 7)
    });
    assert_eq!(returned["params"]["fingerprint"], before["fingerprint"]);
    let after = sc.call("tools/list", json!({}));
    assert_eq!(after, before, "same tools, same fingerprint");
    let echo = sc.call(
        "tools/call",
        json!({ "name": "mcp__fx__echo", "arguments": { "message": "again" } }),
    );
    assert_eq!(echo["text"], "again");
    let status = sc.server_status("fx");
    assert_eq!(status["lastExit"]["code"], 7, "{status}");
    assert!(
        status["lastError"]["data"]["stderrTail"]
            .as_str()
            .unwrap_or("")
            .contains("fixture booted"),
        "{status}"
    );
}

#[test]
fn crash_loop_ends_in_error_until_restarted() {
    let mut sc = Sidecar::initialized(json!({}));
    // Ready, then exits right after listing its tools: every start crashes.
    let config = quick(&["--exit-after-list"], json!({ "restartBackoffMs": 10 }));
    sc.call(
        "servers/add",
        json!({ "name": "loop", "config": config, "wait": false }),
    );
    let failed = sc.server_changed("loop", |s| s["state"] == "error");
    assert_eq!(failed["lastError"]["data"]["crashLoop"], true, "{failed}");
    assert_eq!(failed["lastError"]["data"]["failures"], 5, "{failed}");
    assert_eq!(failed["restarts"], 4, "{failed}");
    assert!(failed.get("nextRestartAt").is_none());
    // No more restarts: a call to one of its tools is SERVER_UNAVAILABLE, naming the way out.
    let (code, error) = sc.error_of(
        "tools/call",
        json!({ "name": "mcp__loop__echo", "arguments": { "message": "x" } }),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("servers/restart"),
        "{error}"
    );
    assert_eq!(
        sc.server_status("loop")["generation"],
        failed["generation"],
        "no restart after giving up"
    );
    // The host's restart starts it again, with a clean failure history.
    let restarted = sc.call("servers/restart", json!({ "name": "loop" }));
    assert!(
        restarted["generation"].as_u64() > failed["generation"].as_u64(),
        "{restarted}"
    );
    // It crashes again, and the policy retries again (the failure history was cleared).
    let gen = restarted["generation"].clone();
    sc.server_changed("loop", |s| {
        s["state"] == "unhealthy" && s["generation"] == gen && s.get("nextRestartAt").is_some()
    });
}

#[test]
fn stale_generation_events_are_ignored() {
    // The debug log is where a stale restart timer says it did nothing.
    let log = temp_dir("stale").join("stderr.log");
    let mut sc = Sidecar::spawn_logging_to(&log, &[], &[]);
    sc.initialize(json!({}));
    // 1. A slow start overtaken by a restart: the first generation's late failure (its process is
    //    stopped under it) must not touch the second. The start gate holds every generation's
    //    handshake until the second one is running, so the first cannot finish before it is
    //    overtaken.
    let gate = temp_dir("stale-gate").join("gate");
    let gated = fixture(&["--start-gate", gate.to_str().unwrap()]);
    sc.call(
        "servers/add",
        json!({ "name": "slow", "config": gated, "wait": false }),
    );
    let first = sc.server_changed("slow", |s| s["generation"] == 1 && s.get("pid").is_some());
    let restart = sc.send("servers/restart", json!({ "name": "slow" }));
    sc.server_changed("slow", |s| s["generation"] == 2 && s.get("pid").is_some());
    std::fs::write(&gate, b"").unwrap();
    let restarted = sc.response(restart)["result"].clone();
    assert_eq!(restarted["state"], "ready", "{restarted}");
    assert_eq!(restarted["generation"], 2);
    assert!(
        !pid_alive(first["pid"].as_u64().unwrap() as u32),
        "the overtaken process is gone"
    );
    let status = sc.server_status("slow");
    assert_eq!(
        (status["state"].clone(), status["generation"].clone()),
        (json!("ready"), json!(2)),
        "{status}"
    );

    // 2. A restart timer of a crashed generation, overtaken by the host's restart, fires late and
    //    must do nothing.
    let up = sc.add("crashy", quick(&[], json!({ "restartBackoffMs": 300 })));
    sc.error_of(
        "tools/call",
        json!({ "name": "mcp__crashy__exit", "arguments": {} }),
    );
    sc.server_changed("crashy", |s| {
        s["state"] == "unhealthy" && s.get("nextRestartAt").is_some()
    });
    let manual = sc.call("servers/restart", json!({ "name": "crashy" }));
    assert_eq!(manual["state"], "ready");
    assert!(manual["generation"].as_u64() > up["generation"].as_u64());
    // The stale timer fires after its backoff (300 ms + jitter) and logs that it did nothing; only
    // then is the absence of a restart worth asserting.
    eventually("the stale restart timer of `crashy` fired", || {
        std::fs::read_to_string(&log).is_ok_and(|text| {
            text.lines()
                .any(|l| l.contains("stale restart timer ignored") && l.contains("crashy"))
        })
    });
    let status = sc.server_status("crashy");
    assert_eq!(
        status["generation"], manual["generation"],
        "the stale timer started nothing: {status}"
    );
    assert_eq!(status["pid"], manual["pid"]);
    assert_eq!(status["restarts"], 0, "{status}");
    assert!(status.get("nextRestartAt").is_none());
}

#[test]
fn restart_never_stays_down() {
    let mut sc = Sidecar::initialized(json!({}));
    sc.add("once", quick(&[], json!({ "restart": "never" })));
    sc.error_of(
        "tools/call",
        json!({ "name": "mcp__once__exit", "arguments": {} }),
    );
    let down = sc.server_changed("once", |s| {
        s["state"] == "unhealthy" && s.get("lastExit").is_some()
    });
    assert!(down.get("nextRestartAt").is_none(), "{down}");
    let (code, _) = sc.error_of(
        "tools/call",
        json!({ "name": "mcp__once__echo", "arguments": { "message": "x" } }),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE");
}

#[test]
fn missed_keepalive_marks_unhealthy_and_restarts() {
    let mut sc = Sidecar::initialized(json!({}));
    // Answers the handshake, then hangs: the first keepalive ping goes unanswered.
    let config = quick(
        &["--no-tools-capability", "--hang-after-init"],
        json!({ "keepaliveSeconds": 0.2 }),
    );
    let first = sc.add("ka", config);
    assert_eq!(first["state"], "ready");
    let down = sc.server_changed("ka", |s| {
        s["state"] == "unhealthy" && s.get("lastError").is_some()
    });
    let message = down["lastError"]["message"].as_str().unwrap();
    assert!(message.contains("keepalive"), "{message}");
    assert_eq!(
        down["lastError"]["data"]["code"], "SERVER_UNAVAILABLE",
        "{down}"
    );
    assert_eq!(
        down["lastError"]["data"]["setting"], "keepaliveSeconds",
        "{down}"
    );
    // The time the ping was given, in seconds: keepaliveSeconds clamped to [1, 10] (0.2 → 1).
    assert_eq!(
        down["lastError"]["data"]["limit"].as_f64(),
        Some(1.0),
        "{down}"
    );
    let back = sc.server_changed("ka", |s| {
        s["state"] == "ready" && s["generation"].as_u64() > first["generation"].as_u64()
    });
    assert_eq!(back["restarts"], 1);
    assert!(
        !pid_alive(first["pid"].as_u64().unwrap() as u32),
        "the hung process was stopped"
    );
}

/// How many lines of server `name`'s stderr tail (seen through `servers/list`) start with `prefix`.
fn stderr_lines(sc: &mut Sidecar, name: &str, prefix: &str) -> usize {
    let status = sc.server_status(name);
    status["stderrTail"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(prefix))
        .count()
}

#[test]
fn keepalive_pings_a_healthy_server_without_disturbing_it() {
    let mut sc = Sidecar::initialized(json!({}));
    // `--log-pings`: the fixture writes `ping <id>` to stderr for every ping it answers.
    let first = sc.add(
        "ok",
        quick(&["--log-pings"], json!({ "keepaliveSeconds": 0.1 })),
    );
    let sc = std::cell::RefCell::new(sc);
    eventually("three keepalive pings reached the server", || {
        stderr_lines(&mut sc.borrow_mut(), "ok", "ping ") >= 3
    });
    let mut sc = sc.into_inner();
    // Answered pings leave the server alone: same generation, no restart, calls still work.
    let echo = sc.call(
        "tools/call",
        json!({ "name": "mcp__ok__echo", "arguments": { "message": "after pings" } }),
    );
    assert_eq!(echo["text"], "after pings");
    let status = sc.server_status("ok");
    assert_eq!(
        (
            status["state"].clone(),
            status["generation"].clone(),
            status["restarts"].clone()
        ),
        (json!("ready"), first["generation"].clone(), json!(0)),
        "{status}"
    );
}

#[test]
fn servers_list_counts_calls_errors_and_latency() {
    let mut sc = Sidecar::initialized(json!({}));
    sc.add("fx", fixture(&[]));
    for _ in 0..3 {
        sc.call(
            "tools/call",
            json!({ "name": "mcp__fx__echo", "arguments": { "message": "m" } }),
        );
    }
    let (code, _) = sc.error_of(
        "tools/call",
        json!({ "name": "mcp__fx__sleep", "arguments": { "ms": 5000 }, "timeoutMs": 20 }),
    );
    assert_eq!(code, "TOOL_TIMEOUT");
    let status = sc.server_status("fx");
    assert_eq!(status["calls"], 4, "{status}");
    assert_eq!(status["errors"], 1, "{status}");
    assert!(
        status["p50LatencyMs"].as_f64().is_some_and(|ms| ms > 0.0),
        "{status}"
    );
    assert_eq!(status["restarts"], 0);
    assert_eq!(status["state"], "ready");
    assert!(status["pid"].is_u64());
}
