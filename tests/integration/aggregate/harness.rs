//! What the `mcp` mode tests share: a config file of fixture servers, the sidecar in `mcp` mode over
//! stdio (driven through the common [`Sidecar`] harness, which speaks raw JSON-RPC lines) or over
//! HTTP (a child process on a free loopback port), and a small HTTP/1.1 client that sees exactly
//! what went over the wire (status, headers, SSE events).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{sidecar_bin, temp_dir, Sidecar, WAIT};

/// Writes `{"mcpServers": servers}` to a fresh file and returns its path.
pub(crate) fn config_file(servers: Value) -> PathBuf {
    let path = temp_dir("mcp-config").join("servers.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

/// `mcp-sidecar mcp --config FILE ARGS…` over stdio, its stderr in `log` (debug level).
pub(crate) fn mcp_stdio(servers: Value, args: &[&str]) -> (Sidecar, PathBuf) {
    let config = config_file(servers);
    let log = config.with_file_name("stderr.log");
    let mut all = vec!["mcp", "--config", config.to_str().unwrap()];
    all.extend_from_slice(args);
    (Sidecar::spawn_logging_to(&log, &all, &[]), log)
}

/// A legacy `initialize` asking for `version`; returns its result.
pub(crate) fn initialize(s: &mut Sidecar, version: &str) -> Value {
    let result = s.call(
        "initialize",
        json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    s.notify("notifications/initialized", json!({}));
    result
}

/// The `_meta` of a 2026-07-28 request.
pub(crate) fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    })
}

/// `params` with the 2026-07-28 `_meta` added.
pub(crate) fn modern(mut params: Value) -> Value {
    params["_meta"] = modern_meta();
    params
}

/// Waits until the file at `log` has a line containing `needle`.
pub(crate) fn wait_for_log(log: &Path, needle: &str) {
    crate::support::eventually(&format!("{needle:?} in {}", log.display()), || {
        std::fs::read_to_string(log).is_ok_and(|text| text.contains(needle))
    });
}

/// A loopback port free right now.
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `mcp-sidecar mcp --http 127.0.0.1:PORT`, running until dropped (SIGTERM, then waited for).
pub(crate) struct HttpSidecar {
    pub child: Child,
    pub port: u16,
    pub log: PathBuf,
}

impl HttpSidecar {
    /// Starts it with `args` and waits (bounded) until the config's servers are loaded.
    pub(crate) fn start(servers: Value, args: &[&str]) -> HttpSidecar {
        Self::start_with(servers, args, Stdio::null())
    }

    /// [`HttpSidecar::start`] with `stdin` as the sidecar's standard input.
    pub(crate) fn start_with(servers: Value, args: &[&str], stdin: Stdio) -> HttpSidecar {
        Self::start_until(servers, args, stdin, "the aggregate is loaded")
    }

    /// Starts it and waits (bounded) for a line of its log holding `needle`.
    pub(crate) fn start_until(
        servers: Value,
        args: &[&str],
        stdin: Stdio,
        needle: &str,
    ) -> HttpSidecar {
        Self::start_env(servers, args, &[], stdin, needle)
    }

    /// [`HttpSidecar::start_until`] with extra environment variables.
    pub(crate) fn start_env(
        servers: Value,
        args: &[&str],
        env: &[(&str, &str)],
        stdin: Stdio,
        needle: &str,
    ) -> HttpSidecar {
        let config = config_file(servers);
        let log = config.with_file_name("stderr.log");
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        #[allow(clippy::disallowed_methods)] // the harness spawns the binary under test
        let child = Command::new(sidecar_bin())
            .args(["mcp", "--config", config.to_str().unwrap(), "--http", &addr])
            .args(args)
            .env("MCP_SIDECAR_LOG", "debug")
            .envs(env.iter().copied())
            .stdin(stdin)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("spawn mcp-sidecar mcp --http");
        let server = HttpSidecar { child, port, log };
        wait_for_log(&server.log, needle);
        server
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits (bounded) for the process to exit; its exit code.
    pub(crate) fn wait_exit(&mut self) -> Option<i32> {
        crate::support::exit_code(&mut self.child)
    }

    /// A POST of JSON-RPC `body` with the usual headers plus `extra`.
    pub(crate) fn post(&self, body: &Value, extra: &[(&str, &str)]) -> Reply {
        post_at(self.port, body, extra)
    }

    /// A 2026-07-28 POST: `method` with `params` (given `_meta`), and its standard headers.
    pub(crate) fn post_modern(
        &self,
        id: i64,
        method: &str,
        params: Value,
        extra: &[(&str, &str)],
    ) -> Reply {
        post_modern_at(self.port, id, method, params, extra)
    }
}

/// A POST of JSON-RPC `body` to `/mcp` on `port` (a gateway, or a load balancer in front of
/// some) with the usual headers plus `extra`.
pub(crate) fn post_at(port: u16, body: &Value, extra: &[(&str, &str)]) -> Reply {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    headers.extend_from_slice(extra);
    http(port, "POST", "/mcp", &headers, body.to_string().as_bytes())
}

/// A legacy (2025-11-25) session opened on `port` (a gateway or a balancer in front of some):
/// `initialize` declaring `capabilities`, then `notifications/initialized` (202, so both reached
/// the same replica); its id.
pub(crate) fn open_legacy_session(port: u16, capabilities: Value) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                   "clientInfo": {"name": "t", "version": "1"}}});
    let opened = post_at(port, &init, &[]);
    assert_eq!(opened.status, 200, "{opened:?}");
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let with = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let ack = post_at(port, &note, &with);
    assert_eq!(
        ack.status, 202,
        "initialized did not reach the session: {ack:?}"
    );
    session
}

/// A 2026-07-28 POST to `port`: `method` with `params` (given `_meta`), and its standard headers.
pub(crate) fn post_modern_at(
    port: u16,
    id: i64,
    method: &str,
    params: Value,
    extra: &[(&str, &str)],
) -> Reply {
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": modern(params)});
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if let Some(name) = &name {
        headers.push(("Mcp-Name", name.as_str()));
    }
    // A header given in `extra` replaces the standard one.
    headers.retain(|(k, _)| !extra.iter().any(|(e, _)| e.eq_ignore_ascii_case(k)));
    headers.extend_from_slice(extra);
    post_at(port, &body, &headers)
}

impl Drop for HttpSidecar {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            crate::support::signal(self.child.id(), nix::sys::signal::Signal::SIGTERM);
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline && self.child.try_wait().ok().flatten().is_none() {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One HTTP response: status, headers (names lowercase), body (chunked encoding undone).
#[derive(Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as one JSON-RPC message: the JSON body, or the last event of an SSE body.
    pub(crate) fn message(&self) -> Value {
        self.messages()
            .pop()
            .unwrap_or_else(|| panic!("no message in {self:?}"))
    }

    /// Every JSON-RPC message of the body (one for JSON, one per event for SSE).
    pub(crate) fn messages(&self) -> Vec<Value> {
        if self
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            self.body
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .map(|d| serde_json::from_str(d).unwrap())
                .collect()
        } else if self.body.is_empty() {
            Vec::new()
        } else {
            vec![serde_json::from_str(&self.body)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))]
        }
    }
}

/// One request on a fresh connection (`Connection: close`), read to its end.
pub(crate) fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut stream = connect(port);
    send_request(&mut stream, method, path, headers, body);
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let mut raw = Vec::new();
    reader.read_to_end(&mut raw).unwrap();
    let body = if chunked { unchunk(&raw) } else { raw };
    Reply {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

pub(crate) fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream
}

/// The headers of a raw POST in a legacy session: the session and its version first (all that
/// [`HttpSidecar::post`] needs, `[..2]`), then the body's type and the two answers it accepts.
pub(crate) fn legacy_post_headers(session: &str) -> [(&str, &str); 4] {
    [
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ]
}

/// Writes a request; `Host` is `127.0.0.1:PORT` unless `headers` names one.
pub(crate) fn send_request(
    stream: &mut TcpStream,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) {
    let port = stream.peer_addr().unwrap().port();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("transfer-encoding"))
    {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    stream.flush().unwrap();
}

/// The status line and headers.
pub(crate) fn read_head(reader: &mut impl BufRead) -> (u16, Vec<(String, String)>) {
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {line:?}"));
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some((k, v)) = trimmed.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    (status, headers)
}

/// Undoes `Transfer-Encoding: chunked`.
fn unchunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = raw.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&raw[..end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&raw[end + 2..end + 2 + size]);
        raw = &raw[end + 2 + size + 2..];
    }
    out
}

/// Reads SSE events from a response still streaming (after its head), until `pred` holds for one;
/// every message read is returned.
pub(crate) fn read_events_until(
    reader: &mut impl BufRead,
    pred: impl Fn(&Value) -> bool,
) -> Vec<Value> {
    let mut seen = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).unwrap();
        assert!(
            n > 0,
            "the stream ended before the event came; saw {seen:?}"
        );
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            let message: Value = serde_json::from_str(data).unwrap();
            let done = pred(&message);
            seen.push(message);
            if done {
                return seen;
            }
        }
    }
}
