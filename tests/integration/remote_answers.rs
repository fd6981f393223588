//! A remote server's answer that is not JSON-RPC fails the request it answers, not the server:
//! against `mcp-http-fixture --broken-calls 1` (the first `tools/call` gets a gateway's HTML page
//! quoting the request's credential), the call fails with a clear, masked error and the next call
//! runs on the same session, the server ready and never restarted. An event that answers no request
//! (the GET stream, legacy SSE) is dropped and its stream goes on.

#![allow(clippy::unwrap_used, clippy::disallowed_methods)] // the tests spawn the HTTP fixture

use serde_json::{json, Value};

use crate::remote::HttpFixture;
use crate::support::Sidecar;

const SECRET: &str = "Bearer s3cret-answer-1";

/// A sidecar with server `web` over `fx`, its `Authorization` a secret header.
fn sidecar_with(fx: &HttpFixture, url_path: &str) -> Sidecar {
    let mut s = Sidecar::initialized(json!({}));
    let status = s.add(
        "web",
        json!({
            "url": format!("{}{url_path}", fx.base),
            "headers": {"Authorization": {"value": SECRET, "secret": true}},
        }),
    );
    assert_eq!(status["state"], "ready", "{status}");
    s
}

fn echo(s: &mut Sidecar, text: &str, extra: Value) -> Value {
    let mut params = json!({"name": "mcp__web__echo", "arguments": {"text": text}});
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    s.request("tools/call", params)
}

/// The second call succeeds, the server ready, never restarted, with no error kept.
fn assert_still_served(s: &mut Sidecar) {
    let second = echo(s, "after", json!({}));
    assert_eq!(second["result"]["text"], "after", "{second}");
    let status = s.server_status("web");
    assert_eq!(
        (&status["state"], &status["restarts"]),
        (&json!("ready"), &json!(0)),
        "{status}"
    );
    assert!(status.get("lastError").is_none(), "{status}");
}

fn a_broken_answer_fails_its_call_alone(fixture_args: &[&str]) {
    let mut args = vec!["--broken-calls", "1", "--require-header"];
    let header = format!("authorization={SECRET}");
    args.push(&header);
    args.extend_from_slice(fixture_args);
    let fx = HttpFixture::start(&args);
    let mut s = sidecar_with(&fx, "/mcp");
    let first = echo(&mut s, "before", json!({}));
    let error = &first["error"];
    assert_eq!(error["code"], -32030, "{first}");
    assert_eq!(error["data"]["code"], "PROTOCOL_ERROR", "{first}");
    assert_eq!(error["data"]["server"], "web", "{first}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("server `web`: POST tools/call: the answer is not JSON ("),
        "{message}"
    );
    assert!(!message.contains("stdout"), "{message}");
    let excerpt = error["data"]["excerpt"].as_str().unwrap();
    assert_eq!(
        excerpt,
        "<html><body>502 Bad Gateway (authorization: ***)</body></html>"
    );
    assert!(!first.to_string().contains("s3cret"), "{first}");
    assert_still_served(&mut s);
    // Both calls on the first session: no second `initialize`, no second session.
    let log = fx.requests();
    let calls: Vec<&str> = log
        .lines()
        .filter(|l| l.ends_with("rpc=tools/call"))
        .collect();
    assert_eq!(calls.len(), 2, "{log}");
    assert!(
        calls
            .iter()
            .all(|l| l.contains("mcp-session-id=session-1 ")),
        "{log}"
    );
    assert_eq!(log.matches("rpc=initialize").count(), 1, "{log}");
}

#[test]
fn a_json_body_that_is_not_json_fails_its_call_and_the_server_stays_ready() {
    a_broken_answer_fails_its_call_alone(&[]);
}

#[test]
fn an_event_that_is_not_json_fails_its_call_and_the_server_stays_ready() {
    a_broken_answer_fails_its_call_alone(&["--sse-responses"]);
}

/// The GET stream answers no request: a broken event there is dropped, and the stream goes on (the
/// log message after it reaches the host) with the server ready.
#[test]
fn a_get_stream_event_that_is_not_json_is_dropped_and_the_stream_goes_on() {
    let header = format!("authorization={SECRET}");
    let fx = HttpFixture::start(&["--broken-get-event", "--require-header", &header]);
    let mut s = Sidecar::initialized(json!({"serverLogs": "info"}));
    let status = s.add(
        "web",
        json!({
            "url": format!("{}/mcp", fx.base),
            "headers": {"Authorization": {"value": SECRET, "secret": true}},
        }),
    );
    assert_eq!(status["state"], "ready", "{status}");
    let log = s.notification("notifications/server/log", |p| {
        p["data"] == "after the broken event"
    });
    assert_eq!(log["params"]["server"], "web", "{log}");
    assert_still_served(&mut s);
    assert_eq!(
        fx.requests().matches("rpc=initialize").count(),
        1,
        "{}",
        fx.requests()
    );
}

/// Legacy HTTP+SSE: answers come on the one event stream, so a broken event answers no request the
/// sidecar can name: it is dropped, the call it answered runs into its timeout, and the stream and
/// the server go on.
#[test]
fn a_legacy_event_that_is_not_json_is_dropped_and_the_server_stays_ready() {
    let header = format!("authorization={SECRET}");
    let fx = HttpFixture::start(&["--sse", "--broken-calls", "1", "--require-header", &header]);
    let mut s = sidecar_with(&fx, "/sse");
    let first = echo(&mut s, "before", json!({"timeoutMs": 1500}));
    assert_eq!(first["error"]["data"]["code"], "TOOL_TIMEOUT", "{first}");
    assert_still_served(&mut s);
    // One event stream, one legacy session: the broken event ended neither.
    let log = fx.requests();
    assert_eq!(log.matches("GET /sse").count(), 1, "{log}");
    assert_eq!(
        log.matches("POST /message").count(),
        log.lines().count() - 3,
        "{log}"
    );
    assert_eq!(log.matches("rpc=tools/call").count(), 2, "{log}");
    assert_eq!(
        log.matches("rpc=initialize").count(),
        2,
        "probe, then the session: {log}"
    );
}
