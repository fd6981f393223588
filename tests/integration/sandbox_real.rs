//! Servers from the registries under the `strict` preset with only what each needs (the worked
//! examples of `docs/sandbox-examples.md`): `@modelcontextprotocol/server-filesystem` with one root,
//! `@modelcontextprotocol/server-memory` with its file, and PyPI's `mcp-server-time` with nothing.
//! Their tools work; a `read` list that leaves out the packages beside the server stops it at start,
//! naming the path. `.ci/run` installs them into `tests/sandbox` (a missing one is
//! a failure, not a skip), so nothing is fetched while a test runs.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::{temp_dir, Sidecar};

fn sandbox_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sandbox")
}

/// `tests/sandbox/node_modules`, where `npm ci` put the two Node servers.
fn node_modules() -> PathBuf {
    let modules = sandbox_dir().join("node_modules");
    assert!(
        modules.join("@modelcontextprotocol/server-memory").exists(),
        "{} is missing: run `npm ci` in tests/sandbox (.ci/run does)",
        modules.display()
    );
    modules
}

/// The entry point of Node server `package`.
fn entry(package: &str) -> PathBuf {
    node_modules().join(format!("@modelcontextprotocol/{package}/dist/index.js"))
}

/// `mcp-server-time` from `tests/sandbox/.venv`.
fn time_server() -> PathBuf {
    let program = sandbox_dir().join(".venv/bin/mcp-server-time");
    assert!(
        program.exists(),
        "{} is missing: create tests/sandbox/.venv and install tests/sandbox/requirements.txt (.ci/run does)",
        program.display()
    );
    program
}

/// Adds `name`, asserts it is ready under the strict preset and returns its status.
fn add_strict(sc: &mut Sidecar, name: &str, config: Value) -> Value {
    let status = sc.add(name, config);
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["sandbox"]["preset"], "strict", "{status}");
    status
}

/// The text of a successful call of `tool`.
fn call_text(sc: &mut Sidecar, tool: &str, arguments: Value) -> String {
    let result = sc.call("tools/call", json!({"name": tool, "arguments": arguments}));
    assert_eq!(result["isError"], false, "{tool}: {result}");
    result["text"].as_str().unwrap().to_owned()
}

#[test]
fn server_filesystem_serves_its_one_root_under_strict() {
    let dir = temp_dir("real-fs");
    let root = dir.join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "kept in the root\n").unwrap();
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "outside the root\n").unwrap();
    let mut sc = Sidecar::initialized(json!({}));
    add_strict(
        &mut sc,
        "fs",
        json!({
            "command": "node",
            "args": [entry("server-filesystem"), root],
            "sandbox": {"preset": "strict", "read": [node_modules()], "write": [root]},
        }),
    );
    let listing = call_text(&mut sc, "mcp__fs__list_directory", json!({ "path": root }));
    assert!(listing.contains("notes.txt"), "{listing}");
    let path = root.join("notes.txt");
    let text = call_text(&mut sc, "mcp__fs__read_text_file", json!({ "path": path }));
    assert_eq!(text.trim_end(), "kept in the root");
    let made = root.join("made.txt");
    call_text(
        &mut sc,
        "mcp__fs__write_file",
        json!({"path": made, "content": "written under the sandbox"}),
    );
    assert_eq!(
        std::fs::read_to_string(&made).unwrap(),
        "written under the sandbox"
    );
    // Outside its root the server refuses on its own; the sandbox would refuse it too.
    let outside = sc.call(
        "tools/call",
        json!({"name": "mcp__fs__read_text_file", "arguments": {"path": secret}}),
    );
    assert_eq!(outside["isError"], true, "{outside}");
}

/// Node's module loader reports a module it may not read as missing (`ERR_MODULE_NOT_FOUND`,
/// "Cannot find module"), not as EACCES: the failure names the path, not the refusal.
#[test]
fn a_read_list_without_the_servers_install_stops_it_at_start_naming_the_path() {
    let dir = temp_dir("real-fs-denied");
    let mut sc = Sidecar::initialized(json!({}));
    let status = sc.add(
        "fs",
        json!({
            "command": "node",
            "args": [entry("server-filesystem"), dir],
            "sandbox": {"preset": "strict", "write": [dir]},
            "restart": "never",
        }),
    );
    assert_ne!(status["state"], "ready", "{status}");
    // Its own package is the preset's (the script's package root); the packages beside it are not.
    let sdk = node_modules().join("@modelcontextprotocol/sdk");
    let tail = status["lastError"]["data"]["stderrTail"].as_str().unwrap();
    assert!(
        tail.contains(&format!("Cannot find module '{}", sdk.display())),
        "{status}"
    );
    assert!(sdk.exists(), "the module is there: the sandbox hid it");
}

#[test]
fn server_memory_keeps_its_graph_in_the_one_file_it_may_write() {
    let dir = temp_dir("real-memory");
    let file = dir.join("memory.jsonl");
    let mut sc = Sidecar::initialized(json!({}));
    add_strict(
        &mut sc,
        "memory",
        json!({
            "command": "node",
            "args": [entry("server-memory")],
            "env": {"MEMORY_FILE_PATH": file},
            "sandbox": {"preset": "strict", "read": [node_modules()], "write": [dir]},
        }),
    );
    call_text(
        &mut sc,
        "mcp__memory__create_entities",
        json!({"entities": [{"name": "sidecar", "entityType": "program", "observations": ["runs sandboxed"]}]}),
    );
    let graph = call_text(
        &mut sc,
        "mcp__memory__open_nodes",
        json!({"names": ["sidecar"]}),
    );
    assert!(graph.contains("runs sandboxed"), "{graph}");
    let kept = std::fs::read_to_string(&file).unwrap();
    assert!(kept.contains("runs sandboxed"), "{kept}");
}

/// What the time server's `read` must list: nothing when its Python is the system's (under
/// `/usr`, which every preset grants), else that Python's own install (pyenv, a managed Python).
fn python_outside_usr() -> Vec<PathBuf> {
    let cfg = std::fs::read_to_string(sandbox_dir().join(".venv/pyvenv.cfg")).unwrap();
    let home = cfg
        .lines()
        .find_map(|line| line.strip_prefix("home = "))
        .expect("pyvenv.cfg names the Python the venv was made from");
    // `home` is the interpreter's bin folder: its install is the folder above.
    let install = std::fs::canonicalize(home).unwrap();
    let install = install.parent().unwrap().to_path_buf();
    if install.starts_with("/usr") {
        Vec::new()
    } else {
        vec![install]
    }
}

#[test]
fn mcp_server_time_needs_nothing_beyond_strict_but_its_python() {
    let mut sc = Sidecar::initialized(json!({}));
    add_strict(
        &mut sc,
        "time",
        json!({
            "command": time_server(),
            "args": ["--local-timezone", "UTC"],
            "sandbox": {"preset": "strict", "read": python_outside_usr()},
        }),
    );
    let now = call_text(
        &mut sc,
        "mcp__time__get_current_time",
        json!({"timezone": "Europe/Paris"}),
    );
    assert!(now.contains("Europe/Paris"), "{now}");
    let converted = call_text(
        &mut sc,
        "mcp__time__convert_time",
        json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
    );
    assert!(converted.contains("21:00"), "{converted}");
}
