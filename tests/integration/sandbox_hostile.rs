//! The sandbox against a server that tries what it must not: `mcp-hostile` reads a (fake) SSH key and
//! the real `/etc/shadow`, writes outside its folder, connects to a loopback port it was not given
//! and to an outside address, forks 500 children, takes 2 GB, ptraces the sidecar and escapes with
//! setsid and a double fork. Each attempt is refused under the `strict` preset with the errno the
//! kernel gives, succeeds when the config allows it, and an unsandboxed server beside it keeps
//! answering (and keeps its own freedom) throughout.

use std::net::TcpListener;
use std::path::PathBuf;

use nix::errno::Errno;
use serde_json::{json, Value};

use crate::support::*;

/// The refusals a sandbox answers with (Landlock: EACCES; seccomp: EPERM or EACCES as it was built).
const REFUSED: [Errno; 2] = [Errno::EACCES, Errno::EPERM];

/// A scratch folder with a fake home (`.ssh/id_rsa`) the servers get as `HOME`: the real one is never
/// touched.
struct Scene {
    dir: PathBuf,
    home: PathBuf,
    sc: Sidecar,
}

const FAKE_KEY: &str = "-----BEGIN FAKE KEY-----\nnot a real key\n-----END FAKE KEY-----\n";

impl Scene {
    /// A sidecar serving `free`, an unsandboxed `mcp-hostile` with the same fake home.
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

    /// `mcp-hostile` under `sandbox`, with the fake home.
    fn config(&self, sandbox: Value) -> Value {
        json!({
            "command": hostile_bin(),
            "env": {"HOME": self.home},
            "sandbox": sandbox,
        })
    }

    /// Adds `name` under `sandbox`; it must start.
    fn add(&mut self, name: &str, sandbox: Value) -> Value {
        let status = self.sc.add(name, self.config(sandbox));
        assert_eq!(status["state"], "ready", "{status}");
        status
    }

    /// What tool `tool` of `server` answered: `{ok, errno?, errnoName?, error?, …}`.
    fn attempt(&mut self, server: &str, tool: &str, arguments: Value) -> Value {
        let result = self.sc.call(
            "tools/call",
            json!({"name": format!("mcp__{server}__{tool}"), "arguments": arguments}),
        );
        result["structuredContent"].clone()
    }

    /// The unsandboxed neighbour still answers, and still reads what the sandboxed one may not.
    fn free_still_answers(&mut self) {
        let key = self.key();
        let read = self.attempt("free", "read_file", json!({ "path": key }));
        assert_eq!(read["ok"], true, "the unsandboxed server: {read}");
        assert_eq!(read["bytes"], FAKE_KEY.len(), "{read}");
    }
}

/// Asserts `outcome` is a refusal with one of `errnos`.
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

#[test]
fn secrets_are_refused_under_strict_and_read_when_listed() {
    let mut scene = Scene::new("hostile-secrets");
    let status = scene.add("boxed", json!("strict"));
    assert_eq!(status["sandbox"]["preset"], "strict", "{status}");
    let key = scene.key();
    let attempt = scene.attempt("boxed", "read_file", json!({ "path": key }));
    refused_with(&attempt, &[Errno::EACCES]);
    let shadow = scene.attempt("boxed", "read_file", json!({"path": "/etc/shadow"}));
    refused_with(&shadow, &[Errno::EACCES]);
    scene.free_still_answers();

    // `read` lists the key's folder: that file, and nothing more.
    let ssh = scene.home.join(".ssh");
    scene.add("listed", json!({"preset": "strict", "read": [ssh]}));
    let attempt = scene.attempt("listed", "read_file", json!({ "path": key }));
    assert_eq!(attempt["ok"], true, "{attempt}");
    assert_eq!(attempt["bytes"], FAKE_KEY.len(), "{attempt}");
    let shadow = scene.attempt("listed", "read_file", json!({"path": "/etc/shadow"}));
    refused_with(&shadow, &[Errno::EACCES]);
    scene.free_still_answers();
}

#[test]
fn writes_outside_its_folders_are_refused_and_land_where_write_allows() {
    let mut scene = Scene::new("hostile-write");
    scene.add("boxed", json!("strict"));
    let outside = scene.dir.join("outside.txt");
    let attempt = scene.attempt("boxed", "write_file", json!({ "path": outside }));
    refused_with(&attempt, &[Errno::EACCES]);
    assert!(!outside.exists(), "a refused write left a file");
    // Its home is not its own either.
    let planted = scene.home.join(".bashrc");
    let attempt = scene.attempt("boxed", "write_file", json!({ "path": planted }));
    refused_with(&attempt, &[Errno::EACCES]);
    assert!(!planted.exists());
    scene.free_still_answers();

    let allowed = scene.dir.join("allowed");
    std::fs::create_dir_all(&allowed).unwrap();
    scene.add("writer", json!({"preset": "strict", "write": [allowed]}));
    let inside = allowed.join("out.txt");
    let attempt = scene.attempt("writer", "write_file", json!({ "path": inside }));
    assert_eq!(attempt["ok"], true, "{attempt}");
    assert_eq!(
        std::fs::read_to_string(&inside).unwrap(),
        "written by mcp-hostile\n"
    );
    let attempt = scene.attempt("writer", "write_file", json!({ "path": outside }));
    refused_with(&attempt, &[Errno::EACCES]);
    scene.free_still_answers();
}

#[test]
fn connections_are_refused_beyond_the_loopback_ports_given() {
    let mut scene = Scene::new("hostile-net");
    let given = TcpListener::bind("127.0.0.1:0").unwrap();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let given_port = given.local_addr().unwrap().port();
    let other_port = other.local_addr().unwrap().port();
    let to = |port: u16| json!({"host": "127.0.0.1", "port": port});

    // Unsandboxed, both ports answer: the refusals below are the sandbox's.
    for port in [given_port, other_port] {
        let attempt = scene.attempt("free", "connect", to(port));
        assert_eq!(attempt["ok"], true, "{attempt}");
    }

    // strict: no network at all, refused at once (an errno, not a timeout).
    scene.add("boxed", json!("strict"));
    let attempt = scene.attempt("boxed", "connect", to(given_port));
    refused_with(&attempt, &[Errno::EACCES, Errno::EPERM, Errno::ENETUNREACH]);
    assert!(attempt.get("timedOut").is_none(), "{attempt}");

    // loopback with one port: that port, and no other.
    scene.add(
        "looped",
        json!({"preset": "strict", "network": {"loopback": [given_port]}}),
    );
    let attempt = scene.attempt("looped", "connect", to(given_port));
    assert_eq!(attempt["ok"], true, "{attempt}");
    let attempt = scene.attempt("looped", "connect", to(other_port));
    refused_with(&attempt, &REFUSED);
    scene.free_still_answers();
}

#[test]
fn an_outside_address_is_refused_by_the_sandbox_not_by_the_network() {
    let mut scene = Scene::new("hostile-outside");
    // TEST-NET-1: never routed. What this machine's network answers without a sandbox (unreachable,
    // refused or a timeout) is not the sandbox's refusal.
    let outside = json!({"host": "192.0.2.1", "port": 80});
    let unsandboxed = scene.attempt("free", "connect", outside.clone());
    assert_eq!(unsandboxed["ok"], false, "{unsandboxed}");
    scene.add("boxed", json!("strict"));
    let boxed = scene.attempt("boxed", "connect", outside.clone());
    refused_with(&boxed, &REFUSED);
    assert!(boxed.get("timedOut").is_none(), "{boxed}");
    assert_ne!(
        boxed["errno"], unsandboxed["errno"],
        "{boxed} vs {unsandboxed}"
    );
    // A loopback port allowed opens nothing beyond the machine.
    let port = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = port.local_addr().unwrap().port();
    scene.add(
        "looped",
        json!({"preset": "strict", "network": {"loopback": [port]}}),
    );
    let looped = scene.attempt("looped", "connect", outside);
    refused_with(&looped, &REFUSED);
    scene.free_still_answers();
}

#[test]
fn a_fork_bomb_stops_at_the_process_limit_and_every_child_dies_with_its_server() {
    let mut scene = Scene::new("hostile-fork");
    scene.add("boxed", json!("strict"));
    let bomb = scene.attempt("boxed", "fork_many", json!({"count": 500}));
    refused_with(&bomb, &[Errno::EAGAIN]);
    let forked = bomb["forked"].as_u64().unwrap();
    assert!(
        forked < 64,
        "strict allows 64 tasks in the tree: {forked} forked"
    );
    scene.free_still_answers();
    let pids = pids_of(&bomb);
    scene.sc.call("servers/remove", json!({"name": "boxed"}));
    assert!(
        pids.iter().all(|p| !pid_alive(*p)),
        "survivors after remove"
    );

    scene.add(
        "roomy",
        json!({"preset": "strict", "processes": {"max": 600}}),
    );
    let bomb = scene.attempt("roomy", "fork_many", json!({"count": 500}));
    assert_eq!(bomb["ok"], true, "{bomb}");
    assert_eq!(bomb["forked"], 500, "{bomb}");
    scene.free_still_answers();
    let pids = pids_of(&bomb);
    scene.sc.call("servers/remove", json!({"name": "roomy"}));
    assert!(
        pids.iter().all(|p| !pid_alive(*p)),
        "survivors after remove"
    );
}

fn pids_of(outcome: &Value) -> Vec<u32> {
    outcome["pids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap() as u32)
        .collect()
}

#[test]
fn ptrace_of_the_sidecar_is_refused_under_strict() {
    let mut scene = Scene::new("hostile-ptrace");
    // Without a sandbox the kernel decides: root (CAP_SYS_PTRACE) may attach unless Yama's scope
    // is 3 (no attach at all); anyone else only when Yama is absent or at 0.
    let scope = std::fs::read_to_string("/proc/sys/kernel/yama/ptrace_scope")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok());
    // `/proc/self` belongs to the process's effective user.
    let root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0;
    let kernel_allows = match scope {
        None | Some(0) => true,
        Some(3) => false,
        Some(_) => root,
    };
    let free = scene.attempt("free", "ptrace_parent", json!({}));
    assert_eq!(free["ok"], kernel_allows, "yama scope {scope:?}: {free}");
    if kernel_allows {
        assert_eq!(free["detached"], true, "{free}");
    }

    scene.add("boxed", json!("strict"));
    let boxed = scene.attempt("boxed", "ptrace_parent", json!({}));
    refused_with(&boxed, &REFUSED);
    // Nothing the config can say allows it: a roomy sandbox refuses it the same.
    scene.add(
        "roomy",
        json!({"preset": "strict", "network": "loopback", "processes": {"max": 600}}),
    );
    let roomy = scene.attempt("roomy", "ptrace_parent", json!({}));
    refused_with(&roomy, &REFUSED);
    scene.free_still_answers();
}

#[test]
fn an_escaped_daemon_stays_in_its_servers_tree_and_dies_on_remove() {
    let mut scene = Scene::new("hostile-escape");
    let status = scene.add("boxed", json!("strict"));
    let server = status["pid"].as_u64().unwrap() as u32;
    // setsid is allowed: the daemon leaves the server's session...
    let escape = scene.attempt("boxed", "escape", json!({}));
    assert_eq!(escape["ok"], true, "{escape}");
    let daemon = escape["pid"].as_u64().unwrap() as u32;
    assert!(pid_alive(daemon));
    let (_, _, session) = parentage(daemon);
    let (_, _, server_session) = parentage(server);
    assert_ne!(
        session, server_session,
        "the daemon left the server's session"
    );
    // ...but not its cgroup, where one is made.
    if let Some(cgroup) = cgroup_of(server).filter(|_| cgroup2_writable()) {
        assert_eq!(cgroup_of(daemon), Some(cgroup));
    }
    scene.free_still_answers();
    scene.sc.call("servers/remove", json!({"name": "boxed"}));
    assert!(!pid_alive(daemon), "the escaped daemon survived its server");
    scene.free_still_answers();
}

#[test]
fn spawning_is_allowed_by_strict_and_refused_by_spawn_false() {
    let mut scene = Scene::new("hostile-spawn");
    scene.add("boxed", json!("strict"));
    let run = scene.attempt("boxed", "spawn", json!({"program": "/bin/true"}));
    assert_eq!(run["ok"], true, "{run}");
    assert_eq!(run["exitCode"], 0, "{run}");
    scene.add(
        "alone",
        json!({"preset": "strict", "processes": {"spawn": false}}),
    );
    let run = scene.attempt("alone", "spawn", json!({"program": "/bin/true"}));
    refused_with(&run, &[Errno::EACCES, Errno::EPERM, Errno::EAGAIN]);
    let bomb = scene.attempt("alone", "fork_many", json!({"count": 3}));
    refused_with(&bomb, &[Errno::EACCES, Errno::EPERM, Errno::EAGAIN]);
    assert_eq!(bomb["forked"], 0, "{bomb}");
    scene.free_still_answers();
}

#[test]
fn two_gigabytes_are_refused_under_the_default_memory_limit() {
    let mut scene = Scene::new("hostile-memory");
    let mut config = scene.config(json!("strict"));
    config["restart"] = json!("never");
    assert_eq!(scene.sc.add("boxed", config)["state"], "ready");
    let request = json!({"name": "mcp__boxed__allocate", "arguments": {"mb": 2048}});
    let answer = scene.sc.request("tools/call", request);
    match answer.get("result") {
        // An address-space limit: the map itself is refused, and the server goes on.
        Some(result) => {
            refused_with(&result["structuredContent"], &[Errno::ENOMEM]);
            let small = scene.attempt("boxed", "allocate", json!({"mb": 64}));
            assert_eq!(small["ok"], true, "{small}");
        }
        // A memory cgroup: the kernel kills the server while it touches the pages; its status
        // names the limit that did it.
        None => {
            let status = scene.sc.server_changed("boxed", |st| {
                st["state"] == "unhealthy" && st["lastError"]["data"].get("exit").is_some()
            });
            let error = &status["lastError"];
            assert_eq!(error["data"]["code"], "SANDBOX_DENIED", "{status}");
            let message = error["message"].as_str().unwrap();
            assert!(
                message.contains("memory") && message.contains("memoryMb"),
                "{message}"
            );
        }
    }
    scene.free_still_answers();

    scene.add(
        "roomy",
        json!({"preset": "strict", "limits": {"memoryMb": 3072}}),
    );
    let big = scene.attempt("roomy", "allocate", json!({"mb": 2048}));
    assert_eq!(big["ok"], true, "{big}");
    scene.free_still_answers();
}
