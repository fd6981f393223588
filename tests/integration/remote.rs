//! Remote servers over real HTTP on 127.0.0.1 (ephemeral ports): Streamable HTTP and legacy SSE
//! against `mcp-http-fixture`, each hostile behaviour on its flag.

#![allow(clippy::unwrap_used, clippy::disallowed_methods)] // the tests spawn the HTTP fixture

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use crate::support::{http_fixture_bin, temp_dir, Sidecar};

/// A running HTTP fixture; killed on drop.
pub(crate) struct HttpFixture {
    child: Child,
    pub base: String,
    pub log: PathBuf,
}

impl HttpFixture {
    pub(crate) fn start(args: &[&str]) -> Self {
        let log = temp_dir("http-fixture").join("requests.log");
        let mut child = Command::new(http_fixture_bin())
            .args(args)
            .args(["--log", log.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp-http-fixture");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .trim()
            .strip_prefix("listening ")
            .expect("fixture announces its URL")
            .to_owned();
        Self { child, base, log }
    }

    pub(crate) fn requests(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `servers/add`: the ready status, or the error (a failed start's error, from the reply or the status).
fn add(s: &mut Sidecar, name: &str, config: Value) -> Result<Value, Value> {
    let r = s.request("servers/add", json!({"name": name, "config": config}));
    match (r.get("result"), r.get("error")) {
        (Some(status), _) if status["state"] == "ready" => Ok(status.clone()),
        (Some(status), _) => Err(status["lastError"].clone()),
        (_, Some(e)) => Err(e.clone()),
        _ => panic!("{r}"),
    }
}

fn echo(s: &mut Sidecar, server: &str, text: &str) -> Value {
    s.request(
        "tools/call",
        json!({"name": format!("mcp__{server}__echo"), "arguments": {"text": text}}),
    )
}

fn text_of(r: &Value) -> &str {
    r["result"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {r}"))
}

#[test]
fn streamable_http_with_secret_header_session_and_delete() {
    let fx = HttpFixture::start(&["--require-header", "authorization=Bearer s3cret"]);
    let mut s = Sidecar::initialized(json!({}));
    let status = add(&mut s, "web", json!({
        "type": "http", "url": format!("{}/mcp", fx.base),
        "headers": {"Authorization": {"value": "Bearer s3cret", "secret": true}, "X-Trace": "t1"}
    }))
    .unwrap();
    assert_eq!(status["transport"], "http", "{status}");
    assert_eq!(status["url"], format!("{}/mcp", fx.base));
    assert_eq!(status["headers"], json!(["Authorization", "X-Trace"]));
    assert!(status.get("pid").is_none(), "{status}");
    assert!(!status.to_string().contains("s3cret"), "{status}");
    assert_eq!(text_of(&echo(&mut s, "web", "héllo 😀")), "héllo 😀");
    let listing = s.call("servers/list", json!({}));
    assert!(!listing.to_string().contains("s3cret"));
    s.call("servers/remove", json!({"name": "web"}));
    let log = fx.requests();
    assert!(
        log.contains("POST /mcp authorization=Bearer s3cret rpc=initialize"),
        "{log}"
    );
    assert!(log.contains("mcp-session-id=session-1 mcp-protocol-version=2025-11-25 authorization=Bearer s3cret rpc=tools/list"), "{log}");
    assert!(
        log.contains("DELETE /mcp mcp-session-id=session-1"),
        "{log}"
    );
}

#[test]
fn streamable_http_event_stream_answers_split_byte_by_byte() {
    let fx = HttpFixture::start(&["--sse-responses", "--split-utf8"]);
    let mut s = Sidecar::initialized(json!({}));
    add(&mut s, "web", json!({"url": format!("{}/mcp", fx.base)})).unwrap();
    assert_eq!(text_of(&echo(&mut s, "web", "ünï 😀\r\n")), "ünï 😀\r\n");
}

#[test]
fn auto_detection_falls_back_to_legacy_sse() {
    let fx = HttpFixture::start(&["--sse"]);
    let mut s = Sidecar::initialized(json!({}));
    let status = add(&mut s, "old", json!({"url": format!("{}/sse", fx.base)})).unwrap();
    assert_eq!(status["protocolVersion"], "2024-11-05", "{status}");
    assert_eq!(text_of(&echo(&mut s, "old", "via sse")), "via sse");
    let log = fx.requests();
    assert!(
        // `auto`: the 2026-07-28 probe first, then `initialize`, then the legacy event stream.
        log.starts_with("POST /sse mcp-protocol-version=2026-07-28 rpc=server/discover\nPOST /sse rpc=initialize\nGET /sse\nPOST /message rpc=initialize"),
        "{log}"
    );
}

#[test]
fn a_given_type_is_never_silently_swapped() {
    let legacy = HttpFixture::start(&["--sse"]);
    let modern = HttpFixture::start(&[]);
    let mut s = Sidecar::initialized(json!({}));
    let e = add(
        &mut s,
        "a",
        json!({"type": "http", "url": format!("{}/sse", legacy.base)}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("404"), "{e}");
    assert!(!legacy.requests().contains("GET"), "{}", legacy.requests());
    let e = add(
        &mut s,
        "b",
        json!({"transport": "sse", "url": format!("{}/mcp", modern.base)}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("405"), "{e}");
    assert!(!modern.requests().contains("POST"), "{}", modern.requests());
}

#[test]
fn legacy_endpoint_on_another_origin_is_refused() {
    let fx = HttpFixture::start(&["--sse", "--foreign-endpoint"]);
    let mut s = Sidecar::initialized(json!({}));
    let e = add(
        &mut s,
        "old",
        json!({"type": "sse", "url": format!("{}/sse", fx.base), "headers": {"X-Api-Key": "k"}}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("another origin"), "{e}");
    assert!(!fx.requests().contains("POST"), "{}", fx.requests());
}

#[test]
fn cross_origin_redirect_is_refused_and_carries_no_headers() {
    let target = HttpFixture::start(&[]);
    // Same port space, other origin: `localhost` versus `127.0.0.1`.
    let other = target.base.replace("127.0.0.1", "localhost");
    let fx = HttpFixture::start(&["--redirect-to", &format!("{other}/mcp")]);
    let mut s = Sidecar::initialized(json!({}));
    let e = add(
        &mut s,
        "r",
        json!({"type": "http", "url": format!("{}/mcp", fx.base), "headers": {"X-Api-Key": "k3y"}}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("redirect"), "{e}");
    assert!(!e.to_string().contains("k3y"), "{e}");
    assert_eq!(target.requests(), "", "the redirect target was contacted");
}

#[test]
fn endless_sse_line_trips_max_message_bytes() {
    let fx = HttpFixture::start(&["--endless-line"]);
    let mut s = Sidecar::initialized(json!({}));
    add(
        &mut s,
        "web",
        json!({"url": format!("{}/mcp", fx.base), "maxMessageBytes": 65536, "restart": "never"}),
    )
    .unwrap();
    let r = echo(&mut s, "web", "x");
    assert!(r.to_string().contains("maxMessageBytes"), "{r}");
    let status = s.server_changed("web", |st| st["state"] == "unhealthy");
    assert_eq!(
        status["lastError"]["data"]["setting"], "maxMessageBytes",
        "{status}"
    );
}

#[test]
fn oversize_event_trips_max_message_bytes() {
    let fx = HttpFixture::start(&["--oversize-event", "70000"]);
    let mut s = Sidecar::initialized(json!({}));
    add(
        &mut s,
        "web",
        json!({"url": format!("{}/mcp", fx.base), "maxMessageBytes": 65536, "restart": "never"}),
    )
    .unwrap();
    let r = echo(&mut s, "web", "x");
    assert!(r.to_string().contains("maxMessageBytes"), "{r}");
}

#[test]
fn expired_session_is_renewed_and_safe_requests_retried() {
    // The session expires at tools/list during startup: renewed, list retried, server ready.
    let fx = HttpFixture::start(&["--expire-after", "1"]);
    let mut s = Sidecar::initialized(json!({}));
    add(&mut s, "web", json!({"url": format!("{}/mcp", fx.base)})).unwrap();
    assert_eq!(text_of(&echo(&mut s, "web", "again")), "again");
    let log = fx.requests();
    assert_eq!(log.matches("rpc=initialize").count(), 2, "{log}");
    assert!(log.contains("mcp-session-id=session-2"), "{log}");
}

#[test]
fn expired_session_never_retries_a_tool_call() {
    let fx = HttpFixture::start(&["--expire-after", "2"]);
    let mut s = Sidecar::initialized(json!({}));
    // The fixture counts requests to expire the session: a legacy session from the first one.
    let config = json!({"url": format!("{}/mcp", fx.base), "protocolVersion": "legacy"});
    add(&mut s, "web", config).unwrap();
    let r = echo(&mut s, "web", "once");
    assert!(r.to_string().contains("not retried"), "{r}");
    assert_eq!(fx.requests().matches("rpc=tools/call").count(), 1);
    assert_eq!(text_of(&echo(&mut s, "web", "next")), "next");
}

#[test]
fn dropped_response_stream_is_resumed_with_last_event_id_after_retry() {
    let fx = HttpFixture::start(&["--drop-stream", "200"]);
    let mut s = Sidecar::initialized(json!({}));
    add(&mut s, "web", json!({"url": format!("{}/mcp", fx.base)})).unwrap();
    let started = std::time::Instant::now();
    assert_eq!(text_of(&echo(&mut s, "web", "resumed")), "resumed");
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(200),
        "retry: not honoured"
    );
    assert!(
        fx.requests().contains(
            "GET /mcp mcp-session-id=session-1 mcp-protocol-version=2025-11-25 last-event-id=1"
        ),
        "{}",
        fx.requests()
    );
}

#[test]
fn legacy_stream_that_ends_makes_the_server_unhealthy() {
    let fx = HttpFixture::start(&["--sse", "--end-stream-after", "2"]);
    let mut s = Sidecar::initialized(json!({}));
    let _ = add(
        &mut s,
        "old",
        json!({"type": "sse", "url": format!("{}/sse", fx.base), "restart": "never"}),
    );
    let status = s.server_changed("old", |st| st["state"] == "unhealthy");
    assert!(
        status["lastError"]["message"]
            .as_str()
            .unwrap()
            .contains("event stream"),
        "{status}"
    );
}

#[test]
fn slow_tool_times_out_and_is_cancelled() {
    let fx = HttpFixture::start(&["--slow-ms", "3000"]);
    let mut s = Sidecar::initialized(json!({}));
    add(&mut s, "web", json!({"url": format!("{}/mcp", fx.base)})).unwrap();
    let r = s.request(
        "tools/call",
        json!({"name": "mcp__web__echo", "arguments": {"text": "x"}, "timeoutMs": 200}),
    );
    assert_eq!(r["error"]["data"]["code"], "TOOL_TIMEOUT", "{r}");
    crate::support::eventually("notifications/cancelled posted", || {
        fx.requests().contains("rpc=notifications/cancelled")
    });
}

#[test]
fn remote_config_errors_name_the_field() {
    let mut s = Sidecar::initialized(json!({}));
    for (config, field) in [
        (json!({"url": "http://user:pw@127.0.0.1:1/mcp"}), "url"),
        (json!({"url": "http://127.0.0.1:1/mcp#x"}), "url"),
        (json!({"url": "ws://127.0.0.1:1/mcp"}), "url"),
        (
            json!({"url": "http://127.0.0.1:1/mcp", "headers": {"Mcp-Session-Id": "x"}}),
            "headers.Mcp-Session-Id",
        ),
    ] {
        let (code, e) = s.error_of("servers/add", json!({"name": "bad", "config": config}));
        assert_eq!(code, "CONFIG_INVALID", "{e}");
        assert_eq!(e["data"]["field"], field, "{e}");
        assert!(!e.to_string().contains("pw@"), "{e}");
    }
}

#[test]
fn http_status_on_tools_call_is_http_error_with_status_and_masked_body() {
    let fx = HttpFixture::start(&["--call-status", "503"]);
    let mut s = Sidecar::initialized(json!({}));
    add(
        &mut s,
        "web",
        json!({
            "url": format!("{}/mcp", fx.base),
            "headers": {"Authorization": {"value": "Bearer s3cret", "secret": true}}
        }),
    )
    .unwrap();
    let r = echo(&mut s, "web", "x");
    let e = &r["error"];
    assert_eq!(e["code"], -32033, "{r}");
    assert_eq!(e["data"]["code"], "HTTP_ERROR", "{r}");
    assert_eq!(e["data"]["status"], 503, "{r}");
    assert_eq!(e["data"]["server"], "web", "{r}");
    assert_eq!(e["data"]["name"], "mcp__web__echo", "{r}");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("server `web`: POST tools/call: HTTP 503"),
        "{r}"
    );
    assert!(
        e["data"]["body"]
            .as_str()
            .unwrap()
            .contains("backend overloaded"),
        "{r}"
    );
    // The body quoted the credential back; it never reaches the host.
    assert!(fx.requests().contains("authorization=Bearer s3cret"));
    assert!(!r.to_string().contains("s3cret"), "{r}");
    // One refused call does not break the session.
    let listing = s.call("servers/list", json!({}));
    assert_eq!(listing["servers"][0]["state"], "ready", "{listing}");
}

#[test]
fn legacy_post_refused_with_a_status_is_http_error() {
    let fx = HttpFixture::start(&["--sse", "--call-status", "500"]);
    let mut s = Sidecar::initialized(json!({}));
    add(
        &mut s,
        "old",
        json!({"type": "sse", "url": format!("{}/sse", fx.base)}),
    )
    .unwrap();
    let r = echo(&mut s, "old", "x");
    assert_eq!(r["error"]["data"]["code"], "HTTP_ERROR", "{r}");
    assert_eq!(r["error"]["data"]["status"], 500, "{r}");
    assert_eq!(r["error"]["data"]["server"], "old", "{r}");
}

#[test]
fn unauthorized_initialize_is_http_error_in_last_error() {
    let fx = HttpFixture::start(&["--require-header", "authorization=Bearer right"]);
    let mut s = Sidecar::initialized(json!({}));
    let e = add(
        &mut s,
        "web",
        json!({"type": "http", "url": format!("{}/mcp", fx.base), "restart": "never"}),
    )
    .unwrap_err();
    assert_eq!(e["code"], -32033, "{e}");
    assert_eq!(e["data"]["code"], "HTTP_ERROR", "{e}");
    assert_eq!(e["data"]["status"], 401, "{e}");
    assert_eq!(e["data"]["server"], "web", "{e}");
}

#[test]
fn refused_connection_is_network_error_naming_the_server() {
    // A port that was just free: nothing listens on it, so connecting is refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut s = Sidecar::initialized(json!({}));
    let e = add(
        &mut s,
        "gone",
        json!({"type": "http", "url": format!("http://127.0.0.1:{port}/mcp"), "restart": "never"}),
    )
    .unwrap_err();
    assert_eq!(e["code"], -32034, "{e}");
    assert_eq!(e["data"]["code"], "NETWORK_ERROR", "{e}");
    assert_eq!(e["data"]["server"], "gone", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("server `gone`"), "{e}");
    assert!(message.contains(&format!("127.0.0.1:{port}")), "{e}");
}

#[test]
fn server_gone_mid_session_fails_the_call_with_network_error() {
    let fx = HttpFixture::start(&[]);
    let mut s = Sidecar::initialized(json!({}));
    add(
        &mut s,
        "web",
        json!({"url": format!("{}/mcp", fx.base), "restart": "never"}),
    )
    .unwrap();
    drop(fx); // killed and reaped: its port now refuses connections
    let r = echo(&mut s, "web", "x");
    assert_eq!(r["error"]["code"], -32034, "{r}");
    assert_eq!(r["error"]["data"]["code"], "NETWORK_ERROR", "{r}");
    assert_eq!(r["error"]["data"]["server"], "web", "{r}");
    let status = s.server_changed("web", |st| st["state"] == "unhealthy");
    assert_eq!(
        status["lastError"]["data"]["code"], "NETWORK_ERROR",
        "{status}"
    );
}
