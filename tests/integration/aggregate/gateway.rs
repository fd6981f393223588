//! `mcp-sidecar mcp --http` as a fleet's gateway behind a load balancer: the probes (`/healthz`,
//! `/readyz`: no token, the Host and Origin checks kept, names and states only) and the drain on
//! SIGTERM (a call in flight finishes — its client's answer still arrives — while new requests
//! are refused; past `--drain-timeout-ms` what is left is answered `SHUTTING_DOWN`; then every
//! server tree is stopped and the process exits 0).

use std::io::BufReader;
use std::process::Stdio;

use serde_json::{json, Value};

use super::harness::{
    connect, http, legacy_post_headers, open_legacy_session, read_events_until, read_head,
    send_request, wait_for_log, HttpSidecar, Reply,
};
use crate::support::{
    eventually, fixture, pid_alive, pids_in, read_pid_file, signal, temp_dir, with_fields,
};

const TOKEN: &str = "gateway-probe-t0ken-5e1f";

/// A token file and the flags naming it (and a cache directory of the test's own, for the lazy
/// server's schema cache).
fn token_args(tag: &str) -> Vec<String> {
    let dir = temp_dir(tag);
    let file = dir.join("token");
    std::fs::write(&file, TOKEN).unwrap();
    vec![
        "--token-file".into(),
        file.to_str().unwrap().into(),
        "--cache-dir".into(),
        dir.join("cache").to_str().unwrap().into(),
    ]
}

fn get(server: &HttpSidecar, path: &str, headers: &[(&str, &str)]) -> Reply {
    http(server.port, "GET", path, headers, b"")
}

fn body(reply: &Reply) -> Value {
    serde_json::from_str(&reply.body).unwrap_or_else(|e| panic!("not JSON ({e}): {reply:?}"))
}

#[test]
fn probes_need_no_token_and_readyz_waits_for_every_required_server() {
    let gate = temp_dir("gateway-gate").join("open");
    let servers = json!({
        "quick": fixture(&[]),
        "slow": fixture(&["--start-gate", gate.to_str().unwrap()]),
        // Lazy: started by its first call, so it never holds readiness back.
        "lazy": with_fields(fixture(&["--exit-on-start", "3"]), json!({"autoStart": false})),
    });
    let args = token_args("gateway-probes");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = HttpSidecar::start_until(
        servers,
        &args,
        Stdio::null(),
        "serving the aggregate over Streamable HTTP",
    );

    let alive = get(&server, "/healthz", &[]);
    assert_eq!(
        (alive.status, body(&alive)),
        (200, json!({"status": "alive"}))
    );
    let mcp = server.post(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        &[("MCP-Protocol-Version", "2025-11-25")],
    );
    assert_eq!(mcp.status, 401, "the endpoint itself keeps its token");

    // Until the gate opens: 503 naming the one required server not ready, and nothing more.
    eventually("/readyz names only `slow`, starting", || {
        let r = get(&server, "/readyz", &[]);
        r.status == 503
            && body(&r) == json!({"status": "not ready", "servers": {"slow": "starting"}})
    });
    let waiting = get(&server, "/readyz", &[]);
    assert_eq!(waiting.header("cache-control"), Some("no-store"));
    for secret in [TOKEN, gate.to_str().unwrap(), "--start-gate"] {
        assert!(!waiting.body.contains(secret), "{secret} in {waiting:?}");
    }

    // Where a probe comes from is still checked: DNS rebinding on loopback, browsers' origins.
    let rebound = get(&server, "/readyz", &[("Host", "rebound.example:80")]);
    assert_eq!(rebound.status, 403, "{rebound:?}");
    let foreign = get(&server, "/healthz", &[("Origin", "https://evil.example")]);
    assert_eq!(foreign.status, 403, "{foreign:?}");
    let post = http(server.port, "POST", "/healthz", &[], b"");
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));

    std::fs::write(&gate, "").unwrap();
    eventually("/readyz 200 once `slow` is ready", || {
        let r = get(&server, "/readyz", &[]);
        r.status == 200 && body(&r) == json!({"status": "ready"})
    });
}

#[test]
fn readyz_names_a_required_server_that_failed() {
    let servers = json!({
        "ok": fixture(&[]),
        "broken": fixture(&["--exit-on-start", "3"]),
    });
    let server = HttpSidecar::start(servers, &[]);
    let r = get(&server, "/readyz", &[]);
    assert_eq!(
        (r.status, body(&r)),
        (
            503,
            json!({"status": "not ready", "servers": {"broken": "error"}})
        )
    );
}

/// A legacy session that declared sampling; its id.
fn session_declaring_sampling(server: &HttpSidecar) -> String {
    open_legacy_session(server.port, json!({"sampling": {}}))
}

/// Sends `tools/call fx__ask` (a sampling question to the client) on a connection of its own and
/// reads its stream until the question arrives: the call is then in flight at its server. The
/// stream's reader and the question.
fn call_that_asks(server: &HttpSidecar, session: &str) -> (BufReader<std::net::TcpStream>, Value) {
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "fx__ask",
        "arguments": {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}}}});
    let mut stream = connect(server.port);
    send_request(
        &mut stream,
        "POST",
        "/mcp",
        &legacy_post_headers(session),
        call.to_string().as_bytes(),
    );
    let mut reader = BufReader::new(stream);
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 200);
    let seen = read_events_until(&mut reader, |m| m["method"] == "sampling/createMessage");
    let question = seen.last().unwrap().clone();
    (reader, question)
}

fn asking_tree(tag: &str) -> (Value, std::path::PathBuf) {
    let pid_file = temp_dir(tag).join("tree.json");
    let config = fixture(&[
        "--client-requests",
        "--grandchild",
        "--pid-file",
        pid_file.to_str().unwrap(),
    ]);
    (json!({"fx": config}), pid_file)
}

fn assert_all_gone(pids: Vec<u32>) {
    let alive: Vec<u32> = pids.into_iter().filter(|p| pid_alive(*p)).collect();
    assert!(alive.is_empty(), "left running: {alive:?}");
}

#[test]
fn sigterm_drains_a_call_in_flight_refuses_new_requests_then_stops_every_tree() {
    let (servers, pid_file) = asking_tree("gateway-drain");
    let mut server = HttpSidecar::start(servers, &[]);
    let pids = pids_in(&read_pid_file(&pid_file));
    let session = session_declaring_sampling(&server);
    let (mut call, question) = call_that_asks(&server, &session);

    signal(server.pid(), nix::sys::signal::Signal::SIGTERM);
    wait_for_log(&server.log, "draining:");

    let ready = get(&server, "/readyz", &[]);
    assert_eq!(
        (ready.status, body(&ready)),
        (503, json!({"status": "draining"}))
    );
    assert_eq!(get(&server, "/healthz", &[]).status, 200, "alive, leaving");
    let init = json!({"jsonrpc": "2.0", "id": 9, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let refused = server.post(&init, &[]);
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("connection"), Some("close"));
    let refusal = refused.message();
    assert_eq!(refusal["id"], 9);
    assert_eq!(
        refusal["error"]["data"]["code"], "SHUTTING_DOWN",
        "{refusal}"
    );
    let with = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let another = server.post(
        &json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}),
        &with,
    );
    assert_eq!(
        another.status, 503,
        "a new request of a session too: {another:?}"
    );

    // The client's answer still reaches the call in flight, which completes.
    let reply =
        json!({"role": "assistant", "content": {"type": "text", "text": "drained"}, "model": "m"});
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": reply});
    assert_eq!(server.post(&answer, &with).status, 202);
    let seen = read_events_until(&mut call, |m| m["id"] == 7);
    let result = &seen.last().unwrap()["result"];
    assert_eq!(
        result["structuredContent"]["result"], reply,
        "the call finished with its answer: {result}"
    );

    assert_eq!(server.wait_exit(), Some(0));
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(
        log.contains("drained: every request in flight was answered"),
        "{log}"
    );
    assert_all_gone(pids);
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", server.port)).is_err(),
        "nothing listens once it exited"
    );
}

#[test]
fn past_the_drain_bound_a_call_left_is_answered_shutting_down() {
    let (servers, pid_file) = asking_tree("gateway-drain-bound");
    let mut server = HttpSidecar::start(servers, &["--drain-timeout-ms", "200"]);
    let pids = pids_in(&read_pid_file(&pid_file));
    let session = session_declaring_sampling(&server);
    let (mut call, _never_answered) = call_that_asks(&server, &session);

    signal(server.pid(), nix::sys::signal::Signal::SIGTERM);
    let seen = read_events_until(&mut call, |m| m["id"] == 7);
    let error = &seen.last().unwrap()["error"];
    assert_eq!(error["data"]["code"], "SHUTTING_DOWN", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("--drain-timeout-ms"),
        "{error}"
    );
    assert_eq!(server.wait_exit(), Some(0));
    wait_for_log(&server.log, "the drain bound passed");
    assert_all_gone(pids);
}
