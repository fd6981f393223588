//! Prompts, completion, server logs and server instructions through the real binary and fixture
//! servers: messages converted per format, completion capped and empty without the capability,
//! logs off until the host asks, filtered, masked and their level kept across restarts.

use serde_json::json;

use crate::resources::{emit, state, surface};
use crate::support::*;

/// Prompts are listed over their pages, each with its server; `prompts/get` converts the messages
/// per format and keeps them as sent; the server's own refusal and a missing capability are errors.
#[test]
fn prompts_are_listed_and_got_in_every_format() {
    let mut s = Sidecar::initialized(json!({"toolFormat": "gemini"}));
    s.add("fx", surface(&[], json!({})));
    s.add("plain", fixture(&[]));
    let list = s.call("prompts/list", json!({}));
    let names: Vec<(&str, &str)> = list["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["server"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("fx", "greet"), ("fx", "picture")]);
    let greet = s.call(
        "prompts/get",
        json!({"server": "fx", "name": "greet", "arguments": {"name": "Ann"}}),
    );
    assert_eq!(greet["description"], "A greeting");
    assert_eq!(
        greet["output"],
        json!([{"role": "user", "parts": [{"text": "Hello, Ann!"}]}]),
        "gemini by default"
    );
    assert_eq!(greet["messages"][0]["content"]["text"], "Hello, Ann!");
    let picture = s.call(
        "prompts/get",
        json!({"server": "fx", "name": "picture", "format": "openai"}),
    );
    assert_eq!(
        picture["output"][0]["content"][0]["type"], "image_url",
        "{picture}"
    );
    assert_eq!(
        picture["output"][1],
        json!({"role": "assistant", "content": "A pixel."})
    );
    let (code, e) = s.error_of("prompts/get", json!({"server": "fx", "name": "greet"}));
    assert_eq!(
        (code.as_str(), &e["data"]["upstreamCode"]),
        ("UPSTREAM_ERROR", &json!(-32602))
    );
    let (code, _) = s.error_of(
        "prompts/get",
        json!({"server": "fx", "name": "greet", "arguments": {"name": 5}}),
    );
    assert_eq!(code, "INVALID_PARAMS", "arguments are strings");
    let (code, _) = s.error_of("prompts/get", json!({"server": "plain", "name": "greet"}));
    assert_eq!(code, "NOT_SUPPORTED");
}

/// Completion of a prompt argument and of a template variable; at most 100 values (`hasMore`
/// set); a server without completions (or one that declares them and answers "method not
/// found") completes to nothing.
#[test]
fn completion_is_capped_and_empty_where_the_server_has_none() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", surface(&[], json!({})));
    s.add("plain", fixture(&[]));
    s.add("hollow", fixture(&["--capabilities-only"]));
    let prompt = |value: &str| {
        json!({"server": "fx", "ref": {"type": "ref/prompt", "name": "greet"},
               "argument": {"name": "name", "value": value}})
    };
    let r = s.call("completion/complete", prompt("al"));
    assert_eq!(
        r,
        json!({"server": "fx", "completion": {"values": ["alice", "albert"], "total": 2}})
    );
    let many = s.call("completion/complete", prompt("many"));
    assert_eq!(many["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(
        (&many["completion"]["hasMore"], &many["completion"]["total"]),
        (&json!(true), &json!(150))
    );
    let template = s.call(
        "completion/complete",
        json!({"server": "fx", "ref": {"type": "ref/resource", "uri": "fixture://large/{bytes}"},
               "argument": {"name": "bytes", "value": "2"}, "context": {"arguments": {}}}),
    );
    assert_eq!(template["completion"]["values"], json!(["2048"]));
    for server in ["plain", "hollow"] {
        let mut p = prompt("al");
        p["server"] = json!(server);
        assert_eq!(
            s.call("completion/complete", p)["completion"],
            json!({"values": []}),
            "{server}"
        );
    }
    let (code, _) = s.error_of(
        "completion/complete",
        json!({"server": "fx", "ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "a", "value": ""}}),
    );
    assert_eq!(code, "INVALID_PARAMS");
}

/// A host that asked nothing sees no server logs. `logging/setLevel` turns them on: the level
/// reaches the server, messages below it stay behind (the sidecar filters even for a server that
/// does not), secrets are masked, and after a restart the server is told the level again.
#[test]
fn server_logs_are_off_until_asked_then_filtered_masked_and_kept_across_restarts() {
    let mut s = Sidecar::initialized(json!({}));
    let secret = "log-secret-value-5678";
    s.add("fx", surface(&[], json!({"env": {"DB_PASSWORD": secret}})));
    s.add("plain", fixture(&[]));
    // Off: the log goes through the same path, ahead of an update that does arrive.
    emit(
        &mut s,
        "fx",
        json!({"kind": "log", "level": "emergency", "data": "unseen"}),
    );
    emit(
        &mut s,
        "fx",
        json!({"kind": "updated", "uri": "fixture://marker/1"}),
    );
    s.notification("notifications/resources/updated", |p| {
        p["uri"] == "fixture://marker/1"
    });
    assert!(
        !s.held()
            .iter()
            .any(|m| m["method"] == "notifications/server/log"),
        "{:?}",
        s.held()
    );

    let r = s.call("logging/setLevel", json!({"level": "warning"}));
    assert_eq!(
        r,
        json!({"servers": ["fx"]}),
        "only the server that declared logging"
    );
    assert_eq!(state(&mut s, "fx")["logLevel"], "warning");
    emit(
        &mut s,
        "fx",
        json!({"kind": "log", "level": "info", "data": "too quiet"}),
    );
    emit(
        &mut s,
        "fx",
        json!({"kind": "log", "level": "error", "logger": "db", "data": {"said": format!("password={secret}")}}),
    );
    let log = s.notification("notifications/server/log", |_| true);
    assert_eq!(
        log["params"],
        json!({"server": "fx", "level": "error", "logger": "db", "data": {"said": "password=***"}})
    );

    let (code, _) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__exit", "arguments": {}}),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE");
    s.server_changed("fx", |st| st["state"] == "ready" && st["restarts"] == 1);
    assert_eq!(
        state(&mut s, "fx")["logLevel"],
        "warning",
        "sent again after the restart"
    );

    let (code, e) = s.error_of(
        "logging/setLevel",
        json!({"server": "plain", "level": "debug"}),
    );
    assert_eq!(
        (code.as_str(), &e["data"]["capability"]),
        ("NOT_SUPPORTED", &json!("logging"))
    );
    let (code, _) = s.error_of("logging/setLevel", json!({"level": "loud"}));
    assert_eq!(code, "INVALID_PARAMS");
}

/// `initialize {serverLogs}` opts in from the start: the level is sent to every server that
/// declared `logging` as it starts; one server's own level overrides the session's.
#[test]
fn server_logs_from_initialize_and_per_server_levels() {
    let mut s = Sidecar::initialized(json!({"serverLogs": "debug"}));
    s.add("a", surface(&[], json!({})));
    s.add("b", surface(&[], json!({})));
    assert_eq!(state(&mut s, "a")["logLevel"], "debug");
    assert_eq!(
        s.call(
            "logging/setLevel",
            json!({"server": "b", "level": "critical"})
        ),
        json!({"servers": ["b"]})
    );
    assert_eq!(state(&mut s, "b")["logLevel"], "critical");
    emit(
        &mut s,
        "a",
        json!({"kind": "log", "level": "debug", "data": "a speaks"}),
    );
    s.notification("notifications/server/log", |p| {
        p["server"] == "a" && p["data"] == "a speaks"
    });
    emit(
        &mut s,
        "b",
        json!({"kind": "log", "level": "error", "data": "b too quiet"}),
    );
    emit(
        &mut s,
        "b",
        json!({"kind": "log", "level": "alert", "data": "b speaks"}),
    );
    let log = s.notification("notifications/server/log", |p| p["server"] == "b");
    assert_eq!(
        log["params"]["data"], "b speaks",
        "the error stayed below b's level"
    );
}

/// `tools/list` carries each listed server's instructions, for a host's system prompt.
#[test]
fn tools_list_groups_instructions_per_server() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", fixture(&["--instructions", "Call echo twice."]));
    s.add("quiet", fixture(&[]));
    let list = s.call("tools/list", json!({}));
    assert_eq!(
        list["servers"],
        json!({"fx": {"instructions": "Call echo twice."}, "quiet": {}})
    );
    let only = s.call("tools/list", json!({"servers": ["quiet"]}));
    assert_eq!(only["servers"], json!({"quiet": {}}));
    assert_eq!(s.server_status("fx")["instructions"], "Call echo twice.");
}
