//! `servers/stats` against the calls actually made: counts, errors, latency percentiles (lower
//! bounds only: a call that sleeps 300 ms cannot take less), bytes each way (a 50,000-character
//! argument and a 100,000-byte result must show up, plus only a little framing), restarts,
//! uptime, and the same figures in both windows of a fresh session.

use serde_json::{json, Value};

use crate::support::{fixture, with_fields, Sidecar};

fn stats(s: &mut Sidecar, name: &str) -> Value {
    let r = s.call("servers/stats", json!({"servers": [name]}));
    let servers = r["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1, "{r}");
    servers[0].clone()
}

fn bytes(stats: &Value) -> (u64, u64) {
    (
        stats["bytesIn"].as_u64().unwrap(),
        stats["bytesOut"].as_u64().unwrap(),
    )
}

/// JSON-RPC envelope and the tool's own fields around a payload: well under this.
const FRAMING: u64 = 400;

#[test]
fn stats_count_the_calls_made_and_the_bytes_they_moved() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", fixture(&[]));
    let before = stats(&mut s, "fx");
    assert_eq!(before["state"], "ready");
    assert!(before["uptimeMs"].as_f64().is_some(), "{before}");
    let (in0, out0) = bytes(&before);
    assert!(
        in0 > 0 && out0 > 0,
        "the handshake and the tool list count: {before}"
    );

    // 50,000 characters out to the server (and echoed back), then 100,000 bytes in.
    let message = "m".repeat(50_000);
    s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": message}}),
    );
    let (in1, out1) = bytes(&stats(&mut s, "fx"));
    assert!(
        out1 - out0 >= 50_000 && out1 - out0 < 50_000 + FRAMING,
        "{out0} → {out1}"
    );
    // The echo answers the text twice (content and structuredContent).
    assert!(
        in1 - in0 >= 100_000 && in1 - in0 < 100_000 + FRAMING,
        "{in0} → {in1}"
    );
    s.call(
        "tools/call",
        json!({"name": "mcp__fx__large", "arguments": {"bytes": 100_000}}),
    );
    let (in2, out2) = bytes(&stats(&mut s, "fx"));
    assert!(
        in2 - in1 >= 100_000 && in2 - in1 < 100_000 + FRAMING,
        "{in1} → {in2}"
    );
    assert!(out2 - out1 < FRAMING, "{out1} → {out2}");

    // Ten quick calls, one slow one, one that times out.
    for _ in 0..10 {
        s.call(
            "tools/call",
            json!({"name": "mcp__fx__sleep", "arguments": {"ms": 1}}),
        );
    }
    s.call(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 300}}),
    );
    let (code, _) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__sleep", "arguments": {"ms": 60_000}, "timeoutMs": 50}),
    );
    assert_eq!(code, "TOOL_TIMEOUT");
    let after = stats(&mut s, "fx");
    for window in ["total", "recent"] {
        let w = &after[window];
        assert_eq!(
            (w["calls"].as_u64(), w["errors"].as_u64()),
            (Some(14), Some(1)),
            "{after}"
        );
        let (p50, p99) = (w["p50Ms"].as_f64().unwrap(), w["p99Ms"].as_f64().unwrap());
        // The slow call is the slowest success: p99 is its bucket (within 6.25 %).
        assert!(p99 >= 300.0 * 0.9375, "{after}");
        assert!(p50 <= p99, "{after}");
    }
    assert_eq!(after["recent"]["windowSeconds"], 300);
    // The status counts the same calls.
    let status = s.server_status("fx");
    assert_eq!(
        (status["calls"].as_u64(), status["errors"].as_u64()),
        (Some(14), Some(1))
    );
}

#[test]
fn restarts_and_a_new_uptime_after_a_crash() {
    let mut s = Sidecar::initialized(json!({}));
    s.add(
        "fx",
        with_fields(fixture(&[]), json!({"restartBackoffMs": 50})),
    );
    s.add("other", fixture(&[]));
    let (code, _) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__exit", "arguments": {"code": 5}}),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE");
    s.server_changed("fx", |st| st["state"] == "ready" && st["restarts"] == 1);
    let all = s.call("servers/stats", json!({}));
    let names: Vec<&str> = all["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fx", "other"]);
    let fx = &all["servers"][0];
    assert_eq!(
        (fx["restarts"].as_u64(), fx["generation"].as_u64()),
        (Some(1), Some(2)),
        "{fx}"
    );
    assert_eq!(
        (
            fx["total"]["calls"].as_u64(),
            fx["total"]["errors"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert!(
        fx["uptimeMs"].as_f64().is_some() && fx["startup"]["totalMs"].as_f64().is_some(),
        "{fx}"
    );
    let (code, e) = s.error_of("servers/stats", json!({"servers": ["fx", "ghost"]}));
    assert_eq!(
        (code.as_str(), e["data"]["server"].as_str()),
        ("SERVER_NOT_FOUND", Some("ghost"))
    );
}
