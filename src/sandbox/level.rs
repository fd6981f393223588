//! What a platform enforced of a server's sandbox: the parts in force and the parts the policy
//! asked for that this OS or kernel could not give (`servers/status`'s `sandbox`, the trust
//! request's `sandboxLevel`). A part is a mechanism, named as status shows it.

use serde_json::{json, Value};

/// Landlock filesystem rules (ABI 3+: truncation and renames across folders included).
pub const LANDLOCK_FS: &str = "landlock-fs";
/// Landlock TCP connect/bind rules (ABI 4+).
pub const LANDLOCK_NET: &str = "landlock-net";
/// The seccomp filter: no ptrace, mounts, kernel modules, namespaces…, and the network and
/// process switches that a system-call filter enforces.
pub const SECCOMP: &str = "seccomp";
/// A network namespace of the server's own (no interface but its loopback).
pub const NETNS: &str = "netns";
/// `RLIMIT_NOFILE` and `RLIMIT_CPU`, per process.
pub const RLIMITS: &str = "rlimits";
/// The memory limit held by a cgroup memory controller (the whole tree).
pub const CGROUP_MEMORY: &str = "cgroup-memory";
/// The task limit held by a cgroup pids controller (the whole tree).
pub const CGROUP_PIDS: &str = "cgroup-pids";
/// The memory limit as `RLIMIT_AS`, per process (virtual memory; weaker than a cgroup's).
pub const RLIMIT_AS: &str = "rlimit-as";
/// The task limit as `RLIMIT_NPROC`, per user (weaker than a cgroup's; root is exempt).
pub const RLIMIT_NPROC: &str = "rlimit-nproc";
/// The egress proxy that `network.allow` goes through.
pub const EGRESS_PROXY: &str = "egress-proxy";

// macOS (`sandbox-exec` applying the policy's Seatbelt profile; per-process limits).
/// Seatbelt file rules: read and write only the policy's paths and the system's own.
pub const SEATBELT_FS: &str = "seatbelt-fs";
/// Seatbelt network rules: none, loopback (all ports or some), the egress proxy's port.
pub const SEATBELT_NET: &str = "seatbelt-net";
/// Seatbelt process rules: signals and process information within the sandbox only, no fork
/// without `spawn`.
pub const SEATBELT_PROCESS: &str = "seatbelt-process";

// Windows (the server's Job Object).
/// The memory limit as the job's committed-memory limit (the whole tree).
pub const JOB_MEMORY: &str = "job-memory";
/// The process limit (and `spawn: false`) as the job's active-process limit (the whole tree).
pub const JOB_PROCESSES: &str = "job-processes";
/// The CPU limit as the job's user-time limit (the whole tree).
pub const JOB_CPU: &str = "job-cpu";
/// File rules of an AppContainer or restricted token, which the Windows spawn cannot give yet.
pub const APPCONTAINER_FS: &str = "appcontainer-fs";
/// Network rules of an AppContainer (no network capability), likewise not given yet.
pub const APPCONTAINER_NET: &str = "appcontainer-net";

// Parts no mechanism of the OS provides, reported missing by name.
/// A memory limit (macOS: no per-tree limit, and neither `RLIMIT_AS` nor `RLIMIT_DATA` holds the
/// memory a process maps).
pub const MEMORY_LIMIT: &str = "memory-limit";
/// A limit on the processes of the server's tree (macOS has none; `RLIMIT_NPROC` counts the user's).
pub const PROCESS_LIMIT: &str = "process-limit";
/// A limit on open files (Windows has no per-process handle limit).
pub const HANDLE_LIMIT: &str = "handle-limit";

/// The enforced and missing parts of one server's sandbox.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SandboxLevel {
    pub enforced: Vec<&'static str>,
    pub missing: Vec<Missing>,
    pub preset: Option<String>,
}

/// A part the policy asked for that is not in force, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    pub part: &'static str,
    pub why: String,
}

impl SandboxLevel {
    /// `{enforced, missing, preset, why?}`: `why` maps each missing part to its reason.
    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "enforced": self.enforced,
            "missing": self.missing.iter().map(|m| m.part).collect::<Vec<_>>(),
            "preset": self.preset,
        });
        if !self.missing.is_empty() {
            out["why"] = self
                .missing
                .iter()
                .map(|m| (m.part.to_owned(), Value::from(m.why.as_str())))
                .collect::<serde_json::Map<_, _>>()
                .into();
        }
        out
    }

    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }

    /// The missing parts as one readable list: `landlock-net (why); cgroup-memory (why)`.
    pub fn missing_text(&self) -> String {
        self.missing
            .iter()
            .map(|m| format!("{} ({})", m.part, m.why))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape() {
        let level = SandboxLevel {
            enforced: vec![LANDLOCK_FS, SECCOMP],
            missing: vec![Missing {
                part: CGROUP_MEMORY,
                why: "no memory controller".into(),
            }],
            preset: Some("strict".into()),
        };
        assert_eq!(
            level.to_json(),
            json!({"enforced": ["landlock-fs", "seccomp"], "missing": ["cgroup-memory"],
                "preset": "strict", "why": {"cgroup-memory": "no memory controller"}})
        );
        assert!(!level.is_complete());
        assert_eq!(level.missing_text(), "cgroup-memory (no memory controller)");
    }
}
