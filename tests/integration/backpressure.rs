//! Bounded under any host: a host that writes without reading is held back by its own blocked
//! writes while the sidecar's memory stays flat, and every request is still answered exactly once
//! when it reads again; the in-flight caps (the session's pushes back, a server's refuses with
//! OVERLOADED); notification storms while the host is not reading stay bounded; a panicking
//! handler still answers; ids that are not i64 are echoed exactly as sent.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use serde_json::{json, Value};

use crate::procfs::wait_for_sleeps;
use crate::support::{eventually, fixture, sidecar_bin, with_fields, Sidecar, WAIT};

/// A sidecar whose stdout the test reads only when it chooses to: the raw lines, nothing parsed
/// before the test looks (a parsed id would lose the exact text of a big number).
struct RawHost {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
}

impl RawHost {
    #[allow(clippy::disallowed_methods)] // the host under test: the sidecar binary itself
    fn spawn(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(sidecar_bin())
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp-sidecar");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().map(BufReader::new);
        let mut host = Self {
            child,
            stdin,
            stdout,
        };
        host.write(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
        );
        let line = host.read_line();
        assert!(line.contains(r#""id":0,"result""#), "initialize: {line}");
        host
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn write(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// One line of stdout (blocking: use only where the sidecar has an answer due).
    fn read_line(&mut self) -> String {
        let mut line = String::new();
        let n = self
            .stdout
            .as_mut()
            .expect("stdout")
            .read_line(&mut line)
            .unwrap();
        assert!(n > 0, "the sidecar closed stdout");
        line
    }

    /// Every further line of stdout, read by a thread (each wait bounded by [`WAIT`]).
    fn lines(&mut self) -> mpsc::Receiver<String> {
        let mut stdout = self.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || loop {
            let mut line = String::new();
            match stdout.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            }
        });
        rx
    }
}

impl Drop for RawHost {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A line's `id` member, parsed.
fn id_of(line: &str) -> Value {
    serde_json::from_str::<Value>(line).unwrap()["id"].clone()
}

/// `/proc/PID/status` field `key` (`VmHWM`, `VmRSS`), in bytes.
fn proc_status_bytes(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{key}:")))
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/status"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap();
    kib * 1024
}

/// Whether every thread of `pid` is asleep (state S): it is waiting, not working.
fn all_threads_asleep(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().all(|t| {
        std::fs::read_to_string(t.path().join("stat")).is_ok_and(|stat| {
            // The state follows the parenthesised name, which may itself contain spaces.
            stat.rsplit_once(") ")
                .and_then(|(_, rest)| rest.chars().next())
                .is_some_and(|state| state == 'S')
        })
    })
}

/// Bytes written to the pipe behind `fd` and not yet read by the other end.
fn unread_bytes(fd: std::os::fd::RawFd) -> usize {
    let mut n: nix::libc::c_int = 0;
    // SAFETY: `fd` is an open pipe end owned by this process; FIONREAD writes one c_int.
    let rc = unsafe { nix::libc::ioctl(fd, nix::libc::FIONREAD, &mut n) };
    assert_eq!(rc, 0, "FIONREAD on the sidecar's stdin");
    n as usize
}

/// The host writes 200,000 pings and reads nothing: the sidecar stops reading stdin (its threads
/// all asleep with a full pipe before it, the writer blocked part-way) and its peak RSS stays
/// small. Then the host reads: every ping is answered exactly once.
#[test]
fn a_host_that_stops_reading_is_pushed_back_and_every_request_is_answered_once() {
    const PINGS: u64 = 200_000;
    let mut host = RawHost::spawn(&[], &[]);
    let pid = host.pid();
    let mut stdin = host.stdin.take().unwrap();
    let fd = stdin.as_raw_fd();
    let written = Arc::new(AtomicU64::new(0));
    let writer = {
        let written = Arc::clone(&written);
        std::thread::spawn(move || {
            for id in 1..=PINGS {
                let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
                stdin.write_all(line.as_bytes()).unwrap();
                written.store(id, Ordering::SeqCst);
            }
            stdin
        })
    };
    // Quiescent: the sidecar asleep although its stdin holds a pipe-full it has not read, and
    // nothing moved between two looks.
    let last = std::cell::Cell::new(u64::MAX);
    eventually(
        "the sidecar stopped reading a host that does not read",
        || {
            let now = written.load(Ordering::SeqCst);
            let quiet = unread_bytes(fd) >= 32 * 1024 && all_threads_asleep(pid);
            let steady = quiet && now == last.get();
            last.set(if quiet { now } else { u64::MAX });
            steady
        },
    );
    let held_back = written.load(Ordering::SeqCst);
    let peak = proc_status_bytes(pid, "VmHWM");
    // What the sidecar holds for the host is heap: anonymous memory, measured while it is held.
    // The peak RSS also counts the pages of the (debug) binary itself, which grow with the code.
    let held = proc_status_bytes(pid, "RssAnon");
    eprintln!(
        "pushback after {held_back} of {PINGS} pings; sidecar VmHWM {peak} bytes, RssAnon {held} bytes"
    );
    assert!(
        held_back < PINGS,
        "the writer was never blocked: the sidecar read everything"
    );
    // Bounded, not zero: each request admitted before the push-back is a task whose (debug-build)
    // state is a few KiB — 36 MB for 8,951 pings once requests carried their trace context and
    // metrics — while an unbounded reader would hold the whole 200,000 (hundreds of MB).
    assert!(
        held < 48 * 1024 * 1024,
        "sidecar anonymous memory {held} bytes while the host was not reading"
    );
    assert!(
        peak < 96 * 1024 * 1024,
        "sidecar peak RSS {peak} bytes while the host was not reading"
    );

    let lines = host.lines();
    let mut answered: HashMap<u64, u32> = HashMap::new();
    while (answered.len() as u64) < PINGS {
        let line = lines.recv_timeout(WAIT).expect("an answer");
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["result"], json!({}), "{line}");
        *answered.entry(v["id"].as_u64().unwrap()).or_default() += 1;
    }
    assert!(answered.values().all(|&n| n == 1), "each exactly once");
    assert!(answered.keys().all(|id| (1..=PINGS).contains(id)));
    host.stdin = Some(writer.join().unwrap());
    host.write(r#"{"jsonrpc":"2.0","id":"end","method":"shutdown"}"#);
    let last = lines.recv_timeout(WAIT).expect("the shutdown answer");
    assert_eq!(
        id_of(&last),
        "end",
        "nothing but the shutdown answer is left: {last}"
    );
    assert!(host.child.wait().unwrap().success());
}

/// A panic inside a request's handler answers that request INTERNAL, and the sidecar goes on
/// serving (the trigger exists only in debug builds, and only with the variable set).
#[test]
fn a_panicking_handler_answers_internal_and_the_sidecar_goes_on() {
    let mut host = RawHost::spawn(&[], &[("MCP_SIDECAR_TEST_PANIC", "1")]);
    host.write(r#"{"jsonrpc":"2.0","id":1,"method":"test/panic"}"#);
    let v: Value = serde_json::from_str(&host.read_line()).unwrap();
    assert_eq!(v["id"], 1);
    assert_eq!(v["error"]["data"]["code"], "INTERNAL", "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("panicked"),
        "{v}"
    );
    for id in 2..5 {
        host.write(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        let v: Value = serde_json::from_str(&host.read_line()).unwrap();
        assert_eq!(
            (v["id"].clone(), v["result"].clone()),
            (json!(id), json!({}))
        );
    }
    // The id of the panicked request is free again.
    host.write(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert!(host.read_line().contains(r#""id":1,"result":{}"#));

    // Without the variable the method does not exist.
    let mut plain = RawHost::spawn(&[], &[]);
    plain.write(r#"{"jsonrpc":"2.0","id":1,"method":"test/panic"}"#);
    assert!(plain.read_line().contains("METHOD_NOT_FOUND"));
}

/// Ids that are not i64 (≥ 2^63, u64 max, beyond u64, below i64, fractions, exponents) come back
/// exactly as written, also in errors, and a cancel naming one finds its request.
#[test]
fn ids_beyond_i64_are_echoed_exactly_as_sent() {
    let mut host = RawHost::spawn(&[], &[]);
    for id in [
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775809",
        "1.5",
        "1e3",
        "-2.5E-3",
        "100000000000000000000000000000000000001",
    ] {
        host.write(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        assert_eq!(
            host.read_line(),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n")
        );
        host.write(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"no/such"}}"#
        ));
        let line = host.read_line();
        assert!(
            line.starts_with(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\"")),
            "{line}"
        );
        // Not JSON-RPC 2.0, but the id could be read: answered under it.
        host.write(&format!(r#"{{"jsonrpc":"1.0","id":{id},"method":"ping"}}"#));
        let line = host.read_line();
        assert!(
            line.starts_with(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\"")),
            "{line}"
        );
    }
    assert!(id_of(&host.read_line_after_ping()).is_number());
}

impl RawHost {
    /// A ping's answer (a marker that everything before it was read).
    fn read_line_after_ping(&mut self) -> String {
        self.write(r#"{"jsonrpc":"2.0","id":77,"method":"ping"}"#);
        self.read_line()
    }
}

/// `maxInflight` of a server: past it a call is refused at once with OVERLOADED naming the
/// server, the setting and the limit; the other servers are served meanwhile, and once a call
/// ends the server takes calls again.
#[test]
fn a_server_past_max_inflight_refuses_with_overloaded_and_the_others_are_served() {
    let mut s = Sidecar::initialized(json!({}));
    let status = s.add("fx", with_fields(fixture(&[]), json!({"max_inflight": 2})));
    let pid = status["pid"].as_u64().unwrap() as u32;
    s.add("other", fixture(&[]));
    let sleep = json!({"name": "mcp__fx__sleep", "arguments": {"ms": 600_000}});
    let a = s.send("tools/call", sleep.clone());
    let b = s.send("tools/call", sleep.clone());
    wait_for_sleeps(pid, 2);
    let (code, e) = s.error_of("tools/call", sleep.clone());
    assert_eq!(code, "OVERLOADED", "{e}");
    assert_eq!(e["code"], -32035);
    assert_eq!(e["data"]["server"], "fx");
    assert_eq!(e["data"]["setting"], "maxInflight");
    assert_eq!(e["data"]["limit"], 2);
    assert_eq!(e["data"]["name"], "mcp__fx__sleep");
    let echo = s.call(
        "tools/call",
        json!({"name": "mcp__other__echo", "arguments": {"message": "hi"}}),
    );
    assert!(echo.to_string().contains("hi"), "{echo}");
    s.notify("notifications/cancelled", json!({"requestId": a}));
    assert_eq!(s.response(a)["error"]["data"]["code"], "CANCELLED");
    let echo = s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "again"}}),
    );
    assert!(echo.to_string().contains("again"), "{echo}");
    s.notify("notifications/cancelled", json!({"requestId": b}));
    assert_eq!(s.response(b)["error"]["data"]["code"], "CANCELLED");
}

/// `maxInflight` out of range is CONFIG_INVALID naming the field, in either spelling.
#[test]
fn max_inflight_is_validated() {
    let mut s = Sidecar::initialized(json!({}));
    for bad in [
        json!({"maxInflight": 0}),
        json!({"max_inflight": 70_000}),
        json!({"maxInflight": "8"}),
    ] {
        let (code, e) = s.error_of(
            "servers/add",
            json!({"name": "fx", "config": with_fields(fixture(&[]), bad.clone())}),
        );
        assert_eq!(code, "CONFIG_INVALID", "{bad}: {e}");
        assert_eq!(e["data"]["field"], "maxInflight", "{bad}: {e}");
    }
}

/// `--max-inflight` of the session pushes back instead of refusing: with one slot, a ping sent
/// behind a call is read only once the call is answered, and is then served (no error).
#[test]
fn the_session_cap_holds_the_next_request_back_instead_of_refusing_it() {
    let mut s = Sidecar::initialized_with(&["--max-inflight", "1"], json!({}));
    s.add("fx", fixture(&[]));
    let call = s.send(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 1500}}),
    );
    let ping = s.send("ping", json!({}));
    let first = s.wait_for(|m| m["id"] == json!(call) || m["id"] == json!(ping));
    assert_eq!(first["id"], call, "the ping overtook the call: {first}");
    assert!(first.get("result").is_some(), "{first}");
    assert_eq!(s.response(ping)["result"], json!({}));
    for _ in 0..3 {
        s.call("ping", json!({}));
    }
}

/// Bytes waiting in the pipe that `pid`'s descriptor `fd` is an end of (opened anew through /proc).
fn pipe_backlog(pid: u32, fd: u32) -> usize {
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(format!("/proc/{pid}/fd/{fd}"))
    else {
        return usize::MAX;
    };
    unread_bytes(file.as_raw_fd())
}

/// Waits until the sidecar and its server are both idle with nothing between them: the server's
/// stdin and stdout pipes empty and every thread of both asleep, twice in a row.
fn wait_until_quiet(sidecar: u32, server: u32) {
    let quiet_once = || {
        pipe_backlog(server, 0) == 0
            && pipe_backlog(server, 1) == 0
            && all_threads_asleep(server)
            && all_threads_asleep(sidecar)
    };
    // A bound, not a window: the chain of re-reads takes seconds on a busy debug build.
    let deadline = std::time::Instant::now() + 6 * WAIT;
    let mut before = false;
    loop {
        let now = quiet_once();
        if now && before {
            return;
        }
        before = now;
        assert!(
            std::time::Instant::now() < deadline,
            "the sidecar and its server never became quiet"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Adds server `name` over the raw pipe and reads up to its answer; returns its pid.
fn add_raw(host: &mut RawHost, id: u64, name: &str, args: &[&str]) -> u32 {
    let config = crate::support::fixture(args);
    host.write(
        &json!({"jsonrpc": "2.0", "id": id, "method": "servers/add",
                "params": {"name": name, "config": config}})
        .to_string(),
    );
    loop {
        let v: Value = serde_json::from_str(&host.read_line()).unwrap();
        if v["id"] == json!(id) {
            assert_eq!(v["result"]["state"], "ready", "{v}");
            return v["result"]["pid"].as_u64().unwrap() as u32;
        }
    }
}

/// Reads every line up to the answer of a `servers/list` sent now (whose answer follows every
/// notification queued before it); returns the `notifications/servers/changed` statuses read on
/// the way and the list's result.
fn read_up_to_a_list(host: &mut RawHost) -> (Vec<Value>, Value) {
    host.write(r#"{"jsonrpc":"2.0","id":"list","method":"servers/list"}"#);
    let lines = host.lines();
    let mut statuses = Vec::new();
    loop {
        let line = lines.recv_timeout(WAIT).expect("a line");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == "list" {
            return (statuses, v["result"].clone());
        }
        if v["method"] == "notifications/servers/changed" {
            statuses.push(v["params"]["status"].clone());
        }
    }
}

/// A server that announces `tools/list_changed` after every re-read makes 2,500 re-reads, one
/// after the other, each a status change, while the host is not reading: what waits for the host
/// is coalesced (one status per server), so fewer than 2,000 notifications (what the outbox and the pipe hold, the 256 kept as is, and one) reach it, and the
/// last one it reads is the server's final state.
#[test]
fn status_changes_while_the_host_is_not_reading_are_coalesced() {
    const ECHOES: &str = "2500";
    let mut host = RawHost::spawn(&[], &[]);
    let pid = add_raw(&mut host, 1, "fx", &["--list-changed-echo", ECHOES]);
    wait_until_quiet(host.pid(), pid);
    let (statuses, list) = read_up_to_a_list(&mut host);
    eprintln!(
        "{} status notifications for {ECHOES} re-reads",
        statuses.len()
    );
    assert!(
        statuses.len() < 2000,
        "{} status notifications reached the host: not coalesced",
        statuses.len()
    );
    let last = statuses.last().expect("at least one status");
    let listed = &list["servers"][0];
    assert_eq!(last["state"], "ready");
    assert_eq!(last["toolsCount"], listed["toolsCount"]);
    assert_eq!(last["generation"], listed["generation"]);
}

/// A server flooding 50,000 `tools/list_changed` at once costs a few re-reads, not 50,000: the
/// announcements that arrive during a re-read make one more. Memory stays bounded and the server
/// ends ready with its tools.
#[test]
fn a_flood_of_list_changed_costs_a_few_re_reads() {
    let mut host = RawHost::spawn(&[], &[]);
    let pid = add_raw(&mut host, 1, "fx", &["--list-changed-storm", "50000"]);
    host.write(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__fx__echo","arguments":{"message":"go"}}}"#,
    );
    wait_until_quiet(host.pid(), pid);
    let peak = proc_status_bytes(host.pid(), "VmHWM");
    let (statuses, list) = read_up_to_a_list(&mut host);
    eprintln!(
        "{} status notifications for 50000 announcements; VmHWM {peak}",
        statuses.len()
    );
    assert!(statuses.len() < 1000, "{} re-reads", statuses.len());
    assert!(peak < 64 * 1024 * 1024, "sidecar peak RSS {peak} bytes");
    assert_eq!(list["servers"][0]["state"], "ready");
}

/// A server writing 30,000 log messages while the host is not reading: once 256 notifications
/// wait, its messages are dropped and counted in one marker (a warning naming the count), so
/// every message is either delivered or counted — never kept without a bound — and the sidecar's
/// memory stays flat.
#[test]
fn a_log_storm_while_the_host_is_not_reading_is_counted_not_kept() {
    const STORM: u64 = 30_000;
    let mut host = RawHost::spawn(&[], &[]);
    let pid = add_raw(&mut host, 1, "fx", &["--surface"]);
    host.write(
        r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}"#,
    );
    loop {
        let v: Value = serde_json::from_str(&host.read_line()).unwrap();
        if v["id"] == 2 {
            assert_eq!(v["result"]["servers"], json!(["fx"]), "{v}");
            break;
        }
    }
    host.write(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "mcp__fx__emit",
            "arguments": {"kind": "log", "level": "info", "data": "storm", "count": STORM}}})
        .to_string(),
    );
    wait_until_quiet(host.pid(), pid);
    let peak = proc_status_bytes(host.pid(), "VmHWM");
    let lines = host.lines();
    host.write(r#"{"jsonrpc":"2.0","id":"list","method":"servers/list"}"#);
    let (mut delivered, mut dropped, mut answered) = (0u64, 0u64, false);
    loop {
        let v: Value = serde_json::from_str(&lines.recv_timeout(WAIT).expect("a line")).unwrap();
        if v["id"] == "list" {
            break;
        }
        answered |= v["id"] == 3;
        if v["method"] == "notifications/server/log" {
            match v["params"]["logger"].as_str() {
                Some("mcp-sidecar") => {
                    let text = v["params"]["data"].as_str().unwrap();
                    dropped += text.split(' ').next().unwrap().parse::<u64>().unwrap();
                    assert_eq!(v["params"]["level"], "warning");
                }
                _ => delivered += 1,
            }
        }
    }
    eprintln!("{delivered} log messages delivered, {dropped} dropped; VmHWM {peak}");
    assert!(answered, "the emit call was answered");
    assert_eq!(
        delivered + dropped,
        STORM,
        "each message delivered or counted"
    );
    assert!(dropped > 0, "the host was not reading: some were dropped");
    assert!(peak < 64 * 1024 * 1024, "sidecar peak RSS {peak} bytes");
}

/// A host that closes stdin and never reads again, with a pipe-full of answers and the stop's
/// notifications before it: the sidecar still stops every server and exits (its last writes
/// give up after `limits::STDOUT_STALL_AT_STOP` without progress). The exit is awaited as an
/// event; the outer bound only fails the test.
#[test]
fn a_host_that_closes_stdin_and_never_reads_still_sees_the_sidecar_exit() {
    const PINGS: u64 = 3000; // ~130 KB of answers: twice what a pipe holds
    let mut host = RawHost::spawn(&[], &[]);
    let servers: Vec<u32> = (0..3)
        .map(|n| add_raw(&mut host, 100 + n, &format!("fx{n}"), &[]))
        .collect();
    let mut pings = String::new();
    for id in 1..=PINGS {
        pings.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"
        ));
    }
    host.write(pings.trim_end());
    drop(host.stdin.take()); // end of input; stdout stays open and unread
    let pid = host.pid();
    let exited = std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        let child = &mut host.child;
        scope.spawn(move || {
            let _ = tx.send(child.wait().unwrap());
        });
        let status = rx.recv_timeout(WAIT);
        if status.is_err() {
            // Unblocks the waiting thread; the test fails below.
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        status
    });
    let status = exited.expect("the sidecar never exited: its writes to an unread stdout held it");
    assert!(status.success(), "{status}");
    for server in servers {
        assert!(
            !crate::support::pid_alive(server),
            "server {server} outlived the sidecar"
        );
    }
}

/// A host that sends 800 calls whose results are 200 KB each and reads nothing: what waits for
/// it is bounded in bytes (the answers' budget, `limits::HOST_ANSWER_BYTES`, and the writer's,
/// `limits::HOST_OUTBOX_BYTES`), not in messages, so the sidecar's peak RSS stays far below the
/// 480 MB of answers (each carries its result three times: `content`, `text`, `output`), which
/// it held whole before. Then the host reads: every call is answered exactly once, in full.
#[test]
fn large_answers_for_a_host_that_does_not_read_are_bounded_in_bytes() {
    const CALLS: u64 = 800;
    const BYTES: u64 = 200_000;
    let mut host = RawHost::spawn(&[], &[]);
    let servers: Vec<u32> = (0..2)
        .map(|n| add_raw(&mut host, 100 + n, &format!("fx{n}"), &[]))
        .collect();
    let mut calls = String::new();
    for id in 1..=CALLS {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": format!("mcp__fx{}__large", id % 2), "arguments": {"bytes": BYTES}}});
        calls.push_str(&format!("{call}\n"));
    }
    host.write(calls.trim_end());
    for server in &servers {
        wait_until_quiet(host.pid(), *server);
    }
    let peak = proc_status_bytes(host.pid(), "VmHWM");
    eprintln!("{CALLS} answers of {BYTES} bytes waiting; sidecar VmHWM {peak} bytes");
    assert!(
        peak < 256 * 1024 * 1024,
        "sidecar peak RSS {peak} bytes while the host was not reading"
    );

    let lines = host.lines();
    let mut answered: HashMap<u64, u32> = HashMap::new();
    while (answered.len() as u64) < CALLS {
        let line = lines.recv_timeout(WAIT).expect("an answer");
        // The head names the id; the three copies of the result make up the rest (parsing 480 MB
        // of answers would only slow the test down).
        let Some(rest) = line.strip_prefix(r#"{"jsonrpc":"2.0","id":"#) else {
            continue;
        };
        let (id, rest) = rest.split_once(',').unwrap();
        assert!(rest.starts_with(r#""result":"#), "{:.200}", line);
        let copies = line.matches(&"x".repeat(BYTES as usize)).count();
        assert_eq!(copies, 3, "call {id}: {:.200}", line);
        *answered.entry(id.parse().unwrap()).or_default() += 1;
    }
    assert!(answered.values().all(|&n| n == 1), "each exactly once");
    assert!(answered.keys().all(|id| (1..=CALLS).contains(id)));
}

/// Calls that hold the whole answer budget (each reserves its share before it runs) leave the
/// host able to remove the server they wait on: `servers/remove` answers a few bytes and reserves
/// nothing, so it is answered at once, and so is every call (its server is gone).
#[test]
fn calls_holding_the_whole_answer_budget_leave_the_host_able_to_remove_their_server() {
    let calls = (mcp_sidecar::limits::HOST_ANSWER_BYTES
        / mcp_sidecar::limits::HOST_ANSWER_RESERVE_BYTES) as u64
        + 16;
    let mut host = RawHost::spawn(&[], &[]);
    add_raw(&mut host, 1, "slow", &[]);
    let mut batch = String::new();
    for id in 1000..1000 + calls {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "mcp__slow__sleep", "arguments": {"ms": 600_000}}});
        batch.push_str(&format!("{call}\n"));
    }
    batch.push_str(
        r#"{"jsonrpc":"2.0","id":"remove","method":"servers/remove","params":{"name":"slow"}}"#,
    );
    host.write(&batch);
    let lines = host.lines();
    let (mut answered, mut removed) = (0, false);
    while !(removed && answered == calls) {
        // Without the exemption the removal waits behind the calls' reservations, which the
        // 600 s sleeps hold far beyond this wait.
        let line = lines
            .recv_timeout(WAIT)
            .expect("the removal and every call answered");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == "remove" {
            assert_eq!(v["result"], json!({}), "{v}");
            removed = true;
        } else if v["id"].is_u64() {
            answered += 1;
        }
    }
}
