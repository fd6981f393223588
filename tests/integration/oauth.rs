//! OAuth 2.1 against the HTTP fixture's own authorization server (`--oauth`), on 127.0.0.1: the
//! login through the loopback listener (the test is the browser: it opens the authorization URL the
//! status names and follows the redirect by hand), tokens refreshed ahead of expiry once for many
//! calls, a refused refresh token leaving the server in `needs_login` without a loop, the token
//! file's place and mode, logout, refused `state` and `iss`, a server without PKCE S256, memory-only
//! tokens, the step-up after `403 insufficient_scope`, and `mcp-sidecar login`. The host's own
//! browser step (`auth/authorize`) is `oauth_host`'s.

#![allow(clippy::disallowed_methods)] // the tests spawn the sidecar's `login` command

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::remote::HttpFixture;
use crate::support::{sidecar_bin, temp_dir, Sidecar};

/// An HTTP answer: status, headers (lower-cased names), body.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: String,
}

/// One plain-HTTP request on 127.0.0.1, no redirect followed (a browser's one step).
pub(crate) fn http(method: &str, url: &str) -> Answer {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(crate::support::WAIT)).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_owned(),
    }
}

/// What a person's browser does: opens the authorization URL (the fixture approves at once and
/// redirects) and follows the redirect to wherever it points (the sidecar's loopback listener).
/// Returns the listener's answer.
pub(crate) fn browse(authorization_url: &str) -> Answer {
    let approved = http("GET", authorization_url);
    assert_eq!(approved.status, 302, "the authorization endpoint redirects");
    http("GET", &approved.headers["location"])
}

/// The fixture's counters (`/_oauth/stats`).
pub(crate) fn stats(fx: &HttpFixture) -> Value {
    serde_json::from_str(&http("GET", &format!("{}/_oauth/stats", fx.base)).body).unwrap()
}

pub(crate) fn count(fx: &HttpFixture, what: &str) -> u64 {
    stats(fx)[what].as_u64().unwrap_or(0)
}

fn post(fx: &HttpFixture, path: &str) {
    assert_eq!(http("POST", &format!("{}{path}", fx.base)).status, 200);
}

pub(crate) fn config(fx: &HttpFixture) -> Value {
    json!({"url": format!("{}/mcp", fx.base), "restart": "never"})
}

/// Adds server `o` (it needs a login), logs in through the loopback listener, and waits until it
/// is ready.
fn logged_in(s: &mut Sidecar, fx: &HttpFixture) -> Value {
    let status = s.add("o", config(fx));
    assert_eq!(status["state"], "needs_login", "{status}");
    assert_eq!(
        status["lastError"]["data"]["code"], "AUTH_REQUIRED",
        "{status}"
    );
    let url = s.server_changed("o", |st| st["authorizationUrl"].is_string())["authorizationUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    let landed = browse(&url);
    assert_eq!(landed.status, 200, "{}", landed.body);
    s.server_changed("o", |st| st["state"] == "ready")
}

pub(crate) fn echo(s: &mut Sidecar, text: &str) -> Value {
    s.request(
        "tools/call",
        json!({"name": "mcp__o__echo", "arguments": {"text": text}}),
    )
}

/// Where the token store keeps the record of `url`.
fn token_file(cache: &Path, url: &str) -> PathBuf {
    cache.join("oauth").join(format!(
        "{}.json",
        hex::encode(Sha256::digest(url.as_bytes()))
    ))
}

fn cached_sidecar(cache: &Path) -> Sidecar {
    Sidecar::initialized_with(&["--cache-dir", cache.to_str().unwrap()], json!({}))
}

#[test]
fn login_through_the_loopback_listener_keeps_tokens_in_a_private_file() {
    let fx = HttpFixture::start(&["--oauth"]);
    let cache = temp_dir("oauth-login");
    let mut s = cached_sidecar(&cache);
    let ready = logged_in(&mut s, &fx);
    assert!(ready.get("authorizationUrl").is_none(), "{ready}");
    assert_eq!(echo(&mut s, "hi")["result"]["text"], "hi");
    // Discovery, registration, one authorization with PKCE (checked by the fixture), one exchange.
    let st = stats(&fx);
    assert_eq!(
        (
            st["register"].as_u64(),
            st["authorize"].as_u64(),
            st["token_code"].as_u64()
        ),
        (Some(1), Some(1), Some(1)),
        "{st}"
    );
    assert!(
        fx.requests()
            .contains("authorization=Bearer fixture-access-"),
        "requests carry the token"
    );
    let file = token_file(&cache, &format!("{}/mcp", fx.base));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("fixture-access-") && text.contains("fixture-refresh-"),
        "{text}"
    );
    assert!(
        !file.to_string_lossy().contains("127.0.0.1"),
        "the file name names no URL"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(file.parent().unwrap()), 0o700);
    }
    // A new sidecar on the same cache directory uses the stored tokens: no login.
    drop(s);
    let mut again = cached_sidecar(&cache);
    assert_eq!(again.add("o", config(&fx))["state"], "ready");
    assert_eq!(count(&fx, "authorize"), 1);
}

/// The token lives 6 s, so it is refreshed once it has 3 s left (half its lifetime, under the
/// 60 s skew): a call right after the login does not refresh; calls made once that point passed
/// share one refresh, made before the token expired (the server never refused one).
#[test]
fn refresh_ahead_of_expiry_is_shared_by_concurrent_calls() {
    let fx = HttpFixture::start(&["--oauth", "--oauth-token-life", "6"]);
    let mut s = cached_sidecar(&temp_dir("oauth-refresh"));
    logged_in(&mut s, &fx);
    assert_eq!(echo(&mut s, "fresh")["result"]["text"], "fresh");
    assert_eq!(
        count(&fx, "token_refresh"),
        0,
        "a fresh token is not refreshed"
    );
    let refused = count(&fx, "unauthorized");
    // Time itself is the condition here: the token has to age into its refresh window.
    std::thread::sleep(Duration::from_millis(3300));
    let ids: Vec<i64> = (0..16)
        .map(|i| {
            s.send(
                "tools/call",
                json!({"name": "mcp__o__echo", "arguments": {"text": format!("c{i}")}}),
            )
        })
        .collect();
    for (i, id) in ids.into_iter().enumerate() {
        assert_eq!(s.response(id)["result"]["text"], format!("c{i}"));
    }
    assert_eq!(
        count(&fx, "token_refresh"),
        1,
        "one refresh for every waiting call"
    );
    assert_eq!(
        count(&fx, "unauthorized"),
        refused,
        "refreshed before the server refused it"
    );
}

#[test]
fn a_refused_refresh_token_leaves_the_server_needing_a_login_without_a_loop() {
    let fx = HttpFixture::start(&["--oauth"]);
    let cache = temp_dir("oauth-revoked");
    let mut s = cached_sidecar(&cache);
    logged_in(&mut s, &fx);
    post(&fx, "/_oauth/revoke-refresh");
    post(&fx, "/_oauth/expire-access");
    let r = echo(&mut s, "x");
    assert_eq!(r["error"]["data"]["code"], "AUTH_REQUIRED", "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("refused the refresh token") && message.contains("invalid_grant"),
        "{message}"
    );
    let status = s.server_changed("o", |st| {
        st["state"] == "needs_login"
            && st["lastError"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("refresh token"))
    });
    assert_eq!(
        status["lastError"]["data"]["code"], "AUTH_REQUIRED",
        "{status}"
    );
    assert!(
        status.get("nextRestartAt").is_none(),
        "no restart is scheduled: {status}"
    );
    // Calls now fail at once, naming the state; nobody tries the refresh token again.
    let r = echo(&mut s, "y");
    assert_eq!(r["error"]["data"]["code"], "AUTH_REQUIRED", "{r}");
    assert_eq!(r["error"]["data"]["state"], "needs_login", "{r}");
    assert_eq!(count(&fx, "token_refresh"), 1);
    let text = std::fs::read_to_string(token_file(&cache, &format!("{}/mcp", fx.base))).unwrap();
    assert!(
        !text.contains("fixture-refresh-"),
        "the refused tokens are dropped: {text}"
    );
    // A login brings it back.
    let url = s.server_changed("o", |st| st["authorizationUrl"].is_string())["authorizationUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(browse(&url).status, 200);
    s.server_changed("o", |st| st["state"] == "ready");
    assert_eq!(echo(&mut s, "back")["result"]["text"], "back");
}

#[test]
fn logout_deletes_the_tokens_and_stops_the_session() {
    let fx = HttpFixture::start(&["--oauth"]);
    let cache = temp_dir("oauth-logout");
    let mut s = cached_sidecar(&cache);
    logged_in(&mut s, &fx);
    let file = token_file(&cache, &format!("{}/mcp", fx.base));
    assert!(file.exists());
    let status = s.call("servers/logout", json!({"name": "o"}));
    assert_eq!(status["state"], "needs_login", "{status}");
    assert!(!file.exists(), "logout removed the token file");
    let r = echo(&mut s, "x");
    assert_eq!(r["error"]["data"]["code"], "AUTH_REQUIRED", "{r}");
    let (code, _) = s.error_of("servers/logout", json!({"name": "nope"}));
    assert_eq!(code, "SERVER_NOT_FOUND");
}

#[test]
fn a_redirect_with_another_state_is_refused_and_the_login_goes_on() {
    let fx = HttpFixture::start(&["--oauth"]);
    let mut s = cached_sidecar(&temp_dir("oauth-state"));
    s.add("o", config(&fx));
    let url = s.server_changed("o", |st| st["authorizationUrl"].is_string())["authorizationUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    let approved = http("GET", &url);
    let location = approved.headers["location"].clone();
    let (callback, query) = location.split_once('?').unwrap();
    let forged = query
        .split('&')
        .map(|kv| {
            if kv.starts_with("state=") {
                "state=forged".to_owned()
            } else {
                kv.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("&");
    assert_eq!(http("GET", &format!("{callback}?{forged}")).status, 400);
    assert_eq!(
        count(&fx, "token_code"),
        0,
        "the forged redirect's code was not used"
    );
    assert_eq!(http("GET", &location).status, 200);
    s.server_changed("o", |st| st["state"] == "ready");
}

#[test]
fn an_authorization_response_from_another_issuer_is_refused() {
    let fx = HttpFixture::start(&["--oauth", "--oauth-iss", "wrong"]);
    let mut s = cached_sidecar(&temp_dir("oauth-iss"));
    s.add("o", config(&fx));
    let url = s.server_changed("o", |st| st["authorizationUrl"].is_string())["authorizationUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(browse(&url).status, 200, "the listener took the redirect");
    let status = s.server_changed("o", |st| st["lastError"]["data"]["code"] == "AUTH_FAILED");
    assert_eq!(status["state"], "needs_login", "{status}");
    let message = status["lastError"]["message"].as_str().unwrap();
    assert!(
        message.contains("evil.example.com") && message.contains("RFC 9207"),
        "{message}"
    );
    assert_eq!(
        count(&fx, "token_code"),
        0,
        "the code never reached the token endpoint"
    );
}

#[test]
fn an_authorization_server_without_pkce_s256_is_refused_clearly() {
    let fx = HttpFixture::start(&["--oauth", "--oauth-no-pkce"]);
    let mut s = cached_sidecar(&temp_dir("oauth-pkce"));
    let status = s.add("o", config(&fx));
    assert_eq!(status["state"], "error", "{status}");
    assert_eq!(
        status["lastError"]["data"]["code"], "AUTH_FAILED",
        "{status}"
    );
    let message = status["lastError"]["message"].as_str().unwrap();
    assert!(
        message.contains("PKCE with S256") && message.contains("server `o`"),
        "{message}"
    );
    assert_eq!(count(&fx, "authorize"), 0);
}

#[test]
fn memory_token_storage_writes_no_file() {
    let fx = HttpFixture::start(&["--oauth"]);
    let cache = temp_dir("oauth-memory");
    let mut s = Sidecar::initialized_with(
        &["--cache-dir", cache.to_str().unwrap()],
        json!({"tokenStorage": "memory"}),
    );
    logged_in(&mut s, &fx);
    assert_eq!(echo(&mut s, "m")["result"]["text"], "m");
    assert!(
        !cache.join("oauth").exists(),
        "nothing under the cache directory"
    );
}

/// `tools/call` needs `mcp:write`, the first login asked for `mcp:read`: the call fails alone (the
/// server stays ready), and a login asked for with `servers/login` requests both scopes.
#[test]
fn insufficient_scope_fails_the_call_and_a_login_grants_the_union() {
    let fx = HttpFixture::start(&["--oauth", "--oauth-call-scope", "mcp:write"]);
    let mut s = cached_sidecar(&temp_dir("oauth-scope"));
    logged_in(&mut s, &fx);
    let r = echo(&mut s, "x");
    assert_eq!(r["error"]["data"]["code"], "AUTH_REQUIRED", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("mcp:write"),
        "{r}"
    );
    assert_eq!(s.server_status("o")["state"], "ready");
    let login = s.send("servers/login", json!({"name": "o"}));
    let url = s.server_changed("o", |st| st["authorizationUrl"].is_string())["authorizationUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    let scope: String = url
        .split('&')
        .find_map(|kv| kv.strip_prefix("scope="))
        .unwrap()
        .to_owned();
    assert!(
        scope.contains("mcp%3Aread") && scope.contains("mcp%3Awrite"),
        "{scope}"
    );
    assert_eq!(browse(&url).status, 200);
    assert_eq!(s.response(login)["result"]["state"], "ready");
    assert_eq!(echo(&mut s, "granted")["result"]["text"], "granted");
}

/// A server given with `--url` that needs a login gets one on the way (no `login` first): the URL
/// on stderr, the call answered on stdout once the browser's redirect came.
#[test]
fn a_url_server_on_the_command_line_logs_in_when_it_needs_to() {
    let fx = HttpFixture::start(&["--oauth"]);
    let cache = temp_dir("oauth-cli-url");
    let mut child = Command::new(sidecar_bin())
        .args([
            "call",
            "--url",
            &format!("{}/mcp", fx.base),
            "echo",
            "--arg",
            "text=logged-in",
            "--cache-dir",
        ])
        .arg(&cache)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let prefix = format!("{}/authorize?", fx.base);
    let mut seen = Vec::new();
    let url = loop {
        match stderr.next() {
            Some(line) if line.as_ref().unwrap().starts_with(&prefix) => break line.unwrap(),
            Some(line) => seen.push(line.unwrap()),
            None => panic!("no authorization URL on stderr: {seen:?}"),
        }
    };
    // The rest of stderr, read while the call goes on (a pipe nobody reads could stall it).
    let rest = std::thread::spawn(move || stderr.map_while(Result::ok).collect::<Vec<_>>());
    assert_eq!(browse(&url).status, 200);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    let rest = rest.join().unwrap();
    assert!(status.success(), "{out} {seen:?} {rest:?}");
    assert!(out.contains("logged-in"), "{out}");
}

#[test]
fn the_login_command_prints_the_url_and_keeps_the_tokens_for_the_sidecar() {
    let fx = HttpFixture::start(&["--oauth"]);
    let cache = temp_dir("oauth-cli");
    let file = cache.join("servers.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {"remote": {"type": "http", "url": format!("{}/mcp", fx.base)}}})
            .to_string(),
    )
    .unwrap();
    let doctor = || {
        Command::new(sidecar_bin())
            .args(["doctor", "--config", file.to_str().unwrap(), "--cache-dir"])
            .arg(&cache)
            .output()
            .unwrap()
    };
    // Before the login, the commands for people say how to log in (they never open one).
    let before = doctor();
    let report = String::from_utf8_lossy(&before.stdout);
    assert_eq!(before.status.code(), Some(1), "{report}");
    assert!(report.contains("needs an OAuth login"), "{report}");
    assert!(report.contains("mcp-sidecar login SERVER"), "{report}");
    let mut child = Command::new(sidecar_bin())
        .args([
            "login",
            "remote",
            "--config",
            file.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.starts_with(&format!("{}/authorize?", fx.base)),
        "{line}"
    );
    assert_eq!(browse(line.trim()).status, 200);
    assert!(child.wait().unwrap().success());
    let after = doctor();
    let report = String::from_utf8_lossy(&after.stdout);
    assert_eq!(
        after.status.code(),
        Some(0),
        "the commands use the tokens: {report}"
    );
    let mut s = cached_sidecar(&cache);
    let status = s.add("o", config(&fx));
    assert_eq!(
        status["state"], "ready",
        "the sidecar uses the stored tokens: {status}"
    );
    // A server the files do not name is a clear failure.
    let out = Command::new(sidecar_bin())
        .args([
            "login",
            "nope",
            "--config",
            file.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "configuration: no such server");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no server named `nope`"), "{stderr}");
}

/// Server `o` at `fx`, started; its status once the start failed.
fn refused_start(fx: &HttpFixture) -> String {
    let mut s = cached_sidecar(&temp_dir("oauth-reach"));
    let status = s.add("o", config(fx));
    assert_eq!(status["state"], "error", "{status}");
    assert_eq!(
        status["lastError"]["data"]["code"], "AUTH_FAILED",
        "{status}"
    );
    status["lastError"]["message"].as_str().unwrap().to_owned()
}

/// A resource whose metadata names an authorization server on an internal address: refused before
/// any request goes there. `0.0.0.0` reaches this machine on Linux (the fixture itself, which counts
/// the metadata requests it gets), so the refusal is seen without sending anything off loopback;
/// the other addresses are refused by the same rule without being connected to.
#[test]
fn an_authorization_server_on_an_internal_address_is_never_fetched() {
    for (issuer, why) in [
        ("http://0.0.0.0:{port}", "not https"),
        ("https://0.0.0.0:{port}", "unroutable"),
        ("https://169.254.169.254/latest/meta-data", "cloud metadata"),
        ("http://169.254.169.254/latest/meta-data", "not https"),
        (
            "https://10.1.2.3/as",
            "in a private range, and the server is not",
        ),
    ] {
        let fx = HttpFixture::start(&["--oauth", "--oauth-issuer", issuer]);
        let message = refused_start(&fx);
        assert!(
            message.contains("refused to fetch") && message.contains(why),
            "{issuer}: {message}"
        );
        assert!(message.contains("server `o`"), "{message}");
        assert_eq!(count(&fx, "metadata"), 0, "{issuer}: nothing fetched");
        assert!(!message.contains("HTTP"), "no status echoed: {message}");
    }
}

/// A 401 whose `resource_metadata` points at an internal address: refused, nothing fetched there,
/// nothing of it echoed (before, the sidecar fetched it and went on with what it said).
#[test]
fn a_challenge_naming_internal_resource_metadata_is_never_fetched() {
    for (metadata, why) in [
        (
            "http://0.0.0.0:{port}/.well-known/oauth-protected-resource/mcp",
            "not https",
        ),
        (
            "https://0.0.0.0:{port}/.well-known/oauth-protected-resource/mcp",
            "unroutable",
        ),
        (
            "https://10.1.2.3/.well-known/oauth-protected-resource",
            "in a private range",
        ),
        ("http://169.254.169.254/latest/meta-data", "not https"),
    ] {
        let fx = HttpFixture::start(&["--oauth", "--oauth-metadata-url", metadata]);
        let message = refused_start(&fx);
        assert!(
            message.contains("refused to fetch") && message.contains(why),
            "{metadata}: {message}"
        );
        assert_eq!(count(&fx, "prm"), 0, "{metadata}: nothing fetched");
        // The fixture's metadata names its resource at 127.0.0.1: none of it is repeated.
        assert!(
            !message.contains("127.0.0.1") && !message.contains("HTTP"),
            "nothing of an answer echoed: {message}"
        );
    }
}
