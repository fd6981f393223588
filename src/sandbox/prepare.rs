//! The one call a spawn makes, whatever the OS: [`prepare`] a policy for one spawn (the level it
//! reaches, what the child must do between fork and exec, what outlives the spawn), or refuse it
//! with SANDBOX_DENIED naming what this host cannot enforce. [`probe`] says what the host would
//! enforce without preparing anything. Linux (`linux`), macOS (`macos`: Seatbelt through
//! `sandbox-exec`, rlimits) and Windows (`windows`: the Job Object's limits) each report the level
//! they reach part by part; another system reports every part missing.

use std::path::Path;

use super::level::SandboxLevel;
use super::policy::SandboxPolicy;
use crate::error::{Error, ErrorCode, Result};

/// One spawn of a sandboxed server.
pub struct SpawnContext<'a> {
    pub server: &'a str,
    /// The program as resolved on PATH (its folder and package are granted).
    pub program: &'a Path,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    /// The spawn's number (its origin marker's).
    pub instance: u64,
    /// The server's own cgroup v2 (Linux), when it has one.
    pub cgroup2: Option<&'a Path>,
    /// The egress proxy's port, for `network.allow`.
    pub egress_port: Option<u16>,
}

/// A prepared sandbox: the level reached, what the child does, what outlives the spawn.
pub struct Prepared {
    pub level: SandboxLevel,
    /// Variables the server gets on top of its own (TMPDIR at its private folder, the proxy's).
    pub env: Vec<(String, String)>,
    #[cfg(target_os = "linux")]
    steps: super::linux::plan::ChildSteps,
    #[cfg(target_os = "linux")]
    running: super::linux::plan::Running,
    #[cfg(target_os = "macos")]
    wrapper: Option<super::macos::Wrapper>,
    #[cfg(target_os = "macos")]
    steps: super::macos::ChildSteps,
    #[cfg(target_os = "macos")]
    running: super::macos::Running,
}

/// What outlives the spawn (cgroups, the private temporary folder), dropped once the server's tree
/// has ended; and what it can tell of a death (memory-limit kills).
pub struct Running {
    #[cfg(target_os = "linux")]
    inner: super::linux::plan::Running,
    #[cfg(target_os = "macos")]
    _inner: super::macos::Running,
    pub level: SandboxLevel,
    /// The egress proxy of `network.allow`, serving the server until its tree has ended.
    pub egress: Option<super::egress::EgressProxy>,
}

impl Running {
    /// Processes of the tree the memory limit killed (Linux cgroups; 0 elsewhere).
    pub fn oom_kills(&self) -> u64 {
        #[cfg(target_os = "linux")]
        return self.inner.oom_kills();
        #[cfg(not(target_os = "linux"))]
        0
    }

    /// The paths the server could read (Linux: every rule given; elsewhere none are known here,
    /// and the config's own `read` and `write` stand for them).
    pub fn readable(&self) -> &[std::path::PathBuf] {
        #[cfg(target_os = "linux")]
        return self.inner.readable();
        #[cfg(not(target_os = "linux"))]
        &[]
    }
}

/// What the child runs between fork and exec.
pub struct ChildSteps {
    #[cfg(target_os = "linux")]
    inner: super::linux::plan::ChildSteps,
    #[cfg(target_os = "macos")]
    inner: super::macos::ChildSteps,
}

impl ChildSteps {
    /// In the forked child, before exec: async-signal-safe system calls only.
    pub fn apply_in_child(&self) -> std::io::Result<()> {
        #[cfg(any(target_os = "linux", target_os = "macos"))]
        return self.inner.apply();
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        Ok(())
    }
}

impl Prepared {
    /// macOS: the program that starts the server confined (`sandbox-exec` and its arguments, the
    /// server's program and arguments last); `None`: the server's program is run itself.
    #[cfg(target_os = "macos")]
    pub fn exec_through(&self) -> Option<&super::macos::Wrapper> {
        self.wrapper.as_ref()
    }

    /// The child's part and the part that outlives the spawn.
    pub fn split(self) -> (ChildSteps, Running) {
        #[cfg(target_os = "linux")]
        return (
            ChildSteps { inner: self.steps },
            Running {
                inner: self.running,
                level: self.level,
                egress: None,
            },
        );
        #[cfg(target_os = "macos")]
        return (
            ChildSteps { inner: self.steps },
            Running {
                _inner: self.running,
                level: self.level,
                egress: None,
            },
        );
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        (
            ChildSteps {},
            Running {
                level: self.level,
                egress: None,
            },
        )
    }
}

/// Prepares `policy` for one spawn; SANDBOX_DENIED when a part is missing and the config does not
/// allow weaker.
pub fn prepare(policy: &SandboxPolicy, spawn: &SpawnContext<'_>) -> Result<Prepared> {
    #[cfg(target_os = "linux")]
    {
        let input = super::linux::plan::Input {
            server: spawn.server,
            policy,
            program: spawn.program,
            args: spawn.args,
            cwd: spawn.cwd,
            instance: spawn.instance,
            cgroup2: spawn.cgroup2,
            egress_port: spawn.egress_port,
        };
        match super::linux::plan::prepare(&input) {
            Ok(planned) => Ok(Prepared {
                level: planned.level,
                env: planned.env,
                steps: planned.steps,
                running: planned.running,
            }),
            Err(level) => Err(denied(spawn.server, &level)),
        }
    }
    #[cfg(target_os = "macos")]
    {
        let input = super::macos::Input {
            server: spawn.server,
            program: spawn.program,
            args: spawn.args,
            cwd: spawn.cwd,
            instance: spawn.instance,
            egress_port: spawn.egress_port,
        };
        match super::macos::prepare(policy, &input) {
            Ok(planned) => Ok(Prepared {
                level: planned.level,
                env: planned.env,
                wrapper: planned.wrapper,
                steps: planned.steps,
                running: planned.running,
            }),
            Err(level) => Err(denied(spawn.server, &level)),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let level = probe_with(policy, spawn.egress_port.is_some());
        if level.is_complete() || policy.allow_weaker {
            Ok(Prepared {
                level,
                env: super::spawn_env::env(None, policy, spawn.egress_port),
            })
        } else {
            Err(denied(spawn.server, &level))
        }
    }
}

/// What this host would enforce of `policy`.
pub fn probe(policy: &SandboxPolicy) -> SandboxLevel {
    #[cfg(target_os = "linux")]
    return super::linux::plan::probe(policy);
    #[cfg(target_os = "macos")]
    return super::macos::level_of(policy, &super::macos::Host::detect(), true);
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    probe_with(policy, true)
}

/// Windows: its Job Object's parts; other systems: nothing enforced.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn probe_with(policy: &SandboxPolicy, egress_started: bool) -> SandboxLevel {
    #[cfg(windows)]
    return super::windows::level_of(policy, egress_started);
    #[cfg(not(windows))]
    {
        use super::level::{self, Missing};
        let _ = egress_started;
        let why = "this sidecar enforces sandboxes on Linux, macOS and Windows only";
        SandboxLevel {
            enforced: Vec::new(),
            missing: [level::LANDLOCK_FS, level::SECCOMP]
                .into_iter()
                .map(|part| Missing {
                    part,
                    why: why.into(),
                })
                .collect(),
            preset: policy.preset.clone(),
        }
    }
}

/// SANDBOX_DENIED: the server's sandbox cannot be applied here, naming each missing part and why,
/// and the setting that would start it anyway.
pub fn denied(server: &str, level: &SandboxLevel) -> Error {
    let enforced = if level.enforced.is_empty() {
        "nothing".to_owned()
    } else {
        level.enforced.join(", ")
    };
    Error::new(
        ErrorCode::SandboxDenied,
        format!(
            "server `{server}`: its sandbox cannot be applied on this host: missing {}; set sandbox.allowWeaker: true to start it with what is enforced ({enforced})",
            level.missing_text()
        ),
    )
    .with("server", server)
    .with("setting", "sandbox.allowWeaker")
    .with("sandbox", level.to_json())
}
