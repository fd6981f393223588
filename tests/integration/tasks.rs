//! Tools that require task execution (MCP 2025-11-25 Tasks), called by the host as plain tools:
//! against the fixture's `--tasks` tools (`task_work`, which must run as a task, and
//! `task_optional`, which may) and against `@modelcontextprotocol/server-everything`'s
//! `simulate-research-query` (a real server's task; its `input_required` path over stdio and
//! Streamable HTTP). The fixture logs `task-get <id>` for each
//! poll and `task-cancelled <id>` for each `tasks/cancel` to its stderr, which the test reads
//! through `servers/list`.

use std::cell::RefCell;

use serde_json::{json, Value};

use crate::remote_servers::{everything, node22, remote_dir};
use crate::support::{eventually, fixture, with_fields, Sidecar};

fn with_task_server(extra_flags: &[&str]) -> Sidecar {
    let mut s = Sidecar::initialized(json!({}));
    let mut flags = vec!["--tasks"];
    flags.extend_from_slice(extra_flags);
    let status = s.add("fx", with_fields(fixture(&flags), json!({})));
    assert_eq!(status["state"], "ready", "{status}");
    s
}

fn task_work(arguments: Value, extra: Value) -> Value {
    let mut params = json!({"name": "mcp__fx__task_work", "arguments": arguments});
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    params
}

/// The server's stderr tail, as `servers/list` shows it.
fn stderr_tail(s: &mut Sidecar) -> String {
    let list = s.call("servers/list", json!({}));
    list["servers"][0]["stderrTail"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Waits until the server logged that `task` was cancelled (`tasks/cancel` reached it).
fn wait_for_task_cancel(s: &mut Sidecar, task: &str) {
    let line = format!("task-cancelled {task}");
    let s = RefCell::new(s);
    eventually(&format!("the server logged `{line}`"), || {
        stderr_tail(&mut s.borrow_mut()).lines().any(|l| l == line)
    });
}

#[test]
fn a_tool_that_requires_a_task_answers_the_host_as_a_plain_call() {
    let mut s = with_task_server(&[]);
    let r = s.call(
        "tools/call",
        task_work(json!({"steps": 3, "intervalMs": 20}), json!({})),
    );
    // The result is the task's (`taskId` proves the server ran it as one), as a plain result.
    assert_eq!(
        r["structuredContent"],
        json!({"steps": 3, "token": null, "taskId": "fixture-task-1"}),
        "{r}"
    );
    assert!(
        r.get("_meta").is_none(),
        "the related-task _meta stays downstream: {r}"
    );
    assert!(
        stderr_tail(&mut s).contains("task-get fixture-task-1"),
        "the task was polled"
    );
}

#[test]
fn an_optional_task_tool_is_called_plainly() {
    let mut s = with_task_server(&[]);
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__task_optional", "arguments": {"message": "hi"}}),
    );
    assert_eq!(
        r["structuredContent"],
        json!({"viaTask": false, "message": "hi"}),
        "{r}"
    );
}

#[test]
fn the_task_progress_reaches_the_host_like_a_plain_calls() {
    let mut s = with_task_server(&[]);
    let id = s.send(
        "tools/call",
        task_work(
            json!({"steps": 4, "intervalMs": 20}),
            json!({"progress": true}),
        ),
    );
    let answer = s.response(id);
    assert_eq!(
        answer["result"]["structuredContent"]["steps"], 4,
        "{answer}"
    );
    assert!(
        answer["result"]["structuredContent"]["token"].is_number(),
        "the task call carried a progress token: {answer}"
    );
    let progress: Vec<Value> = s
        .held()
        .into_iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"].clone())
        .collect();
    let last = progress.last().expect("progress before the answer");
    assert_eq!(
        last,
        &json!({"requestId": id, "progress": 4, "total": 4, "message": "step 4 of 4"})
    );
}

/// With a poll interval longer than the call's timeout, only the server's status notifications
/// can end the wait in time: they wake the poller.
#[test]
fn status_notifications_end_the_wait_between_polls() {
    let mut s = with_task_server(&[]);
    let r = s.request(
        "tools/call",
        task_work(
            json!({"steps": 2, "intervalMs": 20, "pollInterval": 600_000, "notify": true}),
            json!({"timeoutMs": 4000}),
        ),
    );
    assert_eq!(r["result"]["structuredContent"]["steps"], 2, "{r}");
}

#[test]
fn a_timeout_cancels_the_task_on_the_server() {
    let mut s = with_task_server(&[]);
    let (code, e) = s.error_of(
        "tools/call",
        task_work(
            json!({"steps": 100_000, "intervalMs": 100}),
            json!({"timeoutMs": 300}),
        ),
    );
    assert_eq!(code, "TOOL_TIMEOUT", "{e}");
    assert_eq!(e["data"]["setting"], "timeoutMs", "{e}");
    assert_eq!(e["data"]["tool"], "task_work", "{e}");
    wait_for_task_cancel(&mut s, "fixture-task-1");
}

#[test]
fn a_host_cancel_cancels_the_task_on_the_server() {
    let mut s = with_task_server(&[]);
    let id = s.send(
        "tools/call",
        task_work(
            json!({"steps": 100_000, "intervalMs": 50}),
            json!({"progress": true}),
        ),
    );
    // The task is running once its progress arrives.
    s.notification("notifications/progress", |p| p["requestId"] == id);
    s.notify("notifications/cancelled", json!({"requestId": id}));
    let r = s.response(id);
    assert_eq!(r["error"]["data"]["code"], "CANCELLED", "{r}");
    wait_for_task_cancel(&mut s, "fixture-task-1");
}

#[test]
fn a_task_that_fails_or_is_cancelled_by_the_server_is_a_clear_error() {
    let mut s = with_task_server(&[]);
    // Failed with a tool result: that result, as the plain call would have given it.
    let r = s.call(
        "tools/call",
        task_work(json!({"steps": 1, "outcome": "failed"}), json!({})),
    );
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["text"], "the work failed", "{r}");

    // Failed with an error: UPSTREAM_ERROR naming the server, the tool, the task and its status.
    let (code, e) = s.error_of(
        "tools/call",
        task_work(json!({"steps": 1, "outcome": "error"}), json!({})),
    );
    assert_eq!(code, "UPSTREAM_ERROR", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("`task_work`") && message.contains("`fx`") && message.contains("failed"),
        "{message}"
    );
    assert_eq!(e["data"]["taskStatus"], "failed", "{e}");
    assert_eq!(e["data"]["tool"], "task_work", "{e}");
    assert_eq!(e["data"]["upstreamCode"], -32603, "{e}");

    // Cancelled by the server itself.
    let (code, e) = s.error_of(
        "tools/call",
        task_work(json!({"steps": 1, "outcome": "cancelled"}), json!({})),
    );
    assert_eq!(code, "UPSTREAM_ERROR", "{e}");
    assert_eq!(e["data"]["taskStatus"], "cancelled", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("server cancelled its task") && message.contains("the server gave up"),
        "{message}"
    );
    // Nothing was cancelled by the sidecar: the tasks ended on their own.
    assert!(!stderr_tail(&mut s).contains("task-cancelled"));
}

/// The poller sleeping between polls (the server suggests longer than the call's timeout) learns
/// of the crash at once: the call fails with the server's exit, not a timeout.
#[test]
fn a_server_that_crashes_mid_task_fails_the_call_and_comes_back() {
    let mut s = with_task_server(&[]);
    let first = s.server_status("fx");
    let (code, e) = s.error_of(
        "tools/call",
        task_work(
            json!({"steps": 5, "intervalMs": 20, "exitAtStep": 2, "pollInterval": 600_000}),
            json!({"timeoutMs": 4000}),
        ),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE", "{e}");
    assert_eq!(e["data"]["server"], "fx", "{e}");
    assert_eq!(e["data"]["tool"], "task_work", "{e}");
    s.server_changed("fx", |st| {
        st["state"] == "ready" && st["generation"].as_u64() > first["generation"].as_u64()
    });
    let r = s.call("tools/call", task_work(json!({"steps": 1}), json!({})));
    assert_eq!(r["structuredContent"]["steps"], 1, "{r}");
}

#[test]
fn the_client_declares_the_tasks_capability() {
    let mut s = with_task_server(&["--client-requests"]);
    let state = s.call("tools/call", json!({"name": "mcp__fx__client_state"}));
    assert_eq!(
        state["structuredContent"]["capabilities"]["tasks"],
        json!({}),
        "{state}"
    );
}

/// server-everything over stdio.
fn everything_stdio() -> Value {
    let script =
        remote_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    json!({"command": node22(), "args": [script, "stdio"]})
}

/// server-everything (`config`), added as `e` to a sidecar whose host declared `capabilities`,
/// once its task tool is listed (it registers it after reading the client's capabilities).
fn everything_with_research(capabilities: Value, config: Value) -> Sidecar {
    let mut s = Sidecar::initialized(json!({ "capabilities": capabilities }));
    let status = s.add("e", config);
    assert_eq!(status["state"], "ready", "{status}");
    while !s
        .call("tools/list", json!({}))
        .to_string()
        .contains("mcp__e__simulate-research-query")
    {
        s.notification("notifications/tools/changed", |_| true);
    }
    s
}

/// A real server's task: `simulate-research-query` requires task execution; four stages of a
/// second each, polled every second.
#[test]
fn server_everything_research_runs_as_a_task() {
    let mut s = everything_with_research(json!({}), everything_stdio());
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__e__simulate-research-query", "arguments": {"topic": "tides"},
               "timeoutMs": 60_000}),
    );
    let text = r["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("# Research Report: tides") && text.contains("Stage 4: Generating report"),
        "{r}"
    );
}

/// The ambiguous research needs input (`input_required`): its elicitation arrives while the
/// sidecar waits on `tasks/result`, reaches the host as the sidecar's own request, and the
/// host's answer shapes the report.
fn research_that_needs_input_asks_the_host(config: Value) {
    let mut s = everything_with_research(json!({"elicitation": {"form": {}}}), config);
    let id = s.send(
        "tools/call",
        json!({"name": "mcp__e__simulate-research-query",
               "arguments": {"topic": "tides", "ambiguous": true}, "timeoutMs": 60_000}),
    );
    let asked = s.wait_for(|m| m["method"] == "elicitation/create" && m.get("id").is_some());
    assert_eq!(asked["params"]["server"], "e", "{asked}");
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
                        "result": {"action": "accept", "content": {"interpretation": "historical"}}});
    s.write_raw(format!("{answer}\n").as_bytes());
    let r = s.response(id);
    let text = r["result"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("Clarification**: historical"), "{r}");
}

#[test]
fn server_everything_research_that_needs_input_asks_the_host_over_stdio() {
    research_that_needs_input_asks_the_host(everything_stdio());
}

#[test]
fn server_everything_research_that_needs_input_asks_the_host_over_streamable_http() {
    let (_server, port) = everything("streamableHttp");
    research_that_needs_input_asks_the_host(
        json!({"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}),
    );
}
