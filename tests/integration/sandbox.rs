//! Sandboxed servers (docs/sandbox.md): the `sandbox` field through every config dialect in both
//! spellings, bound by the trust digest; and on Linux, real servers under it: the level status
//! reports and the kernel shows, what a strict server is refused (a file outside its lists, a
//! loopback port it was not given, a child process), a part this host is told to lack refusing
//! the start unless weaker is allowed, and a denial named in the server's status.

use std::collections::BTreeMap;

use mcp_sidecar::config::load::{load_document, Sources};
use mcp_sidecar::config::{extras, ServerSpec};
use mcp_sidecar::sandbox::{NetworkPolicy, SandboxPolicy};
use mcp_sidecar::trust::digest::digest;
use serde_json::{json, Value};

fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/u".into()),
        _ => None,
    }
}

/// The policy of server `a` of a config document (any dialect), with the digest of its launch.
fn loaded(doc: &Value) -> (Option<SandboxPolicy>, String) {
    let inputs = BTreeMap::new();
    let l = load_document(
        doc,
        None,
        &Sources {
            env: &env,
            inputs: &inputs,
        },
    );
    assert!(
        l.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        l.diagnostics
    );
    let config = &l.servers.iter().find(|c| c.name == "a").unwrap().config;
    let (launch, extras) = extras::split(config).unwrap();
    let spec = ServerSpec::from_json(&launch).unwrap_or_else(|e| panic!("{launch}: {e}"));
    let d = digest(&spec, &extras);
    (spec.sandbox, d)
}

/// Every dialect keeps `sandbox` (camelCase and snake_case inside it alike), expands `${HOME}` in
/// its paths, and the digest is the same whichever way it was written.
#[test]
fn config_passes_every_dialect_in_both_spellings() {
    // `home`: the dialect's own way to name $HOME (Codex expands nothing).
    let sandbox = |home: &str, snake: bool| {
        let mut s = json!({"preset": "strict", "read": [format!("{home}/.config/x")], "write": ["/tmp/out"],
            "network": {"loopback": [8080]}, "processes": {"spawn": false, "max": 8}});
        s["limits"] = if snake {
            json!({"memory_mb": 256, "open_files": 128, "cpu_seconds": 30})
        } else {
            json!({"memoryMb": 256, "openFiles": 128, "cpuSeconds": 30})
        };
        s[if snake { "allow_weaker" } else { "allowWeaker" }] = json!(true);
        s
    };
    let docs = |snake: bool| {
        vec![
            // Claude Code
            json!({"mcpServers": {"a": {"command": "srv", "sandbox": sandbox("${HOME}", snake)}}}),
            // VS Code
            json!({"servers": {"a": {"type": "stdio", "command": "srv", "sandbox": sandbox("${env:HOME}", snake)}}}),
            // Codex (TOML text)
            Value::from(format!(
                "[mcp_servers.a]\ncommand = \"srv\"\nsandbox = {}\n",
                toml_inline(&sandbox("/home/u", snake))
            )),
        ]
    };
    let mut digests = Vec::new();
    for doc in docs(false).into_iter().chain(docs(true)) {
        let (policy, d) = loaded(&doc);
        let policy = policy.unwrap_or_else(|| panic!("no sandbox from {doc}"));
        assert_eq!(
            policy.read,
            vec![std::path::PathBuf::from("/home/u/.config/x")],
            "{doc}"
        );
        assert_eq!(
            policy.network,
            NetworkPolicy::Loopback { ports: vec![8080] }
        );
        assert_eq!(policy.memory_bytes, Some(256 << 20));
        assert!(policy.allow_weaker && !policy.spawn);
        digests.push(d);
    }
    digests.dedup();
    assert_eq!(digests.len(), 1, "one digest whatever the spelling");
    // The key itself in snake_case is the same word; `sandbox: false` is no sandbox.
    let (off, _) = loaded(&json!({"mcpServers": {"a": {"command": "srv", "sandbox": false}}}));
    assert!(off.is_none());
}

/// A change to any field of the sandbox changes the digest: an approved server cannot be given a
/// looser (or just different) sandbox without a new approval.
#[test]
fn digest_moves_with_every_sandbox_field() {
    let d = |sandbox: Value| {
        loaded(&json!({"mcpServers": {"a": {"command": "srv", "sandbox": sandbox}}})).1
    };
    let base = json!({"read": ["/a"], "write": ["/w"], "network": "none",
        "processes": {"spawn": true, "max": 8}, "limits": {"memoryMb": 64, "openFiles": 64, "cpuSeconds": 5},
        "allowWeaker": false});
    let before = d(base.clone());
    let changes = [
        ("preset", json!("network")),
        ("read", json!(["/a", "/b"])),
        ("write", json!([])),
        ("network", json!("loopback")),
        ("processes", json!({"spawn": false, "max": 8})),
        ("processes", json!({"spawn": true, "max": 9})),
        (
            "limits",
            json!({"memoryMb": 65, "openFiles": 64, "cpuSeconds": 5}),
        ),
        (
            "limits",
            json!({"memoryMb": 64, "openFiles": 65, "cpuSeconds": 5}),
        ),
        (
            "limits",
            json!({"memoryMb": 64, "openFiles": 64, "cpuSeconds": 6}),
        ),
        ("allowWeaker", json!(true)),
    ];
    for (field, value) in changes {
        let mut changed = base.clone();
        changed[field] = value.clone();
        assert_ne!(d(changed), before, "sandbox.{field} = {value}");
    }
    assert_ne!(d(json!(false)), before);
}

/// A TOML inline table for a JSON object (enough for the sandbox's shapes).
fn toml_inline(v: &Value) -> String {
    match v {
        Value::Object(m) => format!(
            "{{ {} }}",
            m.iter()
                .map(|(k, v)| format!("{k} = {}", toml_inline(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(toml_inline).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

#[cfg(target_os = "linux")]
mod enforced {
    use std::net::TcpListener;
    use std::path::Path;

    use serde_json::{json, Value};

    use crate::support::{data_path, fixture, temp_dir, with_fields, Sidecar};

    /// The Python interpreter itself (not a version manager's shim, which runs through folders a
    /// sandbox would have to list).
    #[allow(clippy::disallowed_methods)] // the test asks the interpreter where it is
    fn python() -> String {
        static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        PYTHON
            .get_or_init(|| {
                let out = std::process::Command::new("python3")
                    .args(["-c", "import sys; print(sys.executable)"])
                    .output()
                    .expect("python3 runs");
                String::from_utf8(out.stdout).unwrap().trim().to_owned()
            })
            .clone()
    }

    /// The probe server (tests/data/sandbox_probe_server.py) with `sandbox`.
    fn probe(sandbox: Value) -> Value {
        json!({
            "command": python(),
            "args": [data_path("sandbox_probe_server.py")],
            "sandbox": sandbox,
        })
    }

    /// Calls a probe tool; its `{ok, errno?, error?}`.
    fn attempt(s: &mut Sidecar, server: &str, tool: &str, arguments: Value) -> Value {
        let r = s.call(
            "tools/call",
            json!({"name": format!("mcp__{server}__{tool}"), "arguments": arguments}),
        );
        serde_json::from_str(r["text"].as_str().unwrap_or_else(|| panic!("{r}")))
            .unwrap_or_else(|e| panic!("{e}: {r}"))
    }

    fn strings(v: &Value) -> Vec<&str> {
        v.as_array()
            .unwrap_or_else(|| panic!("not a list: {v}"))
            .iter()
            .filter_map(Value::as_str)
            .collect()
    }

    /// A `/proc/PID/status` field.
    fn proc_status(pid: u64, field: &str) -> String {
        let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{field}:")))
            .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
            .trim()
            .to_owned()
    }

    /// The v1 or v2 cgroup folder of `pid` that holds `file` (the memory or pids limit).
    fn limit_file(pid: u64, controller: &str, file_v1: &str, file_v2: &str) -> String {
        let cgroups = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap();
        for line in cgroups.lines() {
            let mut parts = line.splitn(3, ':');
            let (_, controllers, path) = (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap(),
            );
            let candidates = if controllers.split(',').any(|c| c == controller) {
                vec![Path::new("/sys/fs/cgroup")
                    .join(controller)
                    .join(path.trim_start_matches('/'))
                    .join(file_v1)]
            } else if controllers.is_empty() {
                ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
                    .iter()
                    .map(|m| {
                        Path::new(m)
                            .join(path.trim_start_matches('/'))
                            .join(file_v2)
                    })
                    .collect()
            } else {
                Vec::new()
            };
            if let Some(text) = candidates
                .iter()
                .find_map(|f| std::fs::read_to_string(f).ok())
            {
                return text.trim().to_owned();
            }
        }
        panic!("no {controller} limit for {pid}: {cgroups}")
    }

    /// Under `strict`, status names every part in force and none missing, and the kernel shows
    /// them on the server's process: seccomp filtering, no new privileges, its own network
    /// namespace, the open-file limit, the memory and task limits in its cgroups. The server works.
    #[test]
    fn strict_level_in_status_and_on_the_process() {
        let mut s = Sidecar::initialized(json!({}));
        let status = s.add(
            "fx",
            with_fields(fixture(&[]), json!({"sandbox": "strict"})),
        );
        assert_eq!(status["state"], "ready", "{status}");
        let level = &status["sandbox"];
        assert_eq!(level["preset"], "strict", "{level}");
        assert!(strings(&level["missing"]).is_empty(), "{level}");
        for part in [
            "landlock-fs",
            "landlock-net",
            "seccomp",
            "netns",
            "rlimits",
            "cgroup-memory",
            "cgroup-pids",
        ] {
            assert!(
                strings(&level["enforced"]).contains(&part),
                "{part} not in {level}"
            );
        }
        let r = s.call(
            "tools/call",
            json!({"name": "mcp__fx__echo", "arguments": {"message": "in a box"}}),
        );
        assert_eq!(r["text"], "in a box", "{r}");
        let pid = status["pid"].as_u64().unwrap();
        assert_eq!(proc_status(pid, "Seccomp"), "2");
        assert_eq!(proc_status(pid, "NoNewPrivs"), "1");
        let own = std::fs::read_link("/proc/self/ns/net").unwrap();
        assert_ne!(
            std::fs::read_link(format!("/proc/{pid}/ns/net")).unwrap(),
            own
        );
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
        let open_files = limits
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .unwrap();
        assert_eq!(
            open_files.split_whitespace().nth(3),
            Some("1024"),
            "{open_files}"
        );
        assert_eq!(
            limit_file(pid, "memory", "memory.limit_in_bytes", "memory.max"),
            (1024u64 << 20).to_string()
        );
        assert_eq!(limit_file(pid, "pids", "pids.max", "pids.max"), "64");
        // An unsandboxed server has none of it.
        let plain = s.add("plain", fixture(&[]));
        assert!(plain.get("sandbox").is_none(), "{plain}");
        assert_eq!(proc_status(plain["pid"].as_u64().unwrap(), "Seccomp"), "0");
    }

    /// A strict server reads what its lists give and nothing else, writes only its own temporary
    /// folder and what `write` lists, connects nowhere, and may still start a child.
    #[test]
    fn strict_refuses_paths_and_network_it_was_not_given() {
        let given = temp_dir("sandbox-given");
        let other = temp_dir("sandbox-other");
        std::fs::write(given.join("in.txt"), "readable").unwrap();
        std::fs::write(other.join("secret.txt"), "not for the server").unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut s = Sidecar::initialized(json!({}));
        let status = s.add("p", probe(json!({"read": [given]})));
        assert_eq!(status["state"], "ready", "{status}");
        let read =
            |s: &mut Sidecar, path: &Path| attempt(s, "p", "read_file", json!({"path": path}));
        assert_eq!(read(&mut s, &given.join("in.txt"))["ok"], true);
        let refused = read(&mut s, &other.join("secret.txt"));
        assert_eq!(
            (refused["ok"].clone(), refused["errno"].clone()),
            (json!(false), json!(13)),
            "{refused}"
        );
        let write = attempt(
            &mut s,
            "p",
            "write_file",
            json!({"path": given.join("new.txt")}),
        );
        assert_eq!(write["errno"], 13, "a read-only path: {write}");
        let tmp = attempt(&mut s, "p", "tmpdir", json!({}))["detail"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            !tmp.is_empty() && !tmp.starts_with(given.to_str().unwrap()),
            "{tmp}"
        );
        let scratch = attempt(
            &mut s,
            "p",
            "write_file",
            json!({"path": Path::new(&tmp).join("scratch")}),
        );
        assert_eq!(scratch["ok"], true, "its own temporary folder: {scratch}");
        let connect = attempt(&mut s, "p", "connect", json!({"port": port}));
        assert_eq!(connect["ok"], false, "{connect}");
        assert_eq!(
            connect["errno"], 13,
            "refused at once by the socket filter: {connect}"
        );
        assert_eq!(attempt(&mut s, "p", "spawn", json!({}))["ok"], true);
        // Given `write`, the same folder is writable.
        let writer = s.add("w", probe(json!({"write": [given]})));
        assert_eq!(writer["state"], "ready", "{writer}");
        assert_eq!(
            attempt(
                &mut s,
                "w",
                "write_file",
                json!({"path": given.join("new.txt")})
            )["ok"],
            true
        );
        drop(listener);
    }

    /// `network: {"loopback": [port]}`: that port connects, another loopback port is refused
    /// (Landlock); `processes.spawn: false`: no child process.
    #[test]
    fn loopback_ports_and_no_spawn() {
        let given = TcpListener::bind("127.0.0.1:0").unwrap();
        let other = TcpListener::bind("127.0.0.1:0").unwrap();
        let (given_port, other_port) = (
            given.local_addr().unwrap().port(),
            other.local_addr().unwrap().port(),
        );
        let mut s = Sidecar::initialized(json!({}));
        let status = s.add(
            "p",
            probe(json!({"network": {"loopback": [given_port]}, "processes": {"spawn": false}})),
        );
        assert_eq!(status["state"], "ready", "{status}");
        assert!(
            !strings(&status["sandbox"]["enforced"]).contains(&"netns"),
            "{status}"
        );
        assert_eq!(
            attempt(&mut s, "p", "connect", json!({"port": given_port}))["ok"],
            true
        );
        let refused = attempt(&mut s, "p", "connect", json!({"port": other_port}));
        assert_eq!(refused["errno"], 13, "{refused}");
        let spawn = attempt(&mut s, "p", "spawn", json!({}));
        assert_eq!(
            (spawn["ok"].clone(), spawn["errno"].clone()),
            (json!(false), json!(1)),
            "EPERM: {spawn}"
        );
    }

    /// `network.allow`: the server reaches a listed host through its egress proxy (the only port
    /// it may connect to), not directly, and an unlisted one not at all (the proxy's 403).
    #[test]
    fn allow_reaches_listed_hosts_through_the_egress_proxy_only() {
        let listed = TcpListener::bind("127.0.0.1:0").unwrap();
        let unlisted = TcpListener::bind("127.0.0.1:0").unwrap();
        let (listed_port, unlisted_port) = (
            listed.local_addr().unwrap().port(),
            unlisted.local_addr().unwrap().port(),
        );
        // One answer to the one request the proxy forwards.
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listed.accept().unwrap();
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                std::io::Read::read_exact(&mut stream, &mut byte).unwrap();
                head.push(byte[0]);
            }
            let reply = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
            std::io::Write::write_all(&mut stream, reply).unwrap();
        });
        let mut s = Sidecar::initialized(json!({}));
        let status = s.add(
            "p",
            probe(json!({"network": {"allow": [format!("127.0.0.1:{listed_port}")]}})),
        );
        assert_eq!(status["state"], "ready", "{status}");
        assert!(
            strings(&status["sandbox"]["enforced"]).contains(&"egress-proxy"),
            "{status}"
        );
        let fetched = attempt(
            &mut s,
            "p",
            "fetch",
            json!({"url": format!("http://127.0.0.1:{listed_port}/")}),
        );
        assert_eq!(fetched["detail"], "hello", "{fetched}");
        server.join().unwrap();
        let direct = attempt(&mut s, "p", "connect", json!({"port": listed_port}));
        assert_eq!(direct["errno"], 13, "only the proxy's port: {direct}");
        let refused = attempt(
            &mut s,
            "p",
            "fetch",
            json!({"url": format!("http://127.0.0.1:{unlisted_port}/")}),
        );
        assert!(
            refused["error"].as_str().unwrap_or("").contains("403"),
            "{refused}"
        );
    }

    /// A part this host is told to lack (the debug-build override) refuses the start with
    /// SANDBOX_DENIED naming it and the setting that would allow it; with `allowWeaker` the server
    /// starts and status lists what is missing.
    #[test]
    fn a_missing_part_refuses_the_start_unless_weaker_is_allowed() {
        let env = [("MCP_SIDECAR_SANDBOX_PRETEND_MISSING", "landlock-net")];
        let mut s = Sidecar::spawn_with(&[], &env);
        s.initialize(json!({}));
        let refused = s.add(
            "fx",
            with_fields(fixture(&[]), json!({"sandbox": "strict"})),
        );
        assert_eq!(refused["state"], "error", "{refused}");
        assert!(refused.get("pid").is_none(), "nothing ran: {refused}");
        let error = &refused["lastError"];
        assert_eq!(error["data"]["code"], "SANDBOX_DENIED", "{error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("landlock-net") && message.contains("sandbox.allowWeaker"),
            "{message}"
        );
        assert_eq!(
            error["data"]["sandbox"]["missing"],
            json!(["landlock-net"]),
            "{error}"
        );
        assert_eq!(
            refused["sandbox"]["missing"],
            json!(["landlock-net"]),
            "{refused}"
        );
        let status = s.add(
            "weaker",
            with_fields(fixture(&[]), json!({"sandbox": {"allowWeaker": true}})),
        );
        assert_eq!(status["state"], "ready", "{status}");
        assert_eq!(
            status["sandbox"]["missing"],
            json!(["landlock-net"]),
            "{status}"
        );
        assert!(
            strings(&status["sandbox"]["enforced"]).contains(&"landlock-fs"),
            "{status}"
        );
    }

    /// A server that fails because its sandbox refused it a file says which file and which key
    /// would allow it, in its status's error (SANDBOX_DENIED) and its stderr tail.
    #[test]
    fn a_denial_at_start_is_named_with_the_key_that_allows_it() {
        let other = temp_dir("sandbox-denied");
        let secret = other.join("config.json");
        std::fs::write(&secret, "{}").unwrap();
        let mut s = Sidecar::initialized(json!({}));
        let mut config = probe(json!("strict"));
        config["env"] = json!({"SANDBOX_PROBE_READ_AT_START": secret});
        config["restart"] = json!("never");
        let status = s.add("p", config);
        assert_eq!(status["state"], "error", "{status}");
        let error = &status["lastError"];
        assert_eq!(error["data"]["code"], "SANDBOX_DENIED", "{error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(secret.to_str().unwrap()) && message.contains("sandbox.read"),
            "{message}"
        );
        assert_eq!(
            error["data"]["refused"],
            format!("access to {}", secret.display())
        );
        assert!(
            status["stderrTail"]
                .as_str()
                .unwrap()
                .contains("Permission denied"),
            "{status}"
        );
        // Listed in `read`, the same server starts.
        let mut allowed = probe(json!({"read": [other]}));
        allowed["env"] = json!({"SANDBOX_PROBE_READ_AT_START": secret});
        assert_eq!(s.add("q", allowed)["state"], "ready");
    }

    /// A Node server whose dependency lies outside what its sandbox reads: Node reports the
    /// package missing (ERR_MODULE_NOT_FOUND, having read no `package.json`), and the status
    /// names the package's folder as refused and `sandbox.read` as the setting. Readable, it starts.
    #[test]
    fn node_missing_module_behind_the_sandbox_is_a_denial() {
        let root = temp_dir("sandbox-node-module");
        let package = root.join("node_modules").join("hidden-dep");
        std::fs::create_dir_all(package.join("dist")).unwrap();
        std::fs::write(
            package.join("package.json"),
            r#"{"name": "hidden-dep", "version": "1.0.0", "type": "module", "exports": "./dist/index.js"}"#,
        )
        .unwrap();
        std::fs::write(
            package.join("dist").join("index.js"),
            "export const x = 1;\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("app")).unwrap();
        let script = root.join("app").join("server.mjs");
        // Importing it is all the server does (an MCP server would answer after its imports).
        std::fs::write(
            &script,
            "import 'hidden-dep';\nconsole.error('imported');\nprocess.exit(3);\n",
        )
        .unwrap();
        let mut s = Sidecar::initialized(json!({}));
        let config =
            json!({"command": "node", "args": [script], "sandbox": "strict", "restart": "never"});
        let status = s.add("n", config.clone());
        assert_eq!(status["state"], "error", "{status}");
        let error = &status["lastError"];
        assert_eq!(error["data"]["code"], "SANDBOX_DENIED", "{error}");
        assert_eq!(
            error["data"]["refused"],
            format!("access to {}", package.display()),
            "{error}"
        );
        assert_eq!(error["data"]["setting"], "sandbox.read", "{error}");
        assert!(
            status["stderrTail"]
                .as_str()
                .unwrap()
                .contains("ERR_MODULE_NOT_FOUND"),
            "{status}"
        );
        // With the package readable, Node loads it (then exits, being no MCP server): no denial.
        let mut allowed = config;
        allowed["sandbox"] = json!({"read": [root.join("node_modules")]});
        let status = s.add("m", allowed);
        assert!(
            status["stderrTail"].as_str().unwrap().contains("imported"),
            "{status}"
        );
        assert_ne!(
            status["lastError"]["data"]["code"], "SANDBOX_DENIED",
            "{status}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    /// `doctor` explains a sandbox refusal: what was refused, and the config that would allow it.
    #[test]
    fn doctor_names_the_refusal_and_the_setting_that_allows_it() {
        let other = temp_dir("sandbox-doctor");
        let secret = other.join("token");
        std::fs::write(&secret, "x").unwrap();
        let mut config = probe(json!("strict"));
        config["env"] = json!({"SANDBOX_PROBE_READ_AT_START": secret});
        let file = crate::cli::config_file("sandbox-doctor-file", json!({"p": config}));
        let r = crate::cli::run(&["doctor", "--config", file.to_str().unwrap(), "--json"]);
        let doc = r.json();
        let finding = &doc["servers"][0]["findings"][0];
        assert_eq!(finding["kind"], "sandbox-denied", "{doc}");
        assert_eq!(
            finding["summary"],
            format!("its sandbox refused it access to {}", secret.display())
        );
        let fix = finding["fix"][0].as_str().unwrap();
        assert!(
            fix.contains(&format!("\"read\": [\"{}\"]", secret.display())),
            "{fix}"
        );
    }

    /// A server the memory limit kills is reported as such: SANDBOX_DENIED naming the limit and
    /// the key that raises it; the sidecar and its other server go on.
    #[test]
    fn the_memory_limit_kills_and_says_so() {
        let mut s = Sidecar::initialized(json!({}));
        let mut config = with_fields(
            fixture(&[]),
            json!({"sandbox": {"limits": {"memoryMb": 16}}, "restart": "never"}),
        );
        config["maxMessageBytes"] = json!(1 << 30);
        config["maxResultBytes"] = json!(1 << 30);
        assert_eq!(s.add("small", config)["state"], "ready");
        assert_eq!(s.add("plain", fixture(&[]))["state"], "ready");
        let r = s.request(
            "tools/call",
            json!({"name": "mcp__small__large", "arguments": {"bytes": 256 << 20}}),
        );
        assert!(r.get("error").is_some(), "{r}");
        let status = s.server_changed("small", |st| {
            matches!(st["state"].as_str(), Some("error" | "unhealthy"))
                && st.get("lastExit").is_some()
        });
        let error = &status["lastError"];
        assert_eq!(error["data"]["code"], "SANDBOX_DENIED", "{status}");
        assert_eq!(
            error["data"]["setting"], "sandbox.limits.memoryMb",
            "{status}"
        );
        assert_eq!(status["lastExit"]["signal"], 9, "{status}");
        let echo = s.call(
            "tools/call",
            json!({"name": "mcp__plain__echo", "arguments": {"message": "still here"}}),
        );
        assert_eq!(echo["text"], "still here");
    }
}
