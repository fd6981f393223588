//! Integration tests: the real `mcp-sidecar` binary driven over pipes against the real fixture servers.
//! This file only lists the modules; `support` holds the harness.

mod calls;
mod cancel;
mod concurrency;
mod env;
mod failures;
mod handshake;
mod procfs;
mod servers;
mod shutdown;
mod support;
mod transcripts;
mod versions;

#[test]
fn handshake_then_add_and_call() {
    let mut s = support::Sidecar::initialized(serde_json::json!({}));
    let status = s.add("fx", support::fixture(&[]));
    assert_eq!(status["state"], "ready", "{status}");
    let r = s.call(
        "tools/call",
        serde_json::json!({"name": "mcp__fx__echo", "arguments": {"message": "hi"}}),
    );
    assert_eq!(r["text"], "hi");
}
