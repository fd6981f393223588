//! The sidecar's stderr log: no colour codes when stderr is a pipe (always, for a sidecar), and
//! `--log-format json` writes one flat JSON object per line that a log pipeline can parse: the
//! message at the top level next to `level`, `target` and `timestamp`.

use serde_json::{json, Value};

use crate::support::{fixture, temp_dir, Sidecar};

/// Adds a server, calls a tool and shuts down with debug logging into a file; returns the log.
fn run_logged(args: &[&str], env: &[(&str, &str)]) -> String {
    let log = temp_dir("logs").join("stderr.log");
    let mut s = Sidecar::spawn_logging_to(&log, args, env);
    s.initialize(json!({}));
    let added = s.add("fx", fixture(&[]));
    assert_eq!(added["state"], "ready", "{added}");
    let called = s.request(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "hi"}}),
    );
    assert_eq!(called["result"]["isError"], false, "{called}");
    s.request("shutdown", json!({}));
    assert_eq!(s.wait_exit(), Some(0));
    let text = std::fs::read_to_string(&log).expect("read the log");
    assert!(
        text.lines().count() > 3,
        "debug logging wrote almost nothing:\n{text}"
    );
    text
}

#[test]
fn text_logs_carry_no_colour_codes_on_a_pipe() {
    // FORCE_COLOR and CLICOLOR_FORCE must not matter: the decision is "is stderr a terminal".
    let text = run_logged(&[], &[("FORCE_COLOR", "1"), ("CLICOLOR_FORCE", "1")]);
    assert!(
        !text.contains('\u{1b}'),
        "an escape code reached a piped stderr:\n{text}"
    );
    assert!(text.contains("DEBUG"), "no debug line in:\n{text}");
}

#[test]
fn json_logs_are_one_object_per_line() {
    let text = run_logged(&["--log-format", "json"], &[]);
    let mut levels = std::collections::BTreeSet::new();
    for line in text.lines() {
        let event: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not a JSON object ({e}): {line:?}"));
        let level = event["level"]
            .as_str()
            .unwrap_or_else(|| panic!("no level: {line}"));
        levels.insert(level.to_owned());
        assert!(event["timestamp"].is_string(), "no timestamp: {line}");
        assert!(event["target"].is_string(), "no target: {line}");
        assert!(event["message"].is_string(), "no top-level message: {line}");
        assert!(event.get("fields").is_none(), "nested fields: {line}");
    }
    // An event's own fields sit next to its message.
    assert!(
        text.lines().any(|line| {
            let event: Value = serde_json::from_str(line).unwrap();
            event["message"] == "server ready" && event["server"] == "fx" && event["tools"].is_u64()
        }),
        "no flat `server ready` line:\n{text}"
    );
    assert!(levels.contains("DEBUG"), "levels seen: {levels:?}");
    assert!(!text.contains('\u{1b}'), "escape code in JSON logs");
}
