//! The stop sequence of one server, and how its leader ended; the same steps on every platform,
//! each done by the platform's tree (`group` on Unix, `job` on Windows).
//!
//! The caller closes stdin; we wait [`limits::STOP_AFTER_STDIN_CLOSE`], ask the tree to stop
//! (Unix: SIGTERM to the group; Windows has no such request), wait [`limits::STOP_AFTER_SIGTERM`],
//! kill the tree (SIGKILL to the group; the Job Object terminated), reap the leader (tokio's `wait`:
//! an event, the leader being our child); then the platform's tree finishes what is left: on Unix
//! the group's survivors (a grandchild that outlived its parent) get the same TERM-then-KILL
//! treatment, and so does every descendant that escaped the group but carries the server's origin
//! marker (see `sweep`), and, where the server ran in a cgroup (see `cgroup`), whatever its cgroup
//! still holds; on Windows the job is terminated and awaited until empty. Both functions return only
//! once the whole tree is gone.

use std::process::ExitStatus;

#[cfg(unix)]
use super::group as tree;
#[cfg(windows)]
use super::job as tree;
use super::origin::Origin;
use super::spawn::ServerChild;
use crate::limits;

/// How a server process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExitInfo {
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

    pub(crate) fn to_json(self) -> serde_json::Value {
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
pub(crate) async fn reap_after_exit(child: &mut ServerChild, pid: u32, origin: Origin) -> ExitInfo {
    let info = match tree::wait_leader(child).await {
        Ok(status) => ExitInfo::from_status(status),
        Err(_) => ExitInfo {
            code: None,
            signal: None,
        },
    };
    tree::finish(pid, origin).await;
    info
}

/// The stop sequence, run after the caller closed the server's stdin.
pub(crate) async fn stop_tree(child: &mut ServerChild, pid: u32, origin: Origin) -> ExitInfo {
    if let Ok(Ok(status)) =
        tokio::time::timeout(limits::STOP_AFTER_STDIN_CLOSE, tree::wait_leader(child)).await
    {
        tree::finish(pid, origin).await;
        return ExitInfo::from_status(status);
    }
    if tree::terminate(pid, origin) {
        if let Ok(Ok(status)) =
            tokio::time::timeout(limits::STOP_AFTER_SIGTERM, tree::wait_leader(child)).await
        {
            tree::finish(pid, origin).await;
            return ExitInfo::from_status(status);
        }
    }
    tree::kill(pid, origin);
    let info =
        match tokio::time::timeout(limits::STOP_AFTER_SIGKILL, tree::wait_leader(child)).await {
            Ok(Ok(status)) => ExitInfo::from_status(status),
            _ => {
                tracing::error!(pid, "process did not exit after it was killed");
                ExitInfo {
                    code: None,
                    signal: None,
                }
            }
        };
    tree::finish(pid, origin).await;
    info
}
