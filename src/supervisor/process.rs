//! The only place that spawns processes (clippy's `disallowed-methods` enforces it), and the stop
//! sequence that takes a server's whole process tree down.
//!
//! A server runs as the leader of its own process group (Unix) or in a Job Object that kills every
//! member when its last handle closes (Windows), with no shell, a short allowlisted environment plus
//! what its config adds plus its origin marker ([`tree::ORIGIN_ENV`]), and piped stdio. On Linux it
//! also gets `PR_SET_PDEATHSIG(SIGKILL)`: if the sidecar dies, so does the server. (The kernel sends
//! it when the *thread* that forked the child exits, not the process: servers are spawned from the
//! runtime's own thread — the main thread, the runtime being single-threaded — never from
//! `spawn_blocking`.)
//!
//! Stopping: the caller closes stdin; we wait [`limits::STOP_AFTER_STDIN_CLOSE`], SIGTERM the group,
//! wait [`limits::STOP_AFTER_SIGTERM`], SIGKILL the group, reap the leader; then any member of the
//! group still alive (a grandchild that outlived its parent) gets the same TERM-then-KILL treatment,
//! and so does every descendant that escaped the group but carries the server's origin marker.

use std::path::Path;
use std::process::{ExitStatus, Stdio};

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

use super::tree::{self, Origin};
use crate::config::ServerSpec;
use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// Variables passed from the sidecar's environment to every server: enough to run programs, nothing
/// that is usually a secret. Anything else must be named in `inheritEnv` or set in `env`.
pub const BASE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TEMP",
    "TMP",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "SYSTEMROOT",
    "SystemRoot",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "PROGRAMDATA",
    "ProgramFiles",
];

pub struct Spawned {
    pub child: Box<dyn ChildWrapper>,
    pub pid: u32,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
    /// The marker this spawn and its descendants carry.
    pub origin: Origin,
}

/// How a server process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

impl ExitInfo {
    fn from_status(status: ExitStatus) -> Self {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        Self {
            code: status.code(),
            signal,
        }
    }

    pub fn to_json(self) -> serde_json::Value {
        serde_json::json!({ "code": self.code, "signal": self.signal })
    }
}

impl std::fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, self.signal) {
            (Some(c), _) => write!(f, "exit code {c}"),
            (None, Some(s)) => write!(f, "killed by signal {s}"),
            (None, None) => f.write_str("unknown exit status"),
        }
    }
}

/// The environment a server starts with.
pub fn child_env(spec: &ServerSpec) -> Vec<(String, String)> {
    let mut env: std::collections::BTreeMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| {
            BASE_ENV.contains(&k.as_str()) || k.starts_with("LC_") || spec.inherit_env.contains(k)
        })
        .collect();
    env.extend(spec.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.into_iter().collect()
}

/// Spawns a server as the leader of a new process group with piped stdio.
#[allow(clippy::disallowed_methods)] // This is the one sanctioned spawn site.
pub fn spawn(server: &str, spec: &ServerSpec) -> Result<Spawned> {
    // Held until the child is recorded: the reaper must never mistake it for an orphan.
    let mut spawning = tree::begin_spawn();
    let origin = spawning.origin();
    let mut env = child_env(spec);
    env.retain(|(k, _)| k != tree::ORIGIN_ENV);
    env.push((tree::ORIGIN_ENV.to_owned(), origin.env_value()));
    let mut command = CommandWrap::with_new(&spec.command, |c| {
        c.args(&spec.args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Backstop only: the stop sequence below is what normally ends the tree.
            .kill_on_drop(true);
        if let Some(cwd) = &spec.cwd {
            c.current_dir(cwd);
        }
        // Leader of a new process group. Set here rather than with process-wrap's ProcessGroup
        // wrapper: that wrapper's `wait` goes on to `waitpid(-pgid)` until the whole group is
        // reaped, which under our subreaper blocks on any grandchild still alive in the group.
        #[cfg(unix)]
        c.process_group(0);
        #[cfg(target_os = "linux")]
        die_with_parent(c);
    });
    // Untested here (this build is only compiled and tested on Linux): the Job Object is created
    // with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE because the KillOnDrop wrapper is present, so when the
    // sidecar dies for any reason the kernel closes the job handle and kills every member.
    #[cfg(windows)]
    {
        command.wrap(process_wrap::tokio::JobObject);
        command.wrap(process_wrap::tokio::KillOnDrop);
    }
    let mut child = command
        .spawn()
        .map_err(|e| spawn_error(server, spec, &env, e))?;
    let pid = child.id().unwrap_or(0);
    spawning.spawned(pid, cfg!(unix).then_some(pid));
    let (Some(stdin), Some(stdout), Some(stderr)) = (
        child.stdin().take(),
        child.stdout().take(),
        child.stderr().take(),
    ) else {
        return Err(Error::internal(format!(
            "server `{server}`: spawned without piped stdio"
        )));
    };
    Ok(Spawned {
        child,
        pid,
        stdin,
        stdout,
        stderr,
        origin,
    })
}

/// `PR_SET_PDEATHSIG(SIGKILL)` in the child between fork and exec.
#[cfg(target_os = "linux")]
fn die_with_parent(c: &mut tokio::process::Command) {
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
    // system calls (prctl, getppid); it does not allocate (the errors are raw OS errors).
    unsafe {
        c.pre_exec(move || {
            use nix::libc;
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            // The sidecar may have died between fork and prctl: then the signal would never come.
            if u32::try_from(libc::getppid()).ok() != Some(parent) {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Starts the guardian (see [`super::guardian`]): this binary again, `guardian --sidecar-pid N`, in
/// its own session, stdin a pipe from us, stdout closed, stderr shared (for its one-line report).
#[cfg(unix)]
#[allow(clippy::disallowed_methods)] // The guardian is spawned here too, for the same reason.
pub fn spawn_guardian(
    sidecar_pid: u32,
) -> std::io::Result<(std::process::Child, std::process::ChildStdin)> {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command
        .args(["guardian", "--sidecar-pid", &sidecar_pid.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    // SAFETY: setsid is async-signal-safe; the closure does not allocate.
    unsafe {
        command.pre_exec(|| {
            nix::unistd::setsid()
                .map(drop)
                .map_err(std::io::Error::from)
        });
    }
    let mut child = command.spawn()?;
    match child.stdin.take() {
        Some(stdin) => Ok((child, stdin)),
        None => Err(std::io::Error::other(
            "guardian spawned without a stdin pipe",
        )),
    }
}

fn spawn_error(
    server: &str,
    spec: &ServerSpec,
    env: &[(String, String)],
    e: std::io::Error,
) -> Error {
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    let cwd_note = spec
        .cwd
        .as_ref()
        .map(|c| format!(" (cwd {})", c.display()))
        .unwrap_or_default();
    let message = match e.kind() {
        std::io::ErrorKind::NotFound
            if spec.cwd.as_deref().is_some_and(|c| !Path::new(c).is_dir()) =>
        {
            format!(
                "server `{server}`: cwd {} does not exist",
                spec.cwd.as_deref().unwrap_or(Path::new("")).display()
            )
        }
        std::io::ErrorKind::NotFound
            if spec.command.contains('/') || spec.command.contains('\\') =>
        {
            format!(
                "server `{server}`: command `{}` not found (ENOENT){cwd_note}",
                spec.command
            )
        }
        std::io::ErrorKind::NotFound => {
            format!(
                "server `{server}`: command `{}` not found (ENOENT); PATH searched: {path}",
                spec.command
            )
        }
        std::io::ErrorKind::PermissionDenied => {
            format!(
                "server `{server}`: command `{}` is not executable (EACCES){cwd_note}",
                spec.command
            )
        }
        _ => format!(
            "server `{server}`: cannot start `{}`: {e}{cwd_note}",
            spec.command
        ),
    };
    Error::new(ErrorCode::ServerUnavailable, message)
        .with("server", server)
        .with("command", spec.display_command())
}

/// Waits for the leader, then makes sure nothing of its tree survives.
pub async fn reap_after_exit(
    child: &mut Box<dyn ChildWrapper>,
    pid: u32,
    origin: Origin,
) -> ExitInfo {
    let info = match child.wait().await {
        Ok(status) => ExitInfo::from_status(status),
        Err(_) => ExitInfo {
            code: None,
            signal: None,
        },
    };
    finish_tree(pid, origin).await;
    info
}

/// The stop sequence, run after the caller closed the server's stdin.
pub async fn stop_tree(child: &mut Box<dyn ChildWrapper>, pid: u32, origin: Origin) -> ExitInfo {
    let pgid = pid;
    if let Ok(Ok(status)) = tokio::time::timeout(limits::STOP_AFTER_STDIN_CLOSE, child.wait()).await
    {
        finish_tree(pid, origin).await;
        return ExitInfo::from_status(status);
    }
    signal_group(pgid, Signal::Term);
    if let Ok(Ok(status)) = tokio::time::timeout(limits::STOP_AFTER_SIGTERM, child.wait()).await {
        finish_tree(pid, origin).await;
        return ExitInfo::from_status(status);
    }
    signal_group(pgid, Signal::Kill);
    let info = match tokio::time::timeout(limits::STOP_AFTER_SIGKILL, child.wait()).await {
        Ok(Ok(status)) => ExitInfo::from_status(status),
        _ => {
            tracing::error!(pgid, "process did not exit after SIGKILL");
            ExitInfo {
                code: None,
                signal: None,
            }
        }
    };
    finish_tree(pid, origin).await;
    info
}

/// After the leader was waited for: its group, then its escaped descendants.
async fn finish_tree(pid: u32, origin: Origin) {
    tracing::debug!(pid, "leader reaped");
    tree::leader_reaped(pid);
    sweep_group(pid).await;
    tracing::debug!(pid, "group swept");
    tree::group_gone(pid);
    tree::kill_escapees(origin).await;
    tracing::debug!(pid, "escapees done");
}

#[derive(Clone, Copy)]
pub enum Signal {
    Term,
    Kill,
}

pub fn signal_group(pgid: u32, signal: Signal) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{killpg, Signal as S};
        let Ok(raw) = i32::try_from(pgid) else { return };
        if raw <= 1 {
            return; // never signal "every process" or init
        }
        let sig = match signal {
            Signal::Term => S::SIGTERM,
            Signal::Kill => S::SIGKILL,
        };
        let _ = killpg(nix::unistd::Pid::from_raw(raw), sig);
    }
    #[cfg(not(unix))]
    let _ = (pgid, signal);
}

pub fn signal_pid(pid: u32, signal: Signal) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{kill, Signal as S};
        let Ok(raw) = i32::try_from(pid) else { return };
        if raw <= 1 || pid == std::process::id() {
            return;
        }
        let sig = match signal {
            Signal::Term => S::SIGTERM,
            Signal::Kill => S::SIGKILL,
        };
        let _ = kill(nix::unistd::Pid::from_raw(raw), sig);
    }
    #[cfg(not(unix))]
    let _ = (pid, signal);
}

/// Ends every process still in the group after its leader is gone: SIGTERM, a grace period, SIGKILL.
async fn sweep_group(pgid: u32) {
    if !group_alive(pgid) {
        return;
    }
    signal_group(pgid, Signal::Term);
    let deadline = tokio::time::Instant::now() + limits::STOP_AFTER_SIGTERM;
    while tokio::time::Instant::now() < deadline {
        // Members are not our children, so there is nothing to await; poll briefly.
        tokio::time::sleep(limits::DEATH_POLL_INTERVAL).await;
        if !group_alive(pgid) {
            return;
        }
    }
    signal_group(pgid, Signal::Kill);
    let deadline = tokio::time::Instant::now() + limits::STOP_AFTER_SIGKILL;
    while group_alive(pgid) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(limits::DEATH_POLL_INTERVAL).await;
    }
}

/// Whether any live (non-zombie) process is in the group.
pub fn group_alive(pgid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        // Zombies still count for kill(0), and a reparented zombie is reaped by someone else at an
        // unknown time, so read process states instead.
        super::procfs::all()
            .iter()
            .any(|s| s.pgrp == pgid && !s.is_dead())
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        i32::try_from(pgid).is_ok_and(|raw| {
            nix::sys::signal::killpg(nix::unistd::Pid::from_raw(raw), None).is_ok()
        })
    }
    #[cfg(not(unix))]
    {
        let _ = pgid;
        false
    }
}
