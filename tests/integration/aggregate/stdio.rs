//! `mcp-sidecar mcp` over stdio, driven line by line: the aggregate's tools under prefixed names,
//! calls with every kind of failure, schemas cleaned for `--format`, cancellation, list changes,
//! both protocol eras, and no process left behind.

use serde_json::{json, Value};

use super::harness::{initialize, mcp_stdio, modern, wait_for_log};
use crate::procfs::wait_for_sleeps;
use crate::support::{fixture, pid_alive, pids_in, read_pid_file, signal, temp_dir, with_fields};

fn tool_names(list: &Value) -> Vec<&str> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The fixture's own pid, from its `environment` tool.
fn pid_of(s: &mut crate::support::Sidecar, server: &str) -> u32 {
    let r = s.call(
        "tools/call",
        json!({"name": format!("{server}__environment")}),
    );
    r["structuredContent"]["pid"].as_u64().unwrap() as u32
}

#[test]
fn every_servers_tools_are_served_under_prefixed_names_and_called() {
    let (mut s, _) = mcp_stdio(json!({"a": fixture(&[]), "b": fixture(&[])}), &[]);
    let init = initialize(&mut s, "2025-06-18");
    assert_eq!(
        init["protocolVersion"], "2025-06-18",
        "the version asked for"
    );
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(init["serverInfo"]["name"], "mcp-sidecar");
    let list = s.call("tools/list", json!({}));
    let names = tool_names(&list);
    assert!(
        names.contains(&"a__echo") && names.contains(&"b__echo"),
        "{names:?}"
    );
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "a byte-stable order");
    let echo = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "b__echo")
        .unwrap();
    assert_eq!(echo["title"], "Echo", "the server's own fields stay");
    let r = s.call(
        "tools/call",
        json!({"name": "b__echo", "arguments": {"message": "via mcp"}}),
    );
    assert_eq!(text(&r), "via mcp");
    assert_eq!(r["structuredContent"]["message"], "via mcp");
    assert!(r.get("isError").is_none_or(|e| e == false), "{r}");
}

#[test]
fn a_request_before_initialize_is_refused_and_ping_is_not() {
    let (mut s, _) = mcp_stdio(json!({"a": fixture(&[])}), &[]);
    assert_eq!(s.call("ping", json!({})), json!({}));
    let r = s.request("tools/list", json!({}));
    assert_eq!(r["error"]["code"], -32600, "{r}");
    initialize(&mut s, "2025-11-25");
    let again = s.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(
        again["error"]["code"], -32600,
        "one initialize per session: {again}"
    );
}

/// `tools/list` and `initialize` written in one burst: the request read first is refused every
/// time (the check follows line order, not when its task runs), and `initialize` succeeds.
#[test]
fn a_request_written_in_one_burst_before_initialize_is_refused_every_time() {
    const RUNS: usize = 8;
    for run in 0..RUNS {
        let (mut s, _) = mcp_stdio(json!({"a": fixture(&[])}), &[]);
        s.write_raw(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                "\n",
            )
            .as_bytes(),
        );
        let first = s.response(1);
        assert_eq!(
            first["error"]["code"], -32600,
            "run {run} of {RUNS}: {first}"
        );
        let init = s.response(2);
        assert!(init.get("result").is_some(), "run {run}: {init}");
    }
}

#[test]
fn errors_are_protocol_errors_or_tool_results_by_kind() {
    let servers = json!({
        "fx": with_fields(fixture(&[]), json!({"toolTimeoutSeconds": 1, "maxResultBytes": 2000})),
        "cut": with_fields(fixture(&[]), json!({"maxResultBytes": 2000, "resultPolicy": "truncate"})),
    });
    let (mut s, _) = mcp_stdio(servers, &[]);
    initialize(&mut s, "2025-11-25");
    let unknown = s.request("tools/call", json!({"name": "fx__nope"}));
    assert_eq!(
        unknown["error"]["code"], -32602,
        "an unknown tool: {unknown}"
    );
    assert_eq!(unknown["error"]["data"]["code"], "TOOL_NOT_FOUND");

    let error_code = |r: &Value| {
        r["_meta"]["mcp-sidecar/error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let invalid = s.call(
        "tools/call",
        json!({"name": "fx__echo", "arguments": {"message": 5}}),
    );
    assert_eq!(
        (invalid["isError"].as_bool(), error_code(&invalid).as_str()),
        (Some(true), "INVALID_ARGUMENTS")
    );
    assert!(
        text(&invalid).contains("/message"),
        "names the field: {invalid}"
    );

    let timeout = s.call(
        "tools/call",
        json!({"name": "fx__sleep", "arguments": {"ms": 60_000}}),
    );
    assert_eq!(
        (timeout["isError"].as_bool(), error_code(&timeout).as_str()),
        (Some(true), "TOOL_TIMEOUT")
    );
    assert!(text(&timeout).contains("1 s"), "names the limit: {timeout}");

    let big = s.call(
        "tools/call",
        json!({"name": "fx__large", "arguments": {"bytes": 10_000}}),
    );
    assert_eq!(
        (big["isError"].as_bool(), error_code(&big).as_str()),
        (Some(true), "RESULT_TOO_LARGE")
    );

    let cut = s.call(
        "tools/call",
        json!({"name": "cut__large", "arguments": {"bytes": 10_000}}),
    );
    assert!(cut.get("isError").is_none_or(|e| e == false), "{cut}");
    assert!(text(&cut).len() < 2000, "cut to its budget");
    assert_eq!(
        cut["_meta"]["mcp-sidecar/truncated"]["originalBytes"]
            .as_u64()
            .map(|n| n > 10_000),
        Some(true)
    );

    let failed = s.call(
        "tools/call",
        json!({"name": "fx__fail", "arguments": {"message": "as the server says"}}),
    );
    assert_eq!(
        (failed["isError"].as_bool(), text(&failed)),
        (Some(true), "as the server says")
    );
    assert!(
        failed["_meta"].get("mcp-sidecar/error").is_none(),
        "the server's own error result, untouched"
    );

    let _ = s.call(
        "tools/call",
        json!({"name": "fx__exit", "arguments": {"code": 3}}),
    );
    let down = s.call(
        "tools/call",
        json!({"name": "fx__echo", "arguments": {"message": "x"}}),
    );
    assert_eq!(down["isError"], true, "{down}");
    assert!(
        ["SERVER_UNAVAILABLE", "TOOL_NOT_FOUND"].contains(&error_code(&down).as_str())
            || down["error"].is_object(),
        "{down}"
    );
    let other = s.call(
        "tools/call",
        json!({"name": "cut__echo", "arguments": {"message": "still here"}}),
    );
    assert_eq!(text(&other), "still here", "the other server keeps serving");
}

#[test]
fn format_cleans_input_schemas_and_the_template_names_tools() {
    let servers = json!({"a": fixture(&[]), "b": fixture(&[])});
    let echo_schema = |args: &[&str]| {
        let (mut s, _) = mcp_stdio(servers.clone(), args);
        initialize(&mut s, "2025-11-25");
        let list = s.call("tools/list", json!({}));
        list["tools"].as_array().unwrap().clone()
    };
    let raw = echo_schema(&[]);
    let echo = raw.iter().find(|t| t["name"] == "a__echo").unwrap();
    assert_eq!(
        echo["inputSchema"]["additionalProperties"], false,
        "mcp: as the server sent it"
    );
    let gemini = echo_schema(&["--format", "gemini"]);
    let echo = gemini.iter().find(|t| t["name"] == "a__echo").unwrap();
    assert!(
        echo["inputSchema"].get("additionalProperties").is_none(),
        "Gemini has no additionalProperties: {echo}"
    );
    assert_eq!(
        echo["inputSchema"]["type"], "object",
        "JSON Schema spelling"
    );
    let bare = echo_schema(&["--name-template", "{tool}"]);
    let echoes: Vec<&str> = bare
        .iter()
        .filter_map(|t| t["name"].as_str())
        .filter(|n| n.starts_with("echo"))
        .collect();
    assert_eq!(echoes.len(), 2, "{echoes:?}");
    assert_ne!(echoes[0], echoes[1], "a collision gets distinct names");
}

#[test]
fn a_client_cancel_reaches_the_server_and_is_not_answered() {
    let (mut s, log) = mcp_stdio(json!({"fx": fixture(&[])}), &[]);
    initialize(&mut s, "2025-11-25");
    let pid = pid_of(&mut s, "fx");
    let id = s.send(
        "tools/call",
        json!({"name": "fx__sleep", "arguments": {"ms": 600_000}}),
    );
    wait_for_sleeps(pid, 1);
    s.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "stop"}),
    );
    wait_for_log(&log, "stderr: cancelled ");
    assert_eq!(s.call("ping", json!({})), json!({}));
    assert!(
        !s.held().iter().any(|m| m.get("id") == Some(&json!(id))),
        "a cancelled request gets no answer: {:?}",
        s.held()
    );
}

#[test]
fn a_list_change_reaches_an_initialized_client() {
    let servers = json!({
        "a": with_fields(fixture(&[]), json!({"restart": "never"})),
        "b": fixture(&[]),
    });
    let (mut s, _) = mcp_stdio(servers, &[]);
    initialize(&mut s, "2025-11-25");
    assert!(tool_names(&s.call("tools/list", json!({}))).contains(&"a__echo"));
    let pid = pid_of(&mut s, "a");
    signal(pid, nix::sys::signal::Signal::SIGKILL);
    s.notification("notifications/tools/list_changed", |_| true);
    let names = s.call("tools/list", json!({}));
    assert!(!tool_names(&names).contains(&"a__echo"), "{names}");
    assert!(tool_names(&names).contains(&"b__echo"));
}

#[test]
fn a_modern_client_is_served_statelessly() {
    let servers = json!({"a": with_fields(fixture(&[]), json!({"restart": "never"}))});
    let (mut s, _) = mcp_stdio(servers, &[]);
    let discover = s.call("server/discover", modern(json!({})));
    assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-sidecar"
    );
    let list = s.call("tools/list", modern(json!({})));
    assert!(
        tool_names(&list).contains(&"a__echo"),
        "no initialize needed"
    );
    assert_eq!(
        (list["ttlMs"].as_u64(), list["cacheScope"].as_str()),
        (Some(0), Some("private"))
    );
    let call = s.call(
        "tools/call",
        modern(json!({"name": "a__echo", "arguments": {"message": "m"}})),
    );
    assert_eq!(
        (text(&call), call["resultType"].as_str()),
        ("m", Some("complete"))
    );
    assert!(
        call.get("ttlMs").is_none(),
        "a call result is not cacheable"
    );

    let no_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    assert_eq!(s.request("tools/list", no_caps)["error"]["code"], -32602);
    let mut future = modern(json!({}));
    future["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let e = s.request("tools/list", future);
    assert_eq!(e["error"]["code"], -32022, "{e}");
    assert_eq!(
        e["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2099-01-01"})
    );
    assert_eq!(
        s.request("ping", modern(json!({})))["error"]["code"],
        -32601,
        "removed in 2026-07-28"
    );

    let listen = s.send(
        "subscriptions/listen",
        modern(json!({"notifications": {"toolsListChanged": true}})),
    );
    let ack = s.notification("notifications/subscriptions/acknowledged", |_| true);
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(listen)
    );
    let pid = pid_of_modern(&mut s);
    signal(pid, nix::sys::signal::Signal::SIGKILL);
    let changed = s.notification("notifications/tools/list_changed", |_| true);
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(listen)
    );
}

fn pid_of_modern(s: &mut crate::support::Sidecar) -> u32 {
    let r = s.call("tools/call", modern(json!({"name": "a__environment"})));
    r["structuredContent"]["pid"].as_u64().unwrap() as u32
}

#[test]
fn end_of_input_stops_every_server_tree_before_the_sidecar_exits() {
    let pid_file = temp_dir("mcp-eof").join("tree.json");
    let servers =
        json!({"t": fixture(&["--grandchild", "--pid-file", pid_file.to_str().unwrap()])});
    let (mut s, _) = mcp_stdio(servers, &[]);
    initialize(&mut s, "2025-11-25");
    let pids = pids_in(&read_pid_file(&pid_file));
    assert!(pids.iter().all(|p| pid_alive(*p)));
    s.close_stdin();
    assert_eq!(s.wait_exit(), Some(0));
    let alive: Vec<u32> = pids.into_iter().filter(|p| pid_alive(*p)).collect();
    assert!(alive.is_empty(), "still alive after exit: {alive:?}");
}

#[test]
fn a_bad_flag_value_is_refused_before_anything_starts() {
    let (mut s, _) = mcp_stdio(json!({}), &["--name-template", "{server}"]);
    assert_eq!(s.wait_exit(), Some(2));
}

#[test]
fn a_slow_server_never_holds_up_the_others_and_is_announced_when_ready() {
    let gate = temp_dir("mcp-gate").join("open");
    let servers = json!({
        "fast": fixture(&[]),
        "slow": fixture(&["--start-gate", gate.to_str().unwrap()]),
    });
    let (mut s, _) = mcp_stdio(servers, &[]);
    initialize(&mut s, "2025-11-25");
    let names = s.call("tools/list", json!({}));
    assert!(tool_names(&names).contains(&"fast__echo"), "{names}");
    assert!(
        !tool_names(&names).iter().any(|n| n.starts_with("slow__")),
        "{names}"
    );
    let call = s.send(
        "tools/call",
        json!({"name": "slow__echo", "arguments": {"message": "waited"}}),
    );
    assert_eq!(
        s.call("ping", json!({})),
        json!({}),
        "the session goes on meanwhile"
    );
    std::fs::write(&gate, "").unwrap();
    assert_eq!(
        text(&s.response(call)["result"]),
        "waited",
        "the call waited for its server alone"
    );
    s.notification("notifications/tools/list_changed", |_| true);
    assert!(tool_names(&s.call("tools/list", json!({}))).contains(&"slow__echo"));
}

#[test]
fn with_wait_for_servers_a_list_waits_for_every_server() {
    let gate = temp_dir("mcp-gate-wait").join("open");
    let servers = json!({
        "fast": fixture(&[]),
        "slow": fixture(&["--start-gate", gate.to_str().unwrap()]),
    });
    let (mut s, _) = mcp_stdio(servers, &["--wait-for-servers"]);
    initialize(&mut s, "2025-11-25");
    let list = s.send("tools/list", json!({}));
    assert_eq!(s.call("ping", json!({})), json!({}));
    assert!(
        !s.held().iter().any(|m| m.get("id") == Some(&json!(list))),
        "no list before every server started"
    );
    std::fs::write(&gate, "").unwrap();
    let answer = s.response(list);
    let names = tool_names(&answer["result"]);
    assert!(
        names.contains(&"fast__echo") && names.contains(&"slow__echo"),
        "{names:?}"
    );
}

#[test]
fn with_a_page_size_the_tool_list_comes_in_pages_joined_by_opaque_cursors() {
    let servers = json!({"a": fixture(&[]), "b": fixture(&[])});
    let (mut whole, _) = mcp_stdio(servers.clone(), &[]);
    initialize(&mut whole, "2025-11-25");
    let everything = whole.call("tools/list", json!({}));
    assert!(
        everything.get("nextCursor").is_none(),
        "one page by default"
    );
    let all: Vec<String> = tool_names(&everything)
        .iter()
        .map(|n| n.to_string())
        .collect();
    assert!(all.len() > 6, "{all:?}");

    let (mut s, _) = mcp_stdio(servers, &["--page-size", "3"]);
    initialize(&mut s, "2025-11-25");
    let mut paged = Vec::new();
    let mut cursor = Value::Null;
    for _ in 0..all.len() {
        let page = s.call("tools/list", json!({ "cursor": cursor }));
        let names = tool_names(&page);
        assert!(!names.is_empty() && names.len() <= 3, "{page}");
        paged.extend(names.iter().map(|n| n.to_string()));
        cursor = page.get("nextCursor").cloned().unwrap_or(Value::Null);
        if cursor.is_null() {
            break;
        }
        assert!(
            !paged
                .iter()
                .any(|n| cursor.as_str().unwrap().contains(n.as_str())),
            "the cursor is opaque: {cursor}"
        );
    }
    assert_eq!(
        paged, all,
        "the pages together are the whole list, in order"
    );

    let modern_page = s.call("tools/list", modern(json!({})));
    assert_eq!(tool_names(&modern_page).len(), 3);
    assert!(modern_page["nextCursor"].is_string(), "{modern_page}");

    let bad = s.request("tools/list", json!({"cursor": "not-ours"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}
