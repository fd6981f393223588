//! How `mcp-sidecar mcp` starts for a person: names as people write them in a Claude Desktop
//! config, a loud failure (exit 3, the file and the cause) when no file gives a server, flags
//! checked before any server starts, a closed stderr that never turns into a panic, and `list`
//! showing the prefix a name is exposed under.

#![allow(clippy::disallowed_methods)] // the tests run the binary under test

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use super::harness::{config_file, initialize, mcp_stdio};
use crate::support::{exit_code, fixture, fixture_bin, sidecar_bin, temp_dir, Sidecar};

fn echo_names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .filter(|n| n.ends_with("__echo"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_claude_desktop_config_with_names_people_write_is_served() {
    let servers = json!({
        "Time Server": fixture(&[]),
        "my.server": fixture(&[]),
        "my server": fixture(&[]),
        "my_server": fixture(&[]),
    });
    let (mut s, _) = mcp_stdio(servers, &["--wait-for-servers"]);
    initialize(&mut s, "2025-06-18");
    let mut names = echo_names(&s.call("tools/list", json!({})));
    names.sort_unstable();
    assert_eq!(names.len(), 4, "one echo per server: {names:?}");
    assert!(
        names.contains(&"my_server__echo".to_owned()),
        "a valid name keeps its tools' names: {names:?}"
    );
    assert!(
        names.iter().any(|n| n.starts_with("time_server_")),
        "{names:?}"
    );
    let colliding: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with("my_server_") && *n != "my_server__echo")
        .collect();
    assert_eq!(
        colliding.len(),
        2,
        "`my.server` and `my server` get distinct prefixes: {names:?}"
    );
    let mut pids = std::collections::BTreeSet::new();
    for name in &names {
        let r = s.call(
            "tools/call",
            json!({"name": name, "arguments": {"message": name}}),
        );
        assert_eq!(r["content"][0]["text"], name.as_str(), "{name}: {r}");
        let env = s.call(
            "tools/call",
            json!({"name": name.replace("__echo", "__environment")}),
        );
        pids.insert(env["structuredContent"]["pid"].as_u64().unwrap());
    }
    assert_eq!(pids.len(), 4, "each exposed name reaches its own server");
}

#[test]
fn nothing_to_serve_is_exit_3_naming_the_file_and_the_cause() {
    let missing = temp_dir("mcp-missing").join("missing.json");
    let out = Command::new(sidecar_bin())
        .args(["mcp", "--config", missing.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(out.stdout.is_empty(), "stdout is protocol only: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("mcp-sidecar mcp: "))
        .unwrap_or_else(|| panic!("no message for a person: {stderr}"));
    assert!(
        line.contains("nothing to serve")
            && line.contains("missing.json")
            && line.contains("No such file"),
        "{line}"
    );

    let empty = config_file(json!({}));
    let out = Command::new(sidecar_bin())
        .args(["mcp", "--config", empty.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("defines no server"), "{stderr}");
}

/// A non-loopback `--http` without a token is refused before any config is read or any server
/// started: the refusal wins over a missing file, and a server whose start leaves a marker has not
/// left it.
#[test]
fn a_refused_flag_starts_nothing() {
    let dir = temp_dir("mcp-flags-first");
    let marker = dir.join("started");
    let script = "touch \"$0\" && exec \"$1\"";
    let config = config_file(json!({
        "m": {"command": "sh", "args": ["-c", script, marker.to_str().unwrap(), fixture_bin().to_str().unwrap()]}
    }));
    let missing = dir.join("missing.json");
    for file in [&config, &missing] {
        let out = Command::new(sidecar_bin())
            .args([
                "mcp",
                "--config",
                file.to_str().unwrap(),
                "--http",
                "0.0.0.0:1",
            ])
            .env_remove("MCP_SIDECAR_TOKEN")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}: {out:?}", file.display());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("without a bearer token"), "{stderr}");
    }
    assert!(!marker.exists(), "a server was started before the refusal");
}

/// A replica name that would make session ids a load balancer misroutes is refused up front,
/// from the flag and from `MCP_SIDECAR_REPLICA` alike.
#[test]
fn a_bad_replica_name_is_refused() {
    let config = config_file(json!({"a": fixture(&[])}));
    let config = config.to_str().unwrap();
    let by_flag = [
        "mcp",
        "--config",
        config,
        "--http",
        "0",
        "--replica",
        "r1.eu",
    ];
    let by_env = ["mcp", "--config", config, "--http", "0"];
    for (args, env) in [(&by_flag[..], ""), (&by_env[..], "r1.eu")] {
        let out = Command::new(sidecar_bin())
            .args(args)
            .env("MCP_SIDECAR_REPLICA", env)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--replica \"r1.eu\": '.' is not allowed"),
            "{stderr}"
        );
    }
}

/// A stderr whose reader is gone (the sidecar's output piped into `head`): the refusal still
/// exits 2, not 101 (a panic), and over stdio the protocol is served and the exit is clean.
#[test]
fn a_closed_stderr_is_never_a_panic() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let config = config_file(json!({"a": fixture(&[])}));
    let mut child = Command::new(sidecar_bin())
        .args([
            "mcp",
            "--config",
            config.to_str().unwrap(),
            "--http",
            "0.0.0.0:1",
        ])
        .env_remove("MCP_SIDECAR_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(writer)
        .spawn()
        .unwrap();
    assert_eq!(exit_code(&mut child), Some(2));

    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut s = Sidecar::spawn_with_stderr(
        Stdio::from(writer),
        &["mcp", "--config", config.to_str().unwrap()],
    );
    initialize(&mut s, "2025-06-18");
    let r = s.call(
        "tools/call",
        json!({"name": "a__echo", "arguments": {"message": "still here"}}),
    );
    assert_eq!(r["content"][0]["text"], "still here", "{r}");
    s.close_stdin();
    assert_eq!(s.wait_exit(), Some(0));
}

/// The same over a raw pipe: lines in, lines out, nothing but protocol on stdout.
#[test]
fn stdout_carries_only_protocol_when_stderr_is_closed() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let config = config_file(json!({"a": fixture(&[])}));
    let mut child = Command::new(sidecar_bin())
        .args([
            "mcp",
            "--config",
            config.to_str().unwrap(),
            "--log",
            "debug",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(writer)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "a__echo", "arguments": {"message": "m"}}});
    writeln!(stdin, "{init}").unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    writeln!(stdin, "{call}").unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let line = lines.next().expect("an answer").unwrap();
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if message["id"] == 2 {
            assert_eq!(message["result"]["content"][0]["text"], "m", "{message}");
            break;
        }
    }
    drop(stdin);
    assert_eq!(exit_code(&mut child), Some(0));
}

/// `mcp-sidecar list` shows the prefix a name is exposed under when it is not the name.
#[test]
fn list_shows_the_prefix_of_a_name_people_write() {
    let config = config_file(json!({"Time Server": fixture(&[]), "plain": fixture(&[])}));
    let out = Command::new(sidecar_bin())
        .args(["list", "--config", config.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Time Server (exposed as time_server_"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("7 tools"), "{line}");
    assert!(
        stdout.lines().any(|l| l.starts_with("plain: ")),
        "a valid name is shown alone: {stdout}"
    );
}
