//! A server that breaks while ready: crashes, non-JSON or endless output, stderr floods. Its pending
//! calls fail at once, it turns `unhealthy`, its tools leave, other servers are untouched, and the
//! sidecar's memory stays bounded.

use std::cell::RefCell;

use serde_json::{json, Value};

use crate::procfs::{rss_bytes, threads_named, wait_for_sleeps};
use crate::support::{eventually, fixture, Sidecar};

const RSS_LIMIT: u64 = 100 * 1024 * 1024;

/// The first `unhealthy` status of `name`: sent as the session breaks, with a preliminary
/// `lastError` (the exit status may not be known yet).
fn unhealthy(s: &mut Sidecar, name: &str) -> Value {
    let n = s.notification("notifications/servers/changed", |p| {
        p["status"]["name"] == name && p["status"]["state"] == "unhealthy"
    });
    n["params"]["status"].clone()
}

/// The `unhealthy` status of `name` sent once its process was reaped: its `lastError.data.exit`
/// (absent from the preliminary one) and `lastExit` say how the process ended.
fn unhealthy_exited(s: &mut Sidecar, name: &str) -> Value {
    let status = s.server_changed(name, |st| {
        st["state"] == "unhealthy" && st["lastError"]["data"].get("exit").is_some()
    });
    assert_eq!(
        status["lastError"]["data"]["exit"], status["lastExit"],
        "{status}"
    );
    status
}

/// A fixture config that stays down after a failure (no automatic restart).
fn never_restarted(args: &[&str]) -> Value {
    let mut config = fixture(args);
    config["restart"] = json!("never");
    config
}

fn echo_error(s: &mut Sidecar, server: &str) -> (String, Value) {
    s.error_of(
        "tools/call",
        json!({"name": format!("mcp__{server}__echo"), "arguments": {"message": "hi"}}),
    )
}

#[test]
fn crash_mid_call_fails_the_call_and_marks_the_server_unhealthy() {
    let mut s = Sidecar::initialized(json!({}));
    // `restart: never`: fx must still be down when servers/list is read at the end.
    s.add("fx", never_restarted(&[]));
    s.add("other", fixture(&[]));
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__exit", "arguments": {}}),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE", "{e}");
    assert_eq!(e["data"]["server"], "fx", "{e}");
    // First the state change, with a preliminary error; then the same state with the exit status.
    let first = unhealthy(&mut s, "fx");
    assert_eq!(
        first["lastError"]["data"]["code"], "SERVER_UNAVAILABLE",
        "{first}"
    );
    assert!(first.get("pid").is_none(), "{first}");
    let status = unhealthy_exited(&mut s, "fx");
    assert_eq!(status["lastExit"]["code"], 3, "{status}");
    assert_eq!(
        status["lastError"]["data"]["code"], "SERVER_UNAVAILABLE",
        "{status}"
    );
    assert!(status.get("pid").is_none(), "{status}");
    assert!(
        status.get("nextRestartAt").is_none(),
        "restart: never schedules no restart: {status}"
    );
    assert_eq!(status["generation"], first["generation"], "{status}");
    let changed = s.notification("notifications/tools/changed", |p| {
        !p["removed"].as_array().unwrap().is_empty()
    });
    let removed = changed["params"]["removed"].as_array().unwrap();
    assert_eq!(removed.len(), 7, "{changed}");
    assert!(
        removed
            .iter()
            .all(|n| n.as_str().unwrap().starts_with("mcp__fx__")),
        "{changed}"
    );
    let listing = s.call("tools/list", json!({}));
    assert!(
        listing["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["server"] == "other"),
        "{listing}"
    );
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__other__echo", "arguments": {"message": "fine"}}),
    );
    assert_eq!(r["text"], "fine");
    let list = s.call("servers/list", json!({}));
    let states: Vec<(&Value, &Value)> = list["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (&x["name"], &x["state"]))
        .collect();
    assert_eq!(
        states,
        [
            (&json!("fx"), &json!("unhealthy")),
            (&json!("other"), &json!("ready"))
        ],
        "{list}"
    );
}

#[test]
fn restart_brings_an_unhealthy_server_back() {
    let mut s = Sidecar::initialized(json!({}));
    // `restart: never`: only the host's servers/restart brings it back.
    let before = s.add("fx", never_restarted(&[]));
    let (code, _) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__exit", "arguments": {}}),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE");
    let down = unhealthy_exited(&mut s, "fx");
    assert_eq!(down["generation"], before["generation"], "{down}");
    let after = s.call("servers/restart", json!({"name": "fx"}));
    assert_eq!(after["state"], "ready", "{after}");
    assert_ne!(after["pid"], before["pid"], "{after}");
    assert_eq!(
        after["generation"],
        before["generation"].as_u64().unwrap() + 1,
        "servers/restart is one start: {after}"
    );
    assert!(
        after.get("lastError").is_none() && after.get("lastExit").is_none(),
        "a restart by the host starts without the old error and exit: {after}"
    );
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "back"}}),
    );
    assert_eq!(r["text"], "back");
}

#[test]
fn crash_fails_every_pending_call_at_once() {
    let mut s = Sidecar::initialized(json!({}));
    let pid = s.add("fx", fixture(&[]))["pid"].as_u64().unwrap() as u32;
    let sleeps: Vec<i64> = (0..3)
        .map(|_| {
            s.send(
                "tools/call",
                json!({"name": "mcp__fx__sleep", "arguments": {"ms": 10_000}}),
            )
        })
        .collect();
    wait_for_sleeps(pid, 3);
    // Without the crash failing them, the calls would wait out the 60 s default tool timeout, past
    // the harness's every wait: answers at all, SERVER_UNAVAILABLE, mean the crash ended them.
    let exit = s.send(
        "tools/call",
        json!({"name": "mcp__fx__exit", "arguments": {"code": 9}}),
    );
    for id in sleeps.iter().chain([&exit]) {
        let r = s.response(*id);
        assert_eq!(r["error"]["data"]["code"], "SERVER_UNAVAILABLE", "{r}");
    }
    assert_eq!(unhealthy_exited(&mut s, "fx")["lastExit"]["code"], 9);
}

#[test]
fn non_json_stdout_fails_the_call_and_marks_the_server_unhealthy() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", fixture(&["--non-json-stdout"]));
    let (code, e) = echo_error(&mut s, "fx");
    assert!(
        code == "PROTOCOL_ERROR" || code == "SERVER_UNAVAILABLE",
        "{e}"
    );
    let status = unhealthy(&mut s, "fx");
    let message = status["lastError"]["message"].as_str().unwrap();
    assert!(message.contains("non-JSON"), "{status}");
    assert!(
        message.contains("this is not json-rpc"),
        "the offending output is quoted: {status}"
    );
}

#[test]
fn endless_line_trips_max_message_bytes_with_bounded_memory() {
    let mut s = Sidecar::initialized(json!({}));
    let mut config = fixture(&["--endless-line"]);
    config["maxMessageBytes"] = json!(65_536);
    s.add("fx", config);
    let (code, e) = echo_error(&mut s, "fx");
    assert_eq!(code, "PROTOCOL_ERROR", "{e}");
    assert_eq!(e["data"]["setting"], "maxMessageBytes", "{e}");
    assert_eq!(e["data"]["limit"], 65_536, "{e}");
    let status = unhealthy(&mut s, "fx");
    assert!(
        status["lastError"]["message"]
            .as_str()
            .unwrap()
            .contains("maxMessageBytes"),
        "{status}"
    );
    let rss = rss_bytes(s.pid());
    assert!(
        rss < RSS_LIMIT,
        "sidecar RSS {rss} bytes after an endless line"
    );
}

#[test]
fn stderr_flood_keeps_the_server_working_with_a_bounded_tail_and_memory() {
    let mut s = Sidecar::initialized(json!({}));
    let pid = s.add("fx", fixture(&["--stderr-flood", "50000000"]))["pid"]
        .as_u64()
        .unwrap() as u32;
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "over the noise"}}),
    );
    assert_eq!(r["text"], "over the noise");
    eventually("the stderr flood ended", || {
        threads_named(pid, "stderr-flood") == 0
    });
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "after"}}),
    );
    assert_eq!(r["text"], "after");
    let list = s.call("servers/list", json!({}));
    let status = &list["servers"][0];
    assert_eq!(status["state"], "ready", "{status}");
    let tail = status["stderrTail"].as_str().unwrap();
    assert!(tail.len() <= 8192, "stderr tail is {} bytes", tail.len());
    assert!(tail.contains("mcp-fixture stderr flood line"), "{tail}");
    let rss = rss_bytes(s.pid());
    assert!(
        rss < RSS_LIMIT,
        "sidecar RSS {rss} bytes after a 50 MB stderr flood"
    );
}

#[test]
fn stderr_line_appears_in_status_and_in_a_failed_calls_error() {
    let marker = "fixture says: disk quota exceeded";
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", fixture(&["--stderr-line", marker]));
    let cell = RefCell::new(&mut s);
    eventually("the stderr line in servers/list", || {
        let list = cell.borrow_mut().call("servers/list", json!({}));
        list["servers"][0]["stderrTail"]
            .as_str()
            .is_some_and(|t| t.contains(marker))
    });
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 5000}, "timeoutMs": 100}),
    );
    assert_eq!(code, "TOOL_TIMEOUT", "{e}");
    assert!(
        e["data"]["stderrTail"]
            .as_str()
            .is_some_and(|t| t.contains(marker)),
        "{e}"
    );
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__exit", "arguments": {}}),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE", "{e}");
    assert!(
        e["data"]["stderrTail"]
            .as_str()
            .is_some_and(|t| t.contains(marker)),
        "{e}"
    );
}
