//! Ending a call early: host cancellation and timeouts both answer the host at once and tell the
//! server with `notifications/cancelled` (the fixture logs `cancelled <id>` to stderr); a response
//! that arrives after its call ended is dropped. Cancelling a waiting `servers/add` stops only the
//! waiting.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::procfs::{threads_named, wait_for_sleeps};
use crate::support::{eventually, fixture, temp_dir, Sidecar};

/// Adds the fixture as `fx` and returns its pid.
fn with_fixture(s: &mut Sidecar) -> u32 {
    let status = s.add("fx", fixture(&[]));
    status["pid"].as_u64().unwrap() as u32
}

/// Whether `tail` has a `cancelled <number>` line (the server-side id is the sidecar's own).
fn has_cancelled_line(tail: &str) -> bool {
    tail.lines().any(|l| {
        l.strip_prefix("cancelled ")
            .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Waits until the server's stderr tail (seen through servers/list) shows a cancellation.
fn wait_for_server_cancel(s: &mut Sidecar) {
    let s = RefCell::new(s);
    eventually("the server logged `cancelled <id>`", || {
        let list = s.borrow_mut().call("servers/list", json!({}));
        has_cancelled_line(
            list["servers"][0]["stderrTail"]
                .as_str()
                .unwrap_or_default(),
        )
    });
}

fn error_of_response(r: &Value) -> (&str, &Value) {
    let e = r
        .get("error")
        .unwrap_or_else(|| panic!("expected an error: {r}"));
    (e["data"]["code"].as_str().unwrap_or_default(), e)
}

#[test]
fn host_cancel_answers_cancelled_at_once_and_cancels_the_server_call() {
    let mut s = Sidecar::initialized(json!({}));
    let pid = with_fixture(&mut s);
    // The sleep outlasts the harness's every wait: an answer at all means the cancel produced it.
    let id = s.send(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 600_000}}),
    );
    wait_for_sleeps(pid, 1);
    s.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "user pressed stop"}),
    );
    let r = s.response(id);
    let (code, e) = error_of_response(&r);
    assert_eq!(code, "CANCELLED", "{r}");
    assert_eq!(e["code"], -32800, "{r}");
    wait_for_server_cancel(&mut s);
    eventually("the fixture's sleep thread ended", || {
        threads_named(pid, "sleep") == 0
    });
}

/// Cancels naming no call in flight (an unknown id, the id of a finished call, no id at all) are
/// ignored: nothing is answered, and the two calls in flight are untouched, while a real cancel
/// sent after them still works, and only on its own call. The host's messages are handled in
/// order, so when the real cancel has been answered the others have been handled.
#[test]
fn cancel_of_an_unknown_request_is_ignored() {
    let mut s = Sidecar::initialized(json!({}));
    let pid = with_fixture(&mut s);
    let finished = s.send(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "done"}}),
    );
    assert_eq!(s.response(finished)["result"]["text"], "done");
    let calls: Vec<i64> = (0..2)
        .map(|_| {
            s.send(
                "tools/call",
                json!({"name": "mcp__fx__sleep", "arguments": {"ms": 600_000}}),
            )
        })
        .collect();
    wait_for_sleeps(pid, 2);
    s.notify("notifications/cancelled", json!({"requestId": 424_242}));
    s.notify("notifications/cancelled", json!({"requestId": finished}));
    s.notify(
        "notifications/cancelled",
        json!({"requestId": "no-such-id"}),
    );
    s.notify("notifications/cancelled", json!({"bogus": true}));
    s.notify("notifications/cancelled", json!({"requestId": calls[0]}));
    let r = s.response(calls[0]);
    assert_eq!(error_of_response(&r).0, "CANCELLED", "{r}");
    let held = s.held();
    assert!(
        held.iter().all(|m| m.get("id").is_none()),
        "an ignored cancel got an answer, or cancelled another call: {held:?}"
    );
    // The other call is still running in the server, and answers its own cancel.
    eventually("the cancelled call's sleep ended in the server", || {
        threads_named(pid, "sleep") == 1
    });
    s.notify("notifications/cancelled", json!({"requestId": calls[1]}));
    let r = s.response(calls[1]);
    assert_eq!(error_of_response(&r).0, "CANCELLED", "{r}");
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "unaffected"}}),
    );
    assert_eq!(r["text"], "unaffected");
}

#[test]
fn timeout_ms_fails_tool_timeout_promptly_and_cancels_the_server_call() {
    let mut s = Sidecar::initialized(json!({}));
    let pid = with_fixture(&mut s);
    // The sleep outlasts the harness's every wait: a TOOL_TIMEOUT at all means the timeout fired.
    let started = Instant::now();
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 600_000}, "timeoutMs": 200}),
    );
    let took = started.elapsed();
    assert_eq!(code, "TOOL_TIMEOUT", "{e}");
    assert_eq!(e["data"]["setting"], "timeoutMs", "{e}");
    assert_eq!(e["data"]["limit"], 200, "{e}");
    assert_eq!(e["data"]["tool"], "sleep", "{e}");
    // Only the lower bound is a promise a busy machine cannot break.
    assert!(
        took >= Duration::from_millis(200),
        "answered before the timeout ({took:?})"
    );
    wait_for_server_cancel(&mut s);
    eventually("the fixture's sleep thread ended", || {
        threads_named(pid, "sleep") == 0
    });
}

#[test]
fn zero_timeout_ms_is_invalid_params() {
    let mut s = Sidecar::initialized(json!({}));
    with_fixture(&mut s);
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "x"}, "timeoutMs": 0}),
    );
    assert_eq!(code, "INVALID_PARAMS", "{e}");
    assert_eq!(e["data"]["field"], "timeoutMs", "{e}");
}

#[test]
fn tool_timeout_seconds_from_config_bounds_calls_without_timeout_ms() {
    let mut s = Sidecar::initialized(json!({}));
    let mut config = fixture(&[]);
    config["toolTimeoutSeconds"] = json!(0.3);
    s.add("fx", config);
    let started = Instant::now();
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 600_000}}),
    );
    let took = started.elapsed();
    assert_eq!(code, "TOOL_TIMEOUT", "{e}");
    assert_eq!(e["data"]["setting"], "timeoutMs", "{e}");
    assert_eq!(
        e["data"]["limit"], 300,
        "toolTimeoutSeconds 0.3 is 300 ms: {e}"
    );
    assert!(
        took >= Duration::from_millis(300),
        "answered before the configured timeout ({took:?})"
    );
    // timeoutMs overrides the configured bound.
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 400}, "timeoutMs": 3000}),
    );
    assert_eq!(r["text"], "slept 400 ms");
}

#[test]
fn late_response_after_timeout_is_dropped_and_the_next_call_gets_its_own_answer() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", fixture(&[]));
    // `large` is not cancellable in the fixture: its 1.5 MB answer is always written, after the 1 ms
    // timeout has already failed the call.
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__large", "arguments": {"bytes": 1_500_000}, "timeoutMs": 1}),
    );
    assert_eq!(code, "TOOL_TIMEOUT", "{e}");
    for bytes in [10, 20] {
        let r = s.call(
            "tools/call",
            json!({"name": "mcp__fx__large", "arguments": {"bytes": bytes}}),
        );
        assert_eq!(
            r["text"].as_str().unwrap().len(),
            bytes,
            "a call got another call's answer"
        );
    }
    let list = s.call("servers/list", json!({}));
    assert_eq!(
        list["servers"][0]["state"], "ready",
        "a late answer must not break the session: {list}"
    );
}

#[test]
fn cancelling_a_waiting_add_answers_cancelled_and_the_start_still_completes() {
    // PROTOCOL.md §11: the waiting stops, the operation completes, never stuck in `starting`.
    // The fixture does not answer `initialize` until the gate file exists, so the start cannot
    // finish before the test lets it: an answer to the cancel that waited for it never comes.
    let gate = temp_dir("cancel-add").join("gate");
    let gate_arg = gate.to_str().unwrap();
    let mut s = Sidecar::initialized(json!({}));
    let add = s.send(
        "servers/add",
        json!({"name": "slow", "config": fixture(&["--start-gate", gate_arg])}),
    );
    s.notification("notifications/servers/changed", |p| {
        p["status"]["pid"].is_u64()
    });
    s.notify("notifications/cancelled", json!({"requestId": add}));
    let r = s.response(add);
    assert_eq!(error_of_response(&r).0, "CANCELLED", "{r}");
    assert_eq!(s.server_status("slow")["state"], "starting");
    std::fs::write(&gate, b"").unwrap();
    let done = s.notification("notifications/servers/changed", |p| {
        p["status"]["state"] != "starting"
    });
    assert_eq!(done["params"]["status"]["state"], "ready", "{done}");
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__slow__echo", "arguments": {"message": "late"}}),
    );
    assert_eq!(r["text"], "late");
}

/// A second request reusing an id still in flight is refused, and the first keeps its cancel
/// token: before the refusal, the second took the id over and the first could never be cancelled.
#[test]
fn a_reused_id_in_flight_is_refused_and_the_first_stays_cancellable() {
    let mut s = Sidecar::initialized(json!({}));
    let pid = with_fixture(&mut s);
    let id = 9_000_001;
    let sleep = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "mcp__fx__sleep", "arguments": {"ms": 600_000}}});
    s.write_raw(format!("{sleep}\n").as_bytes());
    wait_for_sleeps(pid, 1);
    let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
    s.write_raw(format!("{ping}\n").as_bytes());
    let refused = s.response(id);
    let (code, error) = error_of_response(&refused);
    assert_eq!(code, "INVALID_REQUEST", "{refused}");
    assert_eq!(error["data"]["field"], "id", "{refused}");
    s.notify("notifications/cancelled", json!({"requestId": id}));
    let cancelled = s.response(id);
    assert_eq!(error_of_response(&cancelled).0, "CANCELLED", "{cancelled}");
}
