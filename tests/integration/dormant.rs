//! Servers that are not running but keep their tools listed: idle stop, recycling after
//! `maxLifetimeSeconds`, and lazy start served from the on-disk schema cache.

use serde_json::{json, Value};

use crate::support::*;

fn with(mut config: Value, extra: Value) -> Value {
    if let (Some(c), Some(e)) = (config.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    config
}

fn echo(sc: &mut Sidecar, tool: &str, message: &str) -> Value {
    sc.call(
        "tools/call",
        json!({ "name": tool, "arguments": { "message": message } }),
    )
}

#[test]
fn idle_server_stops_and_restarts_transparently() {
    let mut sc = Sidecar::initialized(json!({}));
    let first = sc.add(
        "idle",
        with(fixture(&[]), json!({ "idleTimeoutSeconds": 0.3 })),
    );
    let before = sc.call("tools/list", json!({}));
    assert_eq!(echo(&mut sc, "mcp__idle__echo", "one")["text"], "one");
    let parked = sc.server_changed("idle", |s| {
        s["state"] == "stopped" && s.get("lastExit").is_some()
    });
    assert_eq!(
        parked["toolsCount"], 7,
        "tools stay listed while idle: {parked}"
    );
    assert!(parked.get("pid").is_none());
    assert!(
        !pid_alive(first["pid"].as_u64().unwrap() as u32),
        "the idle process is gone"
    );
    assert_eq!(
        sc.call("tools/list", json!({})),
        before,
        "the tool set did not change"
    );
    // The next call starts it again, transparently.
    assert_eq!(echo(&mut sc, "mcp__idle__echo", "two")["text"], "two");
    let status = sc.server_status("idle");
    assert_eq!(status["state"], "ready");
    assert!(
        status["generation"].as_u64() > parked["generation"].as_u64(),
        "{status}"
    );
    assert_eq!(status["calls"], 2);
    assert_eq!(status["restarts"], 0, "an idle stop is not a failure");
}

#[test]
fn max_lifetime_recycles_when_idle() {
    let mut sc = Sidecar::initialized(json!({}));
    let first = sc.add(
        "old",
        with(fixture(&[]), json!({ "maxLifetimeSeconds": 0.3 })),
    );
    // A call spanning the deadline delays the recycle until it has finished.
    let slow = sc.call(
        "tools/call",
        json!({ "name": "mcp__old__sleep", "arguments": { "ms": 500 } }),
    );
    assert_eq!(slow["isError"], false, "{slow}");
    let recycled = sc.server_changed("old", |s| {
        s["state"] == "stopped" && s.get("lastExit").is_some()
    });
    assert_eq!(recycled["toolsCount"], 7);
    assert!(!pid_alive(first["pid"].as_u64().unwrap() as u32));
    assert_eq!(echo(&mut sc, "mcp__old__echo", "fresh")["text"], "fresh");
    assert_ne!(sc.server_status("old")["pid"], first["pid"]);
}

#[test]
fn lazy_server_is_served_from_the_schema_cache() {
    let dir = temp_dir("lazy");
    let cache = dir.join("cache");
    let pid_file = dir.join("pids.json");
    let args = ["--cache-dir", cache.to_str().unwrap()];
    let config = with(
        fixture(&["--pid-file", pid_file.to_str().unwrap()]),
        json!({ "autoStart": false }),
    );

    // 1. Cache miss: started once to discover its tools, then stopped again; the entry is private.
    let mut sc = Sidecar::initialized_with(&args, json!({}));
    let discovered = sc.add("lazy", config.clone());
    assert_eq!(discovered["state"], "stopped", "{discovered}");
    assert_eq!(discovered["toolsCount"], 7);
    let listed = sc.call("tools/list", json!({}));
    assert!(pid_file.exists(), "a miss starts the server once");
    let discovery_pid = read_pid_file(&pid_file)["pid"].as_u64().unwrap() as u32;
    assert!(!pid_alive(discovery_pid), "and stops it after discovery");
    // The tools' entry (the server's era verdict lies next to it, `<key>.era.json`, written in the
    // background: while it is, its temporary `.<key>.era.json.<pid>.tmp` is there too).
    let entries: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.ends_with(".era.json") && !name.starts_with('.')
        })
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            entries[0].metadata().unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    sc.call("shutdown", json!({}));
    drop(sc);
    std::fs::remove_file(&pid_file).unwrap();

    // 2. Cache hit in a new sidecar: tools listed instantly, nothing spawned until the first call.
    let mut sc = Sidecar::initialized_with(&args, json!({}));
    let lazy = sc.add("lazy", config.clone());
    assert_eq!(
        (lazy["state"].clone(), lazy["toolsCount"].clone()),
        (json!("stopped"), json!(7)),
        "{lazy}"
    );
    assert!(lazy.get("pid").is_none());
    assert_eq!(
        sc.call("tools/list", json!({})),
        listed,
        "same tools, same fingerprint, from the cache"
    );
    assert!(
        !pid_file.exists(),
        "served from the cache: the server was not started"
    );
    assert_eq!(echo(&mut sc, "mcp__lazy__echo", "wake")["text"], "wake");
    assert!(pid_file.exists(), "the first call started it");
    let status = sc.server_status("lazy");
    assert_eq!(status["state"], "ready");
    assert_eq!(status["pid"], read_pid_file(&pid_file)["pid"]);

    // 3. A changed launch config is a different key: a miss again.
    let changed = with(
        fixture(&["--name", "renamed"]),
        json!({ "autoStart": false }),
    );
    sc.add("lazy2", changed);
    // Entries only: the woken server's own rewrite of its entry may still be a hidden temporary
    // file (written and synced off the runtime) at this moment.
    let entries = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && !name.ends_with(".era.json") && !name.ends_with(".tmp")
        })
        .count();
    assert_eq!(entries, 2);
}
