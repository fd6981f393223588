//! Ending the session (`shutdown` or EOF on stdin) stops every server's whole process tree before the
//! sidecar answers or exits: grandchildren included, SIGTERM-ignoring servers included (SIGKILL).
//! Calls still in flight are answered `SHUTTING_DOWN` first. Run natively on Linux, macOS and
//! Windows; the SIGTERM test is Unix's, the calls-in-flight ones Linux's (they watch /proc).

use std::path::PathBuf;
#[cfg(unix)]
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[cfg(target_os = "linux")]
use crate::procfs::wait_for_sleeps;
use crate::support::{fixture, pid_alive, read_pid_file, temp_dir, Sidecar};

/// Config of a fixture that spawns a grandchild and records both pids in `pid_file`.
fn with_grandchild(pid_file: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["--grandchild", "--pid-file", pid_file.to_str().unwrap()];
    args.extend_from_slice(extra);
    fixture(&args)
}

/// The fixture pid and its grandchildren's pids from a pid file.
fn tree_pids(pid_file: &std::path::Path) -> Vec<u32> {
    let record = read_pid_file(pid_file);
    let mut pids = vec![record["pid"].as_u64().unwrap() as u32];
    pids.extend(
        record["grandchildren"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap() as u32),
    );
    pids
}

fn assert_all_dead(pids: &[u32], when: &str) {
    let alive: Vec<u32> = pids.iter().copied().filter(|p| pid_alive(*p)).collect();
    assert!(
        alive.is_empty(),
        "still alive {when}: {alive:?} of {pids:?}"
    );
}

/// Adds servers `s0..sN` with a grandchild each, all at once; returns every pid of their trees.
fn add_trees(s: &mut Sidecar, n: usize) -> Vec<u32> {
    let dir = temp_dir("trees");
    let files: Vec<PathBuf> = (0..n).map(|i| dir.join(format!("s{i}.json"))).collect();
    let ids: Vec<i64> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            s.send(
                "servers/add",
                json!({"name": format!("s{i}"), "config": with_grandchild(f, &[])}),
            )
        })
        .collect();
    for id in ids {
        let r = s.response(id);
        assert_eq!(r["result"]["state"], "ready", "{r}");
    }
    let pids: Vec<u32> = files.iter().flat_map(|f| tree_pids(f)).collect();
    assert_eq!(pids.len(), 2 * n);
    assert!(
        pids.iter().all(|p| pid_alive(*p)),
        "a process died early: {pids:?}"
    );
    pids
}

#[test]
fn shutdown_answers_only_after_servers_and_grandchildren_are_gone() {
    let mut s = Sidecar::initialized(json!({}));
    let pids = add_trees(&mut s, 2);
    let r = s.call("shutdown", json!({}));
    assert_eq!(r, json!({}));
    assert_all_dead(&pids, "when shutdown answered");
    assert_eq!(s.wait_exit(), Some(0));
}

#[test]
fn eof_on_stdin_stops_every_tree_before_the_sidecar_exits() {
    let mut s = Sidecar::initialized(json!({}));
    let pids = add_trees(&mut s, 2);
    s.close_stdin();
    assert_eq!(s.wait_exit(), Some(0));
    assert_all_dead(&pids, "when the sidecar exited");
}

// Unix: SIGTERM and a SIGKILL in lastExit (Windows has no request to stop; `trees::launched` checks
// its Job Object ends a server that ignores EOF).
#[cfg(unix)]
#[test]
fn server_ignoring_sigterm_is_killed_within_the_stop_sequence() {
    let mut s = Sidecar::initialized(json!({}));
    let pid_file = temp_dir("sigterm").join("pid.json");
    // Busy in a 30 s `initialize`, the fixture reads neither EOF on stdin nor SIGTERM: only SIGKILL
    // ends it. Its pid file exists once SIGTERM is ignored.
    let args = [
        "--ignore-sigterm",
        "--slow-start",
        "30000",
        "--pid-file",
        pid_file.to_str().unwrap(),
    ];
    let status = s.call(
        "servers/add",
        json!({"name": "stubborn", "config": fixture(&args), "wait": false}),
    );
    assert_eq!(status["state"], "starting", "{status}");
    let pid = tree_pids(&pid_file)[0];
    // Stopped before the sidecar wrote `initialize`, the fixture would just read EOF and exit 0:
    // wait until it is in its slow start (it says so on stderr, which the status carries).
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut asleep = false;
    while !asleep {
        assert!(
            Instant::now() < deadline,
            "the fixture never got `initialize`"
        );
        let list = s.call("servers/list", json!({}));
        asleep = list["servers"][0]["stderrTail"]
            .as_str()
            .is_some_and(|tail| tail.contains("initialize: a slow start"));
    }
    let started = Instant::now();
    let r = s.call("shutdown", json!({}));
    let took = started.elapsed();
    assert_eq!(r, json!({}));
    assert!(!pid_alive(pid), "pid {pid} survived shutdown");
    // The start would take 30 s; the stop sequence takes 3 s (stdin, SIGTERM ignored, SIGKILL).
    assert!(
        took < Duration::from_secs(20),
        "shutdown waited for the start: {took:?}"
    );
    // The first `stopped` status is sent as the stop begins (no exit yet); the one sent once the
    // process was reaped carries `lastExit`.
    let stopped = s.server_changed("stubborn", |st| {
        st["state"] == "stopped" && st.get("lastExit").is_some()
    });
    assert_eq!(stopped["lastExit"]["signal"], 9, "{stopped}");
    assert_eq!(s.wait_exit(), Some(0));
}

#[test]
fn shutdown_stops_twenty_servers_with_no_survivor() {
    let mut s = Sidecar::initialized(json!({}));
    let pids = add_trees(&mut s, 20);
    let r = s.call("shutdown", json!({}));
    assert_eq!(r, json!({}));
    assert_all_dead(&pids, "when shutdown answered");
    // That the stops run in parallel is `trees::twenty_servers_stopped_at_once`'s to show.
    for i in 0..20 {
        let name = format!("s{i}");
        s.notification("notifications/servers/changed", |p| {
            p["status"]["name"] == name.as_str() && p["status"]["state"] == "stopped"
        });
    }
    assert_eq!(s.wait_exit(), Some(0));
}

// Linux: the call's arrival at the fixture is seen in /proc (its "sleep" thread).
#[cfg(target_os = "linux")]
#[test]
fn call_in_flight_at_shutdown_is_answered_shutting_down_before_the_shutdown_answer() {
    let mut s = Sidecar::initialized(json!({}));
    let pid = s.add("fx", fixture(&[]))["pid"].as_u64().unwrap() as u32;
    let call = s.send(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 10_000}}),
    );
    wait_for_sleeps(pid, 1);
    let shutdown = s.send("shutdown", json!({}));
    assert_eq!(s.wait_exit(), Some(0));
    let out = s.drain_after_exit();
    let at = |id: i64| {
        out.iter()
            .position(|m| m["id"] == id && m.get("method").is_none())
    };
    let (Some(c), Some(d)) = (at(call), at(shutdown)) else {
        panic!("missing answers: {out:?}")
    };
    assert_eq!(
        out[c]["error"]["data"]["code"], "SHUTTING_DOWN",
        "{}",
        out[c]
    );
    assert_eq!(out[c]["error"]["code"], -32040, "{}", out[c]);
    assert_eq!(
        d,
        out.len() - 1,
        "the shutdown answer must be last: {out:?}"
    );
}

// Linux: the call's arrival at the fixture is seen in /proc (its "sleep" thread).
#[cfg(target_os = "linux")]
#[test]
fn call_in_flight_at_eof_is_answered_shutting_down_before_exit() {
    let mut s = Sidecar::initialized(json!({}));
    let pid = s.add("fx", fixture(&[]))["pid"].as_u64().unwrap() as u32;
    let call = s.send(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 10_000}}),
    );
    wait_for_sleeps(pid, 1);
    s.close_stdin();
    assert_eq!(s.wait_exit(), Some(0));
    let r = s.response(call);
    assert_eq!(r["error"]["data"]["code"], "SHUTTING_DOWN", "{r}");
    assert!(!pid_alive(pid), "the server outlived the sidecar");
}
