//! Replicas of the gateway behind real load balancers: HAProxy and nginx (Debian's packages) on
//! loopback in front of three `mcp-sidecar mcp --http --replica rN` processes, configured as
//! `docs/deploy/haproxy.cfg` and `docs/deploy/nginx.conf` say. 2026-07-28 requests spread over the
//! replicas with no affinity; a legacy session stays on the replica that opened it (HAProxy
//! learns `Mcp-Session-Id` from the response that created it, nginx reads the replica's name in
//! front of it); a replica killed under load fails only the calls in flight on it — each answered
//! once, by the balancer's 502 — while every new call goes to the replicas left.
//!
//! Which replica answered is visible: each replica's fixture has `REPLICA=<name>` in its
//! environment (the fixture's `environment` tool returns it), and its own `--sleep-gate`, so the
//! test sees which `sleep` calls are in flight where and chooses when they may finish.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use super::harness::{free_port, open_legacy_session, post_at, post_modern_at, HttpSidecar};
use crate::support::{eventually, fixture, signal, temp_dir, with_fields};

const REPLICAS: [&str; 3] = ["r1", "r2", "r3"];

/// The configs the docs give; the tests put their loopback ports in.
const HAPROXY_CFG: &str = include_str!("../../../docs/deploy/haproxy.cfg");
const NGINX_CONF: &str = include_str!("../../../docs/deploy/nginx.conf");

#[derive(Clone, Copy, Debug)]
enum Kind {
    Haproxy,
    Nginx,
}

/// One replica: the gateway and the gate of its fixture's `sleep` calls.
struct Replica {
    name: &'static str,
    gateway: HttpSidecar,
    gate: PathBuf,
}

impl Replica {
    fn start(name: &'static str, dir: &Path) -> Replica {
        let gate = dir.join(format!("gate-{name}"));
        let server = with_fields(
            fixture(&["--sleep-gate", gate.to_str().unwrap()]),
            json!({"env": {"REPLICA": name}}),
        );
        let gateway = HttpSidecar::start(json!({ "fx": server }), &["--replica", name]);
        Replica {
            name,
            gateway,
            gate,
        }
    }

    /// How many `sleep` calls have reached this replica's fixture.
    fn arrivals(&self) -> usize {
        let mut file = self.gate.as_os_str().to_owned();
        file.push(".arrivals");
        std::fs::read_to_string(PathBuf::from(file)).map_or(0, |text| text.lines().count())
    }
}

/// A load balancer in the foreground, stopped when dropped.
struct Balancer {
    child: Child,
    port: u16,
}

impl Balancer {
    fn start(kind: Kind, replicas: &[Replica], dir: &Path) -> Balancer {
        let port = free_port();
        let dir = dir.to_str().unwrap();
        let (program, args) = match kind {
            Kind::Haproxy => {
                let path = format!("{dir}/haproxy.cfg");
                std::fs::write(&path, haproxy_config(port, replicas)).unwrap();
                ("haproxy", vec!["-db".to_owned(), "-f".to_owned(), path])
            }
            Kind::Nginx => {
                let path = format!("{dir}/nginx.conf");
                std::fs::write(&path, nginx_config(port, replicas)).unwrap();
                let globals =
                    format!("daemon off; pid {dir}/nginx.pid; error_log {dir}/nginx.log;");
                let args = ["-p", dir, "-c", &path, "-g", &globals];
                ("nginx", args.map(str::to_owned).to_vec())
            }
        };
        #[allow(clippy::disallowed_methods)] // the load balancer under which the binary is tested
        let child = Command::new(program)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(format!("{dir}/{program}.stderr")).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("{program} (a Debian package, installed by .ci/run): {e}"));
        eventually(&format!("{program} listening"), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        Balancer { child, port }
    }
}

/// `docs/deploy/haproxy.cfg` with this test's ports.
fn haproxy_config(port: u16, replicas: &[Replica]) -> String {
    let servers: String = replicas
        .iter()
        .map(|r| format!("    server {} 127.0.0.1:{} check\n", r.name, r.gateway.port))
        .collect();
    let config = HAPROXY_CFG.replace("0.0.0.0:8080", &format!("127.0.0.1:{port}")).replace(
        "    server-template replica 3 gateway.internal:8080 check resolvers dns init-addr none\n",
        &servers,
    );
    assert!(
        config.contains(&servers),
        "the documented config changed shape"
    );
    config
}

/// `docs/deploy/nginx.conf` with this test's ports, and one worker: each worker keeps its own
/// round robin, and the spread test counts an exact third per replica.
fn nginx_config(port: u16, replicas: &[Replica]) -> String {
    let mut config = NGINX_CONF
        .replace("worker_processes auto;", "worker_processes 1;")
        .replace("listen 8080;", &format!("listen 127.0.0.1:{port};"));
    for (k, replica) in replicas.iter().enumerate() {
        let documented = format!("10.0.0.1{}:8080", k + 1);
        assert!(
            config.contains(&documented),
            "the documented config changed shape"
        );
        config = config.replace(&documented, &format!("127.0.0.1:{}", replica.gateway.port));
    }
    config
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

/// The replica whose fixture answered an `environment` call, from the reply's result.
fn replica_of(reply: &super::harness::Reply) -> String {
    assert_eq!(reply.status, 200, "{reply:?}");
    let message = reply.message();
    message["result"]["structuredContent"]["env"]["REPLICA"]
        .as_str()
        .unwrap_or_else(|| panic!("no REPLICA in {message}"))
        .to_owned()
}

fn fleet(kind: Kind) -> (Vec<Replica>, Balancer) {
    let dir = temp_dir(&format!("lb-{kind:?}"));
    let replicas: Vec<Replica> = REPLICAS.iter().map(|n| Replica::start(n, &dir)).collect();
    let balancer = Balancer::start(kind, &replicas, &dir);
    (replicas, balancer)
}

#[test]
fn modern_requests_spread_over_the_replicas_with_no_affinity() {
    spread(Kind::Haproxy);
    spread(Kind::Nginx);
}

#[test]
fn a_legacy_session_stays_on_the_replica_that_opened_it() {
    sticky(Kind::Haproxy);
    sticky(Kind::Nginx);
}

#[test]
fn a_replica_killed_under_load_fails_only_its_calls_in_flight_and_new_calls_go_elsewhere() {
    killed(Kind::Haproxy);
    killed(Kind::Nginx);
}

fn spread(kind: Kind) {
    let (_replicas, lb) = fleet(kind);
    let mut answered: BTreeMap<String, usize> = BTreeMap::new();
    for id in 0..9 {
        let reply = post_modern_at(
            lb.port,
            id,
            "tools/call",
            call("fx__environment", json!({})),
            &[],
        );
        *answered.entry(replica_of(&reply)).or_default() += 1;
    }
    // Round robin over three ready replicas: each takes a third, with no session to keep.
    assert_eq!(
        answered,
        REPLICAS.iter().map(|r| (r.to_string(), 3)).collect(),
        "2026-07-28 calls through {kind:?}"
    );
}

fn sticky(kind: Kind) {
    let (_replicas, lb) = fleet(kind);
    // Three sessions: round robin opens them on different replicas.
    let sessions: Vec<String> = (0..3)
        .map(|_| open_legacy_session(lb.port, json!({})))
        .collect();
    let mut homes = Vec::new();
    for session in &sessions {
        let with = [
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        let mut seen = Vec::new();
        for id in 2..8 {
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                              "params": call("fx__environment", json!({}))});
            // Without affinity, two of every three would reach a replica that never heard of
            // the session: 404.
            seen.push(replica_of(&post_at(lb.port, &body, &with)));
        }
        seen.dedup();
        assert_eq!(seen.len(), 1, "{kind:?}: session {session} moved: {seen:?}");
        homes.push(seen.remove(0));
    }
    homes.sort();
    homes.dedup();
    assert_eq!(
        homes.len(),
        3,
        "{kind:?} spread the sessions over the replicas"
    );
}

fn killed(kind: Kind) {
    let (mut replicas, lb) = fleet(kind);
    // Six calls in flight, two per replica (round robin), each held at its replica's gate.
    let port = lb.port;
    let calls: Vec<_> = (0..6)
        .map(|id| {
            std::thread::spawn(move || {
                post_modern_at(
                    port,
                    id,
                    "tools/call",
                    call("fx__sleep", json!({"ms": 0})),
                    &[],
                )
            })
        })
        .collect();
    eventually("two sleep calls in flight on every replica", || {
        replicas.iter().all(|r| r.arrivals() == 2)
    });
    // Kill r2 outright, as the kernel's OOM killer or a node failure would.
    let victim = replicas.remove(1);
    let mut gateway = victim.gateway;
    signal(gateway.pid(), nix::sys::signal::Signal::SIGKILL);
    assert!(gateway.wait_exit().is_none(), "killed by a signal");
    for survivor in &replicas {
        std::fs::write(&survivor.gate, b"").unwrap();
    }

    let replies: Vec<_> = calls.into_iter().map(|t| t.join().unwrap()).collect();
    let mut slept = 0;
    let mut failed = 0;
    for reply in &replies {
        match reply.status {
            200 => {
                // Exactly one answer per request: no second response, no duplicate.
                let messages = reply.messages();
                assert_eq!(messages.len(), 1, "{reply:?}");
                assert_eq!(messages[0]["result"]["content"][0]["text"], "slept 0 ms");
                slept += 1;
            }
            // The balancer's own answer for a request its replica dropped: never retried
            // (HAProxy: `retry-on conn-failure` only; nginx never passes a sent POST on), so the
            // call did not run twice.
            502 => failed += 1,
            other => panic!("unexpected status {other}: {reply:?}"),
        }
    }
    assert_eq!((slept, failed), (4, 2), "{kind:?}: {replies:#?}");

    // New calls go to the replicas left, at once: a connection refused by the dead replica is
    // redispatched before its health check has even noticed.
    let mut answered: BTreeMap<String, usize> = BTreeMap::new();
    for id in 10..16 {
        let reply = post_modern_at(
            port,
            id,
            "tools/call",
            call("fx__environment", json!({})),
            &[],
        );
        *answered.entry(replica_of(&reply)).or_default() += 1;
    }
    assert!(!answered.contains_key("r2"), "{kind:?}: {answered:?}");
    assert_eq!(answered.values().sum::<usize>(), 6);
}
