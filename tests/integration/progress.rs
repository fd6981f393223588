//! Progress of a `tools/call` against the fixture's `progress` tool (`--client-requests`), which
//! sends `steps` progress notifications `intervalMs` apart on its call's token, then answers
//! `{steps, token}` (the token it was given, `null` for none): the host's `progress: true`,
//! `resetTimeoutOnProgress` with its hard total (per call and in the config, both spellings).
//!
//! Timing margins are wide on purpose: a step every 200 ms against a 1.5 s timeout that progress
//! restarts; 12 steps (2.4 s) that a timeout from the start cannot cover.

use serde_json::{json, Value};

use crate::support::{fixture, with_fields, Sidecar};

fn with_progress_server(config_extra: Value) -> Sidecar {
    let mut s = Sidecar::initialized(json!({}));
    let config = with_fields(fixture(&["--client-requests"]), config_extra);
    let status = s.add("fx", config);
    assert_eq!(status["state"], "ready", "{status}");
    s
}

/// A `progress` call of 12 steps 200 ms apart with `extra` call params; its response.
fn slow_progress(s: &mut Sidecar, extra: Value) -> Value {
    let mut params =
        json!({"name": "mcp__fx__progress", "arguments": {"steps": 12, "intervalMs": 200}});
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    s.request("tools/call", params)
}

#[test]
fn progress_reaches_the_host_tagged_with_the_call_id_and_before_the_answer() {
    let mut s = with_progress_server(json!({}));
    let id = s.send(
        "tools/call",
        json!({"name": "mcp__fx__progress", "arguments": {"steps": 5, "intervalMs": 20}, "progress": true}),
    );
    let answer = s.response(id);
    let progress: Vec<Value> = s
        .held()
        .into_iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"].clone())
        .collect();
    // A host that keeps up sees every step; the last one always.
    let last = progress.last().expect("progress before the answer");
    assert_eq!(
        last,
        &json!({"requestId": id, "progress": 5, "total": 5, "message": "step 5 of 5"})
    );
    assert!(
        progress.iter().all(|p| p["requestId"] == id),
        "{progress:?}"
    );
    assert!(
        answer["result"]["structuredContent"]["token"].is_number(),
        "{answer}"
    );
}

#[test]
fn a_plain_call_sends_no_progress_token_and_the_host_no_progress() {
    let mut s = with_progress_server(json!({}));
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__progress", "arguments": {"steps": 3}}),
    );
    assert_eq!(r["structuredContent"], json!({"steps": 3, "token": null}));
    s.call("ping", json!({}));
    assert!(
        !s.held()
            .iter()
            .any(|m| m["method"] == "notifications/progress"),
        "{:?}",
        s.held()
    );
}

#[test]
fn progress_restarts_the_timeout_when_asked_and_only_then() {
    let mut s = with_progress_server(json!({}));
    let timed_out = slow_progress(&mut s, json!({"timeoutMs": 1500}));
    assert_eq!(
        timed_out["error"]["data"]["code"], "TOOL_TIMEOUT",
        "{timed_out}"
    );
    assert_eq!(timed_out["error"]["data"]["setting"], "timeoutMs");

    let done = slow_progress(
        &mut s,
        json!({"timeoutMs": 1500, "resetTimeoutOnProgress": true}),
    );
    assert_eq!(done["result"]["structuredContent"]["steps"], 12, "{done}");
}

#[test]
fn a_hard_total_ends_a_call_whatever_its_progress() {
    let mut s = with_progress_server(json!({}));
    let r = slow_progress(
        &mut s,
        json!({"timeoutMs": 1500, "resetTimeoutOnProgress": true, "maxTotalTimeoutMs": 1000}),
    );
    let data = &r["error"]["data"];
    assert_eq!(data["code"], "TOOL_TIMEOUT", "{r}");
    assert_eq!(data["setting"], "maxTotalTimeoutMs", "{r}");
    assert_eq!(data["limit"], 1000, "{r}");
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__progress", "arguments": {"steps": 1}, "maxTotalTimeoutMs": 0}),
    );
    assert_eq!(
        (code.as_str(), &e["data"]["field"]),
        ("INVALID_PARAMS", &json!("maxTotalTimeoutMs"))
    );
}

#[test]
fn the_config_sets_both_in_either_spelling() {
    for config in [
        json!({"toolTimeoutSeconds": 1.5, "resetTimeoutOnProgress": true}),
        json!({"tool_timeout_seconds": 1.5, "reset_timeout_on_progress": true}),
    ] {
        let mut s = with_progress_server(config.clone());
        let done = slow_progress(&mut s, json!({}));
        assert_eq!(
            done["result"]["structuredContent"]["steps"], 12,
            "{config}: {done}"
        );
    }
    for config in [
        json!({"resetTimeoutOnProgress": true, "maxTotalTimeoutSeconds": 1}),
        json!({"reset_timeout_on_progress": true, "max_total_timeout_seconds": 1}),
    ] {
        let mut s = with_progress_server(config.clone());
        let r = slow_progress(&mut s, json!({}));
        assert_eq!(
            r["error"]["data"]["setting"], "maxTotalTimeoutMs",
            "{config}: {r}"
        );
        assert_eq!(r["error"]["data"]["limit"], 1000, "{config}: {r}");
    }
}
