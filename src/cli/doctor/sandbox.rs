//! Doctor's account of a sandbox refusal (SANDBOX_DENIED): a sandbox this host cannot enforce
//! (each missing part, why, and what would provide it), or something the sandbox refused a
//! running server (the path, address or limit, and the setting that would allow it).

use serde_json::Value;

use super::finding::{finding, Finding, Severity};

/// The finding for a start that ended in SANDBOX_DENIED (its error's `data` and message).
pub(super) fn denied(data: &Value, message: &str) -> Finding {
    match data.get("sandbox") {
        Some(level) => unenforceable(level, message),
        None => refused(data, message),
    }
}

/// The sandbox could not be applied: nothing ran.
fn unenforceable(level: &Value, message: &str) -> Finding {
    let mut f = finding("sandbox-unenforceable", Severity::Error, message.to_owned());
    let names = |key: &str| -> Vec<&str> {
        level[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    };
    for part in names("missing") {
        let why = level["why"][part].as_str().unwrap_or("not available");
        f.evidence.push(format!("missing {part}: {why}"));
        f.fix.push(format!("{part}: {}", provides(part)));
    }
    f.evidence
        .push(format!("enforced: {}", names("enforced").join(", ")));
    f.fix.push(
        "or set \"sandbox\": {…, \"allowWeaker\": true} to start it with what is enforced (status.sandbox then lists what is missing)"
            .into(),
    );
    f
}

/// What gives a host the part `part`.
fn provides(part: &str) -> &'static str {
    match part {
        "landlock-fs" => "a kernel with Landlock ABI 3 or later (Linux 6.2+, `landlock` in the `lsm=` boot list)",
        "landlock-net" => "a kernel with Landlock ABI 4 or later (Linux 6.7+)",
        "seccomp" => "a kernel with seccomp filters, on x86_64, aarch64 or riscv64",
        "netns" => "run the sidecar with CAP_SYS_ADMIN (as root, or in a container allowed to make namespaces)",
        "cgroup-memory" | "cgroup-pids" => "a cgroup the sidecar may write with that controller: cgroup v2 delegated to it (systemd: Delegate=yes, or `systemd-run --user --scope -p Delegate=yes`), or a writable cgroup v1 hierarchy",
        "egress-proxy" => "`network.allow` needs the egress proxy; until this build has it, use \"network\": \"any\" or a loopback list",
        "rlimits" => "setrlimit, which every Linux and macOS has (this part is missing only when a test says so)",
        "seatbelt-fs" | "seatbelt-net" | "seatbelt-process" => "macOS's /usr/bin/sandbox-exec, part of every macOS since 10.5 (missing only where it was removed)",
        "memory-limit" => "nothing on macOS holds a memory limit (it enforces neither RLIMIT_AS nor RLIMIT_DATA on mapped memory): lift it with \"limits\": {\"memoryMb\": null}, or run the server on Linux, where a memory cgroup holds it",
        "process-limit" => "macOS has no per-tree process limit: lift it with \"processes\": {\"max\": null} (\"spawn\": false still stops every fork); under allowWeaker RLIMIT_NPROC stands in (the user's processes at start plus max; not for root)",
        "appcontainer-fs" | "appcontainer-net" => "nothing in this build on Windows: the spawn gives no AppContainer or restricted token, so files and network are not confined there (docs/sandbox.md); run the server on Linux or macOS to confine them",
        "handle-limit" => "Windows has no per-process limit on open handles: lift it with \"limits\": {\"openFiles\": null}",
        _ => "see docs/sandbox.md",
    }
}

/// The server ran and failed on something its sandbox refused.
fn refused(data: &Value, message: &str) -> Finding {
    let what = data["refused"].as_str().unwrap_or("something");
    let setting = data["setting"].as_str().unwrap_or("sandbox");
    let mut f = finding(
        "sandbox-denied",
        Severity::Error,
        format!("its sandbox refused it {what}"),
    );
    f.evidence.push(message.to_owned());
    let path = what.strip_prefix("access to ");
    let address = what.strip_prefix("a connection to ");
    let example = match (setting, path, address) {
        (s, Some(p), _) if s.starts_with("sandbox.read") => format!(
            "list it: \"sandbox\": {{…, \"read\": [\"{p}\"]}} (or \"write\" if the server writes it)"
        ),
        (_, _, Some(a)) => {
            let port = a.rsplit_once(':').map(|(_, p)| p).unwrap_or("PORT");
            format!("allow it: \"sandbox\": {{…, \"network\": {{\"loopback\": [{port}]}}}} for a local port, \"network\": \"any\" (or the `network` preset) for a remote one")
        }
        ("sandbox.limits.memoryMb", _, _) => {
            "raise it: \"sandbox\": {…, \"limits\": {\"memoryMb\": 2048}} (null: no limit)".into()
        }
        ("sandbox.processes.max", _, _) => {
            "raise it: \"sandbox\": {…, \"processes\": {\"max\": 256}} (null: no limit)".into()
        }
        ("sandbox.processes", _, _) => {
            "let it start processes: \"sandbox\": {…, \"processes\": {\"spawn\": true}}".into()
        }
        ("sandbox.limits.openFiles", _, _) => {
            "raise it: \"sandbox\": {…, \"limits\": {\"openFiles\": 4096}}".into()
        }
        _ => format!("set {setting} in the server's config"),
    };
    f.fix.push(example);
    f.fix.push(
        "or, if the server should not need it, it is doing something its sandbox was set up to stop"
            .into(),
    );
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unenforceable_part_names_what_provides_it() {
        let f = denied(
            &json!({"code": "SANDBOX_DENIED", "sandbox": {"enforced": ["landlock-fs"], "missing": ["landlock-net"],
                "why": {"landlock-net": "the kernel's Landlock ABI is 3"}}}),
            "server `s`: its sandbox cannot be applied",
        );
        assert_eq!(f.kind, "sandbox-unenforceable");
        assert!(f
            .evidence
            .contains(&"missing landlock-net: the kernel's Landlock ABI is 3".into()));
        assert!(
            f.fix.iter().any(|l| l.contains("Linux 6.7+")),
            "{:?}",
            f.fix
        );
        assert!(
            f.fix.iter().any(|l| l.contains("allowWeaker")),
            "{:?}",
            f.fix
        );
    }

    #[test]
    fn macos_and_windows_parts_are_explained_like_linux_ones() {
        let f = denied(
            &json!({"code": "SANDBOX_DENIED", "sandbox": {
                "enforced": ["seatbelt-fs", "seatbelt-net", "seatbelt-process", "rlimits"],
                "missing": ["memory-limit", "process-limit"],
                "why": {"memory-limit": "macOS holds no memory limit", "process-limit": "no per-tree limit"}}}),
            "server `s`: its sandbox cannot be applied",
        );
        assert_eq!(f.kind, "sandbox-unenforceable");
        assert!(f
            .evidence
            .contains(&"missing memory-limit: macOS holds no memory limit".into()));
        assert!(f
            .evidence
            .contains(&"enforced: seatbelt-fs, seatbelt-net, seatbelt-process, rlimits".into()));
        assert!(f.fix[0].contains("\"memoryMb\": null"), "{:?}", f.fix);
        assert!(f.fix[1].contains("\"max\": null"), "{:?}", f.fix);
        let f = denied(
            &json!({"sandbox": {"enforced": ["job-memory", "job-processes"],
                "missing": ["appcontainer-fs", "appcontainer-net", "handle-limit"]}}),
            "",
        );
        assert!(f.fix[0].contains("AppContainer"), "{:?}", f.fix);
        assert!(f.fix[2].contains("\"openFiles\": null"), "{:?}", f.fix);
        assert!(
            f.fix
                .iter()
                .all(|l| !l.contains("docs/sandbox.md") || l.contains("AppContainer")),
            "every part has its own explanation: {:?}",
            f.fix
        );
    }

    #[test]
    fn a_refusal_names_the_setting_that_allows_it() {
        let f = denied(
            &json!({"code": "SANDBOX_DENIED", "refused": "access to /home/u/.config/x", "setting": "sandbox.read (or sandbox.write to write it)"}),
            "server `s` failed under its sandbox",
        );
        assert_eq!(f.kind, "sandbox-denied");
        assert_eq!(
            f.summary,
            "its sandbox refused it access to /home/u/.config/x"
        );
        assert!(
            f.fix[0].contains("\"read\": [\"/home/u/.config/x\"]"),
            "{:?}",
            f.fix
        );
        let f = denied(
            &json!({"refused": "a connection to 127.0.0.1:9000", "setting": "sandbox.network"}),
            "",
        );
        assert!(f.fix[0].contains("\"loopback\": [9000]"), "{:?}", f.fix);
    }
}
