//! The only place that spawns processes (clippy's `disallowed-methods` enforces it), and the stop
//! sequence that takes a server's whole process group down.
//!
//! A server runs as the leader of its own process group, with no shell, a short allowlisted
//! environment plus what its config adds, and piped stdio. Stopping: the caller closes stdin; we wait
//! [`limits::STOP_AFTER_STDIN_CLOSE`], SIGTERM the group, wait [`limits::STOP_AFTER_SIGTERM`], SIGKILL the
//! group, reap the leader; then any member of the group still alive (a grandchild that outlived its
//! parent) gets the same TERM-then-KILL treatment.

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

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
    let env = child_env(spec);
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
    });
    #[cfg(unix)]
    command.wrap(process_wrap::tokio::ProcessGroup::leader());
    #[cfg(windows)]
    command.wrap(process_wrap::tokio::JobObject);
    let mut child = command
        .spawn()
        .map_err(|e| spawn_error(server, spec, &env, e))?;
    let pid = child.id().unwrap_or(0);
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
    })
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

/// Waits for the leader, then makes sure nothing of its group survives.
pub async fn reap_after_exit(child: &mut Box<dyn ChildWrapper>, pgid: u32) -> ExitInfo {
    let info = match child.wait().await {
        Ok(status) => ExitInfo::from_status(status),
        Err(_) => ExitInfo {
            code: None,
            signal: None,
        },
    };
    sweep_group(pgid).await;
    info
}

/// The stop sequence, run after the caller closed the server's stdin.
pub async fn stop_tree(child: &mut Box<dyn ChildWrapper>, pgid: u32) -> ExitInfo {
    if let Ok(Ok(status)) = tokio::time::timeout(limits::STOP_AFTER_STDIN_CLOSE, child.wait()).await
    {
        sweep_group(pgid).await;
        return ExitInfo::from_status(status);
    }
    signal_group(pgid, Signal::Term);
    if let Ok(Ok(status)) = tokio::time::timeout(limits::STOP_AFTER_SIGTERM, child.wait()).await {
        sweep_group(pgid).await;
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
    sweep_group(pgid).await;
    info
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

fn signal_group(pgid: u32, signal: Signal) {
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

/// Ends every process still in the group after its leader is gone: SIGTERM, a grace period, SIGKILL.
async fn sweep_group(pgid: u32) {
    if !group_alive(pgid) {
        return;
    }
    signal_group(pgid, Signal::Term);
    let deadline = tokio::time::Instant::now() + limits::STOP_AFTER_SIGTERM;
    while tokio::time::Instant::now() < deadline {
        // Members are not our children, so there is nothing to await; poll briefly.
        tokio::time::sleep(Duration::from_millis(10)).await;
        if !group_alive(pgid) {
            return;
        }
    }
    signal_group(pgid, Signal::Kill);
}

/// Whether any live (non-zombie) process is in the group.
fn group_alive(pgid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        // Zombies still count for kill(0), and a reparented zombie is reaped by someone else at an
        // unknown time, so read process states instead.
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return false;
        };
        dir.flatten().any(|entry| {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(|s| s.parse::<u32>().ok()) else {
                return false;
            };
            process_group_state(pid)
                .is_some_and(|(pg, state)| pg == pgid && state != 'Z' && state != 'X')
        })
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

/// (process group, state letter) of a process, from /proc/PID/stat.
#[cfg(target_os = "linux")]
pub fn process_group_state(pid: u32) -> Option<(u32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces; fields resume after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((pgrp, state))
}
