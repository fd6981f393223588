//! No orphan, ever: every way a server or the sidecar can go away, each test asserting by pid that
//! nothing of the process tree survives (servers, grandchildren, double-forked escapees, guardian,
//! and, where a writable cgroup2 hierarchy exists, daemons that cleared their environment; without
//! one, the `without_cgroups_*` tests pin what such a daemon can still do). Unix's tests here run on
//! Linux and macOS, the cgroup and cleared-environment ones on Linux only; `launched` holds the ones
//! every OS runs, Windows included.

#[cfg(unix)]
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::process::{Command, Stdio};
#[cfg(unix)]
use std::time::{Duration, Instant};

#[cfg(unix)]
use nix::sys::signal::Signal;
#[cfg(unix)]
use serde_json::{json, Value};

#[cfg(unix)]
use crate::support::*;

// The same ends of a tree on every OS, the server started through a launcher.
mod launched;

#[cfg(unix)]
/// A fixture that leaves a grandchild in its group and an escapee in its own session.
fn tree_config(pid_file: &Path) -> Value {
    fixture(&[
        "--grandchild",
        "--double-fork",
        "--pid-file",
        pid_file.to_str().unwrap(),
    ])
}

#[cfg(unix)]
/// A fresh temporary directory tagged `tag` (for pid files) and an initialized sidecar.
fn setup(tag: &str) -> (PathBuf, Sidecar) {
    (temp_dir(tag), Sidecar::initialized(json!({})))
}

#[cfg(unix)]
/// Adds [`tree_config`] as `name` (pid file in `dir`), asserts it is ready and returns the
/// fixture's pid-file record.
fn add_tree(sc: &mut Sidecar, dir: &Path, name: &str) -> Value {
    let pid_file = dir.join(format!("{name}.json"));
    let status = sc.add(name, tree_config(&pid_file));
    assert_eq!(status["state"], "ready", "{status}");
    read_pid_file(&pid_file)
}

#[cfg(unix)]
/// Adds trees `a` and `b` and returns every pid of both.
fn add_two_trees(sc: &mut Sidecar, dir: &Path) -> Vec<u32> {
    ["a", "b"]
        .into_iter()
        .flat_map(|name| pids_in(&add_tree(sc, dir, name)))
        .collect()
}

#[cfg(unix)]
/// Adds `stubborn`: hung after the handshake (never reads stdin again, so EOF goes unnoticed) and
/// SIGTERM ignored, plus `extra` flags. Asserts it is ready and returns its pid-file record.
fn add_stubborn(sc: &mut Sidecar, dir: &Path, extra: &[&str]) -> Value {
    let pid_file = dir.join("pids.json");
    let mut args = vec![
        "--no-tools-capability",
        "--hang-after-init",
        "--ignore-sigterm",
    ];
    args.extend_from_slice(extra);
    args.extend(["--pid-file", pid_file.to_str().unwrap()]);
    assert_eq!(sc.add("stubborn", fixture(&args))["state"], "ready");
    read_pid_file(&pid_file)
}

#[cfg(unix)]
/// Removes server `name`, whose answer comes once the whole tree is gone: none of `pids` survives.
fn remove_leaves_no_survivor(sc: &mut Sidecar, name: &str, pids: &[u32]) {
    sc.call("servers/remove", json!({ "name": name }));
    assert!(
        pids.iter().all(|p| !pid_alive(*p)),
        "survivors among {pids:?}"
    );
}

#[cfg(unix)]
#[test]
fn sh_c_server_and_its_grandchild_die_on_remove() {
    let (dir, mut sc) = setup("shc");
    let pid_file = dir.join("pids.json");
    // `; :` keeps sh alive as the leader (no exec of the last command): sh → fixture → grandchild.
    let script = format!("\"$0\" --grandchild --pid-file '{}'; :", pid_file.display());
    let status = sc.add(
        "shc",
        json!({ "command": "sh", "args": ["-c", script, fixture_bin()] }),
    );
    assert_eq!(status["state"], "ready", "{status}");
    let sh = status["pid"].as_u64().unwrap() as u32;
    let mut pids = pids_in(&read_pid_file(&pid_file));
    assert_eq!(pids.len(), 2);
    assert_eq!(parentage(pids[0]).0, sh, "the fixture runs under sh");
    pids.push(sh);
    assert!(pids.iter().all(|p| pid_alive(*p)));
    remove_leaves_no_survivor(&mut sc, "shc", &pids);
}

#[cfg(unix)]
#[test]
fn double_forked_escapee_is_adopted_and_killed() {
    let (dir, mut sc) = setup("escapee");
    let record = add_tree(&mut sc, &dir, "esc");
    let escapee = record["escapees"][0].as_u64().unwrap() as u32;
    let server = record["pid"].as_u64().unwrap() as u32;
    let (ppid, pgrp, session) = parentage(escapee);
    let (_, server_pgrp, server_session) = parentage(server);
    assert_ne!(pgrp, server_pgrp, "the escapee left the server's group");
    assert_ne!(
        session, server_session,
        "the escapee left the server's session"
    );
    // Its parent exited: on Linux the subreaper (the sidecar) adopted it instead of init; macOS
    // has no subreaper, so launchd did, and the sidecar finds it by its origin marker.
    let adopter = if cfg!(target_os = "linux") {
        sc.pid()
    } else {
        1
    };
    assert_eq!(ppid, adopter, "escapee re-parented to {adopter}");
    remove_leaves_no_survivor(&mut sc, "esc", &pids_in(&record));
}

#[cfg(unix)]
#[test]
fn server_ignoring_sigterm_and_eof_is_killed_on_time() {
    let (dir, mut sc) = setup("stubborn");
    let pid = add_stubborn(&mut sc, &dir, &[])["pid"].as_u64().unwrap() as u32;
    let started = Instant::now();
    sc.call("servers/remove", json!({ "name": "stubborn" }));
    let took = started.elapsed();
    assert!(!pid_alive(pid));
    // stdin close (1 s) + SIGTERM grace (2 s), then SIGKILL: never earlier (each step got its
    // grace), and bounded (the upper bound only says "never hung": lastExit below proves the KILL).
    assert!(took >= Duration::from_secs(3), "stop took only {took:?}");
    assert!(took < Duration::from_secs(30), "stop hung: {took:?}");
    let stopped = sc.server_changed("stubborn", |s| {
        s["state"] == "stopped" && s.get("lastExit").is_some()
    });
    assert_eq!(stopped["lastExit"]["signal"], 9, "{stopped}");
}

#[cfg(unix)]
#[test]
fn host_closing_stdin_stops_every_tree() {
    let (dir, mut sc) = setup("eof");
    let mut pids = add_two_trees(&mut sc, &dir);
    let guardian = guardian_of(sc.pid());
    pids.push(guardian);
    sc.close_stdin();
    assert_eq!(sc.wait_exit(), Some(0));
    all_dead("every process after EOF", &pids);
}

#[cfg(unix)]
#[test]
fn host_sigkilled_stops_every_tree() {
    let dir = temp_dir("hostkill");
    let pid_file = dir.join("pids.json");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}});
    let add = json!({"jsonrpc": "2.0", "id": 2, "method": "servers/add", "params": {"name": "t", "config": tree_config(&pid_file)}});
    // The "host": writes two requests into the sidecar's stdin, then sleeps holding the only write
    // end of that pipe. The sidecar's stdout comes back to this test.
    #[allow(clippy::disallowed_methods)]
    let mut host = Command::new("sh")
        .args([
            "-c",
            "printf '%s\\n%s\\n' \"$0\" \"$1\"; exec sleep 60",
            &init.to_string(),
            &add.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = host.stdout.take().unwrap();
    let mut sc = Sidecar::spawn_from(Stdio::from(pipe), &[], &[]);
    let added = sc.response(2);
    assert_eq!(added["result"]["state"], "ready", "{added}");
    let mut pids = pids_in(&read_pid_file(&pid_file));
    pids.push(guardian_of(sc.pid()));
    host.kill().unwrap(); // SIGKILL
    host.wait().unwrap();
    assert_eq!(sc.wait_exit(), Some(0));
    all_dead("every process after the host's SIGKILL", &pids);
}

#[cfg(unix)]
#[test]
fn sidecar_sigterm_stops_every_tree_gracefully() {
    let (dir, mut sc) = setup("sigterm");
    let mut pids = pids_in(&add_tree(&mut sc, &dir, "t"));
    pids.push(guardian_of(sc.pid()));
    signal(sc.pid(), Signal::SIGTERM);
    assert_eq!(sc.wait_exit(), Some(0));
    all_dead("every process after SIGTERM", &pids);
    let out = sc.drain_after_exit();
    assert!(
        out.iter()
            .any(|m| m["method"] == "notifications/servers/changed"
                && m["params"]["status"]["state"] == "stopped"),
        "the host hears of the stop: {out:?}"
    );
}

#[cfg(unix)]
#[test]
fn second_signal_kills_at_once() {
    let (dir, mut sc) = setup("sigtwice");
    let pids = pids_in(&add_stubborn(&mut sc, &dir, &["--grandchild"]));
    signal(sc.pid(), Signal::SIGTERM);
    // The graceful stop of this server takes 3 s (stdin close, then SIGTERM ignored); the host
    // sees it begin before escalating.
    sc.server_changed("stubborn", |s| s["state"] == "stopped");
    // The graceful stop still has seconds to go (the server ignores SIGTERM): only an escalation
    // exits with 128 + SIGINT; a graceful end would exit 0.
    signal(sc.pid(), Signal::SIGINT);
    let code = sc.wait_exit();
    assert_eq!(code, Some(128 + 2), "exit code after a second signal");
    all_dead("every process after the second signal", &pids);
}

#[cfg(unix)]
#[test]
fn sidecar_sigkill_leaves_nothing_behind() {
    let (dir, mut sc) = setup("sigkill");
    let mut pids = add_two_trees(&mut sc, &dir);
    let guardian = guardian_of(sc.pid());
    let (_, guardian_pgrp, guardian_session) = parentage(guardian);
    assert_eq!(
        (guardian_pgrp, guardian_session),
        (guardian, guardian),
        "the guardian leads its own session"
    );
    assert!(pids.iter().all(|p| pid_alive(*p)));
    sc.child.kill().unwrap(); // SIGKILL: nothing runs in the sidecar any more
    sc.child.wait().unwrap();
    pids.push(guardian);
    all_dead(
        "every server, grandchild, escapee and the guardian after SIGKILL",
        &pids,
    );
}

#[cfg(unix)]
#[test]
fn twenty_servers_stopped_at_once() {
    let (dir, mut sc) = setup("twenty");
    let files: Vec<_> = (0..20).map(|i| dir.join(format!("{i}.json"))).collect();
    let ids: Vec<i64> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            // Each server ignores EOF and SIGTERM, so its stop takes the full 3 s sequence:
            // twenty in parallel take about 3 s, one after another a minute.
            let config = fixture(&[
                "--no-tools-capability",
                "--hang-after-init",
                "--ignore-sigterm",
                "--grandchild",
                "--pid-file",
                f.to_str().unwrap(),
            ]);
            sc.send(
                "servers/add",
                json!({ "name": format!("s{i}"), "config": config }),
            )
        })
        .collect();
    for id in ids {
        let r = sc.response(id);
        assert_eq!(r["result"]["state"], "ready", "{r}");
    }
    let pids: Vec<u32> = files
        .iter()
        .flat_map(|f| pids_in(&read_pid_file(f)))
        .collect();
    assert_eq!(pids.len(), 40);
    let started = Instant::now();
    sc.call("shutdown", json!({}));
    let took = started.elapsed();
    assert!(
        pids.iter().all(|p| !pid_alive(*p)),
        "survivors after shutdown"
    );
    assert!(took >= Duration::from_secs(3), "stopped early: {took:?}");
    assert!(
        took < Duration::from_secs(30),
        "20 stops of 3 s each took {took:?}: not in parallel"
    );
    assert_eq!(sc.wait_exit(), Some(0));
}

#[cfg(target_os = "linux")]
/// Disables the cgroup containment of a sidecar (a host without a writable cgroup2 hierarchy).
const NO_CGROUP: (&str, &str) = ("MCP_SIDECAR_NO_CGROUP", "1");

#[cfg(target_os = "linux")]
/// A sidecar started with `env`, initialized.
fn sidecar_with(env: &[(&str, &str)]) -> Sidecar {
    let mut sc = Sidecar::spawn_with(&[], env);
    sc.initialize(json!({}));
    sc
}

#[cfg(target_os = "linux")]
/// Adds `d`, a fixture that leaves a daemon behind: a double fork through `setsid`, every inherited
/// descriptor closed, an exec with an empty environment (so no origin marker), re-parented to the
/// sidecar without a SIGCHLD. Checks the daemon is all that, and returns (server pid, daemon pid).
fn add_daemon(sc: &mut Sidecar, dir: &Path) -> (u32, u32) {
    let pid_file = dir.join("d.json");
    let status = sc.add(
        "d",
        fixture(&["--daemon", "--pid-file", pid_file.to_str().unwrap()]),
    );
    assert_eq!(status["state"], "ready", "{status}");
    let record = read_pid_file(&pid_file);
    let server = record["pid"].as_u64().unwrap() as u32;
    let daemon = record["daemons"][0].as_u64().unwrap() as u32;
    let (ppid, pgrp, session) = parentage(daemon);
    assert_eq!(ppid, sc.pid(), "the daemon was re-parented to the sidecar");
    assert_ne!(
        (pgrp, session),
        (parentage(server).1, parentage(server).2),
        "the daemon left the server's group and session"
    );
    let environ = std::fs::read(format!("/proc/{daemon}/environ")).unwrap();
    assert!(environ.is_empty(), "the daemon has an empty environment");
    (server, daemon)
}

#[cfg(target_os = "linux")]
/// Whether `server` runs in a cgroup of the sidecar `sidecar` (`…/mcp-sidecar-PID/server-N`).
fn in_sidecar_cgroup(sidecar: u32, server: u32) -> bool {
    cgroup_of(server).is_some_and(|path| path.contains(&format!("/mcp-sidecar-{sidecar}/server-")))
}

#[cfg(target_os = "linux")]
#[test]
fn sidecar_sigkill_takes_a_daemon_that_cleared_its_environment() {
    if !cgroup2_writable() {
        eprintln!(
            "NOTE: no writable cgroup2 hierarchy here: the sidecar runs without cgroups, so this \
             test checks the fallback's documented limit instead (see \
             without_cgroups_a_daemon_that_cleared_its_environment_outlives_a_sigkill)"
        );
        return daemon_outlives_a_sigkill_without_cgroups(&[]);
    }
    let (dir, mut sc) = setup("daemon-sigkill");
    let (server, daemon) = add_daemon(&mut sc, &dir);
    let contained = in_sidecar_cgroup(sc.pid(), server);
    let guardian = guardian_of(sc.pid());
    sc.child.kill().unwrap(); // SIGKILL: only the guardian is left to clean up
    sc.child.wait().unwrap();
    all_dead(
        "the server, its daemon and the guardian after the sidecar's SIGKILL",
        &[server, daemon, guardian],
    );
    assert!(contained, "the server ran in the sidecar's cgroup");
}

#[cfg(target_os = "linux")]
#[test]
fn removing_a_server_takes_its_daemon_that_cleared_its_environment() {
    if !cgroup2_writable() {
        eprintln!(
            "NOTE: no writable cgroup2 hierarchy here: the sidecar runs without cgroups, so this \
             test checks the fallback's documented limit instead (see \
             without_cgroups_a_daemon_that_cleared_its_environment_outlives_its_server)"
        );
        return daemon_outlives_its_server_without_cgroups(&[]);
    }
    let (dir, mut sc) = setup("daemon-remove");
    let (server, daemon) = add_daemon(&mut sc, &dir);
    assert!(
        in_sidecar_cgroup(sc.pid(), server),
        "the server runs in the sidecar's cgroup"
    );
    // The answer comes once the whole tree is gone, the cgroup's every member included.
    remove_leaves_no_survivor(&mut sc, "d", &[server, daemon]);
}

#[cfg(target_os = "linux")]
#[test]
fn without_cgroups_a_daemon_that_cleared_its_environment_outlives_its_server() {
    daemon_outlives_its_server_without_cgroups(&[NO_CGROUP]);
}

#[cfg(target_os = "linux")]
/// The documented limit without cgroups: nothing ties the daemon to its server, so removing the
/// server leaves it running; the sweep at the sidecar's exit still takes it (it is the sidecar's
/// descendant).
fn daemon_outlives_its_server_without_cgroups(env: &[(&str, &str)]) {
    let dir = temp_dir("daemon-remove-nocg");
    let mut sc = sidecar_with(env);
    let (server, daemon) = add_daemon(&mut sc, &dir);
    assert!(!in_sidecar_cgroup(sc.pid(), server), "no cgroup was used");
    sc.call("servers/remove", json!({ "name": "d" }));
    assert!(!pid_alive(server), "the server is gone once removed");
    assert!(pid_alive(daemon), "nothing ties the daemon to its server");
    sc.call("shutdown", json!({}));
    all_dead("the daemon after shutdown", &[daemon]);
}

#[cfg(target_os = "linux")]
#[test]
fn without_cgroups_a_daemon_that_cleared_its_environment_outlives_a_sigkill() {
    daemon_outlives_a_sigkill_without_cgroups(&[NO_CGROUP]);
}

#[cfg(target_os = "linux")]
/// The documented limit without cgroups: after a SIGKILL of the sidecar, the guardian kills the
/// server (and everything recorded or marked) but cannot find a daemon that left the group, cleared
/// its environment and was adopted without a SIGCHLD. The test kills it itself.
fn daemon_outlives_a_sigkill_without_cgroups(env: &[(&str, &str)]) {
    let dir = temp_dir("daemon-nocg");
    let mut sc = sidecar_with(env);
    let (server, daemon) = add_daemon(&mut sc, &dir);
    assert!(!in_sidecar_cgroup(sc.pid(), server), "no cgroup was used");
    let guardian = guardian_of(sc.pid());
    sc.child.kill().unwrap();
    sc.child.wait().unwrap();
    // The guardian's sweep is over once it exited.
    all_dead("the server and the guardian", &[server, guardian]);
    let survived = pid_alive(daemon);
    if survived {
        signal(daemon, Signal::SIGKILL);
    }
    assert!(
        survived,
        "the daemon outlives the guardian's sweep without cgroups (docs/supervision.md)"
    );
}
