//! The stop sequence of one server, and how its leader ended.
//!
//! The caller closes stdin; we wait [`limits::STOP_AFTER_STDIN_CLOSE`], SIGTERM the group,
//! wait [`limits::STOP_AFTER_SIGTERM`], SIGKILL the group, reap the leader (tokio's `wait`: an
//! event, the leader being our child); then any member of the group still alive (a grandchild that
//! outlived its parent) gets the same TERM-then-KILL treatment, and so does every descendant that
//! escaped the group but carries the server's origin marker (see `sweep`), and, where the server
//! ran in a cgroup (see `cgroup`), whatever its cgroup still holds. Both functions return only once
//! the whole tree is gone.

use std::process::ExitStatus;

use super::kill::{self, Signal};
use super::ledger;
use super::origin::Origin;
use super::spawn::ServerChild;
use super::sweep;
use crate::limits;

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

/// Waits for the leader, then makes sure nothing of its tree survives.
pub async fn reap_after_exit(child: &mut ServerChild, pid: u32, origin: Origin) -> ExitInfo {
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
pub async fn stop_tree(child: &mut ServerChild, pid: u32, origin: Origin) -> ExitInfo {
    let pgid = pid;
    if let Ok(Ok(status)) = tokio::time::timeout(limits::STOP_AFTER_STDIN_CLOSE, child.wait()).await
    {
        finish_tree(pid, origin).await;
        return ExitInfo::from_status(status);
    }
    kill::signal_group(pgid, Signal::Term);
    if let Ok(Ok(status)) = tokio::time::timeout(limits::STOP_AFTER_SIGTERM, child.wait()).await {
        finish_tree(pid, origin).await;
        return ExitInfo::from_status(status);
    }
    kill::signal_group(pgid, Signal::Kill);
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
    ledger::leader_reaped(pid);
    sweep::sweep_groups(&[pid]).await;
    tracing::debug!(pid, "group swept");
    ledger::group_gone(pid);
    sweep::kill_escapees(origin).await;
    tracing::debug!(pid, "escapees done");
    #[cfg(target_os = "linux")]
    if let Some(dir) = ledger::take_cgroup(origin) {
        let mode = ledger::containment().map_or(super::cgroup::KillMode::Kill, |c| c.kill_mode);
        sweep::empty_cgroup(dir, mode).await;
        tracing::debug!(pid, "cgroup emptied and removed");
    }
}
