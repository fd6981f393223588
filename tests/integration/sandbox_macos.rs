//! The sandbox on macOS, against `mcp-hostile`: its Seatbelt profile, applied by `sandbox-exec`,
//! refuses a file outside the server's paths and a loopback port it was not given, and allows both
//! once the config lists them; the server keeps its pid and process group (sandbox-exec execs it),
//! so removing it still ends its whole tree. macOS holds no memory limit and no per-tree process
//! limit: plain `strict` (which asks for both) is refused with SANDBOX_DENIED naming them, and
//! starts under `allowWeaker` or with those limits lifted. An unsandboxed server beside it does
//! everything the sandboxed one may not. Runs on the macOS runners (`.github/scripts/process-tests`).

use std::net::TcpListener;
use std::path::PathBuf;

use nix::errno::Errno;
use serde_json::{json, Value};

use crate::support::*;

/// Seatbelt refuses with EPERM; EACCES is a file mode's refusal, also a refusal.
const REFUSED: [Errno; 2] = [Errno::EPERM, Errno::EACCES];

const FAKE_KEY: &str = "-----BEGIN FAKE KEY-----\nnot a real key\n-----END FAKE KEY-----\n";

/// A sidecar with `free` (an unsandboxed `mcp-hostile`) and a fake home holding `.ssh/id_rsa`.
struct Scene {
    dir: PathBuf,
    home: PathBuf,
    sc: Sidecar,
}

impl Scene {
    fn new(tag: &str) -> Self {
        let dir = temp_dir(tag);
        let home = dir.join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), FAKE_KEY).unwrap();
        let mut scene = Self {
            dir,
            home,
            sc: Sidecar::initialized(json!({})),
        };
        let free = scene.config(json!(false));
        assert_eq!(scene.sc.add("free", free)["state"], "ready");
        scene
    }

    fn key(&self) -> PathBuf {
        self.home.join(".ssh/id_rsa")
    }

    fn config(&self, sandbox: Value) -> Value {
        json!({"command": hostile_bin(), "env": {"HOME": self.home}, "sandbox": sandbox})
    }

    /// Adds `name` under `sandbox`; it must start.
    fn add(&mut self, name: &str, sandbox: Value) -> Value {
        let status = self.sc.add(name, self.config(sandbox));
        assert_eq!(status["state"], "ready", "{status}");
        status
    }

    fn attempt(&mut self, server: &str, tool: &str, arguments: Value) -> Value {
        let result = self.sc.call(
            "tools/call",
            json!({"name": format!("mcp__{server}__{tool}"), "arguments": arguments}),
        );
        result["structuredContent"].clone()
    }
}

/// `strict` with what macOS cannot hold allowed weaker, plus `fields`.
fn strict_weaker(fields: Value) -> Value {
    let mut sandbox = json!({"preset": "strict", "allowWeaker": true});
    for (k, v) in fields.as_object().unwrap() {
        sandbox[k] = v.clone();
    }
    sandbox
}

fn refused_with(outcome: &Value, errnos: &[Errno]) {
    assert_eq!(outcome["ok"], false, "should be refused: {outcome}");
    let errno = outcome["errno"]
        .as_i64()
        .unwrap_or_else(|| panic!("a refusal without an errno: {outcome}"));
    assert!(
        errnos.iter().any(|e| *e as i64 == errno),
        "refused with {} where one of {errnos:?} was expected: {outcome}",
        outcome["errnoName"]
    );
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

#[test]
fn strict_is_refused_naming_the_limits_macos_cannot_hold_unless_lifted_or_weaker() {
    let mut scene = Scene::new("mac-strict");
    let refused = scene.sc.add("boxed", scene.config(json!("strict")));
    assert_eq!(refused["state"], "error", "{refused}");
    assert!(refused.get("pid").is_none(), "nothing ran: {refused}");
    let error = &refused["lastError"];
    assert_eq!(error["data"]["code"], "SANDBOX_DENIED", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("memory-limit")
            && message.contains("process-limit")
            && message.contains("sandbox.allowWeaker"),
        "{message}"
    );
    let level = &error["data"]["sandbox"];
    assert_eq!(
        names(&level["missing"]),
        ["memory-limit", "process-limit"],
        "{level}"
    );
    assert_eq!(
        names(&level["enforced"]),
        ["seatbelt-fs", "seatbelt-net", "seatbelt-process", "rlimits"],
        "{level}"
    );

    // The limits lifted, the rest of strict is all enforced.
    let lean = scene.add(
        "lean",
        json!({"preset": "strict", "limits": {"memoryMb": null}, "processes": {"max": null}}),
    );
    assert_eq!(
        names(&lean["sandbox"]["missing"]),
        Vec::<&str>::new(),
        "{lean}"
    );
    // Under allowWeaker it starts, and says what is missing.
    let weaker = scene.add("weaker", strict_weaker(json!({})));
    assert_eq!(
        names(&weaker["sandbox"]["missing"]),
        ["memory-limit", "process-limit"],
        "{weaker}"
    );
    assert!(names(&weaker["sandbox"]["enforced"]).contains(&"seatbelt-fs"));
}

#[test]
fn a_file_outside_its_paths_is_refused_and_allowed_when_listed() {
    let mut scene = Scene::new("mac-files");
    let key = scene.key();
    let free = scene.attempt("free", "read_file", json!({ "path": key }));
    assert_eq!(
        free["bytes"],
        FAKE_KEY.len(),
        "the unsandboxed server: {free}"
    );

    let status = scene.add("boxed", strict_weaker(json!({})));
    let pid = status["pid"].as_u64().unwrap() as u32;
    // sandbox-exec exec'd the server: the pid is the server's, leading its own group.
    let command = command_of(pid).unwrap();
    assert_eq!(command.rsplit('/').next(), Some("mcp-hostile"), "{command}");
    let (_, group, _) = parentage(pid);
    assert_eq!(group, pid, "the server leads its process group");
    let read = scene.attempt("boxed", "read_file", json!({ "path": key }));
    refused_with(&read, &REFUSED);
    let outside = scene.dir.join("outside.txt");
    let write = scene.attempt("boxed", "write_file", json!({ "path": outside }));
    refused_with(&write, &REFUSED);
    assert!(!outside.exists(), "a refused write left a file");

    // Listed, the same reads and writes go through, and nothing beyond them.
    let allowed = scene.dir.join("allowed");
    std::fs::create_dir_all(&allowed).unwrap();
    let ssh = scene.home.join(".ssh");
    scene.add(
        "listed",
        strict_weaker(json!({"read": [ssh], "write": [allowed]})),
    );
    let read = scene.attempt("listed", "read_file", json!({ "path": key }));
    assert_eq!(read["ok"], true, "{read}");
    assert_eq!(read["bytes"], FAKE_KEY.len(), "{read}");
    let inside = allowed.join("out.txt");
    let write = scene.attempt("listed", "write_file", json!({ "path": inside }));
    assert_eq!(write["ok"], true, "{write}");
    assert!(inside.exists());
    let write = scene.attempt("listed", "write_file", json!({ "path": outside }));
    refused_with(&write, &REFUSED);

    // The tree is still found and ended whole: a daemon escaped into its own session dies with
    // its server.
    let escape = scene.attempt("boxed", "escape", json!({}));
    assert_eq!(escape["ok"], true, "{escape}");
    let daemon = escape["pid"].as_u64().unwrap() as u32;
    assert!(pid_alive(daemon));
    scene.sc.call("servers/remove", json!({"name": "boxed"}));
    assert!(!pid_alive(pid), "the server survived its remove");
    all_dead("the escaped daemon", &[daemon]);
    let free = scene.attempt("free", "read_file", json!({ "path": key }));
    assert_eq!(free["ok"], true, "{free}");
}

#[test]
fn a_loopback_port_not_given_is_refused() {
    let mut scene = Scene::new("mac-net");
    let given = TcpListener::bind("127.0.0.1:0").unwrap();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let given_port = given.local_addr().unwrap().port();
    let other_port = other.local_addr().unwrap().port();
    let to = |port: u16| json!({"host": "127.0.0.1", "port": port});
    for port in [given_port, other_port] {
        let free = scene.attempt("free", "connect", to(port));
        assert_eq!(free["ok"], true, "unsandboxed, port {port} answers: {free}");
    }

    // strict: no network at all.
    scene.add("boxed", strict_weaker(json!({})));
    let attempt = scene.attempt("boxed", "connect", to(given_port));
    refused_with(&attempt, &REFUSED);
    assert!(attempt.get("timedOut").is_none(), "{attempt}");

    // One loopback port: that one, no other.
    scene.add(
        "looped",
        strict_weaker(json!({"network": {"loopback": [given_port]}})),
    );
    let attempt = scene.attempt("looped", "connect", to(given_port));
    assert_eq!(attempt["ok"], true, "{attempt}");
    let attempt = scene.attempt("looped", "connect", to(other_port));
    refused_with(&attempt, &REFUSED);
    let free = scene.attempt("free", "connect", to(other_port));
    assert_eq!(free["ok"], true, "{free}");
}
