//! Secret values of a server's config (env values, headers) never reach the sidecar's output: not its
//! stdout (the protocol) and not its stderr (the log, here at `debug`), whatever the session does —
//! add, list, call, a call that fails with the stderr tail, a failing start, test, restart, remove.

use serde_json::{json, Value};

use crate::remote::HttpFixture;
use crate::support::{fixture_bin, temp_dir, Sidecar};

/// An env value secret by its name (`API_TOKEN`).
const ENV_SECRET: &str = "env-secret-0123456789-never-log";
/// An env value secret only because `secretEnv` names it (`DB_URL`).
const MARKED_SECRET: &str = "marked-secret-4242424242-never-log";
/// The credential of an `Authorization` header marked `secret: true`.
const HEADER_SECRET: &str = "hdr-secret-9876543210-never-log";
/// A header secret only because `secretHeaders` names it (`X-Session-Ref`).
const MARKED_HEADER: &str = "ref-secret-1357913579-never-log";

const SECRETS: [&str; 4] = [ENV_SECRET, MARKED_SECRET, HEADER_SECRET, MARKED_HEADER];

/// A stdio fixture that holds every secret in its env and prints two of them to its stderr.
fn stdio(extra_args: &[&str]) -> Value {
    let mut args = vec![
        "--stderr-line".to_owned(),
        format!("token={ENV_SECRET} db={MARKED_SECRET}"),
    ];
    args.extend(extra_args.iter().map(|a| (*a).to_owned()));
    json!({
        "command": fixture_bin(),
        "args": args,
        "env": {"API_TOKEN": ENV_SECRET, "DB_URL": MARKED_SECRET, "LEVEL": "debug"},
        "secretEnv": ["DB_URL"],
    })
}

fn remote(fx: &HttpFixture, bearer: &str) -> Value {
    json!({
        "type": "http",
        "url": format!("{}/mcp", fx.base),
        "headers": {
            "Authorization": {"value": format!("Bearer {bearer}"), "secret": true},
            "X-Session-Ref": MARKED_HEADER,
        },
        "secretHeaders": ["X-Session-Ref"],
    })
}

#[test]
fn secrets_never_reach_stdout_or_the_debug_log() {
    let fx = HttpFixture::start(&[
        "--require-header",
        &format!("authorization=Bearer {HEADER_SECRET}"),
    ]);
    let log = temp_dir("secrets").join("stderr.log");
    let mut s = Sidecar::spawn_logging_to(&log, &[], &[]);
    // Every message read from stdout: what the calls return, then what is left at exit.
    let mut seen: Vec<Value> = Vec::new();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}});
    s.write_raw(format!("{init}\n").as_bytes());
    seen.push(s.response(0));

    let mut request = |s: &mut Sidecar, method: &str, params: Value| -> Value {
        let r = s.request(method, params);
        seen.push(r.clone());
        r
    };
    let local = request(
        &mut s,
        "servers/add",
        json!({"name": "local", "config": stdio(&[])}),
    );
    assert_eq!(local["result"]["state"], "ready", "{local}");
    let web = request(
        &mut s,
        "servers/add",
        json!({"name": "web", "config": remote(&fx, HEADER_SECRET)}),
    );
    assert_eq!(web["result"]["state"], "ready", "{web}");
    assert_eq!(
        web["result"]["headers"],
        json!(["Authorization", "X-Session-Ref"])
    );
    request(&mut s, "servers/list", json!({}));
    request(&mut s, "tools/list", json!({}));
    let echo = request(
        &mut s,
        "tools/call",
        json!({"name": "mcp__local__echo", "arguments": {"message": "hi"}}),
    );
    assert_eq!(echo["result"]["text"], "hi", "{echo}");
    let echo = request(
        &mut s,
        "tools/call",
        json!({"name": "mcp__web__echo", "arguments": {"text": "hi"}}),
    );
    assert_eq!(echo["result"]["text"], "hi", "{echo}");
    // A call that fails carries the stderr tail, in which the server printed its secrets.
    let timeout = request(
        &mut s,
        "tools/call",
        json!({"name": "mcp__local__sleep", "arguments": {"ms": 5000}, "timeoutMs": 50}),
    );
    assert_eq!(
        timeout["error"]["data"]["code"], "TOOL_TIMEOUT",
        "{timeout}"
    );
    assert!(
        timeout["error"]["data"]["stderrTail"]
            .as_str()
            .unwrap()
            .contains("token=*** db=***"),
        "{timeout}"
    );
    // Failing starts: a bad handshake after printing the secrets, an executable that does not exist
    // (its error names the command line, secrets in its arguments), a refused secret header.
    let bad = request(
        &mut s,
        "servers/add",
        json!({"name": "bad", "config": stdio(&["--invalid-initialize"])}),
    );
    assert_eq!(bad["result"]["state"], "error", "{bad}");
    let missing = json!({"command": "/nonexistent/mcp-server", "args": ["--token", ENV_SECRET], "env": {"API_TOKEN": ENV_SECRET}});
    let gone = request(
        &mut s,
        "servers/add",
        json!({"name": "gone", "config": missing}),
    );
    assert_eq!(gone["result"]["state"], "error", "{gone}");
    let refused = request(
        &mut s,
        "servers/add",
        json!({"name": "refused", "config": remote(&fx, MARKED_SECRET)}),
    );
    assert_eq!(refused["result"]["state"], "error", "{refused}");
    let tested = request(&mut s, "servers/test", json!({"config": stdio(&[])}));
    assert_eq!(tested["result"]["state"], "ready", "{tested}");
    assert_eq!(
        tested["result"]["stderrTail"], "token=*** db=***",
        "{tested}"
    );
    let tested = request(
        &mut s,
        "servers/test",
        json!({"config": stdio(&["--exit-on-start", "3"])}),
    );
    assert_eq!(tested["result"]["state"], "error", "{tested}");
    request(&mut s, "servers/restart", json!({"name": "local"}));
    for name in ["local", "web", "bad", "gone", "refused"] {
        request(&mut s, "servers/remove", json!({"name": name}));
    }
    request(&mut s, "shutdown", json!({}));
    assert_eq!(s.wait_exit(), Some(0));
    seen.extend(s.drain_after_exit());

    let stdout: Vec<String> = seen.iter().map(Value::to_string).collect();
    let stderr = std::fs::read_to_string(&log).unwrap();
    // The log is really at debug and really saw the servers' output, masked.
    assert!(stderr.contains("DEBUG"), "{stderr}");
    assert!(
        stderr.contains("token=*** db=***"),
        "the stderr of a server is logged masked: {stderr}"
    );
    assert!(stderr.contains("start failed"), "{stderr}");
    for secret in SECRETS {
        let leaked: Vec<&String> = stdout.iter().filter(|l| l.contains(secret)).collect();
        assert!(leaked.is_empty(), "{secret} reached stdout: {leaked:#?}");
        let lines: Vec<&str> = stderr.lines().filter(|l| l.contains(secret)).collect();
        assert!(lines.is_empty(), "{secret} reached the log: {lines:#?}");
    }
    // The header values were sent all the same.
    let requests = fx.requests();
    assert!(
        requests.contains(&format!("authorization=Bearer {HEADER_SECRET}")),
        "{requests}"
    );
}
