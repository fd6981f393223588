//! Windows: what a server's sandbox gets there, part by part ([`level_of`], a pure function tested
//! on every OS). The server's Job Object (`process::job`) holds its tree to the policy's memory
//! (`job-memory`), processes (`job-processes`: `max`, or one process without `spawn`) and CPU time
//! (`job-cpu`). Files and network are not confined: that takes an AppContainer or a restricted
//! token, which a process started through `std::process::Command` cannot be given (docs/sandbox.md
//! says what it would take); and Windows has no per-process limit on open handles. Those parts are
//! reported missing, so a sandbox that asks for them starts only under `allowWeaker`.

use super::level::{self, Missing, SandboxLevel};
use super::policy::{NetworkPolicy, SandboxPolicy};

const NO_APPCONTAINER: &str = "the Windows spawn gives a server no AppContainer or restricted token (std::process::Command cannot carry one)";
const NO_HANDLE_LIMIT: &str = "Windows has no per-process limit on open handles";
const EGRESS_NOT_STARTED: &str =
    "no egress proxy was started for this spawn, and `network.allow` goes through one";

/// What `policy` gets from a Job Object; `egress_started`: `network.allow` has its proxy (whose
/// variables the server gets, though nothing stops it from connecting elsewhere).
pub fn level_of(policy: &SandboxPolicy, egress_started: bool) -> SandboxLevel {
    let mut out = SandboxLevel {
        preset: policy.preset.clone(),
        ..SandboxLevel::default()
    };
    let mut missing = |part, why: &str| {
        out.missing.push(Missing {
            part,
            why: why.to_owned(),
        })
    };
    missing(level::APPCONTAINER_FS, NO_APPCONTAINER);
    if policy.network != NetworkPolicy::Any {
        missing(level::APPCONTAINER_NET, NO_APPCONTAINER);
    }
    if policy.open_files.is_some() {
        missing(level::HANDLE_LIMIT, NO_HANDLE_LIMIT);
    }
    if matches!(policy.network, NetworkPolicy::Allow { .. }) && !egress_started {
        missing(level::EGRESS_PROXY, EGRESS_NOT_STARTED);
    }
    if matches!(policy.network, NetworkPolicy::Allow { .. }) && egress_started {
        out.enforced.push(level::EGRESS_PROXY);
    }
    if policy.memory_bytes.is_some() {
        out.enforced.push(level::JOB_MEMORY);
    }
    if policy.max_processes.is_some() || !policy.spawn {
        out.enforced.push(level::JOB_PROCESSES);
    }
    if policy.cpu_seconds.is_some() {
        out.enforced.push(level::JOB_CPU);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::presets::defaults;

    fn parts(level: &SandboxLevel) -> (Vec<&'static str>, Vec<&'static str>) {
        (
            level.enforced.clone(),
            level.missing.iter().map(|m| m.part).collect(),
        )
    }

    #[test]
    fn strict_gets_the_job_limits_and_misses_files_network_and_handles() {
        let strict = defaults("strict").unwrap();
        let level = level_of(&strict, false);
        assert_eq!(
            parts(&level),
            (
                vec!["job-memory", "job-processes"],
                vec!["appcontainer-fs", "appcontainer-net", "handle-limit"]
            )
        );
        assert!(level.missing[0].why.contains("AppContainer"), "{level:?}");
        let busy = SandboxPolicy {
            cpu_seconds: Some(60),
            max_processes: None,
            spawn: false,
            open_files: None,
            network: NetworkPolicy::Any,
            ..strict
        };
        assert_eq!(
            parts(&level_of(&busy, false)),
            (
                vec!["job-memory", "job-processes", "job-cpu"],
                vec!["appcontainer-fs"]
            )
        );
    }

    #[test]
    fn allow_names_its_proxy() {
        let allow = SandboxPolicy {
            network: NetworkPolicy::Allow {
                hosts: vec!["x.example".into()],
            },
            ..defaults("strict").unwrap()
        };
        assert!(level_of(&allow, true).enforced.contains(&"egress-proxy"));
        let (_, missing) = parts(&level_of(&allow, false));
        assert!(missing.contains(&"egress-proxy") && missing.contains(&"appcontainer-net"));
    }
}
