//! Sending a signal to a process group or to a pid, and asking whether a group has any member at
//! all. Thin wrappers that refuse the dangerous targets (0, 1, -1: "every process", init, our own
//! group) so no caller can get them wrong.

/// The two signals a stop sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
impl Signal {
    fn nix(self) -> nix::sys::signal::Signal {
        match self {
            Signal::Term => nix::sys::signal::Signal::SIGTERM,
            Signal::Kill => nix::sys::signal::Signal::SIGKILL,
        }
    }
}

/// A pid or pgid we may signal: above 1 and not the sidecar itself.
#[cfg(unix)]
fn target(id: u32) -> Option<nix::unistd::Pid> {
    let raw = i32::try_from(id).ok()?;
    (raw > 1 && id != std::process::id()).then(|| nix::unistd::Pid::from_raw(raw))
}

/// Signals every member of the group `pgid`; `true` if the group existed.
pub(super) fn signal_group(pgid: u32, signal: Signal) -> bool {
    #[cfg(unix)]
    {
        target(pgid).is_some_and(|g| nix::sys::signal::killpg(g, signal.nix()).is_ok())
    }
    #[cfg(not(unix))]
    {
        let _ = (pgid, signal);
        false
    }
}

/// Signals the process `pid` (prefer a pidfd where the pid could have been reused).
pub(super) fn signal_pid(pid: u32, signal: Signal) -> bool {
    #[cfg(unix)]
    {
        target(pid).is_some_and(|p| nix::sys::signal::kill(p, signal.nix()).is_ok())
    }
    #[cfg(not(unix))]
    {
        let _ = (pid, signal);
        false
    }
}

/// Whether the group `pgid` has any member, zombies included (`killpg(pgid, 0)`): one system call, so
/// the common case (the group died with its leader) needs no look at `/proc`.
pub(super) fn group_exists(pgid: u32) -> bool {
    #[cfg(unix)]
    {
        target(pgid).is_some_and(|g| nix::sys::signal::killpg(g, None).is_ok())
    }
    #[cfg(not(unix))]
    {
        let _ = pgid;
        false
    }
}
