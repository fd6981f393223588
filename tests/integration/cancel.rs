//! Ending a call early: host cancellation and timeouts both answer the host at once and tell the
//! server with `notifications/cancelled` (the fixture logs `cancelled <id>` to stderr); a response
//! that arrives after its call ended is dropped. Cancelling a waiting `servers/add` stops only the
//! waiting.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::procfs::{threads_named, wait_for_sleeps};
use crate::support::{eventually, fixture, Sidecar};

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
    let id = s.send(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 10_000}}),
    );
    wait_for_sleeps(pid, 1);
    let started = Instant::now();
    s.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "user pressed stop"}),
    );
    let r = s.response(id);
    let took = started.elapsed();
    let (code, e) = error_of_response(&r);
    assert_eq!(code, "CANCELLED", "{r}");
    assert_eq!(e["code"], -32800, "{r}");
    assert!(took < Duration::from_secs(2), "cancel took {took:?}");
    wait_for_server_cancel(&mut s);
    eventually("the fixture's sleep thread ended", || {
        threads_named(pid, "sleep") == 0
    });
}

#[test]
fn cancel_of_an_unknown_request_is_ignored() {
    let mut s = Sidecar::initialized(json!({}));
    with_fixture(&mut s);
    s.notify("notifications/cancelled", json!({"requestId": 424_242}));
    s.notify("notifications/cancelled", json!({"bogus": true}));
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
    let started = Instant::now();
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 5000}, "timeoutMs": 200}),
    );
    let took = started.elapsed();
    assert_eq!(code, "TOOL_TIMEOUT", "{e}");
    assert_eq!(e["data"]["setting"], "timeoutMs", "{e}");
    assert_eq!(e["data"]["limit"], 200, "{e}");
    assert_eq!(e["data"]["tool"], "sleep", "{e}");
    assert!(
        took >= Duration::from_millis(200),
        "answered before the timeout ({took:?})"
    );
    assert!(took < Duration::from_secs(1), "timeout took {took:?}");
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
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 5000}}),
    );
    let took = started.elapsed();
    assert_eq!(code, "TOOL_TIMEOUT", "{e}");
    assert_eq!(e["data"]["setting"], "timeoutMs", "{e}");
    assert_eq!(
        e["data"]["limit"], 300,
        "toolTimeoutSeconds 0.3 is 300 ms: {e}"
    );
    assert!(took < Duration::from_secs(1), "timeout took {took:?}");
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
    let mut s = Sidecar::initialized(json!({}));
    let add = s.send(
        "servers/add",
        json!({"name": "slow", "config": fixture(&["--slow-start", "800"])}),
    );
    s.notification("notifications/servers/changed", |p| {
        p["status"]["pid"].is_u64()
    });
    let started = Instant::now();
    s.notify("notifications/cancelled", json!({"requestId": add}));
    let r = s.response(add);
    assert_eq!(error_of_response(&r).0, "CANCELLED", "{r}");
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "the cancel waited for the start"
    );
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
