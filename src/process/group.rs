//! A server's tree on Unix: its process group, signalled whole (SIGTERM, then SIGKILL), then, once
//! the leader is reaped, what `sweep` finds — the rest of the group, the escapees carrying the
//! server's origin marker, and (Linux) whatever its cgroup still holds.

use std::process::ExitStatus;

use super::kill::{self, Signal};
use super::ledger;
use super::origin::Origin;
use super::sweep;
use tokio::process::Child;

/// Waits for the server's leader (our child: tokio's `wait`, an event).
pub(super) async fn wait_leader(child: &mut Child) -> std::io::Result<ExitStatus> {
    child.wait().await
}

/// Asks the tree to stop: SIGTERM to the group (whose id is the leader's pid). `true`: asked.
pub(super) fn terminate(pgid: u32, _origin: Origin) -> bool {
    kill::signal_group(pgid, Signal::Term);
    true
}

/// Kills the group: SIGKILL.
pub(super) fn kill(pgid: u32, _origin: Origin) {
    kill::signal_group(pgid, Signal::Kill);
}

/// After the leader was waited for: its group, then its escaped descendants, then its cgroup.
pub(super) async fn finish(pid: u32, origin: Origin) {
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
