//! Many requests in flight at once: every response is matched to its own request by id, across
//! servers and out of order.

use serde_json::json;
use std::collections::HashMap;

use crate::support::{fixture, Sidecar};

#[test]
fn two_hundred_echo_calls_in_flight_across_three_servers_each_get_their_own_answer() {
    let mut s = Sidecar::initialized(json!({}));
    let servers = ["a", "b", "c"];
    for name in servers {
        s.add(name, fixture(&[]));
    }
    let mut sent: HashMap<i64, (String, &str)> = HashMap::new();
    for i in 0..200 {
        let server = servers[i % servers.len()];
        let message = format!("message {i} for {server}");
        let id = s.send(
            "tools/call",
            json!({"name": format!("mcp__{server}__echo"), "arguments": {"message": message}}),
        );
        sent.insert(id, (message, server));
    }
    for (id, (message, server)) in &sent {
        let r = s.response(*id);
        let result = r
            .get("result")
            .unwrap_or_else(|| panic!("call {id} failed: {r}"));
        assert_eq!(result["text"], message.as_str(), "{r}");
        assert_eq!(result["server"], *server, "{r}");
        assert_eq!(
            result["structuredContent"]["message"],
            message.as_str(),
            "{r}"
        );
    }
}

/// Three `sleep` calls on one server that the fixture (`--barrier 3`) holds until all three have
/// reached it: a sidecar that sent them one at a time would get the fixture's barrier error for the
/// first instead of three answers. Released together, they finish shortest first, and each answer
/// reaches the host as it comes (not in request order), matched to its own id.
#[test]
fn concurrent_calls_on_one_server_complete_in_order_of_duration_matched_by_id() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", fixture(&["--barrier", "3"]));
    let mut expected: HashMap<i64, u64> = HashMap::new();
    for ms in [1200, 100, 650] {
        let id = s.send(
            "tools/call",
            json!({"name": "mcp__fx__sleep", "arguments": {"ms": ms}}),
        );
        expected.insert(id, ms);
    }
    let mut order = Vec::new();
    for _ in 0..expected.len() {
        let r = s.wait_for(|m| {
            m.get("method").is_none()
                && m["id"]
                    .as_i64()
                    .is_some_and(|id| expected.contains_key(&id))
        });
        let id = r["id"].as_i64().unwrap();
        let ms = expected.remove(&id).unwrap();
        assert_eq!(
            r["result"]["text"],
            format!("slept {ms} ms"),
            "every call reached the server before any was answered: {r}"
        );
        order.push(ms);
    }
    assert_eq!(
        order,
        [100, 650, 1200],
        "answers arrive as each call finishes, not in request order"
    );
}

/// `supportsParallel: false` serialises a server's calls in a fair queue. The fixture's barrier
/// (`--barrier 2`) holds the first `sleep` until a second one reaches the server, which the queue
/// never lets happen while the first is in flight: so the first times out, a call queued behind it
/// with a shorter timeout times out in the queue, a cancelled one leaves the queue, and the next
/// in line then reaches the server (the barrier's second arrival) and is answered. `maxInflight`
/// still refuses what is past it, queued or not.
#[test]
fn a_server_without_parallel_calls_takes_them_one_at_a_time_in_a_fair_queue() {
    let mut s = Sidecar::initialized(json!({}));
    let serial =
        |extra: serde_json::Value| crate::support::with_fields(fixture(&["--barrier", "2"]), extra);
    s.add("fx", serial(json!({"supports_parallel": false})));
    let sleep = |timeout: Option<u64>| {
        let mut p = json!({"name": "mcp__fx__sleep", "arguments": {"ms": 10}});
        if let Some(ms) = timeout {
            p["timeoutMs"] = json!(ms);
        }
        p
    };
    let first = s.send("tools/call", sleep(Some(1500)));
    let short = s.send(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "hurry"}, "timeoutMs": 300}),
    );
    let cancelled = s.send(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "never mind"}}),
    );
    s.notify("notifications/cancelled", json!({"requestId": cancelled}));
    let next = s.send("tools/call", sleep(None));

    let r = s.response(short);
    assert_eq!(r["error"]["data"]["code"], "TOOL_TIMEOUT", "{r}");
    assert_eq!(r["error"]["data"]["limit"], 300);
    assert!(
        r["error"]["data"]["queued"].is_string(),
        "timed out in the queue: {r}"
    );
    let r = s.response(cancelled);
    assert_eq!(r["error"]["data"]["code"], "CANCELLED", "{r}");
    let r = s.response(first);
    assert_eq!(
        r["error"]["data"]["code"], "TOOL_TIMEOUT",
        "alone at the barrier: {r}"
    );
    assert_eq!(r["error"]["data"]["limit"], 1500);
    let r = s.response(next);
    assert_eq!(r["result"]["text"], "slept 10 ms", "its turn came: {r}");

    s.add(
        "one",
        serial(json!({"supportsParallel": false, "maxInflight": 1})),
    );
    let held = s.send(
        "tools/call",
        json!({"name": "mcp__one__sleep", "arguments": {"ms": 10}, "timeoutMs": 1000}),
    );
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__one__echo", "arguments": {"message": "x"}}),
    );
    assert_eq!(
        (code.as_str(), &e["data"]["setting"]),
        ("OVERLOADED", &json!("maxInflight"))
    );
    assert_eq!(s.response(held)["error"]["data"]["code"], "TOOL_TIMEOUT");
}
