//! macOS: one spawn's sandbox. The policy's Seatbelt profile ([`super::seatbelt`]) is applied by
//! starting the server through `sandbox-exec`, which execs it (same pid, same process group, so
//! the supervisor's tree walk and kill are unchanged); the per-process limits macOS holds are set
//! between fork and exec; the server gets a private temporary folder. [`level_of`] says what that
//! enforces, part by part, as a pure function tested on every OS.
//!
//! What macOS cannot hold is reported missing, never dropped quietly:
//! - a memory limit: macOS accepts `RLIMIT_AS` and `RLIMIT_DATA` but holds neither against the
//!   memory a process maps (its allocator maps memory; only the old `brk` heap counts against
//!   `RLIMIT_DATA`), and it has no per-tree memory limit;
//! - a limit on the processes of the server's tree: `RLIMIT_NPROC` counts every process of the
//!   user's real uid, whoever started it. Under `allowWeaker` it is used as a weaker stand-in: set
//!   to the user's processes at spawn plus the policy's `max`, so the server's tree can add at most
//!   `max` processes to what the user runs (fewer if the user starts others meanwhile); root is
//!   exempt from it, so it is not claimed for root.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::level::{self, Missing, SandboxLevel};
use super::policy::{NetworkPolicy, SandboxPolicy};
use super::presets;
use super::seatbelt::{self, SANDBOX_EXEC};
#[cfg(target_os = "macos")]
use super::spawn_env;

/// What one spawn is.
pub struct Input<'a> {
    pub server: &'a str,
    /// The program as resolved on PATH (its folder and package are granted).
    pub program: &'a Path,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    /// The spawn's number (its origin marker's), naming its temporary folder.
    pub instance: u64,
    /// The egress proxy's port, for `network.allow`.
    pub egress_port: Option<u16>,
}

/// What this Mac offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Host {
    /// `/usr/bin/sandbox-exec` is there (every macOS since 10.5 has it).
    pub sandbox_exec: bool,
    /// The sidecar runs as root (exempt from `RLIMIT_NPROC`).
    pub root: bool,
}

impl Host {
    #[cfg(target_os = "macos")]
    pub fn detect() -> Host {
        Host {
            sandbox_exec: Path::new(SANDBOX_EXEC).is_file(),
            // SAFETY: geteuid cannot fail.
            root: unsafe { nix::libc::geteuid() } == 0,
        }
    }
}

const NO_MEMORY_LIMIT: &str = "macOS holds no memory limit: it accepts RLIMIT_AS and RLIMIT_DATA but enforces neither on the memory a process maps, and has no per-tree limit";
const NO_PROCESS_LIMIT: &str = "macOS has no per-tree process limit; RLIMIT_NPROC counts every process of the user (used under allowWeaker as the user's processes at spawn plus max)";
const EGRESS_NOT_STARTED: &str =
    "no egress proxy was started for this spawn, and `network.allow` goes through one";

/// What `policy` gets on `host`: the Seatbelt parts when `sandbox-exec` is there, `rlimits` for
/// open files and CPU seconds, the egress proxy when `network.allow` has one (`egress_started`),
/// and the memory and process limits missing (`rlimit-nproc` under `allowWeaker`, not as root).
pub fn level_of(policy: &SandboxPolicy, host: &Host, egress_started: bool) -> SandboxLevel {
    let mut out = SandboxLevel {
        preset: policy.preset.clone(),
        ..SandboxLevel::default()
    };
    let missing = |out: &mut SandboxLevel, part, why: &str| {
        out.missing.push(Missing {
            part,
            why: why.to_owned(),
        })
    };
    let mut seatbelt_parts = vec![level::SEATBELT_FS];
    if policy.network != NetworkPolicy::Any {
        seatbelt_parts.push(level::SEATBELT_NET);
    }
    seatbelt_parts.push(level::SEATBELT_PROCESS);
    for part in seatbelt_parts {
        if host.sandbox_exec {
            out.enforced.push(part);
        } else {
            missing(
                &mut out,
                part,
                "/usr/bin/sandbox-exec is not on this system",
            );
        }
    }
    if matches!(policy.network, NetworkPolicy::Allow { .. }) {
        if egress_started {
            out.enforced.push(level::EGRESS_PROXY);
        } else {
            missing(&mut out, level::EGRESS_PROXY, EGRESS_NOT_STARTED);
        }
    }
    if policy.open_files.is_some() || policy.cpu_seconds.is_some() {
        out.enforced.push(level::RLIMITS);
    }
    if policy.memory_bytes.is_some() {
        missing(&mut out, level::MEMORY_LIMIT, NO_MEMORY_LIMIT);
    }
    if policy.max_processes.is_some() {
        missing(&mut out, level::PROCESS_LIMIT, NO_PROCESS_LIMIT);
        if policy.allow_weaker && !host.root {
            out.enforced.push(level::RLIMIT_NPROC);
        }
    }
    out
}

/// The policy the profile is made of: the config's `read` and `write` that exist, plus what the
/// preset grants this program (its install, the system's runtime, the private `tmp`) and its
/// `cwd` (readable).
pub fn confined_policy(policy: &SandboxPolicy, spawn: &Input<'_>, tmp: &Path) -> SandboxPolicy {
    let server = spawn.server;
    let base = presets::base_paths(policy, spawn.program, spawn.args, spawn.cwd, tmp);
    let existing = |list: &[PathBuf], key: &str| -> Vec<PathBuf> {
        list.iter()
            .filter(|p| {
                let there = p.exists();
                if !there {
                    tracing::warn!(server, path = %p.display(), "sandbox.{key} names a path that does not exist; it is left out");
                }
                there
            })
            .cloned()
            .collect()
    };
    let mut read = base.read;
    read.extend(existing(&policy.read, "read"));
    read.extend(spawn.cwd.filter(|c| c.exists()).map(Path::to_path_buf));
    let mut write = base.write;
    write.extend(existing(&policy.write, "write"));
    SandboxPolicy {
        read,
        write,
        ..policy.clone()
    }
}

/// How the server is started: `sandbox-exec` and its arguments (the profile, its parameters, then
/// the program and its arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wrapper {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

/// `sandbox-exec -p PROFILE -D NAME=PATH… -- PROGRAM ARGS…` for `profile`.
pub fn wrap(profile: &seatbelt::Profile, program: &Path, args: &[String]) -> Wrapper {
    Wrapper {
        program: PathBuf::from(SANDBOX_EXEC),
        args: profile.command_args(program, args.iter().map(OsString::from)),
    }
}

// The spawn itself: what only runs on macOS.

/// A prepared spawn.
#[cfg(target_os = "macos")]
pub struct Planned {
    pub level: SandboxLevel,
    /// `None` when `sandbox-exec` is missing (and the config allows weaker).
    pub wrapper: Option<Wrapper>,
    pub env: Vec<(String, String)>,
    pub steps: ChildSteps,
    pub running: Running,
}

/// The limits set between fork and exec (soft and hard alike: the server cannot raise them).
#[cfg(target_os = "macos")]
pub struct ChildSteps {
    open_files: Option<u64>,
    cpu_seconds: Option<u64>,
    processes: Option<u64>,
}

/// The private temporary folder, removed once the server's tree has ended (dropped then).
#[cfg(target_os = "macos")]
pub struct Running {
    tmp: PathBuf,
}

#[cfg(target_os = "macos")]
impl Drop for Running {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
        if let Some(parent) = self.tmp.parent() {
            let _ = std::fs::remove_dir(parent);
        }
    }
}

/// Prepares one spawn; `Err(level)` when a part is missing and the config does not allow
/// weaker (nothing is made then).
#[cfg(target_os = "macos")]
pub fn prepare(policy: &SandboxPolicy, spawn: &Input<'_>) -> Result<Planned, SandboxLevel> {
    let host = Host::detect();
    let mut reached = level_of(policy, &host, spawn.egress_port.is_some());
    if !reached.is_complete() && !policy.allow_weaker {
        return Err(reached);
    }
    // Seatbelt matches real paths: the folder as it sees it (`/private/var/folders/…`).
    let tmp = match spawn_env::private_tmp(spawn.instance)
        .map(|dir| std::fs::canonicalize(&dir).unwrap_or(dir))
    {
        Ok(tmp) => tmp,
        Err(e) => {
            reached.enforced.retain(|p| *p != level::SEATBELT_FS);
            reached.missing.push(Missing {
                part: level::SEATBELT_FS,
                why: format!("cannot make the private temporary folder: {e}"),
            });
            return Err(reached);
        }
    };
    let wrapper = host.sandbox_exec.then(|| {
        let confined = confined_policy(policy, spawn, &tmp);
        wrap(
            &seatbelt::profile(&confined, spawn.egress_port),
            spawn.program,
            spawn.args,
        )
    });
    let processes = match policy.max_processes {
        Some(max) if reached.enforced.contains(&level::RLIMIT_NPROC) => {
            Some(user_processes().saturating_add(u64::from(max)))
        }
        _ => None,
    };
    Ok(Planned {
        env: spawn_env::env(Some(&tmp), policy, spawn.egress_port),
        level: reached,
        wrapper,
        steps: ChildSteps {
            open_files: policy.open_files,
            cpu_seconds: policy.cpu_seconds,
            processes,
        },
        running: Running { tmp },
    })
}

/// Processes of the sidecar's real user now (what `RLIMIT_NPROC` counts on macOS).
#[cfg(target_os = "macos")]
fn user_processes() -> u64 {
    /// `proc_listpids` selector: processes of one real uid (libproc.h).
    const PROC_RUID_ONLY: u32 = 5;
    /// Room for processes started between sizing and listing.
    const SLACK: usize = 64;
    // SAFETY: getuid cannot fail.
    let ruid = unsafe { nix::libc::getuid() };
    let pid_size = std::mem::size_of::<nix::libc::c_int>();
    // SAFETY: a null buffer asks for the size needed.
    let needed = unsafe { nix::libc::proc_listpids(PROC_RUID_ONLY, ruid, std::ptr::null_mut(), 0) };
    let mut pids: Vec<nix::libc::c_int> =
        vec![0; usize::try_from(needed).unwrap_or(0) / pid_size + SLACK];
    let size = nix::libc::c_int::try_from(pids.len() * pid_size).unwrap_or(nix::libc::c_int::MAX);
    // SAFETY: the buffer holds `size` bytes; the kernel writes at most that.
    let written =
        unsafe { nix::libc::proc_listpids(PROC_RUID_ONLY, ruid, pids.as_mut_ptr().cast(), size) };
    let listed = usize::try_from(written).unwrap_or(0) / pid_size;
    let count = pids.iter().take(listed).filter(|p| **p != 0).count();
    u64::try_from(count).unwrap_or(u64::MAX)
}

#[cfg(target_os = "macos")]
impl ChildSteps {
    /// In the forked child, before exec (inherited through `sandbox-exec`'s own exec):
    /// `setrlimit` only, which is async-signal-safe; no allocation.
    pub fn apply(&self) -> std::io::Result<()> {
        for (resource, value) in [
            (nix::libc::RLIMIT_NOFILE, self.open_files),
            (nix::libc::RLIMIT_CPU, self.cpu_seconds),
            (nix::libc::RLIMIT_NPROC, self.processes),
        ] {
            let Some(value) = value else { continue };
            let mut current = nix::libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: a plain system call filling a struct that lives across it.
            if unsafe { nix::libc::getrlimit(resource, &mut current) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Never above the hard limit in force, which only root may raise (the user's
            // processes plus `max` may pass `kern.maxprocperuid`).
            let value = value.min(current.rlim_max);
            let limit = nix::libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            // SAFETY: a plain system call on a struct that lives across it.
            if unsafe { nix::libc::setrlimit(resource, &limit) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::presets::defaults;

    const MAC: Host = Host {
        sandbox_exec: true,
        root: false,
    };

    fn parts(level: &SandboxLevel) -> (Vec<&'static str>, Vec<&'static str>) {
        (
            level.enforced.clone(),
            level.missing.iter().map(|m| m.part).collect(),
        )
    }

    #[test]
    fn strict_enforces_the_profile_and_rlimits_and_misses_memory_and_process_limits() {
        let strict = defaults("strict").unwrap();
        let level = level_of(&strict, &MAC, false);
        assert_eq!(
            parts(&level),
            (
                vec!["seatbelt-fs", "seatbelt-net", "seatbelt-process", "rlimits"],
                vec!["memory-limit", "process-limit"]
            )
        );
        assert!(level.missing[0].why.contains("RLIMIT_AS"), "{level:?}");
        assert_eq!(level.preset.as_deref(), Some("strict"));
        // Under allowWeaker the process limit is RLIMIT_NPROC, except for root; memory stays
        // missing: nothing holds it.
        let weaker = SandboxPolicy {
            allow_weaker: true,
            ..strict.clone()
        };
        let (enforced, missing) = parts(&level_of(&weaker, &MAC, false));
        assert!(enforced.contains(&"rlimit-nproc"), "{enforced:?}");
        assert_eq!(missing, ["memory-limit", "process-limit"]);
        let root = Host { root: true, ..MAC };
        let (enforced, _) = parts(&level_of(&weaker, &root, false));
        assert!(!enforced.contains(&"rlimit-nproc"), "{enforced:?}");
        // Without those limits asked for, the level is complete.
        let lean = SandboxPolicy {
            memory_bytes: None,
            max_processes: None,
            ..strict
        };
        assert!(level_of(&lean, &MAC, false).is_complete());
    }

    #[test]
    fn the_network_part_follows_the_policy() {
        let network = defaults("network").unwrap();
        let (enforced, _) = parts(&level_of(&network, &MAC, false));
        assert!(!enforced.contains(&"seatbelt-net"), "{enforced:?}");
        let allow = SandboxPolicy {
            network: NetworkPolicy::Allow {
                hosts: vec!["api.example.com".into()],
            },
            ..network
        };
        let (enforced, _) = parts(&level_of(&allow, &MAC, true));
        assert!(enforced.contains(&"seatbelt-net") && enforced.contains(&"egress-proxy"));
        let (_, missing) = parts(&level_of(&allow, &MAC, false));
        assert!(missing.contains(&"egress-proxy"), "{missing:?}");
    }

    #[test]
    fn without_sandbox_exec_every_seatbelt_part_is_missing() {
        let lean = SandboxPolicy {
            memory_bytes: None,
            max_processes: None,
            ..defaults("strict").unwrap()
        };
        let bare = Host {
            sandbox_exec: false,
            ..MAC
        };
        let level = level_of(&lean, &bare, false);
        assert_eq!(
            parts(&level),
            (
                vec!["rlimits"],
                vec!["seatbelt-fs", "seatbelt-net", "seatbelt-process"]
            )
        );
        assert!(level.missing[0].why.contains("sandbox-exec"));
    }

    #[test]
    fn the_server_runs_through_sandbox_exec_with_its_paths_granted() {
        let root = std::env::temp_dir().join(format!("mcp-sidecar-macos-{}", std::process::id()));
        let (tmp, data, cwd) = (root.join("tmp"), root.join("data"), root.join("cwd"));
        for dir in [&tmp, &data, &cwd] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let policy = SandboxPolicy {
            read: vec![data.clone(), root.join("not-here")],
            network: NetworkPolicy::Loopback { ports: vec![9000] },
            ..defaults("strict").unwrap()
        };
        let program = Path::new("/usr/bin/env");
        let args = vec!["--flag".to_owned(), "a b".to_owned()];
        let spawn = Input {
            server: "s",
            program,
            args: &args,
            cwd: Some(&cwd),
            instance: 1,
            egress_port: None,
        };
        let confined = confined_policy(&policy, &spawn, &tmp);
        assert!(confined.read.contains(&data) && confined.read.contains(&cwd));
        assert!(confined.read.contains(&PathBuf::from("/usr")));
        assert!(!confined.read.contains(&root.join("not-here")));
        assert!(confined.write.contains(&tmp) && !confined.write.contains(&cwd));
        let profile = seatbelt::profile(&confined, None);
        let wrapper = wrap(&profile, program, &args);
        assert_eq!(wrapper.program, PathBuf::from("/usr/bin/sandbox-exec"));
        let argv: Vec<String> = wrapper
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(argv[..2], ["-p".to_owned(), profile.text.clone()]);
        assert!(profile.text.contains("(remote ip \"localhost:9000\")"));
        let data_param = argv
            .iter()
            .find(|a| a.ends_with(&*data.to_string_lossy()))
            .unwrap();
        assert!(data_param.starts_with("READ_"), "{argv:?}");
        assert_eq!(
            argv[argv.len() - 4..],
            ["--", "/usr/bin/env", "--flag", "a b"]
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
