//! `mcp-sidecar mcp` keeps its config files in force: an edit (seen by the file watch, an editor's
//! rename included) or SIGHUP reloads them, and exactly the servers whose entries changed are
//! touched — added, restarted, stopped with their whole tree — while the rest run on (same pid);
//! the client is told `list_changed` (tools, resources, prompts). A bad edit changes nothing.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::harness::{initialize, mcp_stdio, modern, wait_for_log};
use crate::support::{all_dead, fixture, pid_alive, signal, with_fields, Sidecar};

/// The config file `mcp_stdio` wrote (next to its log).
fn config_of(log: &Path) -> PathBuf {
    log.with_file_name("servers.json")
}

/// Replaces the config as an editor that saves by renaming does.
fn save(config: &Path, servers: Value) {
    let tmp = config.with_extension("json.tmp");
    std::fs::write(&tmp, json!({ "mcpServers": servers }).to_string()).unwrap();
    std::fs::rename(&tmp, config).unwrap();
}

fn pid_of(s: &mut Sidecar, server: &str) -> u32 {
    let r = s.call(
        "tools/call",
        json!({"name": format!("{server}__environment")}),
    );
    r["structuredContent"]["pid"]
        .as_u64()
        .unwrap_or_else(|| panic!("{server}: {r}")) as u32
}

fn tool_names(s: &mut Sidecar) -> Vec<String> {
    s.call("tools/list", json!({}))["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_edit_adds_restarts_and_stops_exactly_the_servers_it_changed() {
    let servers = json!({"keep": fixture(&[]), "change": fixture(&[]), "drop": fixture(&[])});
    let (mut s, log) = mcp_stdio(servers, &[]);
    initialize(&mut s, "2025-06-18");
    let (keep, change, dropped) = (
        pid_of(&mut s, "keep"),
        pid_of(&mut s, "change"),
        pid_of(&mut s, "drop"),
    );
    save(
        &config_of(&log),
        json!({
            "keep": fixture(&[]),
            "change": with_fields(fixture(&[]), json!({"env": {"EDITED": "1"}})),
            "added": fixture(&[]),
        }),
    );
    // Each step of the reload ends in a list change; the last one shows the whole edit.
    loop {
        s.notification("notifications/tools/list_changed", |_| true);
        let names = tool_names(&mut s);
        let has = |n: &str| names.iter().any(|x| x == n);
        if has("added__echo") && has("change__echo") && !has("drop__echo") {
            break;
        }
    }
    assert_eq!(
        pid_of(&mut s, "keep"),
        keep,
        "an unchanged server is not touched"
    );
    let changed = pid_of(&mut s, "change");
    assert_ne!(changed, change, "a changed server is restarted");
    assert!(pid_alive(keep) && pid_alive(changed));
    all_dead(
        "the changed server's old process and the removed server",
        &[change, dropped],
    );
    let r = s.call(
        "tools/call",
        json!({"name": "added__echo", "arguments": {"message": "new"}}),
    );
    assert_eq!(r["content"][0]["text"], "new", "{r}");
    // The servers' resources and prompts changed with them.
    s.notification("notifications/resources/list_changed", |_| true);
    s.notification("notifications/prompts/list_changed", |_| true);
}

#[test]
fn sighup_reloads_the_config_and_the_sidecar_serves_on() {
    let (mut s, log) = mcp_stdio(json!({"a": fixture(&[])}), &[]);
    initialize(&mut s, "2025-06-18");
    let pid = pid_of(&mut s, "a");
    signal(s.pid(), nix::sys::signal::Signal::SIGHUP);
    wait_for_log(&log, "config reloaded");
    assert_eq!(s.call("ping", json!({})), json!({}), "still serving");
    assert_eq!(
        pid_of(&mut s, "a"),
        pid,
        "an unchanged server is not touched"
    );
    s.close_stdin();
    assert_eq!(s.wait_exit(), Some(0));
}

#[test]
fn a_bad_edit_keeps_every_server_running_and_says_why() {
    let (mut s, log) = mcp_stdio(json!({"a": fixture(&[])}), &[]);
    initialize(&mut s, "2025-06-18");
    let pid = pid_of(&mut s, "a");
    std::fs::write(config_of(&log), "{ \"mcpServers\": {").unwrap();
    wait_for_log(&log, "config reload refused");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("servers.json") && text.contains("invalid JSON"),
        "{text}"
    );
    assert_eq!(pid_of(&mut s, "a"), pid, "the running set is kept");
    save(
        &config_of(&log),
        json!({"a": fixture(&[]), "b": fixture(&[])}),
    );
    s.notification("notifications/tools/list_changed", |_| true);
    assert_ne!(pid_of(&mut s, "b"), pid, "a good edit after it applies");
    assert_eq!(pid_of(&mut s, "a"), pid);
}

/// A `tools/list` answer is kept as text for its tool set, and gives way the moment that set
/// changes: listed (and kept), then a server added by an edit is in the next list after the
/// change is announced, in both eras, and gone again after it is removed.
#[test]
fn a_kept_listing_gives_way_when_an_edit_changes_the_tool_set() {
    let (mut s, log) = mcp_stdio(json!({"a": fixture(&[])}), &[]);
    initialize(&mut s, "2025-11-25");
    let before = tool_names(&mut s);
    assert_eq!(tool_names(&mut s), before, "asked again: the kept listing");
    assert!(!before.iter().any(|n| n.starts_with("b__")), "{before:?}");
    let has_b = |s: &mut Sidecar| tool_names(s).iter().any(|n| n == "b__echo");
    save(
        &config_of(&log),
        json!({"a": fixture(&[]), "b": fixture(&[])}),
    );
    // Each announced change is followed by a list; the one after `b` is ready shows it.
    loop {
        s.notification("notifications/tools/list_changed", |_| true);
        if has_b(&mut s) {
            break;
        }
    }
    let modern_list = s.call("tools/list", modern(json!({})));
    assert!(
        modern_list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "b__echo"),
        "{modern_list}"
    );
    save(&config_of(&log), json!({"a": fixture(&[])}));
    loop {
        s.notification("notifications/tools/list_changed", |_| true);
        if !has_b(&mut s) {
            break;
        }
    }
    assert_eq!(tool_names(&mut s), before);
}
