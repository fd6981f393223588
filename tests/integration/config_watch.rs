//! `servers/load {path, watch: true}`: the file is kept in force. An edit (an editor's rename
//! included) adds, restarts and removes exactly the servers whose entries changed — an unchanged
//! server keeps its process — and a changed server is held to the trust gate as at the load. The
//! same for the `--config` files under `initialize {watchConfig: true}`.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::{all_dead, eventually, fixture, temp_dir, with_fields, Sidecar};

/// Replaces the config as an editor that saves by renaming does.
fn save(config: &Path, servers: Value) {
    let tmp = config.with_extension("json.tmp");
    std::fs::write(&tmp, json!({ "mcpServers": servers }).to_string()).unwrap();
    std::fs::rename(&tmp, config).unwrap();
}

fn pid(status: &Value) -> u64 {
    status["pid"]
        .as_u64()
        .unwrap_or_else(|| panic!("no pid: {status}"))
}

#[test]
fn a_watched_load_follows_edits_of_its_file_server_by_server() {
    let config = temp_dir("load-watch").join("servers.json");
    save(
        &config,
        json!({"keep": fixture(&[]), "change": fixture(&[]), "drop": fixture(&[])}),
    );
    let mut s = Sidecar::initialized(json!({}));
    let loaded = s.call("servers/load", json!({"path": config, "watch": true}));
    assert_eq!(loaded["added"].as_array().unwrap().len(), 3, "{loaded}");
    let keep = s.server_status("keep");
    let (change, dropped) = (
        pid(&s.server_status("change")),
        pid(&s.server_status("drop")),
    );
    save(
        &config,
        json!({
            "keep": fixture(&[]),
            "change": with_fields(fixture(&[]), json!({"env": {"EDITED": "1"}})),
            "added": fixture(&[]),
        }),
    );
    s.server_changed("added", |st| st["state"] == "ready");
    let restarted = s.server_changed("change", |st| st["state"] == "ready" && pid(st) != change);
    assert_eq!(restarted["source"], "user");
    let now = s.server_status("keep");
    assert_eq!(
        (pid(&now), &now["generation"]),
        (pid(&keep), &keep["generation"]),
        "an unchanged server is not touched"
    );
    let names: Vec<Value> = s.call("servers/list", json!({}))["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|st| st["name"].clone())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(!names.contains(&json!("drop")), "{names:?}");
    all_dead(
        "the removed server and the changed one's old process",
        &[dropped as u32, change as u32],
    );
}

#[test]
fn watch_needs_a_path() {
    let mut s = Sidecar::initialized(json!({}));
    let (code, e) = s.error_of(
        "servers/load",
        json!({"json": {"mcpServers": {"a": fixture(&[])}}, "watch": true}),
    );
    assert_eq!(code, "INVALID_PARAMS", "{e}");
    assert_eq!(e["data"]["field"], "watch", "{e}");
}

/// Under `requireTrust`, an edited entry is a new launch: its server is stopped and not started
/// again without a new approval, which the log says.
#[test]
fn an_edited_entry_is_held_to_the_trust_gate() {
    let dir = temp_dir("load-watch-trust");
    let config = dir.join("servers.json");
    let log = dir.join("stderr.log");
    save(&config, json!({"a": fixture(&[])}));
    let mut s = Sidecar::spawn_logging_to(&log, &[], &[]);
    s.initialize(json!({"requireTrust": true}));
    let first = s.call("servers/load", json!({"path": config}));
    let digest = first["trustRequired"][0]["digest"].clone();
    assert!(digest.is_string(), "{first}");
    let loaded = s.call(
        "servers/load",
        json!({"path": config, "trust": {"a": digest}, "watch": true}),
    );
    assert_eq!(loaded["added"][0]["state"], "ready", "{loaded}");
    save(&config, json!({"a": fixture(&["--name", "edited"])}));
    s.notification("notifications/tools/changed", |p| {
        p["removed"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("mcp__a__echo")))
    });
    eventually("the log says why `a` is not started again", || {
        std::fs::read_to_string(&log)
            .is_ok_and(|t| t.contains("needs approval of its launch digest"))
    });
    let list = s.call("servers/list", json!({}));
    assert_eq!(list["servers"], json!([]), "{list}");
}

/// `initialize {watchConfig: true}` keeps the sidecar's own `--config` files in force the same way.
#[test]
fn watch_config_keeps_the_command_lines_files_in_force() {
    let config = temp_dir("watch-config").join("servers.json");
    save(&config, json!({"a": fixture(&[])}));
    let mut s = Sidecar::spawn_with(&["--config", config.to_str().unwrap()], &[]);
    s.initialize(json!({"watchConfig": true}));
    let a = pid(&s.server_changed("a", |st| st["state"] == "ready"));
    save(&config, json!({"a": fixture(&[]), "b": fixture(&[])}));
    s.server_changed("b", |st| st["state"] == "ready");
    assert_eq!(
        pid(&s.server_status("a")),
        a,
        "an unchanged server is not touched"
    );
}
