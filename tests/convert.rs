//! End to end through the real binary and the fixture server: tool formats (gemini, strict) with
//! `conversionNotes`, results converted per format, `resultPolicy: "truncate"` with `results/read`,
//! and strict mode's `null` for an optional argument.

// A test may unwrap: a panic is its failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::disallowed_methods)] // tests spawn the binaries under test directly

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const TIMEOUT: Duration = Duration::from_secs(30);

/// The fixture server, built once per test run (it is another package of the workspace).
fn fixture() -> &'static PathBuf {
    static FIXTURE: OnceLock<PathBuf> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args([
                "build",
                "-q",
                "-p",
                "mcp-sidecar-fixtures",
                "--bin",
                "mcp-fixture",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building the fixture failed");
        let sidecar = PathBuf::from(env!("CARGO_BIN_EXE_mcp-sidecar"));
        let path = sidecar.with_file_name(format!("mcp-fixture{}", std::env::consts::EXE_SUFFIX));
        assert!(path.exists(), "{} missing", path.display());
        path
    })
}

struct Sidecar {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    next_id: u64,
}

impl Sidecar {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-sidecar"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp-sidecar");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value =
                    serde_json::from_str(&line).expect("stdout carries JSON lines only");
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().expect("stdin");
        Sidecar {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    /// Sends a request and returns its whole response (notifications in between are skipped).
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").expect("write request");
        self.stdin.flush().expect("flush");
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.call(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    fn add_fixture(&mut self, name: &str, extra: Value) {
        let mut config = json!({"command": fixture()});
        if let (Some(config), Some(extra)) = (config.as_object_mut(), extra.as_object()) {
            config.extend(extra.clone());
        }
        let status = self.result("servers/add", json!({"name": name, "config": config}));
        assert_eq!(status["state"], "ready", "{status}");
    }
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        let _ = writeln!(
            self.stdin,
            r#"{{"jsonrpc":"2.0","id":"bye","method":"shutdown"}}"#
        );
        let _ = self.stdin.flush();
        let deadline = Instant::now() + TIMEOUT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn gemini_format_and_conversion_notes() {
    let mut host = Sidecar::start();
    let init = host.result(
        "initialize",
        json!({"protocolVersion": 1, "toolFormat": "gemini"}),
    );
    assert_eq!(
        init["capabilities"]["toolFormats"],
        json!(["openai", "openai-responses", "anthropic", "gemini", "mcp"])
    );
    assert_eq!(
        init["capabilities"]["resultPolicies"],
        json!(["error", "truncate"])
    );
    host.add_fixture("fx", json!({}));
    let tools = host.result("tools/list", json!({}));
    for entry in tools["tools"].as_array().expect("tools") {
        assert!(entry["conversionNotes"].is_array(), "{entry}");
    }
    let echo = tool(&tools, "mcp__fx__echo");
    assert_eq!(
        echo["definition"],
        json!({
            "name": "mcp__fx__echo",
            "description": echo["definition"]["description"],
            "parameters": {
                "type": "OBJECT",
                "properties": {"message": {"type": "STRING", "description": "Text to return unchanged."}},
                "required": ["message"]
            }
        })
    );
    assert_eq!(
        echo["conversionNotes"],
        json!([{"action": "dropped", "path": "/additionalProperties", "reason": "Gemini's Schema has no `additionalProperties` field"}])
    );
    // A tool without parameters leaves them out.
    let image = tool(&tools, "mcp__fx__image");
    assert!(image["definition"].get("parameters").is_none());

    // The same catalog in another format: notes are per format, `[]` when nothing changed.
    let anthropic = host.result("tools/list", json!({"format": "anthropic"}));
    assert_eq!(
        tool(&anthropic, "mcp__fx__echo")["conversionNotes"],
        json!([])
    );
    assert_ne!(anthropic["fingerprint"], tools["fingerprint"]);

    // Results in the session's format: Gemini's functionResponse body, images as inlineData.
    let out = host.result("tools/call", json!({"name": "mcp__fx__image"}));
    assert_eq!(out["output"]["response"], json!({"output": "a 1x1 png"}));
    assert_eq!(
        out["output"]["parts"][0]["inlineData"]["mimeType"],
        "image/png"
    );
    let out = host.result(
        "tools/call",
        json!({"name": "mcp__fx__fail", "arguments": {"message": "nope"}}),
    );
    assert_eq!(out["isError"], true);
    assert_eq!(out["output"], json!({"response": {"error": "nope"}}));
    // Per call, another format.
    let out = host.result(
        "tools/call",
        json!({"name": "mcp__fx__image", "format": "openai-responses"}),
    );
    assert_eq!(out["output"][1]["type"], "input_image");
    assert!(out["output"][1]["image_url"]
        .as_str()
        .unwrap_or_default()
        .starts_with("data:image/png;base64,iVBOR"));
}

#[test]
fn strict_mode_and_optional_nulls() {
    let mut host = Sidecar::start();
    host.result(
        "initialize",
        json!({"protocolVersion": 1, "toolFormat": "openai", "strict": true}),
    );
    host.add_fixture("fx", json!({}));
    let tools = host.result("tools/list", json!({}));
    let fail = tool(&tools, "mcp__fx__fail");
    assert_eq!(fail["definition"]["function"]["strict"], true);
    assert_eq!(
        fail["definition"]["function"]["parameters"],
        json!({
            "type": "object",
            "properties": {"message": {"type": ["string", "null"], "description": "Error text (default \"fixture failure\")."}},
            "required": ["message"],
            "additionalProperties": false
        })
    );
    assert_eq!(fail["conversionNotes"][0]["path"], "/properties/message");
    // Not strict for this listing.
    let loose = host.result("tools/list", json!({"strict": false}));
    assert!(tool(&loose, "mcp__fx__fail")["definition"]["function"]
        .get("strict")
        .is_none());

    // What a strict model sends for "no message": null. The server's own schema says string, so
    // the sidecar drops the null and the server uses its default.
    let out = host.result(
        "tools/call",
        json!({"name": "mcp__fx__fail", "arguments": {"message": null}}),
    );
    assert_eq!(out["text"], "fixture failure");
    // A null for a required property is still an error.
    let response = host.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": null}}),
    );
    assert_eq!(response["error"]["data"]["code"], "INVALID_ARGUMENTS");
}

#[test]
fn truncate_policy_and_results_read() {
    let mut host = Sidecar::start();
    host.result("initialize", json!({"protocolVersion": 1}));
    host.add_fixture(
        "cut",
        json!({"maxResultBytes": 4096, "resultPolicy": "truncate"}),
    );
    host.add_fixture("wall", json!({"maxResultBytes": 4096}));

    // Default policy: the hard wall of seed 000.
    let response = host.call(
        "tools/call",
        json!({"name": "mcp__wall__large", "arguments": {"bytes": 100000}}),
    );
    assert_eq!(response["error"]["data"]["code"], "RESULT_TOO_LARGE");

    // Within the budget: untouched, no `truncated`.
    let small = host.result(
        "tools/call",
        json!({"name": "mcp__cut__large", "arguments": {"bytes": 100}}),
    );
    assert_eq!(small["text"], "x".repeat(100));
    assert!(small.get("truncated").is_none());

    let out = host.result(
        "tools/call",
        json!({"name": "mcp__cut__large", "arguments": {"bytes": 100000}}),
    );
    let truncated = &out["truncated"];
    let handle = truncated["handle"].as_str().expect("handle").to_string();
    let offset = truncated["offset"].as_u64().expect("offset") as usize;
    let length = truncated["length"].as_u64().expect("length") as usize;
    assert_eq!(truncated["totalBytes"], 100000);
    assert!(truncated["originalBytes"].as_u64().expect("originalBytes") > 100000);
    let text = out["text"].as_str().expect("text");
    assert!(text.len() <= 4096, "{}", text.len());
    assert_eq!(
        text,
        format!(
            "{}\n[… {length} bytes cut; results/read handle={handle} offset={offset} length={length} totalBytes=100000 …]\n{}",
            "x".repeat(offset),
            "x".repeat(100000 - offset - length)
        )
    );
    assert_eq!(out["output"], out["text"]);

    // Read the cut part back in pages: nothing is lost.
    let mut at = offset;
    let mut read = 0;
    loop {
        let page = host.result(
            "results/read",
            json!({"handle": handle, "offset": at, "length": 30000}),
        );
        assert_eq!(page["offset"], at);
        assert_eq!(page["totalBytes"], 100000);
        let part = page["text"].as_str().expect("text");
        assert!(part.bytes().all(|b| b == b'x'));
        read += part.len();
        at += part.len();
        if page["eof"] == true {
            break;
        }
    }
    assert_eq!(read, 100000 - offset);
    // Default length is bounded; offset defaults to 0.
    let page = host.result("results/read", json!({"handle": handle}));
    assert_eq!(page["offset"], 0);
    assert_eq!(page["length"], 100000);

    for (params, code) in [
        (json!({"handle": "r-404"}), "RESULT_EXPIRED"),
        (json!({"handle": handle, "length": 0}), "INVALID_PARAMS"),
        (json!({"handle": handle, "bogus": 1}), "INVALID_PARAMS"),
    ] {
        let response = host.call("results/read", params);
        assert_eq!(response["error"]["data"]["code"], code, "{response}");
    }
    let expired = host.call("results/read", json!({"handle": "r-404"}));
    assert_eq!(expired["error"]["code"], -32024);
    assert_eq!(expired["error"]["data"]["handle"], "r-404");
}

#[test]
fn bad_result_policy_is_a_config_error() {
    let mut host = Sidecar::start();
    host.result("initialize", json!({"protocolVersion": 1}));
    let response = host.call(
        "servers/add",
        json!({"name": "x", "config": {"command": fixture(), "resultPolicy": "drop"}}),
    );
    assert_eq!(response["error"]["data"]["code"], "CONFIG_INVALID");
    assert_eq!(response["error"]["data"]["field"], "resultPolicy");
}
