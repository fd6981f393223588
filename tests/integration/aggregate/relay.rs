//! What `mcp-sidecar mcp` passes on besides answers, seen on the wire: a call's progress under the
//! client's own token (both eras), the servers' log messages at the level a legacy session set or
//! a 2026-07-28 call named (masked, per client), the client's roots changes to every server (and
//! the server's `roots/list` back to the client), and a legacy HTTP client's cancel.

use std::io::BufReader;

use serde_json::{json, Value};

use super::harness::{
    connect, initialize, mcp_stdio, modern, read_events_until, read_head, send_request,
    wait_for_log, HttpSidecar,
};
use crate::procfs::wait_for_sleeps;
use crate::support::{fixture, with_fields, Sidecar};

const SECRET: &str = "log-secret-value-9153";

/// One fixture server that reports progress, logs on demand, counts roots changes, and has a
/// secret (`DB_PASSWORD`) to mask.
fn servers() -> Value {
    json!({"fx": with_fields(
        fixture(&["--client-requests", "--surface"]),
        json!({"env": {"DB_PASSWORD": SECRET}}),
    )})
}

fn is(method: &str) -> impl Fn(&Value) -> bool + '_ {
    move |m| m["method"] == method && m.get("id").is_none()
}

/// The progress notifications read so far, taken out of the backlog, oldest first.
fn take_progress(s: &mut Sidecar) -> Vec<Value> {
    let count = s
        .held()
        .iter()
        .filter(|m| is("notifications/progress")(m))
        .count();
    (0..count)
        .map(|_| s.wait_for(is("notifications/progress"))["params"].clone())
        .collect()
}

/// Checks a call's progress: every notification under `token`, increasing, the last one `steps`.
fn assert_progress(progress: &[Value], token: Value, steps: u64) {
    assert!(!progress.is_empty(), "no progress reached the client");
    assert!(
        progress.iter().all(|p| p["progressToken"] == token),
        "{progress:?}"
    );
    let values: Vec<u64> = progress
        .iter()
        .map(|p| p["progress"].as_u64().unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    let last = progress.last().unwrap();
    assert_eq!(
        (last["progress"].as_u64(), last["total"].as_u64()),
        (Some(steps), Some(steps)),
        "the last progress goes out before the answer: {progress:?}"
    );
    assert_eq!(last["message"], format!("step {steps} of {steps}"));
}

#[test]
fn a_calls_progress_reaches_the_client_under_its_own_token_before_the_answer() {
    let (mut s, _) = mcp_stdio(servers(), &[]);
    initialize(&mut s, "2025-11-25");

    let id = s.send(
        "tools/call",
        json!({"name": "fx__progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "legacy-1"}}),
    );
    let answer = s.response(id);
    assert_eq!(
        answer["result"]["structuredContent"]["steps"], 3,
        "{answer}"
    );
    assert_progress(&take_progress(&mut s), json!("legacy-1"), 3);

    // 2026-07-28: the same `_meta.progressToken`, an integer this time.
    let mut params = modern(json!({"name": "fx__progress", "arguments": {"steps": 2}}));
    params["_meta"]["progressToken"] = json!(42);
    let id = s.send("tools/call", params);
    let answer = s.response(id);
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_progress(&take_progress(&mut s), json!(42), 2);

    // Without a token, none.
    let plain = s.call(
        "tools/call",
        json!({"name": "fx__progress", "arguments": {"steps": 2}}),
    );
    assert_eq!(plain["structuredContent"]["steps"], 2);
    assert!(take_progress(&mut s).is_empty(), "{:?}", s.held());
}

/// `fx__emit` of a log message at `level` with `data`.
fn emit(level: &str, data: Value) -> Value {
    json!({"name": "fx__emit", "arguments": {"kind": "log", "level": level, "logger": "db", "data": data}})
}

#[test]
fn a_legacy_client_gets_the_servers_logs_at_or_above_the_level_it_set_masked() {
    let (mut s, _) = mcp_stdio(servers(), &[]);
    initialize(&mut s, "2025-11-25");
    s.call("tools/call", emit("emergency", json!("before any level")));
    assert_eq!(
        s.call("logging/setLevel", json!({"level": "warning"})),
        json!({})
    );
    s.call("tools/call", emit("info", json!("below the level")));
    s.call(
        "tools/call",
        emit("error", json!({"said": format!("password={SECRET}")})),
    );
    let message = s.notification("notifications/message", |_| true);
    let p = &message["params"];
    assert_eq!(
        (&p["level"], &p["logger"], &p["_meta"]["mcp-sidecar/server"]),
        (&json!("error"), &json!("fx/db"), &json!("fx")),
        "the first to arrive is the one at or above the level: {message}"
    );
    assert!(!message.to_string().contains(SECRET), "masked: {message}");
    assert!(p["data"]["said"].as_str().unwrap().starts_with("password="));

    let bad = s.request("logging/setLevel", json!({"level": "loud"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

/// A legacy HTTP session, initialized, its GET stream open; its id and the stream.
fn session_with_stream(server: &HttpSidecar) -> (String, BufReader<std::net::TcpStream>) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = server.post(&init, &[]);
    let id = r.header("mcp-session-id").expect("a session id").to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(server.post(&note, &[("Mcp-Session-Id", &id)]).status, 202);
    let mut stream = connect(server.port);
    send_request(
        &mut stream,
        "GET",
        "/mcp",
        &[("Mcp-Session-Id", &id), ("Accept", "text/event-stream")],
        b"",
    );
    let mut reader = BufReader::new(stream);
    assert_eq!(read_head(&mut reader).0, 200);
    (id, reader)
}

fn post_in(server: &HttpSidecar, session: &str, id: i64, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let r = server.post(&body, &[("Mcp-Session-Id", session)]);
    assert_eq!(r.status, 200, "{r:?}");
    r.message()
}

#[test]
fn each_http_session_gets_the_logs_at_its_own_level_on_its_get_stream() {
    let server = HttpSidecar::start(servers(), &[]);
    let (verbose, mut verbose_stream) = session_with_stream(&server);
    let (quiet, mut quiet_stream) = session_with_stream(&server);
    post_in(
        &server,
        &verbose,
        2,
        "logging/setLevel",
        json!({"level": "debug"}),
    );
    post_in(
        &server,
        &quiet,
        2,
        "logging/setLevel",
        json!({"level": "error"}),
    );
    post_in(
        &server,
        &verbose,
        3,
        "tools/call",
        emit("info", json!("for the verbose")),
    );
    post_in(
        &server,
        &quiet,
        3,
        "tools/call",
        emit("critical", json!("for both")),
    );

    let for_both = |m: &Value| m["params"]["data"] == "for both";
    let seen = read_events_until(&mut verbose_stream, for_both);
    assert!(
        seen.iter()
            .any(|m| m["params"]["data"] == "for the verbose"),
        "{seen:?}"
    );
    let seen = read_events_until(&mut quiet_stream, for_both);
    assert!(
        !seen
            .iter()
            .any(|m| m["params"]["data"] == "for the verbose"),
        "an info log is below the quiet session's level: {seen:?}"
    );
}

#[test]
fn a_modern_call_that_names_a_log_level_gets_its_servers_logs_on_its_stream() {
    let server = HttpSidecar::start(servers(), &[]);
    let env = server.post_modern(1, "tools/call", json!({"name": "fx__environment"}), &[]);
    let pid = env.message()["result"]["structuredContent"]["pid"]
        .as_u64()
        .unwrap() as u32;
    let mut params = modern(json!({"name": "fx__sleep", "arguments": {"ms": 600_000}}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("warning");
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params});
    let mut stream = connect(server.port);
    send_request(
        &mut stream,
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "fx__sleep"),
        ],
        body.to_string().as_bytes(),
    );
    wait_for_sleeps(pid, 1);
    // While it sleeps, the server logs (asked by another request, which named no level).
    let other = server.post_modern(3, "tools/call", emit("notice", json!("below")), &[]);
    assert!(
        !other
            .messages()
            .iter()
            .any(|m| m["method"] == "notifications/message"),
        "a request that names no level gets no log: {other:?}"
    );
    server.post_modern(4, "tools/call", emit("error", json!("mid-call")), &[]);

    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    assert_eq!(status, 200);
    assert!(headers
        .iter()
        .any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream")));
    let seen = read_events_until(&mut reader, is("notifications/message"));
    let message = seen.last().unwrap();
    assert_eq!(
        (&message["params"]["data"], &message["params"]["level"]),
        (&json!("mid-call"), &json!("error")),
        "the first log on the call's stream is the one at its level: {seen:?}"
    );
    drop(reader);
    wait_for_log(&server.log, "stderr: cancelled ");
}

#[test]
fn a_roots_change_reaches_the_servers_and_their_roots_list_reaches_the_client() {
    let (mut s, _) = mcp_stdio(servers(), &[]);
    s.call(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": true}},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    s.notify("notifications/initialized", json!({}));
    let before = s.call("tools/call", json!({"name": "fx__client_state"}));
    assert_eq!(
        before["structuredContent"]["rootsListChanged"], 0,
        "{before}"
    );
    assert_eq!(
        before["structuredContent"]["capabilities"]["roots"]["listChanged"], true,
        "the server is told the aggregate announces roots changes: {before}"
    );

    s.notify("notifications/roots/list_changed", json!({}));
    // The fixture asks for the new roots as servers do: the request reaches this client.
    let asked = s.wait_for(|m| m["method"] == "roots/list" && m.get("id").is_some());
    assert_eq!(
        asked["params"]["_meta"]["mcp-sidecar/server"], "fx",
        "{asked}"
    );
    let answer =
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [{"uri": "file:///new"}]}});
    s.write_raw(format!("{answer}\n").as_bytes());
    let after = s.call("tools/call", json!({"name": "fx__client_state"}));
    assert_eq!(after["structuredContent"]["rootsListChanged"], 1, "{after}");
}

#[test]
fn a_legacy_http_clients_cancel_reaches_the_server() {
    let server = HttpSidecar::start(servers(), &[]);
    let (session, _stream) = session_with_stream(&server);
    let env = post_in(
        &server,
        &session,
        2,
        "tools/call",
        json!({"name": "fx__environment"}),
    );
    let pid = env["result"]["structuredContent"]["pid"].as_u64().unwrap() as u32;
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "fx__sleep", "arguments": {"ms": 600_000}}});
    let mut call = connect(server.port);
    send_request(
        &mut call,
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", &session),
        ],
        body.to_string().as_bytes(),
    );
    wait_for_sleeps(pid, 1);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 3, "reason": "changed my mind"}});
    assert_eq!(
        server.post(&cancel, &[("Mcp-Session-Id", &session)]).status,
        202
    );
    wait_for_log(&server.log, "stderr: cancelled ");
}

/// The server's config bounds a call as for a host: with `resetTimeoutOnProgress` a call that
/// reports progress outlives `toolTimeoutSeconds` (whether or not the client asked for progress);
/// without it, the same call times out. Margins as in the host path's tests: a step every 200 ms
/// against a 1.5 s timeout, 12 steps (2.4 s) that a timeout from the start cannot cover.
#[test]
fn reset_timeout_on_progress_follows_the_servers_config() {
    let slow = json!({"steps": 12, "intervalMs": 200});
    let servers = json!({
        "reset": with_fields(fixture(&["--client-requests"]),
            json!({"toolTimeoutSeconds": 1.5, "resetTimeoutOnProgress": true})),
        "plain": with_fields(fixture(&["--client-requests"]), json!({"toolTimeoutSeconds": 1.5})),
    });
    let (mut s, _) = mcp_stdio(servers, &[]);
    initialize(&mut s, "2025-11-25");
    let with_token = s.call(
        "tools/call",
        json!({"name": "reset__progress", "arguments": slow, "_meta": {"progressToken": "t"}}),
    );
    assert_eq!(with_token["structuredContent"]["steps"], 12, "{with_token}");
    let without = s.call(
        "tools/call",
        json!({"name": "reset__progress", "arguments": slow}),
    );
    assert_eq!(without["structuredContent"]["steps"], 12, "{without}");
    let timed_out = s.call(
        "tools/call",
        json!({"name": "plain__progress", "arguments": slow, "_meta": {"progressToken": "u"}}),
    );
    assert_eq!(timed_out["isError"], true, "{timed_out}");
    assert_eq!(
        timed_out["_meta"]["mcp-sidecar/error"]["code"], "TOOL_TIMEOUT",
        "{timed_out}"
    );
}
