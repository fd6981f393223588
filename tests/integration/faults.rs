//! Fault injection through the real binary and real fixture processes: a server that crashes
//! mid-call, a SIGSTOPped server, a server writing stray responses (unknown ids, `"id": null`,
//! duplicates), a server flooding notifications, and a host that closes its end of stdout.
//!
//! In every case the ledger below proves the same three things: every request is answered exactly
//! once (the session is ended with `shutdown` and every line it ever wrote is counted by id), no
//! answer crosses to another request (each echo call carries a unique token that must come back),
//! and the servers that were not at fault keep serving.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use nix::sys::signal::Signal;
use serde_json::{json, Value};

use crate::support::*;

/// The calls of one test: request id → (server, token the answer must carry).
#[derive(Default)]
struct Ledger {
    sent: HashMap<i64, (String, String)>,
    answers: HashMap<i64, Value>,
}

impl Ledger {
    /// Sends `echo` with a token unique to this call to `server`.
    fn echo(&mut self, sc: &mut Sidecar, server: &str) -> i64 {
        let token = format!("{server}-token-{}", self.sent.len());
        let id = sc.send(
            "tools/call",
            json!({"name": format!("mcp__{server}__echo"), "arguments": {"message": token}}),
        );
        self.sent.insert(id, (server.to_owned(), token));
        id
    }

    /// Sends `count` echo calls spread round-robin over `servers`; returns their ids.
    fn spread(&mut self, sc: &mut Sidecar, servers: &[&str], count: usize) -> Vec<i64> {
        (0..count)
            .map(|i| self.echo(sc, servers[i % servers.len()]))
            .collect()
    }

    /// Waits for the answers to `ids` (one each; a second one is caught by [`Ledger::finish`]).
    fn collect(&mut self, sc: &mut Sidecar, ids: &[i64]) {
        for &id in ids {
            let answer = sc.response(id);
            assert!(
                self.answers.insert(id, answer).is_none(),
                "request {id} answered twice"
            );
        }
    }

    /// The answer to `id`: `Ok(text)` for a result (checked against the call's token and server),
    /// `Err(data.code)` for an error.
    fn outcome(&self, id: i64) -> Result<(), String> {
        let answer = &self.answers[&id];
        let (server, token) = &self.sent[&id];
        match answer.get("result") {
            Some(result) => {
                assert_eq!(result["text"], json!(token), "crossed answer: {answer}");
                assert_eq!(result["server"], json!(server), "{answer}");
                assert_eq!(result["isError"], false, "{answer}");
                Ok(())
            }
            None => Err(answer["error"]["data"]["code"]
                .as_str()
                .unwrap_or_default()
                .to_owned()),
        }
    }

    /// Asserts every call to `server` was answered with its own token.
    fn all_ok(&self, server: &str) {
        for (&id, (s, _)) in &self.sent {
            if s == server {
                assert_eq!(self.outcome(id), Ok(()), "call {id} to {server}");
            }
        }
    }

    /// Counts of the outcomes of the calls to `server` by error code (`"ok"` for a result).
    fn tally(&self, server: &str) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for (&id, (s, _)) in &self.sent {
            if s == server {
                let key = self.outcome(id).err().unwrap_or_else(|| "ok".to_owned());
                *counts.entry(key).or_insert(0) += 1;
            }
        }
        counts
    }

    /// Ends the session with `shutdown` and checks every line the sidecar ever wrote: no request of
    /// the ledger is answered a second time, none is missing.
    fn finish(&self, mut sc: Sidecar) {
        let missing: Vec<&i64> = self
            .sent
            .keys()
            .filter(|id| !self.answers.contains_key(id))
            .collect();
        assert!(missing.is_empty(), "never collected: {missing:?}");
        let bye = sc.send("shutdown", json!({}));
        let answer = sc.response(bye);
        assert_eq!(answer["result"], json!({}), "{answer}");
        assert_eq!(sc.wait_exit(), Some(0));
        let rest = sc.drain_after_exit();
        let again: Vec<&Value> = rest
            .iter()
            .filter(|m| m.get("method").is_none())
            .filter(|m| {
                m["id"]
                    .as_i64()
                    .is_some_and(|id| self.sent.contains_key(&id))
            })
            .collect();
        assert!(again.is_empty(), "answered a second time: {again:?}");
        assert!(
            rest.iter()
                .all(|m| m.get("id").is_none() || m.get("method").is_some()),
            "a response to no request of the host: {rest:?}"
        );
    }
}

/// A fixture config with a short restart backoff.
fn restarting(args: &[&str]) -> Value {
    with_fields(fixture(args), json!({"restartBackoffMs": 50}))
}

fn pid_of(sc: &mut Sidecar, name: &str) -> u32 {
    let status = sc.server_status(name);
    status["pid"]
        .as_u64()
        .unwrap_or_else(|| panic!("no pid: {status}")) as u32
}

/// The state letter of `pid` in /proc (`T` when stopped).
fn proc_state(pid: u32) -> char {
    crate::support::proc::stat(pid).map_or('X', |s| s.state)
}

#[test]
fn a_server_crashing_mid_call_fails_only_its_own_calls_once_and_comes_back() {
    let mut sc = Sidecar::initialized(json!({}));
    assert_eq!(
        sc.add("crashy", restarting(&["--crash-after", "3"]))["state"],
        "ready"
    );
    assert_eq!(sc.add("steady", fixture(&[]))["state"], "ready");
    let before = sc.server_status("crashy")["generation"].clone();
    let mut ledger = Ledger::default();
    let ids = ledger.spread(&mut sc, &["crashy", "steady"], 40);
    ledger.collect(&mut sc, &ids);
    ledger.all_ok("steady");
    let tally = ledger.tally("crashy");
    // Three answered, the fourth found the server dead; the rest failed with a documented code.
    assert!(tally.get("ok").copied().unwrap_or(0) <= 3, "{tally:?}");
    assert!(
        tally.get("SERVER_UNAVAILABLE").copied().unwrap_or(0) >= 1,
        "{tally:?}"
    );
    for code in tally.keys() {
        assert!(
            ["ok", "SERVER_UNAVAILABLE", "TOOL_NOT_FOUND"].contains(&code.as_str()),
            "{tally:?}"
        );
    }
    // It is restarted and serves again (a fresh process: three more answers).
    sc.server_changed("crashy", |s| {
        s["state"] == "ready" && s["generation"].as_u64() > before.as_u64()
    });
    let again = ledger.spread(&mut sc, &["crashy", "steady"], 6);
    ledger.collect(&mut sc, &again);
    for id in again {
        assert_eq!(ledger.outcome(id), Ok(()), "call {id} after the restart");
    }
    ledger.finish(sc);
}

#[test]
fn a_sigstopped_server_times_out_its_calls_while_the_others_serve_then_serves_after_sigcont() {
    let mut sc = Sidecar::initialized(json!({}));
    let frozen_config = with_fields(fixture(&[]), json!({"toolTimeoutSeconds": 0.5}));
    assert_eq!(sc.add("frozen", frozen_config)["state"], "ready");
    assert_eq!(sc.add("steady", fixture(&[]))["state"], "ready");
    let pid = pid_of(&mut sc, "frozen");
    signal(pid, Signal::SIGSTOP);
    eventually("the server is stopped", || proc_state(pid) == 'T');

    let mut ledger = Ledger::default();
    let ids = ledger.spread(&mut sc, &["frozen", "steady"], 20);
    let steady: Vec<i64> = ids
        .iter()
        .copied()
        .filter(|id| ledger.sent[id].0 == "steady")
        .collect();
    ledger.collect(&mut sc, &steady);
    ledger.all_ok("steady");
    assert_eq!(
        proc_state(pid),
        'T',
        "the others were served while it was stopped"
    );
    ledger.collect(
        &mut sc,
        &ids.iter()
            .copied()
            .filter(|id| !steady.contains(id))
            .collect::<Vec<_>>(),
    );
    for (&id, (server, _)) in &ledger.sent {
        if server == "frozen" {
            let answer = &ledger.answers[&id];
            assert_eq!(answer["error"]["data"]["code"], "TOOL_TIMEOUT", "{answer}");
            assert_eq!(answer["error"]["data"]["setting"], "timeoutMs", "{answer}");
            assert_eq!(answer["error"]["data"]["limit"], 500, "{answer}");
        }
    }
    // A timeout leaves the session up (PROTOCOL.md §11): once continued, the same process serves.
    assert_eq!(sc.server_status("frozen")["state"], "ready");
    signal(pid, Signal::SIGCONT);
    eventually("the server runs again", || proc_state(pid) != 'T');
    let after = ledger.spread(&mut sc, &["frozen", "steady"], 6);
    ledger.collect(&mut sc, &after);
    for id in after {
        assert_eq!(ledger.outcome(id), Ok(()), "call {id} after SIGCONT");
    }
    assert_eq!(pid_of(&mut sc, "frozen"), pid, "served by the same process");
    ledger.finish(sc);
}

#[test]
fn stray_responses_from_a_server_are_dropped_and_never_reach_the_host() {
    let mut sc = Sidecar::initialized(json!({}));
    assert_eq!(
        sc.add("stray", fixture(&["--stray-responses"]))["state"],
        "ready"
    );
    assert_eq!(sc.add("steady", fixture(&[]))["state"], "ready");
    let generation = sc.server_status("stray")["generation"].clone();
    let mut ledger = Ledger::default();
    let ids = ledger.spread(&mut sc, &["stray", "steady"], 60);
    ledger.collect(&mut sc, &ids);
    ledger.all_ok("stray");
    ledger.all_ok("steady");
    // Unknown ids, `"id": null` errors and duplicates are not failures of the session.
    let status = sc.server_status("stray");
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["generation"], generation, "{status}");
    assert!(
        sc.held()
            .iter()
            .all(|m| !m.to_string().contains("stray response")),
        "a stray response leaked: {:?}",
        sc.held()
    );
    ledger.finish(sc);
}

#[test]
fn a_notification_flood_does_not_delay_or_cross_answers_and_the_session_stays_up() {
    const FLOOD: u64 = 30_000;
    let mut sc = Sidecar::initialized(json!({}));
    let flood = format!("{FLOOD}");
    assert_eq!(
        sc.add("loud", fixture(&["--notify-flood", &flood]))["state"],
        "ready"
    );
    assert_eq!(sc.add("steady", fixture(&[]))["state"], "ready");
    let generation = sc.server_status("loud")["generation"].clone();
    let mut ledger = Ledger::default();
    // Sent while the flood is being written: the server answers them in between its notifications.
    let ids = ledger.spread(&mut sc, &["loud", "steady"], 200);
    ledger.collect(&mut sc, &ids);
    ledger.all_ok("loud");
    ledger.all_ok("steady");
    // The fixture writes `flood done` to stderr after its last notification; its tail is in the status.
    let deadline = std::time::Instant::now() + WAIT;
    while !sc.server_status("loud")["stderrTail"]
        .as_str()
        .is_some_and(|tail| tail.contains("flood done"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the flood never ended"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = sc.server_status("loud");
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["generation"], generation, "{status}");
    // The list did not change: ten thousand list_changed announcements reach the host as nothing.
    let changed = sc
        .held()
        .iter()
        .filter(|m| m["method"] == "notifications/tools/changed")
        .count();
    assert!(
        changed <= 2,
        "{changed} notifications/tools/changed for an unchanged list"
    );
    let after = ledger.spread(&mut sc, &["loud", "steady"], 10);
    ledger.collect(&mut sc, &after);
    ledger.all_ok("loud");
    ledger.finish(sc);
}

/// Reads stdout lines until the response to `id` (skipping notifications).
fn read_response(lines: &mut impl Iterator<Item = std::io::Result<String>>, id: i64) -> Value {
    for line in lines {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["id"] == id && message.get("method").is_none() {
            return message;
        }
    }
    panic!("stdout ended before the response to {id}");
}

#[test]
#[allow(clippy::disallowed_methods)] // the test spawns the binary under test with its own pipes
fn a_host_closing_stdout_stops_every_server_and_the_sidecar_exits_without_spinning() {
    let dir = temp_dir("epipe");
    let files = [dir.join("a.json"), dir.join("b.json")];
    let mut child = Command::new(sidecar_bin())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |id: i64, method: &str, params: Value| {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{line}").and_then(|()| stdin.flush())
    };
    send(1, "initialize", json!({"protocolVersion": 1})).unwrap();
    assert!(read_response(&mut lines, 1).get("result").is_some());
    for (i, file) in files.iter().enumerate() {
        let config = fixture(&["--grandchild", "--pid-file", file.to_str().unwrap()]);
        send(
            2 + i as i64,
            "servers/add",
            json!({"name": format!("s{i}"), "config": config}),
        )
        .unwrap();
        let added = read_response(&mut lines, 2 + i as i64);
        assert_eq!(added["result"]["state"], "ready", "{added}");
    }
    let pids: Vec<u32> = files
        .iter()
        .flat_map(|f| pids_in(&read_pid_file(f)))
        .collect();
    assert!(pids.iter().all(|p| pid_alive(*p)));
    // The host closes its read end and keeps stdin open: the next answer meets EPIPE.
    drop(lines);
    let mut id = 10;
    let mut sent = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        // Keep the sidecar writing (each ping is answered) until it notices; bounded.
        if sent < 1000 && send(id, "ping", json!({})).is_ok() {
            sent += 1;
            id += 1;
            continue;
        }
        break wait_exit(&mut child);
    };
    assert_eq!(status.code(), Some(0), "{status:?}");
    all_dead("every server tree", &pids);
}

/// Waits (bounded) for `child` to exit; its CPU time while stopping stays small (no busy loop).
fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let pid = child.id();
    let ticks = || -> Option<u64> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let rest = text
            .rsplit_once(')')?
            .1
            .split_whitespace()
            .collect::<Vec<_>>();
        Some(rest.get(11)?.parse::<u64>().ok()? + rest.get(12)?.parse::<u64>().ok()?)
    };
    let start = ticks();
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if let (Some(a), Some(b)) = (start, ticks()) {
            // A spinning sidecar burns a tick (10 ms) per 10 ms of waiting; a stopping one a few.
            assert!(
                b - a < 200,
                "the sidecar burned {} ticks of CPU after EPIPE",
                b - a
            );
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the sidecar did not exit after EPIPE"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
#[allow(clippy::disallowed_methods)] // the test runs the benchmark driver
fn the_quick_soak_with_crashes_answers_every_call_exactly_once() {
    let output = Command::new(bench_bin())
        .args([
            "soak",
            "--quick",
            "--servers",
            "3",
            "--crash-rate",
            "0.005",
            "--json",
        ])
        .arg("--sidecar")
        .arg(sidecar_bin())
        .arg("--fixture")
        .arg(fixture_bin())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "mcp-bench soak failed: {stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["exactlyOnce"], true, "{report}");
    assert_eq!(report["answered"], report["calls"], "{report}");
    assert!(report["ok"].as_u64().unwrap() > 0, "{report}");
    assert!(
        report["restarts"].as_u64().unwrap() > 0,
        "no server crashed: {report}"
    );
    for code in report["failed"].as_object().unwrap().keys() {
        assert!(
            ["SERVER_UNAVAILABLE", "TOOL_NOT_FOUND"].contains(&code.as_str()),
            "{report}"
        );
    }
    assert_eq!(report["cleanExit"], true, "{report}");
}
