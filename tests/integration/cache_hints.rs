//! The 2026-07-28 cache hints of a server's `tools/list` (`ttlMs`, `cacheScope`) against the
//! fixture as a modern server: a list past its `ttlMs` is served from the catalog and re-listed in
//! the background (a changed definition reaches the host as `notifications/tools/changed`); a list
//! without a TTL is never re-listed on a host's read; a private list never reaches the on-disk
//! schema cache.

use serde_json::{json, Value};

use crate::support::{self, Sidecar};

/// The complete `tools/list`s the fixture answered, from its stderr (`tools/list #K`).
fn listings(s: &mut Sidecar, server: &str) -> usize {
    s.server_status(server)["stderrTail"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("tools/list #"))
        .count()
}

fn description(listing: &Value, name: &str) -> String {
    listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .map(|t| t["definition"]["description"].as_str().unwrap().to_owned())
        .unwrap_or_else(|| panic!("no {name} in {listing}"))
}

fn echo(s: &mut Sidecar, name: &str) {
    let echoed = s.call(
        "tools/call",
        json!({"name": name, "arguments": {"message": "hi"}}),
    );
    assert_eq!(echoed["text"], "hi", "{echoed}");
}

/// A 1 ms TTL: the list is stale by the host's first read, which is answered from the catalog at
/// once and starts one background re-list; the drifted definition arrives as a change.
#[test]
fn an_expired_list_is_served_then_relisted_in_the_background() {
    let mut s = Sidecar::initialized(json!({}));
    let status = s.add(
        "m",
        support::fixture(&["--modern", "--drift", "--list-ttl-ms", "1"]),
    );
    assert_eq!(
        (status["state"].as_str(), status["era"].as_str()),
        (Some("ready"), Some("modern")),
        "{status}"
    );
    let before = s.call("tools/list", json!({"format": "mcp"}));
    let old = description(&before, "mcp__m__echo");
    assert!(!old.contains("(v2)"), "{old}");
    let change = s.notification("notifications/tools/changed", |p| {
        p["changed"] == json!(["mcp__m__echo"])
    });
    assert_ne!(change["params"]["fingerprint"], before["fingerprint"]);
    let after = s.call("tools/list", json!({"format": "mcp"}));
    assert!(
        description(&after, "mcp__m__echo").contains("(v2)"),
        "{after}"
    );
    assert!(listings(&mut s, "m") >= 2);
    assert_eq!(s.server_status("m")["state"], "ready");
}

/// No `ttlMs`: the sidecar waits for the server's change notifications; the host's reads never
/// make it list again.
#[test]
fn a_list_without_a_ttl_is_not_relisted_on_reads() {
    let mut s = Sidecar::initialized(json!({}));
    let status = s.add(
        "m",
        support::fixture(&["--modern", "--drift", "--list-cache-scope", "public"]),
    );
    assert_eq!(status["state"], "ready", "{status}");
    let first = s.call("tools/list", json!({"format": "mcp"}));
    for _ in 0..3 {
        s.call("tools/list", json!({"format": "mcp"}));
        s.call("tools/search", json!({"query": "echo"}));
    }
    // A re-list started by a read would be sent before this call (one pipe, in order).
    echo(&mut s, "mcp__m__echo");
    assert_eq!(listings(&mut s, "m"), 1, "{}", s.server_status("m"));
    assert_eq!(s.call("tools/list", json!({"format": "mcp"})), first);
}

/// `cacheScope: "private"` keeps a lazy server's tools out of the schema cache; `public` writes
/// them as before.
#[test]
fn a_private_list_is_not_written_to_the_schema_cache() {
    let cache = support::temp_dir("cache-scope");
    let args = ["--cache-dir", cache.to_str().unwrap()];
    let mut s = Sidecar::initialized_with(&args, json!({}));
    let lazy = |scope: &str| {
        support::with_fields(
            support::fixture(&["--modern", "--list-cache-scope", scope]),
            json!({"autoStart": false}),
        )
    };
    let tool_entries = || {
        std::fs::read_dir(&cache)
            .map(|dir| {
                dir.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| !n.ends_with(".era.json") && !n.starts_with('.'))
                    .count()
            })
            .unwrap_or(0)
    };
    let private = s.add("p", lazy("private"));
    assert_eq!(
        (private["state"].as_str(), private["toolsCount"].as_u64()),
        (Some("stopped"), Some(7)),
        "{private}"
    );
    assert_eq!(tool_entries(), 0, "a private list is not cached");
    let public = s.add("q", lazy("public"));
    assert_eq!(public["state"], "stopped", "{public}");
    assert_eq!(tool_entries(), 1, "a public list is");
}

/// A background re-list that fails (here: the server lists an invalid schema) keeps the stale
/// list and the server: no restart, the old definition still served. After the backoff, a later
/// read re-lists again and the fixed list arrives as a change.
#[test]
fn a_failed_relist_keeps_the_stale_list_and_retries_after_a_backoff() {
    let dir = support::temp_dir("cache-hints-failed");
    let file = dir.join("echo.json");
    let mut s = Sidecar::initialized(json!({}));
    let config = support::fixture(&[
        "--modern",
        "--list-ttl-ms",
        "1",
        "--definition-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(s.add("m", config)["state"], "ready");
    // Every listing after the first (at the start) sees the invalid schema.
    std::fs::write(&file, r#"{"inputSchema": "not a schema"}"#).unwrap();
    // This read starts the re-list that fails; its backoff begins after it.
    let first_read = std::time::Instant::now();
    let before = s.call("tools/list", json!({"format": "mcp"}));
    let started = std::time::Instant::now();
    while listings(&mut s, "m") < 2 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "no re-list"
        );
        // Paced: nothing announces the fixture's answer but its stderr.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::fs::write(&file, r#"{"description": "Fixed."}"#).unwrap();
    let started = std::time::Instant::now();
    let after = loop {
        let listed = s.call("tools/list", json!({"format": "mcp"}));
        if description(&listed, "mcp__m__echo") == "Fixed." {
            break listed;
        }
        assert_eq!(
            description(&listed, "mcp__m__echo"),
            description(&before, "mcp__m__echo"),
            "the stale list is served meanwhile"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "no retry"
        );
        // Paced: the retry after a failure waits a wall-clock backoff by design.
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(
        first_read.elapsed() >= limits_relist_backoff_floor(),
        "the retry waited for the backoff"
    );
    assert_ne!(after["fingerprint"], before["fingerprint"]);
    s.notification("notifications/tools/changed", |p| {
        p["changed"] == json!(["mcp__m__echo"])
    });
    let status = s.server_status("m");
    assert_eq!(
        (status["generation"].as_u64(), status["restarts"].as_u64()),
        (Some(1), Some(0)),
        "the failed re-list did not fail the server: {status}"
    );
}

/// The shortest first backoff after a failed re-list: 1 s (`limits::RELIST_BACKOFF`) less 20 %
/// jitter.
fn limits_relist_backoff_floor() -> std::time::Duration {
    std::time::Duration::from_millis(800)
}
