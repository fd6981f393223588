//! The gateway's metrics and traces: `/metrics` after real calls (counts, a strict check of the
//! exposition's grammar, its own token), and OpenTelemetry spans received by a local OTLP/HTTP
//! collector (a tiny HTTP server on 127.0.0.1 in the test) with the incoming `traceparent`'s trace
//! id, while the servers are told the trace: a stdio fixture in `_meta.traceparent`, an HTTP
//! fixture in the `traceparent` header and `_meta` — through `mcp --http` and the host protocol.

#![allow(clippy::unwrap_used, clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::aggregate::harness::{http, modern_meta, HttpSidecar, Reply};
use crate::remote::HttpFixture;
use crate::support::{eventually, fixture, temp_dir, Sidecar};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN: &str = "00f067aa0ba902b7";

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_SPAN}-01")
}

/// A local OTLP/HTTP collector: every `POST /v1/traces` body, answered 200.
struct Collector {
    port: u16,
    bodies: Arc<Mutex<Vec<String>>>,
}

impl Collector {
    fn start() -> Collector {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&bodies);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || serve_otlp(stream, &kept));
            }
        });
        Collector { port, bodies }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every span received so far: `(name, traceId, parentSpanId, spanId)`.
    fn spans(&self) -> Vec<(String, String, String, String)> {
        let bodies = self.bodies.lock().unwrap().clone();
        let mut spans = Vec::new();
        for body in bodies {
            let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
            for rs in v["resourceSpans"].as_array().into_iter().flatten() {
                for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                    for s in ss["spans"].as_array().into_iter().flatten() {
                        let text = |k: &str| s[k].as_str().unwrap_or_default().to_owned();
                        spans.push((
                            text("name"),
                            text("traceId"),
                            text("parentSpanId"),
                            text("spanId"),
                        ));
                    }
                }
            }
        }
        spans
    }

    /// Waits (bounded) for a span named `name` and returns it.
    fn span(&self, name: &str) -> (String, String, String, String) {
        eventually(&format!("span {name:?} at the collector"), || {
            self.spans().iter().any(|s| s.0 == name)
        });
        self.spans().into_iter().find(|s| s.0 == name).unwrap()
    }
}

/// One connection of the collector: requests (keep-alive) until it closes.
fn serve_otlp(stream: TcpStream, bodies: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut length = 0usize;
        let mut first = String::new();
        if reader.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap();
                }
            }
        }
        assert!(length <= 16 * 1024 * 1024, "an OTLP body of {length} bytes");
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        assert!(first.starts_with("POST /v1/traces "), "{first}");
        bodies
            .lock()
            .unwrap()
            .push(String::from_utf8(body).expect("OTLP/JSON"));
        let answer =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// What the sidecar needs to export to `collector` quickly (OTLP/JSON, a short batch delay).
fn otel_env(collector: &Collector) -> Vec<(&'static str, String)> {
    vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json".to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", "50".to_owned()),
    ]
}

/// The `_meta` lines a `--log-meta` fixture wrote, each as JSON.
fn metas(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The trace id and parent span id of a `traceparent` value.
fn ids(traceparent: &str) -> (String, String) {
    let parts: Vec<&str> = traceparent.split('-').collect();
    assert_eq!(parts.len(), 4, "{traceparent}");
    (parts[1].to_owned(), parts[2].to_owned())
}

/// A 2026-07-28 `tools/call` with `extra` headers and, when given, `_meta.traceparent`.
fn call(
    server: &HttpSidecar,
    id: i64,
    tool: &str,
    args: Value,
    meta: Option<&str>,
    extra: &[(&str, &str)],
) -> Value {
    let mut params = json!({"name": tool, "arguments": args, "_meta": modern_meta()});
    if let Some(t) = meta {
        params["_meta"]["traceparent"] = json!(t);
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    headers.extend_from_slice(extra);
    let reply = server.post(&body, &headers);
    assert_eq!(reply.status, 200, "{reply:?}");
    let message = reply.message();
    assert!(message["result"].is_object(), "{message}");
    message
}

fn get(server: &HttpSidecar, path: &str, headers: &[(&str, &str)]) -> Reply {
    http(server.port, "GET", path, headers, b"")
}

#[test]
fn spans_reach_the_collector_under_the_incoming_trace_and_servers_are_told_it() {
    let collector = Collector::start();
    let meta_log = temp_dir("obs-meta").join("meta.jsonl");
    let remote = HttpFixture::start(&[]);
    let servers = json!({
        "fx": fixture(&["--log-meta", meta_log.to_str().unwrap()]),
        "web": {"type": "http", "url": format!("{}/mcp", remote.base)},
    });
    let env = otel_env(&collector);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let server =
        HttpSidecar::start_env(servers, &[], &env, Stdio::null(), "the aggregate is loaded");

    // The trace context in the HTTP header: the stdio server gets it in `_meta`.
    let parent = traceparent();
    call(
        &server,
        1,
        "fx__echo",
        json!({"message": "m"}),
        None,
        &[("traceparent", &parent)],
    );
    let request = collector.span("tools/call fx__echo");
    assert_eq!(
        (request.1.as_str(), request.2.as_str()),
        (TRACE_ID, PARENT_SPAN),
        "{request:?}"
    );
    let downstream = collector.span("tools/call echo");
    assert_eq!(downstream.1, TRACE_ID);
    assert_eq!(
        downstream.2, request.3,
        "the call's span is the request span's child"
    );
    let told = metas(&meta_log);
    assert_eq!(told.len(), 1, "{told:?}");
    let (trace, span) = ids(told[0]["traceparent"]
        .as_str()
        .unwrap_or_else(|| panic!("{told:?}")));
    assert_eq!(
        (trace.as_str(), span.as_str()),
        (TRACE_ID, downstream.3.as_str())
    );

    // The trace context in `_meta` (it wins over a header): the HTTP server gets both.
    let other = format!("00-{}-{PARENT_SPAN}-01", "ab".repeat(16));
    call(
        &server,
        2,
        "web__echo",
        json!({"text": "t"}),
        Some(&parent),
        &[("traceparent", &other)],
    );
    let remote_call = collector.span("tools/call web__echo");
    assert_eq!(remote_call.1, TRACE_ID);
    let log = remote.requests();
    let line = log
        .lines()
        .find(|l| l.contains("rpc=tools/call"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(
        line.contains(&format!(" traceparent=00-{TRACE_ID}-")),
        "{line}"
    );
    assert!(
        line.contains(&format!("meta.traceparent=00-{TRACE_ID}-")),
        "{line}"
    );
}

#[test]
fn without_an_endpoint_the_incoming_trace_is_passed_on_unchanged() {
    let meta_log = temp_dir("obs-meta-plain").join("meta.jsonl");
    let servers = json!({"fx": fixture(&["--log-meta", meta_log.to_str().unwrap()])});
    let server = HttpSidecar::start(servers, &[]);
    call(&server, 1, "fx__echo", json!({"message": "m"}), None, &[]);
    let parent = traceparent();
    call(
        &server,
        2,
        "fx__echo",
        json!({"message": "m"}),
        None,
        &[("traceparent", &parent)],
    );
    let told = metas(&meta_log);
    assert_eq!(told.len(), 2, "{told:?}");
    assert!(
        told[0].get("traceparent").is_none(),
        "no trace, nothing told: {told:?}"
    );
    assert_eq!(told[1]["traceparent"], json!(parent));
}

#[test]
fn the_host_protocol_takes_a_traceparent_on_tools_call() {
    let collector = Collector::start();
    let meta_log = temp_dir("obs-meta-host").join("meta.jsonl");
    let env = otel_env(&collector);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut s = Sidecar::spawn_with(&[], &env);
    s.initialize(json!({}));
    s.call(
        "servers/add",
        json!({"name": "fx", "config": fixture(&["--log-meta", meta_log.to_str().unwrap()])}),
    );
    let parent = traceparent();
    let r = s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "m"}, "traceparent": parent}),
    );
    assert_eq!(r["isError"], json!(false), "{r}");
    let meta = json!({"traceparent": format!("00-{}-{PARENT_SPAN}-01", "cd".repeat(16))});
    s.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "m"}, "_meta": meta}),
    );
    let request = collector.span("tools/call mcp__fx__echo");
    assert_eq!(
        (request.1.as_str(), request.2.as_str()),
        (TRACE_ID, PARENT_SPAN)
    );
    let told = metas(&meta_log);
    assert_eq!(told.len(), 2, "{told:?}");
    assert_eq!(ids(told[0]["traceparent"].as_str().unwrap()).0, TRACE_ID);
    assert_eq!(
        ids(told[1]["traceparent"].as_str().unwrap()).0,
        "cd".repeat(16)
    );
}

/// Every line of an OpenMetrics text exposition, checked against its grammar: `# TYPE`, `# HELP`,
/// `# UNIT` lines, samples `name{label="value",…} number`, and `# EOF` last.
fn check_exposition(text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "{text}");
    let name_ok = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            && !n.starts_with(|c: char| c.is_ascii_digit())
    };
    for line in &lines[..lines.len() - 1] {
        if let Some(rest) = line.strip_prefix("# ") {
            let mut words = rest.splitn(3, ' ');
            let kind = words.next().unwrap();
            assert!(["TYPE", "HELP", "UNIT"].contains(&kind), "{line}");
            assert!(name_ok(words.next().unwrap_or("")), "{line}");
            if kind == "TYPE" {
                let t = words.next().unwrap_or("");
                assert!(["counter", "gauge", "histogram"].contains(&t), "{line}");
            }
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line}"));
        assert!(
            value.parse::<f64>().is_ok() || ["+Inf", "-Inf", "NaN"].contains(&value),
            "{line}"
        );
        let (name, labels) = match series.split_once('{') {
            Some((name, labels)) => (
                name,
                labels.strip_suffix('}').unwrap_or_else(|| panic!("{line}")),
            ),
            None => (series, ""),
        };
        assert!(name_ok(name), "{line}");
        assert!(name.starts_with("mcp_sidecar_"), "{line}");
        let mut rest = labels;
        while !rest.is_empty() {
            let (label, after) = rest.split_once("=\"").unwrap_or_else(|| panic!("{line}"));
            assert!(name_ok(label), "{line}");
            let mut end = None;
            let mut escaped = false;
            for (i, c) in after.char_indices() {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '"' => {
                        end = Some(i);
                        break;
                    }
                    _ => {}
                }
            }
            let end = end.unwrap_or_else(|| panic!("{line}"));
            rest = after[end + 1..]
                .strip_prefix(',')
                .unwrap_or(&after[end + 1..]);
        }
    }
}

/// The value of the sample `series` (its exact text up to the value).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn metrics_count_calls_by_method_outcome_server_and_tool_behind_their_own_token() {
    let dir = temp_dir("obs-metrics");
    let (token, scrape) = (dir.join("token"), dir.join("scrape"));
    std::fs::write(&token, "endpoint-t0ken\n").unwrap();
    std::fs::write(&scrape, "scrape-t0ken\n").unwrap();
    let servers = json!({"fx": fixture(&[])});
    let args = [
        "--token-file",
        token.to_str().unwrap(),
        "--metrics-token-file",
        scrape.to_str().unwrap(),
    ];
    let server = HttpSidecar::start(servers, &args);
    let auth = [("Authorization", "Bearer endpoint-t0ken")];
    for id in 0..5 {
        call(
            &server,
            id,
            "fx__echo",
            json!({"message": "m"}),
            None,
            &auth,
        );
    }
    // A failure of the tool itself, and one of the call (invalid arguments).
    call(&server, 10, "fx__fail", json!({}), None, &auth);
    call(&server, 11, "fx__echo", json!({"message": 5}), None, &auth);

    assert_eq!(get(&server, "/metrics", &[]).status, 401);
    assert_eq!(
        get(&server, "/metrics", &auth).status,
        401,
        "the endpoint's token does not scrape"
    );
    let scraper = [("Authorization", "Bearer scrape-t0ken")];
    let mcp = server.post(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        &scraper,
    );
    assert_eq!(mcp.status, 401, "the scrape token opens nothing else");
    let reply = get(&server, "/metrics", &scraper);
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(reply
        .header("content-type")
        .unwrap()
        .starts_with("application/openmetrics-text"));
    let text = &reply.body;
    check_exposition(text);
    let count =
        |series: &str| sample(text, series).unwrap_or_else(|| panic!("{series} in\n{text}"));
    assert_eq!(
        count(r#"mcp_sidecar_requests_total{method="tools/call",outcome="ok"}"#),
        5.0
    );
    assert_eq!(
        count(r#"mcp_sidecar_requests_total{method="tools/call",outcome="tool_error"}"#),
        2.0
    );
    assert_eq!(
        count(r#"mcp_sidecar_errors_total{code="INVALID_ARGUMENTS"}"#),
        1.0
    );
    assert_eq!(
        count(r#"mcp_sidecar_call_duration_seconds_count{server="fx",tool="echo"}"#),
        5.0
    );
    assert_eq!(
        count(r#"mcp_sidecar_call_duration_seconds_count{server="fx",tool="fail"}"#),
        1.0
    );
    assert_eq!(count(r#"mcp_sidecar_servers{state="ready"}"#), 1.0);
    assert_eq!(count(r#"mcp_sidecar_servers{state="error"}"#), 0.0);
    assert_eq!(count(r#"mcp_sidecar_restarts_total{server="fx"}"#), 0.0);
    assert_eq!(count(r#"mcp_sidecar_calls_in_flight{server="fx"}"#), 0.0);
    assert!(count(r#"mcp_sidecar_bytes_total{direction="in",server="fx"}"#) > 0.0);
    assert!(count(r#"mcp_sidecar_bytes_total{direction="out",server="fx"}"#) > 0.0);
    assert_eq!(count(r#"mcp_sidecar_sessions{era="legacy"}"#), 0.0);
    for secret in ["endpoint-t0ken", "scrape-t0ken"] {
        assert!(!text.contains(secret));
    }
}
