//! The leak scanner: every source of a secret carries a unique marker (`LEAK-<source>-<run>`), one
//! run drives every channel a secret could leave by — the trust request, `status` (`command`,
//! `url`), `notifications/servers/changed`, errors (the sidecar's, a server's own JSON-RPC error
//! data, an HTTP error body, a crash with its stderr tail), `servers/test`, a tool result that
//! echoes the server's environment, the log at trace level (a server's stderr written in two
//! halves included), OAuth tokens (sent with every request, quoted back by an HTTP error body,
//! refreshed) — then scans the sidecar's stdout, its stderr and its cache directory: no marker
//! may be found. Each channel is checked to have really carried the masked value (`***` where the
//! marker would have been), so a channel that went silent cannot pass for a masked one.

use std::path::Path;

use serde_json::{json, Value};

use crate::remote::HttpFixture;
use crate::support::{fixture_bin, temp_dir, Sidecar};

/// The prefix of every marker: what the scan looks for.
const LEAK: &str = "LEAK-";

/// One marker per source, unique to this run.
struct Markers {
    /// `env` value under a secret-looking name (`API_TOKEN`).
    env: String,
    /// `env` value marked by `secret_env` (snake_case) only (`DB_URL`).
    env_marked: String,
    /// A sidecar variable passed by `inheritEnv`, secret by its name (`LEAK_INHERITED_TOKEN`).
    inherited: String,
    /// A sidecar variable passed by `inheritEnv`, marked by `secretEnv` only (`DB_CONN`).
    inherited_marked: String,
    /// An `Authorization` header, secret by its name.
    header: String,
    /// A header marked by `secret_headers` (snake_case) only (`X-Session-Ref`).
    header_marked: String,
    /// A secret-looking query value of a URL (`?api_key=`).
    query: String,
    /// The password of a URL's user-info (refused, never echoed).
    userinfo: String,
    /// `${LEAK_VAR_TOKEN}` expanded into args (a `.mcp.json`).
    var: String,
    /// `${env:LEAK_EDITOR_TOKEN}` expanded into args (a `.vscode/mcp.json`).
    env_var: String,
    /// `${input:pw}` of a `password` input expanded into args (a `.vscode/mcp.json`).
    input: String,
    /// The prefix of every OAuth token the fixture's authorization server issues (access and
    /// refresh tokens, before and after a refresh).
    token: String,
}

impl Markers {
    fn new() -> Self {
        let run = format!(
            "{:x}{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos()
        );
        let m = |source: &str| format!("{LEAK}{source}-{run}");
        Self {
            env: m("env"),
            env_marked: m("envmarked"),
            inherited: m("inherited"),
            inherited_marked: m("inhmarked"),
            header: m("header"),
            header_marked: m("hdrmarked"),
            query: m("query"),
            userinfo: m("userinfo"),
            var: m("var"),
            env_var: m("envvar"),
            input: m("input"),
            token: m("token"),
        }
    }
}

/// A stdio fixture holding the env secrets, writing `API_TOKEN=…` to stderr in two halves.
fn local(m: &Markers, extra: &[&str]) -> Value {
    let mut args = vec!["--stderr-env-halves", "API_TOKEN"];
    args.extend(extra);
    json!({
        "command": fixture_bin(),
        "args": args,
        "env": {"API_TOKEN": m.env, "DB_URL": m.env_marked, "LEVEL": "trace"},
        "inheritEnv": ["LEAK_INHERITED_TOKEN", "DB_CONN"],
        "secret_env": ["DB_URL", "DB_CONN"],
    })
}

/// The sidecar, and every message read from its stdout so far (for the scan).
struct Recorded {
    s: Sidecar,
    seen: Vec<String>,
}

impl Recorded {
    fn request(&mut self, method: &str, params: Value) -> Value {
        let r = self.s.request(method, params);
        self.seen.push(text(&r));
        r
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        r.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{method} failed: {r}"))
    }

    fn server_changed(&mut self, name: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let status = self.s.server_changed(name, pred);
        self.seen
            .push(format!("notifications/servers/changed {status}"));
        status
    }
}

/// Adds `config` under `name` the way a host under `requireTrust` does: the first answer is the
/// trust request (returned), the second, quoting its digest, the server's status.
fn add_trusted(s: &mut Recorded, name: &str, config: &Value) -> (Value, Value) {
    let refused = s.request("servers/add", json!({"name": name, "config": config}));
    assert_eq!(
        refused["error"]["data"]["code"], "TRUST_REQUIRED",
        "{refused}"
    );
    let digest = refused["error"]["data"]["digest"].clone();
    let added = s.request(
        "servers/add",
        json!({"name": name, "config": config, "trust": digest}),
    );
    (refused, added["result"].clone())
}

/// `servers/test` of `config` under `requireTrust`, approved.
fn test_trusted(s: &mut Recorded, config: &Value) -> Value {
    let refused = s.request("servers/test", json!({"config": config}));
    let digest = refused["error"]["data"]["digest"].clone();
    assert!(digest.is_string(), "{refused}");
    s.request("servers/test", json!({"config": config, "trust": digest}))
}

/// `servers/load` of `path` under `requireTrust`: loads (the first result, with its trust requests
/// and diagnostics), approves every trust request, loads again (the second result).
fn load_trusted(s: &mut Recorded, path: &Path, inputs: Value) -> (Value, Value) {
    let first = s.request("servers/load", json!({"path": path, "inputs": inputs}));
    let requests = first["result"]["trustRequired"].clone();
    let trust: serde_json::Map<String, Value> = requests
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_owned(), r["digest"].clone()))
        .collect();
    assert!(!trust.is_empty(), "{first}");
    let second = s.request(
        "servers/load",
        json!({"path": path, "inputs": inputs, "trust": trust}),
    );
    (first["result"].clone(), second["result"].clone())
}

fn text(v: &Value) -> String {
    v.to_string()
}

#[test]
fn no_secret_marker_leaves_by_any_channel() {
    no_secret_marker_leaves(&[]);
}

/// The same with the log as one flat JSON object a line: a value is escaped there once more.
#[test]
fn no_secret_marker_leaves_by_any_channel_with_json_logs() {
    no_secret_marker_leaves(&["--log-format", "json"]);
}

/// Every channel exercised with the sidecar started with `log_args` besides its own.
fn no_secret_marker_leaves(log_args: &[&str]) {
    let m = Markers::new();
    let dir = temp_dir("leaks");
    let cache = dir.join("cache");
    let log = dir.join("stderr.log");
    // Config files whose `${…}` expansions carry secrets into args.
    let claude = dir.join("claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join(".mcp.json"),
        json!({"mcpServers": {"cc": {
            "command": fixture_bin(),
            "args": ["--stderr-line", "var=${LEAK_VAR_TOKEN}"],
        }}})
        .to_string(),
    )
    .unwrap();
    let vscode = dir.join("editor").join(".vscode");
    std::fs::create_dir_all(&vscode).unwrap();
    std::fs::write(
        vscode.join("mcp.json"),
        json!({
            "inputs": [{"id": "pw", "type": "promptString", "password": true}],
            "servers": {
                "vs": {
                    "command": fixture_bin(),
                    "args": ["--stderr-line", "input=${input:pw}", "--stderr-line", "env=${env:LEAK_EDITOR_TOKEN}"],
                },
                // Not on PATH: its diagnostic names the command, the expanded secret masked.
                "missing": {"command": "no-such-bin-${input:pw}"},
            },
        })
        .to_string(),
    )
    .unwrap();

    let fx = HttpFixture::start(&["--call-status", "503", "--get-status", "500"]);
    let cache_arg = cache.to_string_lossy().into_owned();
    let mut args = vec!["--log", "trace", "--cache-dir", &cache_arg];
    args.extend_from_slice(log_args);
    let s = Sidecar::spawn_logging_to(
        &log,
        &args,
        &[
            ("LEAK_INHERITED_TOKEN", m.inherited.as_str()),
            ("DB_CONN", m.inherited_marked.as_str()),
            ("LEAK_VAR_TOKEN", m.var.as_str()),
            ("LEAK_EDITOR_TOKEN", m.env_var.as_str()),
        ],
    );
    let mut s = Recorded {
        s,
        seen: Vec::new(),
    };
    let init = s.request(
        "initialize",
        json!({"protocolVersion": 1, "requireTrust": true}),
    );
    assert!(init.get("result").is_some(), "{init}");

    // The trust request and status of a stdio server with every env source.
    let (trust, status) = add_trusted(&mut s, "local", &local(&m, &[]));
    assert!(text(&trust).contains("envNames"), "{trust}");
    assert_eq!(status["state"], "ready", "{status}");

    // A tool result echoing the server's environment: masked by default.
    s.request("tools/list", json!({}));
    let env = s.call("tools/call", json!({"name": "mcp__local__environment"}));
    let seen = &env["structuredContent"]["env"];
    for name in ["API_TOKEN", "DB_URL", "LEAK_INHERITED_TOKEN", "DB_CONN"] {
        assert_eq!(seen[name], "***", "{name} in {env}");
    }

    // A server's own JSON-RPC error, its message and data quoting a secret.
    let (_, rpc) = add_trusted(
        &mut s,
        "rpcerr",
        &local(&m, &["--call-error-env", "DB_URL"]),
    );
    assert_eq!(rpc["state"], "ready", "{rpc}");
    s.request("tools/list", json!({}));
    let upstream = s.request(
        "tools/call",
        json!({"name": "mcp__rpcerr__echo", "arguments": {"message": "x"}}),
    );
    assert!(
        text(&upstream["error"]).contains("backend refused key ***"),
        "{upstream}"
    );

    // A crash mid-call: its error and status carry the stderr tail, where the secret was written.
    let crash = s.request(
        "tools/call",
        json!({"name": "mcp__local__exit", "arguments": {"code": 3}}),
    );
    assert!(crash.get("error").is_some(), "{crash}");
    let changed = s.server_changed("local", |st| st["lastExit"].is_object());
    assert!(
        text(&changed).contains("API_TOKEN=***"),
        "the crash's stderr tail, masked: {changed}"
    );

    // A remote server: a secret query value in its URL, secret headers, an HTTP error body that
    // quotes the Authorization header back.
    let web_config = json!({
        "type": "http",
        "url": format!("{}/mcp?api_key={}&page=1", fx.base, m.query),
        "headers": {"Authorization": format!("Bearer {}", m.header), "X-Session-Ref": m.header_marked},
        "secret_headers": ["X-Session-Ref"],
    });
    let (web_trust, web) = add_trusted(&mut s, "web", &web_config);
    assert!(text(&web_trust).contains("api_key=***"), "{web_trust}");
    assert_eq!(web["state"], "ready", "{web}");
    assert!(
        web["url"].as_str().unwrap().contains("api_key=***&page=1"),
        "{web}"
    );
    s.request("tools/list", json!({}));
    let http = s.request(
        "tools/call",
        json!({"name": "mcp__web__echo", "arguments": {"text": "x"}}),
    );
    assert!(
        text(&http["error"]).contains("authorization: ***)"),
        "{http}"
    );

    // Credentials in a URL's user-info: refused without being echoed.
    let userinfo = s.request(
        "servers/add",
        json!({"name": "ui", "config": {"url": format!("http://user:{}@127.0.0.1:9/mcp", m.userinfo)}}),
    );
    assert_eq!(
        userinfo["error"]["data"]["code"], "CONFIG_INVALID",
        "{userinfo}"
    );

    // Expansions into args, from config files: `${VAR}`, `${env:VAR}`, a password input.
    let (cc_trust, cc) = load_trusted(&mut s, &claude.join(".mcp.json"), json!({}));
    assert!(text(&cc_trust).contains("var=***"), "{cc_trust}");
    assert!(text(&cc["added"]).contains("--stderr-line var=***"), "{cc}");
    let (vs_trust, vs) = load_trusted(&mut s, &vscode.join("mcp.json"), json!({"pw": m.input}));
    assert!(text(&vs_trust).contains("input=***"), "{vs_trust}");
    assert!(
        text(&vs_trust["diagnostics"]).contains("no-such-bin-***"),
        "{vs_trust}"
    );
    let added = text(&vs["added"]);
    assert!(
        added.contains("input=***") && added.contains("env=***"),
        "{vs}"
    );

    // Diagnostics and a trial run (servers/test) of a server that fails after writing its secret.
    test_trusted(&mut s, &local(&m, &["--exit-on-start", "3"]));
    let tested = test_trusted(&mut s, &local(&m, &[]));
    assert!(text(&tested).contains("API_TOKEN=***"), "{tested}");
    let list = s.request("servers/list", json!({}));
    assert!(text(&list).contains("api_key=***"), "{list}");
    s.request("servers/restart", json!({"name": "web"}));

    // OAuth tokens: a login, requests carrying the token, an HTTP error body and a refused event
    // stream quoting it back (logged at debug), a refresh after the server refused the token.
    let token_prefix = format!("{}-", m.token);
    let oauth_fx = HttpFixture::start(&[
        "--oauth",
        "--oauth-token-prefix",
        &token_prefix,
        "--call-status",
        "503",
        "--get-status",
        "500",
    ]);
    let oauth_config = json!({"url": format!("{}/mcp", oauth_fx.base), "restart": "never"});
    let (_, needs) = add_trusted(&mut s, "authed", &oauth_config);
    assert_eq!(needs["state"], "needs_login", "{needs}");
    let url = s.server_changed("authed", |st| st["authorizationUrl"].is_string())
        ["authorizationUrl"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(crate::oauth::browse(&url).status, 200);
    s.server_changed("authed", |st| st["state"] == "ready");
    s.request("tools/list", json!({}));
    for round in 0..2 {
        let refused = s.request(
            "tools/call",
            json!({"name": "mcp__authed__echo", "arguments": {"text": "x"}}),
        );
        assert!(
            text(&refused["error"]).contains("authorization: Bearer ***)"),
            "round {round}: {refused}"
        );
        // The server forgets its tokens: the next call refreshes first.
        let expired =
            crate::oauth::http("POST", &format!("{}/_oauth/expire-access", oauth_fx.base));
        assert_eq!(expired.status, 200);
    }
    s.request("servers/list", json!({}));
    s.request("shutdown", json!({}));
    assert_eq!(s.s.wait_exit(), Some(0));

    // The scan: everything the host read (answered and held), the log, the cache directory.
    let mut stdout = std::mem::take(&mut s.seen);
    stdout.extend(s.s.held().iter().map(text));
    stdout.extend(s.s.drain_after_exit().iter().map(text));
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(stderr.contains("TRACE"), "the log ran at trace level");
    assert!(
        stderr.contains("API_TOKEN=***"),
        "the server's stderr (two halves) was logged, masked"
    );
    assert!(
        stderr.contains("no stream for you (authorization: ***)"),
        "an HTTP error body was logged (debug), masked"
    );
    assert!(
        stdout
            .iter()
            .any(|l| l.contains("notifications/servers/changed")),
        "servers/changed was sent"
    );
    let mut leaks = leaked_lines(&stdout, &stderr);
    // The token store is where tokens belong (0600 files under `oauth/`): present, and skipped.
    let store = cache.join("oauth");
    assert!(
        files_under(&store)
            .iter()
            .any(|f| std::fs::read_to_string(f).unwrap().contains(&m.token)),
        "the tokens were kept in the token store"
    );
    for file in files_under(&cache)
        .into_iter()
        .filter(|f| !f.starts_with(&store))
    {
        let bytes = std::fs::read(&file).unwrap();
        if String::from_utf8_lossy(&bytes).contains(LEAK) {
            leaks.push(format!("cache: {}", file.display()));
        }
    }
    assert!(
        leaks.is_empty(),
        "secret markers leaked:\n{}",
        leaks.join("\n")
    );
}

/// Every line of the sidecar's stdout and stderr that carries the leak marker, named by channel.
fn leaked_lines(stdout: &[String], stderr: &str) -> Vec<String> {
    let out = stdout
        .iter()
        .filter(|l| l.contains(LEAK))
        .map(|l| format!("stdout: {l}"));
    let err = stderr
        .lines()
        .filter(|l| l.contains(LEAK))
        .map(|l| format!("stderr: {l}"));
    out.chain(err).collect()
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The spellings and pieces of a secret: a private key of many lines whose first line the stderr
/// tail cut off (in the status, in `lastError.data.stderrTail`, in the `notifications/servers/changed`
/// carrying both), a secret with `"` and `\` that a server quotes as JSON (its escaped spelling in
/// args, the stderr tail and the log), and URL query values under names that do not look secret
/// (`sig`, `pwd`, `pass`, `jwt`, `bearer`, `session`, `sessionid`, `code`). None may leave.
#[test]
fn no_cut_escaped_or_query_secret_leaves() {
    let m = Markers::new();
    let dir = temp_dir("leaks-spellings");
    let log = dir.join("stderr.log");
    let s = Sidecar::spawn_logging_to(&log, &["--log", "trace"], &[]);
    let mut s = Recorded {
        s,
        seen: Vec::new(),
    };
    let init = s.request(
        "initialize",
        json!({"protocolVersion": 1, "requireTrust": true}),
    );
    assert!(init.get("result").is_some(), "{init}");

    // A key of two lines, the second long enough that the tail (8 KiB) begins inside the first:
    // the fixture writes `PRIVATE_KEY=<first line>\n<second line>\n`.
    let key = format!(
        "{}-first-{}\n{}-second-{}",
        m.env,
        "a".repeat(80),
        m.env,
        "b".repeat(8150)
    );
    let quoted = format!(r#"{}-quo"te\back"#, m.env_marked);
    let config = json!({
        "command": fixture_bin(),
        "args": ["--stderr-line", json!({"token": quoted}).to_string(), "--stderr-env-halves", "PRIVATE_KEY"],
        "env": {"PRIVATE_KEY": key, "QUOTED_TOKEN": quoted},
    });
    let (trust, status) = add_trusted(&mut s, "cut", &config);
    assert!(
        text(&trust).contains(r#"{\"token\":\"***\"}"#),
        "the escaped spelling in args, masked: {trust}"
    );
    assert_eq!(status["state"], "ready", "{status}");
    s.request("tools/list", json!({}));
    let crash = s.request(
        "tools/call",
        json!({"name": "mcp__cut__exit", "arguments": {"code": 3}}),
    );
    assert!(crash.get("error").is_some(), "{crash}");
    let changed = s.server_changed("cut", |st| st["lastExit"].is_object());
    let tail = changed["lastError"]["data"]["stderrTail"].as_str().unwrap();
    assert_eq!(tail, "***", "the cut key in lastError: {changed}");
    assert_eq!(changed["stderrTail"], "***", "{changed}");
    let listed = s.call("servers/list", json!({}));
    let cut = listed["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|st| st["name"] == "cut")
        .cloned()
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(cut["lastError"]["data"]["stderrTail"], "***", "{cut}");

    // Query values under names that do not look secret: masked in the trust request, the status,
    // `servers/list` and the log; the parameters listed as shown (`page`) stay readable.
    let fx = HttpFixture::start(&[]);
    let names = [
        "sig",
        "pwd",
        "pass",
        "jwt",
        "bearer",
        "session",
        "sessionid",
        "code",
    ];
    let query: Vec<String> = names
        .iter()
        .map(|n| format!("{n}={}-{n}", m.query))
        .collect();
    let url = format!("{}/mcp?{}&page=2", fx.base, query.join("&"));
    let (web_trust, web) = add_trusted(&mut s, "web", &json!({"type": "http", "url": url}));
    let masked: Vec<String> = names.iter().map(|n| format!("{n}=***")).collect();
    let expected = format!("{}/mcp?{}&page=2", fx.base, masked.join("&"));
    assert_eq!(web_trust["error"]["data"]["url"], expected, "{web_trust}");
    assert_eq!(web["url"], expected, "{web}");
    let list = s.request("servers/list", json!({}));
    assert!(text(&list).contains(&expected), "{list}");
    s.request("shutdown", json!({}));
    assert_eq!(s.s.wait_exit(), Some(0));

    let mut stdout = std::mem::take(&mut s.seen);
    stdout.extend(s.s.held().iter().map(text));
    stdout.extend(s.s.drain_after_exit().iter().map(text));
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(
        stderr.contains(r#"{"token":"***"}"#),
        "the server's JSON line was logged, masked"
    );
    let leaks = leaked_lines(&stdout, &stderr);
    assert!(
        leaks.is_empty(),
        "secret markers leaked:\n{}",
        leaks.join("\n")
    );
}
