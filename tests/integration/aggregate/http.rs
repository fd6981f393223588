//! `mcp-sidecar mcp --http` seen from the wire: both eras on one endpoint, legacy sessions and
//! their streams, the 2026-07-28 headers, the guards (Host, Origin, bearer token), the bounds, and
//! the stop (a signal, or the end of the pipe that started it) leaving no process behind.

use std::io::BufReader;
use std::process::Stdio;

use serde_json::{json, Value};

use super::harness::{
    connect, http, legacy_post_headers, modern, read_events_until, read_head, send_request,
    wait_for_log, HttpSidecar,
};
use crate::procfs::wait_for_sleeps;
use crate::support::{fixture, pid_alive, pids_in, read_pid_file, signal, temp_dir, with_fields};

fn initialize_body(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
           "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A legacy session: initialize, then initialized; its id.
fn open_session(server: &HttpSidecar) -> String {
    let r = server.post(&initialize_body(1), &[]);
    assert_eq!(r.status, 200, "{r:?}");
    let id = r.header("mcp-session-id").expect("a session id").to_owned();
    assert!(
        id.len() >= 16 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{id}"
    );
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let ack = server.post(
        &note,
        &[
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
    );
    assert_eq!(ack.status, 202);
    id
}

#[test]
fn legacy_sessions_live_until_deleted() {
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let session = open_session(&server);
    let with = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let list = server.post(&request(2, "tools/list", json!({})), &with);
    assert_eq!(list.status, 200);
    assert!(list.message()["result"]["tools"]
        .to_string()
        .contains("fx__echo"));
    let call = server.post(
        &request(
            3,
            "tools/call",
            json!({"name": "fx__echo", "arguments": {"message": "h"}}),
        ),
        &with,
    );
    assert_eq!(call.message()["result"]["content"][0]["text"], "h");

    assert_eq!(
        server
            .post(&request(4, "tools/list", json!({})), &[])
            .status,
        400,
        "no session"
    );
    let unknown = [("Mcp-Session-Id", "0123456789abcdef0123456789abcdef")];
    assert_eq!(
        server
            .post(&request(5, "tools/list", json!({})), &unknown)
            .status,
        404
    );
    let bad_version = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "1999-01-01"),
    ];
    assert_eq!(
        server
            .post(&request(6, "tools/list", json!({})), &bad_version)
            .status,
        400
    );

    let deleted = http(
        server.port,
        "DELETE",
        "/mcp",
        &[("Mcp-Session-Id", &session)],
        b"",
    );
    assert_eq!(deleted.status, 200);
    assert_eq!(
        server
            .post(&request(7, "tools/list", json!({})), &with)
            .status,
        404,
        "ended"
    );
}

#[test]
fn a_legacy_session_hears_of_changes_on_its_get_stream() {
    let server = HttpSidecar::start(
        json!({"a": with_fields(fixture(&[]), json!({"restart": "never"})), "b": fixture(&[])}),
        &[],
    );
    let session = open_session(&server);
    let with = [
        ("Mcp-Session-Id", session.as_str()),
        ("Accept", "text/event-stream"),
    ];
    let mut stream = connect(server.port);
    send_request(&mut stream, "GET", "/mcp", &with, b"");
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    assert_eq!(status, 200);
    assert!(headers
        .iter()
        .any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream")));
    assert_eq!(
        http(server.port, "GET", "/mcp", &with, b"").status,
        409,
        "one stream per session"
    );

    let call = server.post(
        &request(2, "tools/call", json!({"name": "a__environment"})),
        &[("Mcp-Session-Id", &session)],
    );
    let pid = call.message()["result"]["structuredContent"]["pid"]
        .as_u64()
        .unwrap() as u32;
    signal(pid, nix::sys::signal::Signal::SIGKILL);
    read_events_until(&mut reader, |m| {
        m["method"] == "notifications/tools/list_changed"
    });
}

/// A legacy HTTP session subscribed to a resource hears of its update on its GET stream (with the
/// original URI), and of the other session's subscription nothing: an update goes only to the
/// sessions subscribed to it.
#[test]
fn a_legacy_session_hears_of_its_subscribed_resources_on_its_get_stream() {
    let server = HttpSidecar::start(
        json!({"a": fixture(&["--surface"]), "b": fixture(&["--surface", "--resources", "2"])}),
        &["--wait-for-servers"],
    );
    let session = open_session(&server);
    let other = open_session(&server);
    let listen = |id: &str| {
        let with = [("Mcp-Session-Id", id), ("Accept", "text/event-stream")];
        let mut stream = connect(server.port);
        send_request(&mut stream, "GET", "/mcp", &with, b"");
        let mut reader = BufReader::new(stream);
        assert_eq!(read_head(&mut reader).0, 200);
        reader
    };
    let mut reader = listen(&session);
    let ask = |id: &str, n: i64, method: &str, params: Value| {
        let r = server.post(&request(n, method, params), &[("Mcp-Session-Id", id)]);
        r.message()["result"].clone()
    };
    let listed = ask(&session, 2, "resources/list", json!({}));
    assert_eq!(
        listed["resources"].as_array().unwrap().len(),
        3 + 5,
        "{listed}"
    );
    assert_eq!(
        ask(
            &session,
            3,
            "resources/subscribe",
            json!({"uri": "fixture://item/1"})
        ),
        json!({})
    );
    assert_eq!(
        ask(
            &other,
            3,
            "resources/subscribe",
            json!({"uri": "fixture://item/0"})
        ),
        json!({})
    );
    let emit = |n: i64, uri: &str| {
        ask(
            &session,
            n,
            "tools/call",
            json!({"name": "b__emit", "arguments": {"kind": "updated", "uri": uri}}),
        )
    };
    emit(4, "fixture://item/0");
    emit(5, "fixture://item/1");
    let seen = read_events_until(&mut reader, |m| {
        m["method"] == "notifications/resources/updated"
    });
    let updated = seen.last().unwrap();
    assert_eq!(updated["params"]["uri"], "fixture://item/1", "{seen:?}");

    // The other session ends without unsubscribing: its subscription is given back, and the
    // server is told once nobody holds the URI.
    let deleted = http(
        server.port,
        "DELETE",
        "/mcp",
        &[("Mcp-Session-Id", &other)],
        b"",
    );
    assert_eq!(deleted.status, 200);
    let n = std::cell::Cell::new(10);
    crate::support::eventually("the server unsubscribed from item/0", || {
        n.set(n.get() + 1);
        let state = ask(
            &session,
            n.get(),
            "tools/call",
            json!({"name": "b__emit", "arguments": {"kind": "state"}}),
        );
        let told: Value =
            serde_json::from_str(state["content"][0]["text"].as_str().unwrap()).unwrap();
        told["subscriptions"] == json!(["fixture://item/1"])
    });
}

#[test]
fn modern_requests_are_checked_against_their_headers_and_served_statelessly() {
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let discover = server.post_modern(1, "server/discover", json!({}), &[]);
    assert_eq!(discover.status, 200);
    assert_eq!(
        discover.message()["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    let call = server.post_modern(
        2,
        "tools/call",
        json!({"name": "fx__echo", "arguments": {"message": "m"}}),
        &[],
    );
    let answer = call.message();
    assert_eq!(answer["result"]["content"][0]["text"], "m");
    assert_eq!(answer["result"]["resultType"], "complete");
    assert!(
        call.header("mcp-session-id").is_none(),
        "no session in 2026-07-28"
    );

    let wrong_name = server.post_modern(
        3,
        "tools/call",
        json!({"name": "fx__echo", "arguments": {"message": "m"}}),
        &[("Mcp-Name", "fx__other")],
    );
    assert_eq!(
        (
            wrong_name.status,
            wrong_name.message()["error"]["code"].as_i64()
        ),
        (400, Some(-32020))
    );
    let body =
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": modern(json!({}))});
    let no_version = server.post(&body, &[("Mcp-Method", "tools/list")]);
    assert_eq!(
        (
            no_version.status,
            no_version.message()["error"]["code"].as_i64()
        ),
        (400, Some(-32020))
    );
    let unknown = server.post_modern(5, "nothing/here", json!({}), &[]);
    assert_eq!(
        (unknown.status, unknown.message()["error"]["code"].as_i64()),
        (404, Some(-32601))
    );
    let get = http(
        server.port,
        "GET",
        "/mcp",
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Accept", "text/event-stream"),
        ],
        b"",
    );
    assert_eq!(get.status, 405, "no GET stream in 2026-07-28");
}

/// A sidecar serving the fixture as `fx`, with its audit log.
fn audited_fixture() -> (HttpSidecar, std::path::PathBuf) {
    let audit = temp_dir("mcp-audit").join("audit.jsonl");
    let server = HttpSidecar::start(
        json!({"fx": fixture(&[])}),
        &["--audit-log", audit.to_str().unwrap()],
    );
    (server, audit)
}

#[test]
fn a_modern_call_is_cancelled_when_its_stream_closes() {
    let (server, audit) = audited_fixture();
    let env = server.post_modern(1, "tools/call", json!({"name": "fx__environment"}), &[]);
    let pid = env.message()["result"]["structuredContent"]["pid"]
        .as_u64()
        .unwrap() as u32;
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": modern(json!({"name": "fx__sleep", "arguments": {"ms": 600_000}}))});
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
    drop(stream);
    wait_for_log(&server.log, "stderr: cancelled ");
    // Cancelled, and audited as such.
    wait_for_log(&audit, "CANCELLED");
}

/// A legacy call whose connection closes runs on to its end (2025-11-25: a disconnect is no
/// cancellation): its server is not told to cancel, and its audit line says it finished.
#[test]
fn a_legacy_call_runs_on_when_its_connection_closes() {
    let (server, audit) = audited_fixture();
    let session = open_session(&server);
    let with = legacy_post_headers(&session);
    let env = server.post(
        &request(2, "tools/call", json!({"name": "fx__environment"})),
        &with[..2],
    );
    let pid = env.message()["result"]["structuredContent"]["pid"]
        .as_u64()
        .unwrap() as u32;
    let sleep = request(
        3,
        "tools/call",
        json!({"name": "fx__sleep", "arguments": {"ms": 300}}),
    );
    let mut stream = connect(server.port);
    send_request(
        &mut stream,
        "POST",
        "/mcp",
        &with,
        sleep.to_string().as_bytes(),
    );
    wait_for_sleeps(pid, 1);
    drop(stream);
    crate::support::eventually("the sleep's audit line", || {
        std::fs::read_to_string(&audit).is_ok_and(|text| text.contains("fx__sleep"))
    });
    let text = std::fs::read_to_string(&audit).unwrap();
    let line: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["tool"] == "fx__sleep")
        .unwrap();
    assert_eq!(line["outcome"], "ok", "{line}");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(!log.contains("stderr: cancelled "), "{log}");
}

#[test]
fn the_guard_refuses_rebound_hosts_foreign_origins_and_missing_tokens() {
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let evil_host = server.post(&initialize_body(1), &[("Host", "evil.example.com")]);
    assert_eq!(evil_host.status, 403);
    let evil_origin = server.post(
        &initialize_body(1),
        &[("Origin", "http://evil.example.com")],
    );
    assert_eq!(evil_origin.status, 403);
    let local_origin = server.post(&initialize_body(1), &[("Origin", "http://localhost:5173")]);
    assert_eq!(local_origin.status, 200);

    let token_file = temp_dir("mcp-token").join("token");
    std::fs::write(&token_file, "s3cret-token-value\n").unwrap();
    let guarded = HttpSidecar::start(
        json!({"fx": fixture(&[])}),
        &["--token-file", token_file.to_str().unwrap()],
    );
    let none = guarded.post(&initialize_body(1), &[]);
    assert_eq!(
        (none.status, none.header("www-authenticate")),
        (401, Some("Bearer"))
    );
    let wrong = guarded.post(
        &initialize_body(1),
        &[("Authorization", "Bearer s3cret-token-valuf")],
    );
    assert_eq!(wrong.status, 401);
    let right = guarded.post(
        &initialize_body(1),
        &[("Authorization", "Bearer s3cret-token-value")],
    );
    assert_eq!(right.status, 200);
    let lower = guarded.post(
        &initialize_body(1),
        &[("Authorization", "bearer s3cret-token-value")],
    );
    assert_eq!(
        lower.status, 200,
        "the scheme is case-insensitive (RFC 7235)"
    );
    let log = std::fs::read_to_string(&guarded.log).unwrap();
    assert!(
        !log.contains("s3cret-token-value"),
        "the token never reaches the log"
    );
}

/// With a token per client (one per line of the token file), a legacy session belongs to the token
/// that opened it: to another token its id is unknown (404) for every method, and the session
/// lives on for its owner.
#[test]
fn a_session_belongs_to_the_token_that_opened_it() {
    let token_file = temp_dir("mcp-tokens").join("tokens");
    std::fs::write(&token_file, "token-of-alice\ntoken-of-bob\n").unwrap();
    let server = HttpSidecar::start(
        json!({"fx": fixture(&[])}),
        &["--token-file", token_file.to_str().unwrap()],
    );
    let opened = server.post(
        &initialize_body(1),
        &[("Authorization", "Bearer token-of-alice")],
    );
    assert_eq!(opened.status, 200, "{opened:?}");
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let bob_auth = "Bearer token-of-bob";
    let alice_auth = "Bearer token-of-alice";
    let bob = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Authorization", bob_auth),
    ];
    let list = request(2, "tools/list", json!({}));
    assert_eq!(
        server.post(&list, &bob).status,
        404,
        "another token's session"
    );
    let stream = http(
        server.port,
        "GET",
        "/mcp",
        &[bob.as_slice(), &[("Accept", "text/event-stream")]].concat(),
        b"",
    );
    assert_eq!(stream.status, 404);
    assert_eq!(http(server.port, "DELETE", "/mcp", &bob, b"").status, 404);
    let alice = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Authorization", alice_auth),
    ];
    let listed = server.post(&list, &alice);
    assert_eq!(
        listed.status, 200,
        "the owner's session lives on: {listed:?}"
    );
    let without: Vec<(&str, &str)> = alice[..2].to_vec();
    assert_eq!(server.post(&list, &without).status, 401, "no token");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(!log.contains("token-of-alice") && !log.contains("token-of-bob"));
}

#[test]
fn a_public_address_without_a_token_is_refused_at_start() {
    let config = super::harness::config_file(json!({}));
    #[allow(clippy::disallowed_methods)] // the binary under test
    let out = std::process::Command::new(crate::support::sidecar_bin())
        .args([
            "mcp",
            "--config",
            config.to_str().unwrap(),
            "--http",
            "0.0.0.0:1",
        ])
        .env_remove("MCP_SIDECAR_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("0.0.0.0:1") && stderr.contains("token"),
        "{stderr}"
    );
}

#[test]
fn bodies_over_the_bound_are_refused_unread() {
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &["--max-line-bytes", "4096"]);
    let big =
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x".repeat(8000)}});
    assert_eq!(server.post(&big, &[]).status, 413, "by Content-Length");
    let body = big.to_string();
    let chunked = format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len());
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Transfer-Encoding", "chunked"),
    ];
    assert_eq!(
        http(server.port, "POST", "/mcp", &headers, chunked.as_bytes()).status,
        413,
        "as it arrives"
    );
    assert_eq!(
        server.post(&initialize_body(2), &[]).status,
        200,
        "and it goes on serving"
    );
    let wrong_type = http(
        server.port,
        "POST",
        "/mcp",
        &[
            ("Content-Type", "text/plain"),
            ("Accept", "application/json, text/event-stream"),
        ],
        b"{}",
    );
    assert_eq!(wrong_type.status, 415);
    let no_sse = http(
        server.port,
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
        ],
        b"{}",
    );
    assert_eq!(no_sse.status, 406);
}

/// A connection that sends a POST's head promising a 1,000,000-byte body, then one byte of it, and
/// stalls (a slow-loris client).
fn stalled_body(port: u16) -> std::net::TcpStream {
    use std::io::Write;
    let mut stream = connect(port);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000000\r\n\r\n{{"
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream
}

/// Bodies that never arrive hold none of the flow budget: 100 of them (each declaring 1 MB, 100 MB
/// together, more than the 64 MiB budget) and a new `initialize` is still answered. Before, each
/// took a ticket for its declared length before reading, and the new request queued behind them.
#[test]
fn bodies_that_stall_hold_no_budget_a_new_request_needs() {
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let stalled: Vec<_> = (0..100).map(|_| stalled_body(server.port)).collect();
    let answer = server.post(&initialize_body(1), &[]);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.message()["id"], 1);
    drop(stalled);
}

/// More slow-loris connections than the endpoint has slots (260 for 256): a new client's
/// `initialize` is answered, by closing the connection that stalled longest. Before, every slot
/// stayed taken and the new client waited in the listen queue for as long as they stalled.
#[test]
fn slow_loris_connections_never_keep_a_new_client_out() {
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let stalled: Vec<_> = (0..260).map(|_| stalled_body(server.port)).collect();
    for id in 1..=3 {
        let answer = server.post(&initialize_body(id), &[]);
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(answer.message()["id"], id);
    }
    drop(stalled);
}

/// A body that does not arrive within `--http-body-timeout-ms` is answered 408 and its connection
/// closed; a connection that sends nothing is closed after `--http-idle-timeout-ms`, and so is one
/// idle after its answer. (Before, a stalled body held its connection for as long as the client
/// kept it; a silent one was closed by the head's own 10 s bound, which the flag can shorten.)
#[test]
fn slow_bodies_and_idle_connections_are_closed_after_their_bounds() {
    use std::io::Read;
    let server = HttpSidecar::start(
        json!({"fx": fixture(&[])}),
        &[
            "--http-body-timeout-ms",
            "200",
            "--http-idle-timeout-ms",
            "200",
        ],
    );
    let mut reader = BufReader::new(stalled_body(server.port));
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 408, "a body that stalls");
    let mut rest = String::new();
    reader.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("--http-body-timeout-ms"), "{rest}");

    let mut silent = connect(server.port);
    let mut nothing = Vec::new();
    assert_eq!(
        silent.read_to_end(&mut nothing).unwrap(),
        0,
        "closed without an answer"
    );

    // Keep-alive: one request answered, then nothing; the connection is closed from the server.
    use std::io::Write;
    let mut kept = connect(server.port);
    let body = initialize_body(1).to_string();
    write!(
        kept,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        server.port,
        body.len()
    )
    .unwrap();
    let mut reader = BufReader::new(kept);
    assert_eq!(read_head(&mut reader).0, 200);
    let mut answered = Vec::new();
    reader.read_to_end(&mut answered).unwrap();
    assert!(String::from_utf8_lossy(&answered).contains("protocolVersion"));
}

/// GET streams are capped apart from requests: past the cap a GET is refused 503 and requests are
/// still served. Before, 256 open streams took every connection.
#[test]
fn get_streams_are_capped_and_leave_room_for_requests() {
    const CAP: usize = 128; // limits::AGGREGATE_HTTP_MAX_STREAMS
    let server = HttpSidecar::start(json!({"fx": fixture(&[])}), &[]);
    let open_stream = |session: &str| {
        let mut stream = connect(server.port);
        send_request(
            &mut stream,
            "GET",
            "/mcp",
            &[
                ("Accept", "text/event-stream"),
                ("Mcp-Session-Id", session),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            b"",
        );
        let mut reader = BufReader::new(stream);
        let (status, _) = read_head(&mut reader);
        (status, reader)
    };
    let mut streams = Vec::new();
    for _ in 0..CAP {
        let (status, reader) = open_stream(&open_session(&server));
        assert_eq!(status, 200);
        streams.push(reader);
    }
    let (status, _) = open_stream(&open_session(&server));
    assert_eq!(status, 503, "past the cap");
    let answer = server.post(&initialize_body(9), &[]);
    assert_eq!(answer.status, 200, "{answer:?}");
    // A stream that ends gives its place back. Its end is the sidecar's own event (its stream task
    // ending), which the wire does not show: asked again until then.
    drop(streams);
    let session = open_session(&server);
    crate::support::eventually("a closed stream's place back", || {
        open_stream(&session).0 == 200
    });
}

fn tree(tag: &str) -> (Value, std::path::PathBuf) {
    let pid_file = temp_dir(tag).join("tree.json");
    (
        fixture(&["--grandchild", "--pid-file", pid_file.to_str().unwrap()]),
        pid_file,
    )
}

fn tree_pids(pid_file: &std::path::Path) -> Vec<u32> {
    pids_in(&read_pid_file(pid_file))
}

#[test]
fn sigterm_stops_every_server_tree_and_exits_zero() {
    let (config, pid_file) = tree("mcp-http-term");
    let mut server = HttpSidecar::start(json!({"t": config}), &[]);
    let pids = tree_pids(&pid_file);
    assert!(pids.iter().all(|p| pid_alive(*p)));
    signal(server.pid(), nix::sys::signal::Signal::SIGTERM);
    assert_eq!(server.wait_exit(), Some(0));
    let alive: Vec<u32> = pids.into_iter().filter(|p| pid_alive(*p)).collect();
    assert!(alive.is_empty(), "{alive:?}");
}

#[test]
fn the_end_of_the_stdin_pipe_stops_it_like_a_signal() {
    let (config, pid_file) = tree("mcp-http-eof");
    let mut server = HttpSidecar::start_with(json!({"t": config}), &[], Stdio::piped());
    let pids = tree_pids(&pid_file);
    drop(server.child.stdin.take());
    assert_eq!(server.wait_exit(), Some(0));
    let alive: Vec<u32> = pids.into_iter().filter(|p| pid_alive(*p)).collect();
    assert!(alive.is_empty(), "{alive:?}");
}

/// The body of a `tools/list` answer, checked to be JSON-RPC's compact text with sorted keys —
/// what serialising the answer as a value gives, as it was before listings were kept as text —
/// and parsed.
fn listing_of(reply: &super::harness::Reply) -> Value {
    assert_eq!(reply.status, 200, "{reply:?}");
    let body = reply.body.trim_end();
    let parsed: Value = serde_json::from_str(body).unwrap();
    let envelope = format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":", parsed["id"]);
    let result = body
        .strip_prefix(envelope.as_str())
        .and_then(|r| r.strip_suffix('}'))
        .unwrap_or_else(|| panic!("not a result: {body}"));
    assert_eq!(
        result,
        parsed["result"].to_string(),
        "the result is the value's own compact text"
    );
    parsed
}

/// `tools/list` of both eras, one page and pages of `--page-size`: each answer the same text as
/// the value it stands for, its pages together the whole list in order, and each asked again
/// (served from the listing kept) the same bytes, id aside.
#[test]
fn tools_list_is_the_same_text_in_both_eras_and_every_page_first_and_warm() {
    let servers = json!({"a": fixture(&[]), "b": fixture(&[])});
    let whole_server = HttpSidecar::start(servers.clone(), &[]);
    let whole = listing_of(&whole_server.post_modern(2, "tools/list", json!({}), &[]));
    let all: Vec<Value> = whole["result"]["tools"].as_array().unwrap().clone();
    assert!(all.len() > 6, "{whole}");
    assert_eq!(whole["result"]["resultType"], "complete");
    assert_eq!(whole["result"]["ttlMs"], 0);
    let again = whole_server.post_modern(2, "tools/list", json!({}), &[]);
    assert_eq!(listing_of(&again), whole, "warm: the same answer");

    let paged = HttpSidecar::start(servers, &["--page-size", "3"]);
    let session = open_session(&paged);
    let legacy = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    for modern_era in [false, true] {
        for round in 0..2 {
            let mut listed = Vec::new();
            let mut cursor = Value::Null;
            for id in 10.. {
                let params = json!({ "cursor": cursor });
                let reply = if modern_era {
                    paged.post_modern(id, "tools/list", params, &[])
                } else {
                    paged.post(&request(id, "tools/list", params), &legacy)
                };
                let page = listing_of(&reply);
                let result = &page["result"];
                assert_eq!(
                    result.get("resultType").is_some(),
                    modern_era,
                    "{modern_era} {round}: {result}"
                );
                let tools = result["tools"].as_array().unwrap();
                assert!(!tools.is_empty() && tools.len() <= 3, "{result}");
                listed.extend(tools.iter().cloned());
                cursor = result.get("nextCursor").cloned().unwrap_or(Value::Null);
                if cursor.is_null() {
                    break;
                }
                assert!(id < 10 + all.len() as i64, "the pages end");
            }
            assert_eq!(
                listed, all,
                "era modern {modern_era}, round {round}: the pages are the whole list, in order"
            );
        }
    }
}
