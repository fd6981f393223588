//! The sidecar's own start and end as a parent on Unix (Windows: see `job`): becoming a child
//! subreaper, starting the guardian and the reaper of adopted orphans; the final sweep before exit;
//! the immediate kill on a second termination signal; the farewell that lets the guardian exit
//! without killing.
//!
//! - **Subreaper (Linux).** An orphaned descendant is re-parented to the sidecar instead of init, so
//!   it stays inside the sidecar's process tree where it can be found, and the sidecar must reap it
//!   when it exits: on every SIGCHLD, `ledger::reap_adoptees` runs on a blocking thread. macOS has
//!   no subreaper: an orphan goes to launchd, and `procs::sidecar_tree` finds it there by its origin
//!   marker.
//! - **Guardian.** See `guardian`: every group and adopted process is recorded there too.
//! - **Cgroup (Linux).** Where a writable cgroup2 hierarchy exists, the sidecar creates its cgroup
//!   (see `cgroup`) before the guardian starts, and tells the guardian its path on the command line.
//!   The mechanism in use is logged once.

use std::io::Write;

use super::ledger;
use super::sweep;
use crate::limits;

/// Makes the sidecar a subreaper, starts the guardian and the reaper. Call once, inside the
/// runtime (on its own thread, as every spawn), before the first server starts.
pub(crate) fn install() {
    #[cfg(target_os = "linux")]
    match nix::sys::prctl::set_child_subreaper(true) {
        Ok(()) => ledger::set_subreaper(),
        Err(e) => tracing::warn!("cannot become a child subreaper ({e}); escaped descendants will be re-parented to init"),
    }
    #[cfg(target_os = "linux")]
    let cgroup = contain();
    #[cfg(not(target_os = "linux"))]
    let cgroup: Option<std::path::PathBuf> = None;
    match super::spawn::guardian(std::process::id(), cgroup.as_deref()) {
        Ok((child, stdin)) => {
            tracing::debug!(pid = child.id(), "guardian started");
            set_nonblocking(&stdin);
            ledger::set_guardian(ledger::GuardianLink { child, stdin });
        }
        Err(e) => tracing::warn!("cannot start the guardian ({e}); a SIGKILL of the sidecar could leave processes behind"),
    }
    #[cfg(target_os = "linux")]
    tokio::spawn(reap_on_sigchld());
}

/// Sets up the sidecar's cgroup if it can, logs the mechanism in use, and returns its directory.
#[cfg(target_os = "linux")]
fn contain() -> Option<std::path::PathBuf> {
    match super::cgroup::set_up() {
        Ok(containment) => {
            tracing::info!(
                cgroup = %containment.dir.display(),
                kill = containment.kill_mode.as_str(),
                "process containment: each server's tree in a cgroup of its own"
            );
            let dir = containment.dir.clone();
            ledger::set_containment(containment);
            Some(dir)
        }
        Err(reason) => {
            tracing::info!("process containment: process groups, subreaper and origin marker; no cgroup: {reason}");
            None
        }
    }
}

fn set_nonblocking(pipe: &std::process::ChildStdin) {
    use nix::libc;
    use std::os::fd::AsRawFd;
    let fd = pipe.as_raw_fd();
    // SAFETY: fcntl on a file descriptor we own; F_GETFL/F_SETFL touch no memory.
    let ok = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
    };
    if !ok {
        tracing::warn!(
            "cannot make the guardian pipe non-blocking: {}",
            std::io::Error::last_os_error()
        );
    }
}

#[cfg(target_os = "linux")]
async fn reap_on_sigchld() {
    use tokio::signal::unix::{signal, SignalKind};
    // Tokio's own process driver listens to SIGCHLD too; every listener is woken, so this does not
    // compete with it. Deliveries coalesce, which is why each wake-up looks at every child; one pass
    // at a time, so a burst of exits costs one or two passes.
    let mut sigchld = match signal(SignalKind::child()) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!("cannot listen for SIGCHLD ({e}); adopted orphans are reaped only when a server stops");
            return;
        }
    };
    while sigchld.recv().await.is_some() {
        sweep::reap_adoptees().await;
    }
}

/// The last word before the sidecar exits: every recorded group and every live descendant (other
/// than the guardian) is stopped, whatever its origin. Returns once they are gone.
pub(crate) async fn final_sweep() {
    let groups = ledger::groups();
    if !groups.is_empty() {
        tracing::warn!(?groups, "process groups left at exit; stopping them");
        sweep::sweep_groups(&groups).await;
    }
    sweep::kill_descendants().await;
    #[cfg(target_os = "linux")]
    if let Some(containment) = ledger::containment() {
        sweep::empty_cgroup(containment.dir, containment.kill_mode).await;
    }
}

/// Immediate kill of everything (a second signal): SIGKILL to the sidecar's cgroup, every group and
/// every descendant, no wait.
/// Runs on the signal thread; the process exits right after.
pub(crate) fn kill_all_now() {
    #[cfg(target_os = "linux")]
    if let Some(containment) = ledger::containment() {
        let _ = super::cgroup::kill(&containment.dir, containment.kill_mode);
    }
    for g in ledger::groups() {
        super::kill::signal_group(g, super::kill::Signal::Kill);
    }
    sweep::kill_descendants_now();
}

/// Tells the guardian that everything is stopped (it exits without killing) and waits up to
/// [`limits::GUARDIAN_EXIT_WAIT`] for it to exit. Runs after the runtime stopped: blocks.
pub(crate) fn farewell() {
    let Some(mut link) = ledger::take_guardian() else {
        return;
    };
    let _ = link
        .stdin
        .write_all(super::guardian::Record::Bye.to_line().as_bytes());
    drop(link.stdin);
    if !guardian_exited_within(&mut link.child, limits::GUARDIAN_EXIT_WAIT) {
        tracing::warn!("the guardian did not exit after `bye`");
    }
}

/// Waits for our own child, the guardian, by exit watch where there is one (it is not reaped before
/// `try_wait`, so its pid cannot have been reused).
fn guardian_exited_within(child: &mut std::process::Child, within: std::time::Duration) -> bool {
    if let Ok(Some(watch)) = super::procs::ExitWatch::open(child.id(), None) {
        super::procs::wait_blocking(std::slice::from_ref(&watch), within);
        return !matches!(child.try_wait(), Ok(None));
    }
    let deadline = std::time::Instant::now() + within;
    while std::time::Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            return true;
        }
        std::thread::sleep(limits::DEATH_POLL_INTERVAL);
    }
    false
}
