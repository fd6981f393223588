//! The gate on a project's own config files, end to end with the real binary: run without
//! `--config` in a folder whose `.mcp.json` names servers, nothing of that file is spawned until
//! it is approved — by naming the file, by `--allow-project`, or by Claude Code's own answer for
//! the project in `~/.claude.json`. Each server writes a pid file when it is spawned, so "not
//! started" is seen on disk, not taken from the sidecar's word.

#![allow(clippy::disallowed_methods)] // the tests run the binary under test

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::cli::fixture_with;
use crate::cli_usability::run_in;
use crate::support::temp_dir;

/// A scratch home and a project whose `.mcp.json` names `a` and `b`, each writing its marker
/// (`a.pid`, `b.pid` in the project's `markers/`) when spawned.
struct Project {
    home: PathBuf,
    dir: PathBuf,
}

impl Project {
    fn new(tag: &str) -> Self {
        let root = temp_dir(tag);
        let home = root.join("home");
        let dir = root.join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(dir.join("markers")).unwrap();
        let dir = dir.canonicalize().unwrap();
        let project = Self { home, dir };
        let server = |name: &str| {
            let marker = project.marker(name);
            fixture_with(&["--name", name, "--pid-file", marker.to_str().unwrap()])
        };
        write(
            &project.dir.join(".mcp.json"),
            &json!({"mcpServers": {"a": server("a"), "b": server("b")}}),
        );
        project
    }

    fn marker(&self, name: &str) -> PathBuf {
        self.dir.join("markers").join(format!("{name}.pid"))
    }

    /// Which of `a` and `b` were spawned.
    fn spawned(&self) -> Vec<&'static str> {
        ["a", "b"]
            .into_iter()
            .filter(|n| self.marker(n).exists())
            .collect()
    }

    fn forget_spawns(&self) {
        for n in ["a", "b"] {
            let _ = std::fs::remove_file(self.marker(n));
        }
    }

    /// `~/.claude.json` with `entry` as this project's entry.
    fn claude_code_answer(&self, entry: Value) {
        write(
            &self.home.join(".claude.json"),
            &json!({"projects": {self.dir.to_str().unwrap(): entry}}),
        );
    }

    fn run(&self, args: &[&str]) -> crate::cli::Run {
        run_in(args, &self.dir, &self.home)
    }
}

fn write(path: &Path, doc: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, doc.to_string()).unwrap();
}

/// The names of the servers of a `list --json` document that are ready.
fn ready(doc: &Value) -> Vec<String> {
    let mut names: Vec<String> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] == "ready")
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_discovered_project_file_starts_nothing_it_was_not_approved_for() {
    let p = Project::new("gate-none");
    let r = p.run(&["list", "--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        p.spawned().is_empty(),
        "spawned {:?}: {}",
        p.spawned(),
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "./.mcp.json (Claude Code, project: 2 servers not started — not approved; run with --config ./.mcp.json or --allow-project to start them)"
        ),
        "{}",
        r.stderr
    );
    let doc = r.json();
    assert!(ready(&doc).is_empty(), "{doc}");
    assert_eq!(
        doc["skipped"],
        json!([
            {"name": "a", "file": "./.mcp.json", "reason": "not approved"},
            {"name": "b", "file": "./.mcp.json", "reason": "not approved"},
        ])
    );
    // The table shows them as skipped, and says how to start them.
    let r = p.run(&["list"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let row = r.stdout.lines().find(|l| l.starts_with("a ")).unwrap();
    assert!(row.contains("skipped"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("run with --config ./.mcp.json or --allow-project to start it"),
        "{}",
        r.stdout
    );
    // `doctor` tries nothing and says how to approve.
    let r = p.run(&["doctor", "--json"]);
    let doc = r.json();
    let a = &doc["servers"].as_array().unwrap()[0];
    assert_eq!(a["state"], "not approved", "{doc}");
    assert_eq!(a["findings"][0]["kind"], "not-approved", "{doc}");
    let fixes = a["findings"][0]["fix"].to_string();
    assert!(
        fixes.contains("--allow-project") && fixes.contains("Claude Code"),
        "{fixes}"
    );
    // A server asked for by name is not started either, and the refusal says why.
    let r = p.run(&["call", "a.echo"]);
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("server `a` of ./.mcp.json (a project's file) was not started: not approved"),
        "{}",
        r.stderr
    );
    assert!(p.spawned().is_empty(), "spawned {:?}", p.spawned());
}

#[test]
fn naming_the_file_or_allow_project_starts_its_servers() {
    let p = Project::new("gate-given");
    let r = p.run(&["list", "--json", "--allow-project"]);
    assert_eq!(ready(&r.json()), ["a", "b"], "{}", r.stderr);
    assert_eq!(p.spawned(), ["a", "b"]);
    assert!(r.json()["skipped"].as_array().unwrap().is_empty());
    p.forget_spawns();
    let r = p.run(&["list", "--json", "--config", ".mcp.json"]);
    assert_eq!(ready(&r.json()), ["a", "b"], "{}", r.stderr);
    assert_eq!(p.spawned(), ["a", "b"]);
}

#[test]
fn claude_codes_approval_of_the_project_is_honoured() {
    let p = Project::new("gate-claude");
    p.claude_code_answer(json!({"enableAllProjectMcpServers": true}));
    let r = p.run(&["list", "--json"]);
    assert_eq!(ready(&r.json()), ["a", "b"], "{}", r.stderr);
    assert_eq!(p.spawned(), ["a", "b"]);
    p.forget_spawns();
    // Only the servers it enabled; one it disabled stays off whatever else says.
    p.claude_code_answer(json!({"enabledMcpjsonServers": ["a"]}));
    let r = p.run(&["list", "--json"]);
    assert_eq!(ready(&r.json()), ["a"], "{}", r.stderr);
    assert_eq!(p.spawned(), ["a"]);
    assert_eq!(r.json()["skipped"][0]["name"], "b");
    assert!(
        r.stderr
            .contains("(Claude Code, project: 1 server; 1 server not started — not approved"),
        "{}",
        r.stderr
    );
    p.forget_spawns();
    p.claude_code_answer(
        json!({"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["b"]}),
    );
    let r = p.run(&["list", "--json"]);
    assert_eq!(ready(&r.json()), ["a"], "{}", r.stderr);
    assert_eq!(p.spawned(), ["a"]);
}

#[test]
fn claude_codes_approval_covers_only_its_own_file() {
    // The same servers in `.cursor/mcp.json`: Claude Code's answer is about `.mcp.json` only.
    let p = Project::new("gate-cursor");
    std::fs::rename(p.dir.join(".mcp.json"), p.dir.join("cursor.json")).unwrap();
    std::fs::create_dir_all(p.dir.join(".cursor")).unwrap();
    std::fs::rename(p.dir.join("cursor.json"), p.dir.join(".cursor/mcp.json")).unwrap();
    p.claude_code_answer(json!({"enableAllProjectMcpServers": true}));
    let r = p.run(&["list", "--json"]);
    assert!(ready(&r.json()).is_empty(), "{}", r.stderr);
    assert!(p.spawned().is_empty(), "spawned {:?}", p.spawned());
    assert!(
        r.stderr
            .contains("./.cursor/mcp.json (Cursor, project: 2 servers not started"),
        "{}",
        r.stderr
    );
}
