//! A server's questions (sampling, elicitation, roots) reach the MCP client whose call it is
//! serving: a legacy client as a request of the sidecar's own on the call's stream (stdio here),
//! a 2026-07-28 client as an `input_required` result its retry answers — or the call fails with
//! -32021 when the client did not declare what the question needs. The fixture's `ask` tool asks
//! its client and answers the call with what it got.

use serde_json::{json, Value};

use super::harness::{mcp_stdio, modern};
use crate::support::{fixture, Sidecar};

fn asking() -> Value {
    json!({"fx": fixture(&["--client-requests"])})
}

fn sampling() -> Value {
    json!({"method": "sampling/createMessage",
           "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}})
}

fn initialize_declaring(s: &mut Sidecar, capabilities: Value) {
    s.call(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}),
    );
}

/// Waits for the sidecar's own request `method` to the client.
fn request_to_client(s: &mut Sidecar, method: &str) -> Value {
    s.wait_for(|m| m["method"] == method && m.get("id").is_some())
}

fn answer(s: &mut Sidecar, id: &Value, result: Value) {
    let line = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    s.write_raw(format!("{line}\n").as_bytes());
}

#[test]
fn a_legacy_client_is_asked_during_its_call_and_only_what_it_declared() {
    let (mut s, _) = mcp_stdio(asking(), &[]);
    initialize_declaring(&mut s, json!({"sampling": {}}));
    let call = s.send(
        "tools/call",
        json!({"name": "fx__ask", "arguments": sampling()}),
    );
    let request = request_to_client(&mut s, "sampling/createMessage");
    assert!(
        request["id"].as_str().unwrap().starts_with("sidecar-"),
        "{request}"
    );
    assert_eq!(request["params"]["maxTokens"], 5, "the server's params");
    assert_eq!(
        request["params"]["_meta"]["mcp-sidecar/server"], "fx",
        "who asks"
    );
    let reply =
        json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"});
    answer(&mut s, &request["id"], reply.clone());
    let result = s.response(call)["result"].clone();
    assert_eq!(
        result["structuredContent"]["result"], reply,
        "the server got the answer"
    );

    let roots = s.call(
        "tools/call",
        json!({"name": "fx__ask", "arguments": {"method": "roots/list"}}),
    );
    assert_eq!(
        roots["structuredContent"]["error"]["code"], -32601,
        "undeclared: refused without asking: {roots}"
    );
}

#[test]
fn a_question_the_server_withdraws_is_cancelled_at_the_client() {
    let (mut s, _) = mcp_stdio(asking(), &[]);
    initialize_declaring(&mut s, json!({"roots": {}}));
    let call = s.send(
        "tools/call",
        json!({"name": "fx__ask", "arguments": {"method": "roots/list", "withdrawAfterMs": 200}}),
    );
    let request = request_to_client(&mut s, "roots/list");
    let cancelled = s.notification("notifications/cancelled", |p| {
        p["requestId"] == request["id"]
    });
    assert!(cancelled["params"]["reason"].is_string());
    assert_eq!(
        s.response(call)["result"]["structuredContent"]["withdrawn"],
        true
    );
}

#[test]
fn a_modern_client_answers_through_input_required_results() {
    let (mut s, _) = mcp_stdio(asking(), &[]);
    let mut ask = modern(json!({"name": "fx__ask", "arguments": sampling()}));
    ask["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    let first = s.call("tools/call", ask.clone());
    assert_eq!(first["resultType"], "input_required", "{first}");
    let request = &first["inputRequests"]["q1"];
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["_meta"]["mcp-sidecar/server"], "fx");
    let state = first["requestState"].as_str().unwrap().to_owned();
    assert_eq!(state.len(), 32);

    let mut tampered = ask.clone();
    tampered["requestState"] = json!(format!("{}0", &state[..31]));
    tampered["inputResponses"] = json!({"q1": {}});
    assert_eq!(s.request("tools/call", tampered)["error"]["code"], -32602);

    let reply =
        json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"});
    let mut retry = ask.clone();
    retry["requestState"] = json!(state);
    retry["inputResponses"] = json!({"q1": reply});
    let done = s.call("tools/call", retry.clone());
    assert_eq!(done["resultType"], "complete");
    assert_eq!(
        done["structuredContent"]["result"], reply,
        "the server got the answer"
    );
    assert_eq!(
        s.request("tools/call", retry)["error"]["code"],
        -32602,
        "a state is used once"
    );
}

#[test]
fn a_modern_client_that_did_not_declare_the_capability_gets_32021() {
    let (mut s, _) = mcp_stdio(asking(), &[]);
    let e = s.request(
        "tools/call",
        modern(json!({"name": "fx__ask", "arguments": sampling()})),
    );
    assert_eq!(e["error"]["code"], -32021, "{e}");
    assert_eq!(
        e["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    assert_eq!(s.call("ping", json!({})), json!({}), "the session goes on");
}
