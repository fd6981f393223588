//! The gateway's clients (`mcp --http --access FILE`): each token sees only the tools its client
//! may call, and a tool it may not call is as unknown as one that does not exist; a token file
//! rotated on disk takes effect without a restart, and a legacy session stays its client's; a
//! client over its rate limit gets 429 with `Retry-After` until its bucket refills; the audit log
//! has one parsed line per request, its arguments' secrets masked.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::harness::HttpSidecar;
use crate::support::{eventually, fixture, temp_dir};

const WIDE: &str = "wide-client-t0ken-1b7c5d";
const NARROW: &str = "narrow-client-t0ken-9e2f";
const SECRET_ARG: &str = "ghp_AUDITsecretVALUE0123456789abcdef";

/// Two fixture servers, `alpha` and `beta`.
fn servers() -> Value {
    json!({"alpha": fixture(&[]), "beta": fixture(&[])})
}

/// An access file in a fresh folder with `clients`, each given a `tokenFile` holding its token.
fn access_file(tag: &str, clients: &[(&str, &str, Value)]) -> (PathBuf, Vec<PathBuf>) {
    let dir = temp_dir(tag);
    let mut files = Vec::new();
    let clients: Vec<Value> = clients
        .iter()
        .map(|(name, token, rules)| {
            let mut rules = rules.clone();
            let file = dir.join(format!("{name}.token"));
            std::fs::write(&file, format!("{token}\n")).unwrap();
            rules["name"] = json!(name);
            rules["tokenFile"] = json!(file);
            files.push(file);
            rules
        })
        .collect();
    let path = dir.join("access.json");
    std::fs::write(&path, json!({ "clients": clients }).to_string()).unwrap();
    (path, files)
}

fn start(access: &Path, extra: &[&str]) -> HttpSidecar {
    let mut args = vec!["--access", access.to_str().unwrap()];
    args.extend_from_slice(extra);
    HttpSidecar::start(servers(), &args)
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

fn tool_names(server: &HttpSidecar, token: &str) -> Vec<String> {
    let auth = bearer(token);
    let reply = server.post_modern(1, "tools/list", json!({}), &[("Authorization", &auth)]);
    assert_eq!(reply.status, 200, "{reply:?}");
    let mut names: Vec<String> = reply.message()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

fn call(server: &HttpSidecar, token: &str, tool: &str, arguments: Value) -> Value {
    let auth = bearer(token);
    let reply = server.post_modern(
        7,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
        &[("Authorization", &auth)],
    );
    reply.message()
}

#[test]
fn each_token_sees_and_calls_only_what_its_client_may() {
    let (access, _) = access_file(
        "access-rules",
        &[
            (
                "wide",
                WIDE,
                json!({"tools": ["alpha.*", "beta.echo", "!alpha.sleep"]}),
            ),
            ("narrow", NARROW, json!({"servers": ["beta"]})),
        ],
    );
    let server = start(&access, &[]);
    eventually("both servers' tools are listed", || {
        let names = tool_names(&server, NARROW);
        names.contains(&"beta__echo".to_owned()) && names.contains(&"beta__sleep".to_owned())
    });
    let wide = tool_names(&server, WIDE);
    assert!(wide.contains(&"alpha__echo".to_owned()), "{wide:?}");
    assert!(wide.contains(&"alpha__fail".to_owned()), "{wide:?}");
    assert!(wide.contains(&"beta__echo".to_owned()), "{wide:?}");
    assert!(
        !wide.contains(&"alpha__sleep".to_owned()),
        "denied: {wide:?}"
    );
    assert!(
        !wide
            .iter()
            .any(|n| n.starts_with("beta__") && n != "beta__echo"),
        "only beta.echo of beta: {wide:?}"
    );
    let narrow = tool_names(&server, NARROW);
    assert!(
        narrow.iter().all(|n| n.starts_with("beta__")),
        "only beta: {narrow:?}"
    );

    let allowed = call(&server, WIDE, "alpha__echo", json!({"message": "hi"}));
    assert_eq!(allowed["result"]["content"][0]["text"], "hi", "{allowed}");
    // A tool the client may not call is answered exactly like one that does not exist.
    let denied = call(&server, NARROW, "alpha__echo", json!({"message": "hi"}));
    let missing = call(&server, NARROW, "alpha__nothing", json!({}));
    assert_eq!(denied["error"]["code"], -32602, "{denied}");
    assert_eq!(denied["error"]["code"], missing["error"]["code"]);
    assert_eq!(denied["error"]["data"]["code"], "TOOL_NOT_FOUND");
    assert_eq!(missing["error"]["data"]["code"], "TOOL_NOT_FOUND");
    let denied_too = call(&server, WIDE, "alpha__sleep", json!({"ms": 1}));
    assert_eq!(denied_too["error"]["data"]["code"], "TOOL_NOT_FOUND");
}

#[test]
fn a_rotated_token_file_takes_effect_without_a_restart_and_sessions_stay_their_clients() {
    let (access, files) = access_file(
        "access-rotation",
        &[("wide", WIDE, json!({})), ("narrow", NARROW, json!({}))],
    );
    let server = start(&access, &[]);

    // A legacy session opened by `narrow` is unknown to `wide`.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let narrow_auth = bearer(NARROW);
    let opened = server.post(&init, &[("Authorization", &narrow_auth)]);
    assert_eq!(opened.status, 200, "{opened:?}");
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let version = ("MCP-Protocol-Version", "2025-11-25");
    let own = server.post(
        &ping,
        &[
            ("Authorization", &narrow_auth),
            ("Mcp-Session-Id", &session),
            version,
        ],
    );
    assert_eq!(own.status, 200, "{own:?}");
    let wide_auth = bearer(WIDE);
    let other = server.post(
        &ping,
        &[
            ("Authorization", &wide_auth),
            ("Mcp-Session-Id", &session),
            version,
        ],
    );
    assert_eq!(other.status, 404, "another client's session: {other:?}");

    // Rotation: the new token replaces the old one in the file; no restart, no signal.
    let rotated = "wide-client-rotated-t0ken-77aa";
    std::fs::write(&files[0], format!("{rotated}\n")).unwrap();
    let old = server.post_modern(3, "tools/list", json!({}), &[("Authorization", &wide_auth)]);
    assert_eq!(old.status, 401, "the old token is refused: {old:?}");
    let new_auth = bearer(rotated);
    let new = server.post_modern(4, "tools/list", json!({}), &[("Authorization", &new_auth)]);
    assert_eq!(new.status, 200, "the new token is taken: {new:?}");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(log.contains("clients reloaded"), "{log}");
    for token in [WIDE, NARROW, rotated] {
        assert!(!log.contains(token), "a token in the log");
    }
}

#[test]
fn a_client_over_its_rate_limit_gets_429_until_its_bucket_refills() {
    // Six a minute, two at once: the third request within ten seconds is refused.
    let (access, _) = access_file(
        "access-rate",
        &[
            (
                "limited",
                NARROW,
                json!({"rateLimit": {"perMinute": 6, "burst": 2}}),
            ),
            ("free", WIDE, json!({})),
        ],
    );
    let audit = access.with_file_name("audit.jsonl");
    let server = start(&access, &["--audit-log", audit.to_str().unwrap()]);
    let auth = bearer(NARROW);
    let list = |id: i64, auth: &str| {
        server.post_modern(id, "tools/list", json!({}), &[("Authorization", auth)])
    };
    let mut passed = 0;
    let refused = loop {
        let reply = list(passed + 1, &auth);
        if reply.status != 200 {
            break reply;
        }
        passed += 1;
        assert!(passed <= 4, "the bucket never ran out");
    };
    assert!(passed >= 2, "the burst passes first ({passed})");
    assert_eq!(refused.status, 429, "{refused:?}");
    let retry: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=10).contains(&retry), "Retry-After {retry}");
    let error = &refused.message()["error"];
    assert_eq!(error["data"]["code"], "OVERLOADED", "{error}");
    assert_eq!(error["data"]["client"], "limited");
    assert_eq!(refused.message()["id"], passed + 1);
    // Another client has a bucket of its own.
    assert_eq!(list(50, &bearer(WIDE)).status, 200);
    // The refill: polled, bounded well past the ten seconds a token takes.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if list(99, &auth).status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the bucket never refilled");
        std::thread::sleep(Duration::from_millis(250));
    }
    let lines = audit_lines(&audit);
    assert!(
        lines
            .iter()
            .any(|l| l["outcome"] == "rate_limited" && l["client"] == "limited"),
        "{lines:?}"
    );
}

fn audit_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn the_audit_log_has_a_line_per_request_with_secrets_masked() {
    let (access, _) = access_file(
        "access-audit",
        &[
            ("wide", WIDE, json!({})),
            ("narrow", NARROW, json!({"servers": ["beta"]})),
        ],
    );
    let audit = access.with_file_name("audit.jsonl");
    let server = start(&access, &["--audit-log", audit.to_str().unwrap()]);
    eventually("alpha's tools are listed", || {
        tool_names(&server, WIDE).contains(&"alpha__echo".to_owned())
    });
    let ok = call(&server, WIDE, "alpha__echo", json!({"message": SECRET_ARG}));
    assert_eq!(ok["result"]["content"][0]["text"], SECRET_ARG, "{ok}");
    let failed = call(
        &server,
        WIDE,
        "alpha__echo",
        json!({"message": "m", "password": "hunter2-pass"}),
    );
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    let denied = call(&server, NARROW, "alpha__echo", json!({"message": "m"}));
    assert!(denied.get("error").is_some(), "{denied}");

    let text = std::fs::read_to_string(&audit).unwrap();
    for secret in [SECRET_ARG, "hunter2-pass", WIDE, NARROW] {
        assert!(!text.contains(secret), "{secret} in the audit log: {text}");
    }
    let lines = audit_lines(&audit);
    let calls: Vec<&Value> = lines
        .iter()
        .filter(|l| l["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 3, "{lines:?}");
    for line in &lines {
        for field in ["ts", "client", "method", "outcome", "durationMs"] {
            assert!(!line[field].is_null(), "{field} in {line}");
        }
    }
    assert_eq!(calls[0]["client"], "wide");
    assert_eq!(calls[0]["server"], "alpha");
    assert_eq!(calls[0]["tool"], "alpha__echo");
    assert_eq!(calls[0]["outcome"], "ok");
    assert_eq!(calls[0]["arguments"], json!({"message": "***"}));
    assert_eq!(calls[1]["outcome"], "error");
    assert_eq!(calls[1]["code"], "INVALID_ARGUMENTS");
    assert_eq!(
        calls[1]["arguments"],
        json!({"message": "m", "password": "***"})
    );
    assert_eq!(calls[2]["client"], "narrow");
    assert_eq!(calls[2]["outcome"], "denied");
    assert_eq!(calls[2]["code"], -32602);
}

/// The listing kept as text is kept per client: two clients with different rules, asking in
/// turn from one process, each get their own listing every time — never the other's, which a
/// listing kept for the tool set alone would hand out — byte for byte the same on each ask.
#[test]
fn clients_asking_in_turn_each_get_their_own_kept_listing() {
    let (access, _) = access_file(
        "access-listings",
        &[
            ("wide", WIDE, json!({"tools": ["alpha.*", "!alpha.sleep"]})),
            ("narrow", NARROW, json!({"servers": ["beta"]})),
        ],
    );
    let server = start(&access, &["--wait-for-servers"]);
    let listing = |token: &str| {
        let auth = bearer(token);
        let reply = server.post_modern(1, "tools/list", json!({}), &[("Authorization", &auth)]);
        assert_eq!(reply.status, 200, "{reply:?}");
        reply.body
    };
    let (wide, narrow) = (listing(WIDE), listing(NARROW));
    assert_ne!(wide, narrow);
    for round in 0..3 {
        // Each asks right after the other, whose listing was just kept.
        assert_eq!(listing(NARROW), narrow, "round {round}");
        assert_eq!(listing(WIDE), wide, "round {round}");
    }
    let names = |body: &str| -> Vec<String> {
        let v: Value = serde_json::from_str(body).unwrap();
        v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let (wide, narrow) = (names(&wide), names(&narrow));
    assert!(
        !wide.is_empty() && wide.iter().all(|n| n.starts_with("alpha__")),
        "{wide:?}"
    );
    assert!(!wide.contains(&"alpha__sleep".to_owned()), "{wide:?}");
    assert!(
        !narrow.is_empty() && narrow.iter().all(|n| n.starts_with("beta__")),
        "{narrow:?}"
    );
}
