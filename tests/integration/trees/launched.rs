//! No orphan on any OS: a server started through a launcher — `cmd.exe /c launch.cmd` on Windows
//! (the shape of `npx`, which is `npx.cmd` there), `sh launch.sh` elsewhere — whose fixture starts a
//! grandchild, and that whole tree gone however the server or the sidecar ends. Each process is
//! checked through the OS's own process table (`/proc`, `ps`, `mcp-proclist`). The launcher is the
//! middle layer on purpose: neither `cmd.exe` nor `sh` passes its own end on to its children, so
//! only the sidecar's hold on the whole tree (process group, Job Object) takes the grandchild.
//! These are the tests the macOS and Windows runners run natively, with `shutdown::`.

use std::path::Path;
use std::time::Duration;
use std::time::Instant;

use serde_json::{json, Value};

use crate::support::*;

/// A launcher in `dir` running the fixture with a grandchild and a pid file, and the server config
/// that starts it the way the OS starts a script.
fn launcher_config(dir: &Path, pid_file: &Path, extra: &[&str]) -> Value {
    let fixture = fixture_bin();
    let extra = extra.join(" ");
    if cfg!(windows) {
        let launcher = dir.join("launch.cmd");
        // `cmd.exe` takes `/` for a switch: a path it runs is written with `\` (a path cargo gave
        // under Wine can be Unix-style, `/` being the root of the current drive there).
        let script = format!(
            "@echo off\r\n\"{}\" --grandchild --pid-file \"{}\" {extra}\r\n",
            fixture.display().to_string().replace('/', "\\"),
            pid_file.display()
        );
        std::fs::write(&launcher, script).unwrap();
        json!({ "command": "cmd.exe", "args": ["/c", launcher] })
    } else {
        let launcher = dir.join("launch.sh");
        // The fixture is not the last command: sh waits for it instead of exec'ing it, and stays
        // the server's leader, as `npx`'s shell wrapper does.
        let script = format!(
            "#!/bin/sh\n'{}' --grandchild --pid-file '{}' {extra}\nexit $?\n",
            fixture.display(),
            pid_file.display()
        );
        std::fs::write(&launcher, script).unwrap();
        json!({ "command": "sh", "args": [launcher] })
    }
}

/// Adds a launched server `name` (with `extra` fixture flags) and returns its tree: the launcher,
/// the fixture it started and the fixture's grandchild, each checked alive and in that parentage
/// (so that their absence later means something).
fn add_launched(sc: &mut Sidecar, dir: &Path, name: &str, extra: &[&str]) -> Vec<u32> {
    add_launched_with(sc, dir, name, extra, json!({}))
}

/// [`add_launched`] with `fields` added to the server config.
fn add_launched_with(
    sc: &mut Sidecar,
    dir: &Path,
    name: &str,
    extra: &[&str],
    fields: Value,
) -> Vec<u32> {
    let pid_file = dir.join(format!("{name}.json"));
    let config = with_fields(launcher_config(dir, &pid_file, extra), fields);
    let status = sc.add(name, config);
    assert_eq!(status["state"], "ready", "{status}");
    let launcher = status["pid"].as_u64().unwrap() as u32;
    let record = read_pid_file(&pid_file);
    let fixture = record["pid"].as_u64().unwrap() as u32;
    let grandchild = record["grandchildren"][0].as_u64().unwrap() as u32;
    assert_eq!(
        parent_of(fixture),
        Some(launcher),
        "the fixture runs under the launcher"
    );
    assert_eq!(
        parent_of(grandchild),
        Some(fixture),
        "the grandchild runs under the fixture"
    );
    let tree = vec![launcher, fixture, grandchild];
    assert!(tree.iter().all(|p| pid_alive(*p)), "{tree:?} not all alive");
    tree
}

/// The processes of `tree` still alive.
fn survivors(tree: &[u32]) -> Vec<u32> {
    tree.iter().copied().filter(|p| pid_alive(*p)).collect()
}

#[test]
fn launched_tree_is_gone_when_its_server_is_removed() {
    let dir = temp_dir("launched-remove");
    let mut sc = Sidecar::initialized(json!({}));
    let tree = add_launched(&mut sc, &dir, "l", &[]);
    // The answer comes once the stop is over: the whole tree is gone by then.
    sc.call("servers/remove", json!({ "name": "l" }));
    assert_eq!(
        survivors(&tree),
        Vec::<u32>::new(),
        "left after servers/remove of {tree:?}"
    );
    sc.call("shutdown", json!({}));
    assert_eq!(sc.wait_exit(), Some(0));
}

#[test]
fn launched_trees_are_gone_when_shutdown_answers() {
    let dir = temp_dir("launched-shutdown");
    let mut sc = Sidecar::initialized(json!({}));
    let mut trees = add_launched(&mut sc, &dir, "a", &[]);
    trees.extend(add_launched(&mut sc, &dir, "b", &[]));
    sc.call("shutdown", json!({}));
    assert_eq!(
        survivors(&trees),
        Vec::<u32>::new(),
        "left after shutdown of {trees:?}"
    );
    assert_eq!(sc.wait_exit(), Some(0));
}

#[test]
fn launched_tree_is_gone_when_the_host_closes_stdin() {
    let dir = temp_dir("launched-eof");
    let mut sc = Sidecar::initialized(json!({}));
    let tree = add_launched(&mut sc, &dir, "l", &[]);
    sc.close_stdin();
    assert_eq!(sc.wait_exit(), Some(0));
    assert_eq!(
        survivors(&tree),
        Vec::<u32>::new(),
        "left after the sidecar's exit on EOF"
    );
}

#[test]
fn launched_tree_is_gone_after_the_sidecar_is_killed() {
    let dir = temp_dir("launched-kill");
    let mut sc = Sidecar::initialized(json!({}));
    let tree = add_launched(&mut sc, &dir, "l", &[]);
    // SIGKILL on Unix, TerminateProcess on Windows: no code of the sidecar runs. What is left to
    // act: the guardian on Unix, the kernel closing the job's last handle on Windows.
    sc.child.kill().unwrap();
    sc.child.wait().unwrap();
    all_dead(&format!("the launched tree {tree:?} after a kill"), &tree);
}

#[test]
fn launched_tree_is_gone_when_its_server_exits_on_its_own() {
    let dir = temp_dir("launched-exit");
    let mut sc = Sidecar::initialized(json!({}));
    let tree = add_launched_with(&mut sc, &dir, "l", &[], json!({"restart": "never"}));
    // The fixture exits, so does its launcher: its grandchild is all that is left of the tree.
    sc.request(
        "tools/call",
        json!({"name": "mcp__l__exit", "arguments": {}}),
    );
    // The exit is reported once what the leader left behind is finished.
    let status = sc.server_changed("l", |st| st.get("lastExit").is_some());
    assert_eq!(
        survivors(&tree),
        Vec::<u32>::new(),
        "left after the server's exit: {status}"
    );
    sc.call("shutdown", json!({}));
    assert_eq!(sc.wait_exit(), Some(0));
}

#[test]
fn launched_server_ignoring_eof_is_killed_within_the_stop_sequence() {
    let dir = temp_dir("launched-hung");
    let mut sc = Sidecar::initialized(json!({}));
    // Hung after the handshake: it never reads its stdin's end. On Unix it ignores SIGTERM too, so
    // only the final kill (SIGKILL to the group, or the Job Object's termination) ends it.
    let extra = [
        "--no-tools-capability",
        "--hang-after-init",
        "--ignore-sigterm",
    ];
    let tree = add_launched(&mut sc, &dir, "hung", &extra);
    let started = Instant::now();
    sc.call("servers/remove", json!({ "name": "hung" }));
    let took = started.elapsed();
    assert_eq!(
        survivors(&tree),
        Vec::<u32>::new(),
        "left after servers/remove of {tree:?}"
    );
    // Bounded: the stop sequence's graces, never the fixture's hour-long hang.
    assert!(took < Duration::from_secs(30), "the stop hung: {took:?}");
    sc.call("shutdown", json!({}));
    assert_eq!(sc.wait_exit(), Some(0));
}
