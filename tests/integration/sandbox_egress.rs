//! The egress proxy of `sandbox.network.allow` (`mcp_sidecar::sandbox::egress`), over real sockets
//! on 127.0.0.1: tunnels and plain requests to allowed hosts, refusals naming the host and the
//! config key, the bounds (head size, head time, connections, idle tunnels), the address check
//! after DNS (a name that resolves to loopback), and real clients through it: curl, and Python's
//! urllib finding the proxy in `HTTPS_PROXY` as a sandboxed server would.
//!
//! The only network here is loopback, so allowed targets are listed as IP literals
//! (`127.0.0.1:PORT`), and names are given fixed addresses through `EgressOptions::resolve`.
#![allow(clippy::disallowed_methods)] // the tests run curl, openssl and python3 as clients

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_sidecar::sandbox::egress::{self, EgressOptions, EgressProxy};
use mcp_sidecar::ErrorCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support::temp_dir;

/// Bound on any one wait of these tests; a busy machine stays far below it.
const WAIT: Duration = Duration::from_secs(30);

/// An echo server on loopback: every connection gets back what it sends. Counts connections.
async fn echo_server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let (mut r, mut w) = stream.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
            });
        }
    });
    (port, accepted)
}

/// An HTTP server on loopback whose body is the request head it received.
async fn head_echo_server() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let head = read_head(&mut stream).await;
                let answer = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{head}",
                    head.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    port
}

/// Reads up to the end of an HTTP head (bounded by 64 KiB).
async fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert!(head.len() < 64 * 1024, "head too long");
        if stream.read(&mut byte).await.unwrap() == 0 {
            break;
        }
        head.push(byte[0]);
    }
    String::from_utf8(head).unwrap()
}

/// Reads until the peer closes (bounded by [`WAIT`]); an error (reset) ends it too.
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut all = Vec::new();
    tokio::time::timeout(WAIT, async {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stream.read(&mut chunk).await {
            if n == 0 {
                break;
            }
            all.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .expect("the proxy did not close the connection");
    String::from_utf8_lossy(&all).into_owned()
}

async fn proxy(hosts: &[String]) -> EgressProxy {
    egress::start("srv", hosts.to_vec()).await.unwrap()
}

/// Sends `CONNECT target` and returns the connection and the answer's head.
async fn connect(proxy: u16, target: &str) -> (TcpStream, String) {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, proxy))
        .await
        .unwrap();
    let request = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let head = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .unwrap();
    (stream, head)
}

/// The body of an answer that ends with the connection or has a Content-Length.
async fn body_of(stream: &mut TcpStream, head: &str) -> String {
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse::<usize>().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    tokio::time::timeout(WAIT, stream.read_exact(&mut body))
        .await
        .unwrap()
        .unwrap();
    String::from_utf8(body).unwrap()
}

#[tokio::test]
async fn connect_to_an_allowed_host_tunnels_bytes_both_ways() {
    let (echo, _) = echo_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{echo}")]).await;
    let (mut tunnel, head) = connect(proxy.port(), &format!("127.0.0.1:{echo}")).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");

    tunnel.write_all(b"ping").await.unwrap();
    let mut pong = [0u8; 4];
    tunnel.read_exact(&mut pong).await.unwrap();
    assert_eq!(&pong, b"ping");

    // More than one buffer each way, written while the other way runs.
    let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let (mut r, mut w) = tunnel.into_split();
    let sent = big.clone();
    let writer = tokio::spawn(async move {
        w.write_all(&sent).await.unwrap();
        w.shutdown().await.unwrap();
    });
    let mut back = Vec::new();
    tokio::time::timeout(WAIT, r.read_to_end(&mut back))
        .await
        .unwrap()
        .unwrap();
    writer.await.unwrap();
    assert_eq!(
        back, big,
        "the echo came back whole and then the tunnel closed"
    );

    let stats = proxy.stats();
    assert_eq!(stats[&format!("127.0.0.1:{echo}")].allowed, 1, "{stats:?}");
}

/// Log lines written during a test on a current-thread runtime, where every spawned task of the
/// proxy runs on the test's thread and so under its subscriber.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn connect_to_an_unlisted_host_is_403_naming_it_and_the_key() {
    let captured = Captured::default();
    let sink = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let (echo, accepted) = echo_server().await;
    let (other, other_accepted) = echo_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{echo}"), "api.example.com".into()]).await;

    for target in [
        format!("127.0.0.1:{other}"),
        "evil.example.net:443".to_string(),
        "api.example.com:8443".into(),
    ] {
        let (mut stream, head) = connect(proxy.port(), &target).await;
        assert!(head.starts_with("HTTP/1.1 403"), "{target}: {head}");
        let body = body_of(&mut stream, &head).await;
        assert!(body.contains(&format!("`{target}`")), "{body}");
        assert!(body.contains("sandbox.network.allow"), "{body}");
        assert!(body.contains("`srv`"), "{body}");
        assert_eq!(proxy.stats()[&target].refused, 1);
    }
    assert_eq!(
        other_accepted.load(Ordering::SeqCst),
        0,
        "nothing reached the unlisted host"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 0);

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("evil.example.net:443"))
        .unwrap_or_else(|| panic!("no log line names the refused host:\n{log}"));
    assert!(
        line.contains("WARN") && line.contains("server=srv"),
        "{line}"
    );
}

#[tokio::test]
async fn a_plain_request_is_forwarded_in_origin_form() {
    let http = head_echo_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{http}")]).await;
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, proxy.port()))
        .await
        .unwrap();
    let request = format!(
        "GET http://user:secret@127.0.0.1:{http}/hello?x=1 HTTP/1.1\r\nHost: 127.0.0.1:{http}\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic c2VjcmV0\r\nX-Kept: yes\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let head = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let seen = body_of(&mut stream, &head).await.to_ascii_lowercase();
    assert!(seen.starts_with("get /hello?x=1 http/1.1\r\n"), "{seen}");
    assert!(seen.contains("x-kept: yes"), "{seen}");
    assert!(
        seen.contains(&format!("host: 127.0.0.1:{http}\r\n")),
        "{seen}"
    );
    assert!(
        !seen.contains("secret"),
        "credentials in the URL stay out of Host: {seen}"
    );
    assert!(
        !seen.contains("proxy-connection") && !seen.contains("proxy-authorization"),
        "{seen}"
    );

    // The same connection, a second request to a host that is not allowed: checked on its own.
    stream
        .write_all(b"GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n")
        .await
        .unwrap();
    let head = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .unwrap();
    assert!(head.starts_with("HTTP/1.1 403"), "{head}");
}

#[tokio::test]
async fn an_oversized_head_is_431_and_the_connection_closed() {
    let http = head_echo_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{http}")]).await;
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, proxy.port()))
        .await
        .unwrap();
    let pad = "a".repeat(mcp_sidecar::limits::EGRESS_HEAD_MAX_BYTES);
    let request = format!("GET http://127.0.0.1:{http}/ HTTP/1.1\r\nX-Pad: {pad}\r\n\r\n");
    let _ = stream.write_all(request.as_bytes()).await;
    let answer = read_to_close(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
}

#[tokio::test]
async fn a_head_sent_byte_by_byte_is_cut_off_by_the_head_timeout() {
    let http = head_echo_server().await;
    let options = EgressOptions {
        head_timeout: Duration::from_millis(500),
        ..EgressOptions::default()
    };
    let proxy = egress::start_with("srv", vec![format!("127.0.0.1:{http}")], options)
        .await
        .unwrap();
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, proxy.port()))
        .await
        .unwrap();
    stream
        .write_all(format!("GET http://127.0.0.1:{http}/ HTTP/1.1\r\n").as_bytes())
        .await
        .unwrap();
    // A header trickled one byte at a time, never finished: only the head's total time can end it.
    let (mut r, mut w) = stream.into_split();
    let trickle = tokio::spawn(async move {
        for _ in 0..(WAIT.as_millis() / 100) {
            if w.write_all(b"x").await.is_err() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    });
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(WAIT, r.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the proxy kept a head that never ends");
    assert!(
        !String::from_utf8_lossy(&rest).contains("200 OK"),
        "nothing was forwarded"
    );
    trickle.abort();
}

#[tokio::test]
async fn a_tunnel_silent_both_ways_is_closed_after_the_idle_timeout() {
    let (echo, _) = echo_server().await;
    let options = EgressOptions {
        idle_timeout: Duration::from_millis(300),
        ..EgressOptions::default()
    };
    let proxy = egress::start_with("srv", vec![format!("127.0.0.1:{echo}")], options)
        .await
        .unwrap();
    let (mut tunnel, head) = connect(proxy.port(), &format!("127.0.0.1:{echo}")).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    tunnel.write_all(b"still here").await.unwrap();
    let mut back = [0u8; 10];
    tunnel.read_exact(&mut back).await.unwrap();
    // Then silence: the proxy ends the tunnel; the read sees the end (bounded by WAIT).
    let rest = read_to_close(&mut tunnel).await;
    assert_eq!(rest, "");
}

#[tokio::test]
async fn a_forwarded_answer_that_stalls_is_closed_after_the_idle_timeout() {
    // A host that sends its head and part of the body it announced, then nothing, keeping the
    // connection open.
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        read_head(&mut stream).await;
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
            .await
            .unwrap();
        std::future::pending::<()>().await;
        drop(stream);
    });
    let options = EgressOptions {
        idle_timeout: Duration::from_millis(300),
        ..EgressOptions::default()
    };
    let proxy = egress::start_with("srv", vec![format!("127.0.0.1:{port}")], options)
        .await
        .unwrap();
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, proxy.port()))
        .await
        .unwrap();
    let request =
        format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let head = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // The proxy gives up on the silent host and closes the client's connection mid-body.
    assert_eq!(read_to_close(&mut stream).await, "partial");
}

#[tokio::test]
async fn the_65th_connection_is_refused_503_and_a_freed_slot_is_reused() {
    let (echo, _) = echo_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{echo}")]).await;
    let target = format!("127.0.0.1:{echo}");
    let cap = mcp_sidecar::limits::EGRESS_MAX_CONNECTIONS;
    let mut open = Vec::new();
    for _ in 0..cap {
        let (tunnel, head) = connect(proxy.port(), &target).await;
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        open.push(tunnel);
    }
    let (mut refused, head) = connect(proxy.port(), &target).await;
    assert!(head.starts_with("HTTP/1.1 503"), "{head}");
    let body = body_of(&mut refused, &head).await;
    assert!(
        body.contains("EGRESS_MAX_CONNECTIONS") && body.contains(&cap.to_string()),
        "{body}"
    );
    assert_eq!(
        read_to_close(&mut refused).await,
        "",
        "the refused connection is closed"
    );

    // One tunnel ends (half-close, the echo closes, the proxy passes both ends on).
    let mut one = open.pop().unwrap();
    one.shutdown().await.unwrap();
    assert_eq!(read_to_close(&mut one).await, "");
    drop(one);
    // Its slot is given back when the tunnel's task ends, just after that end reached us: no
    // event of the proxy says when, so ask again a bounded number of times.
    let mut attempts = 0;
    loop {
        let (_tunnel, head) = connect(proxy.port(), &target).await;
        if head.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(head.starts_with("HTTP/1.1 503"), "{head}");
        attempts += 1;
        assert!(attempts < 300, "the slot was never given back");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_unless_listed_as_an_address_or_localhost() {
    let (echo, accepted) = echo_server().await;
    let loopback: IpAddr = Ipv4Addr::LOCALHOST.into();
    let options = EgressOptions {
        resolve: HashMap::from([
            ("api.example.com".to_string(), vec![loopback]),
            ("svc.localhost".to_string(), vec![loopback]),
        ]),
        ..EgressOptions::default()
    };
    let hosts = vec![
        format!("api.example.com:{echo}"),
        format!("*.localhost:{echo}"),
        format!("localhost:{echo}"),
    ];
    let proxy = egress::start_with("srv", hosts, options).await.unwrap();

    for name in ["api.example.com", "svc.localhost"] {
        let target = format!("{name}:{echo}");
        let (mut stream, head) = connect(proxy.port(), &target).await;
        assert!(head.starts_with("HTTP/1.1 403"), "{target}: {head}");
        let body = body_of(&mut stream, &head).await;
        assert!(
            body.contains("127.0.0.1") && body.contains("loopback"),
            "{body}"
        );
        assert!(
            body.contains(&format!("`127.0.0.1:{echo}`")) && body.contains("sandbox.network.allow"),
            "{body}"
        );
    }
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        0,
        "no connection reached loopback"
    );

    // `localhost` itself, listed as such, resolves (through the system's resolver) and reaches it.
    let (mut tunnel, head) = connect(proxy.port(), &format!("localhost:{echo}")).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    tunnel.write_all(b"hi").await.unwrap();
    let mut back = [0u8; 2];
    tunnel.read_exact(&mut back).await.unwrap();
    assert_eq!(&back, b"hi");
}

#[tokio::test]
async fn an_invalid_pattern_is_a_config_error_naming_it() {
    let err = egress::start("srv", vec!["*".into()]).await.err().unwrap();
    assert_eq!(err.code, ErrorCode::ConfigInvalid);
    assert!(
        err.message.contains("`*`") && err.message.contains("sandbox.network.allow"),
        "{}",
        err.message
    );
    assert_eq!(err.details["server"], "srv");
}

#[tokio::test]
async fn dropping_the_proxy_stops_it() {
    let (echo, _) = echo_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{echo}")]).await;
    let port = proxy.port();
    let (mut tunnel, head) = connect(port, &format!("127.0.0.1:{echo}")).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    drop(proxy);
    assert_eq!(
        read_to_close(&mut tunnel).await,
        "",
        "the open tunnel ends with the proxy"
    );
    // Bounded: the listener goes once the accept loop sees the stop.
    let mut attempts = 0;
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port))
        .await
        .is_ok()
    {
        attempts += 1;
        assert!(attempts < 300, "the proxy still listens");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Runs a program to its end (bounded by [`WAIT`]); its stdout, or a panic with its stderr.
async fn run(
    program: &str,
    args: &[&str],
    env: &[(&str, String)],
) -> (Option<i32>, String, String) {
    let mut command = tokio::process::Command::new(program);
    command.args(args).stdin(Stdio::null()).kill_on_drop(true);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = tokio::time::timeout(WAIT, command.output())
        .await
        .unwrap_or_else(|_| panic!("{program} did not finish"))
        .unwrap_or_else(|e| panic!("cannot run {program} (.ci/run installs it): {e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn curl_goes_through_the_proxy_plain_and_tunnelled_and_is_refused_elsewhere() {
    let http = head_echo_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{http}")]).await;
    let via = proxy.url();
    let (code, out, err) = run(
        "curl",
        &[
            "-sS",
            "-x",
            &via,
            &format!("http://127.0.0.1:{http}/curl-plain"),
        ],
        &[],
    )
    .await;
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("GET /curl-plain HTTP/1.1"), "{out}");

    // -p: curl tunnels through CONNECT, as it does for https.
    let (code, out, err) = run(
        "curl",
        &[
            "-sS",
            "-p",
            "-x",
            &via,
            &format!("http://127.0.0.1:{http}/curl-tunnel"),
        ],
        &[],
    )
    .await;
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("GET /curl-tunnel HTTP/1.1"), "{out}");

    let (code, out, _) = run(
        "curl",
        &[
            "-sS",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-x",
            &via,
            "http://127.0.0.1:9/",
        ],
        &[],
    )
    .await;
    assert_eq!((code, out.as_str()), (Some(0), "403"));
    let (code, _, err) = run("curl", &["-sS", "-x", &via, "https://example.com/"], &[]).await;
    assert_ne!(code, Some(0));
    assert!(err.contains("403"), "{err}");
}

/// An HTTPS server on loopback: Python's http.server behind ssl, with a certificate openssl made
/// for 127.0.0.1; each answer's body is `tls PATH`. Killed when dropped.
struct TlsServer {
    _process: tokio::process::Child,
    port: u16,
    cert: std::path::PathBuf,
}

async fn tls_server() -> TlsServer {
    let dir = temp_dir("egress-tls");
    let (key, cert) = (dir.join("key.pem"), dir.join("cert.pem"));
    let (code, _, err) = run(
        "openssl",
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            key.to_str().unwrap(),
            "-out",
            cert.to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert_eq!(code, Some(0), "{err}");
    let script = r#"
import http.server, ssl, sys
class Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("tls " + self.path).encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
httpd = http.server.HTTPServer(("127.0.0.1", 0), Echo)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[1], sys.argv[2])
httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
print(httpd.server_address[1], flush=True)
httpd.serve_forever()
"#;
    let mut process = tokio::process::Command::new("python3")
        .args(["-c", script, cert.to_str().unwrap(), key.to_str().unwrap()])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python3");
    let mut stdout = process.stdout.take().unwrap();
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while tokio::time::timeout(WAIT, stdout.read(&mut byte))
        .await
        .unwrap()
        .unwrap()
        == 1
        && byte[0] != b'\n'
    {
        line.push(byte[0]);
    }
    let port = String::from_utf8(line).unwrap().trim().parse().unwrap();
    TlsServer {
        _process: process,
        port,
        cert,
    }
}

/// The environment a sandboxed server gets: every proxy variable at the proxy, `NO_PROXY` empty.
fn proxy_env(proxy: &EgressProxy) -> Vec<(&'static str, String)> {
    vec![
        ("HTTPS_PROXY", proxy.url()),
        ("HTTP_PROXY", proxy.url()),
        ("ALL_PROXY", proxy.url()),
        ("NO_PROXY", String::new()),
    ]
}

/// Python's urllib finds the proxy in `HTTPS_PROXY` alone, as a sandboxed server's runtime would:
/// CONNECT, then TLS end to end through the tunnel; an unlisted host is refused with the 403.
#[tokio::test]
async fn python_urllib_finds_the_proxy_in_https_proxy() {
    let tls = tls_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{}", tls.port)]).await;
    let client_script = r#"
import ssl, sys, urllib.request, urllib.error
ctx = ssl.create_default_context(cafile=sys.argv[1])
print(urllib.request.urlopen(f"https://127.0.0.1:{sys.argv[2]}/through-proxy", context=ctx, timeout=20).read().decode())
try:
    urllib.request.urlopen("https://127.0.0.1:9/", context=ctx, timeout=20)
    print("unlisted reached")
except urllib.error.URLError as e:
    print("unlisted refused:", e.reason)
"#;
    let (code, out, err) = run(
        "python3",
        &[
            "-c",
            client_script,
            tls.cert.to_str().unwrap(),
            &tls.port.to_string(),
        ],
        &proxy_env(&proxy),
    )
    .await;
    assert_eq!(code, Some(0), "{err}");
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("tls /through-proxy"), "{out}");
    let refused = lines.next().unwrap_or_default();
    assert!(
        refused.starts_with("unlisted refused:") && refused.contains("403"),
        "{out}"
    );
    assert_eq!(proxy.stats()[&format!("127.0.0.1:{}", tls.port)].allowed, 1);
}

/// Node 22 (≥ 22.21) honours the proxy variables only when asked: `--use-env-proxy` (or
/// `NODE_USE_ENV_PROXY=1`), then both `fetch` and `https.get` tunnel through the proxy.
#[tokio::test]
async fn node_22_with_use_env_proxy_goes_through_the_proxy() {
    let tls = tls_server().await;
    let proxy = proxy(&[format!("127.0.0.1:{}", tls.port)]).await;
    let script = r#"
const https = require("node:https");
const url = `https://127.0.0.1:${process.argv[1]}`;
(async () => {
  console.log(await (await fetch(`${url}/fetch`)).text());
  await new Promise((done, fail) => https.get(`${url}/https-get`, (res) => {
    let body = ""; res.on("data", (c) => (body += c)); res.on("end", () => { console.log(body); done(); });
  }).on("error", fail));
})().catch((e) => { console.error(e); process.exit(1); });
"#;
    let mut env = proxy_env(&proxy);
    env.push((
        "NODE_EXTRA_CA_CERTS",
        tls.cert.to_str().unwrap().to_string(),
    ));
    let node = crate::remote_servers::node22();
    let (code, out, err) = run(
        node.to_str().unwrap(),
        &["--use-env-proxy", "-e", script, &tls.port.to_string()],
        &env,
    )
    .await;
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "tls /fetch\ntls /https-get\n");
    assert_eq!(proxy.stats()[&format!("127.0.0.1:{}", tls.port)].allowed, 2);
}
