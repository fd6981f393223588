//! Waiting for the exit of any process, not only a child, as an event: a Linux pidfd
//! (`pidfd_open`, kernel 5.3+) becomes readable when its process exits, so it can be awaited in the
//! runtime (`AsyncFd`) or in a plain thread (`poll`). A pidfd also names one process for good, so a
//! signal sent through it ([`Pidfd::signal`]) cannot hit a stranger that reused the pid.
//!
//! Opening checks the start time read from `/proc` *after* the pidfd pins the process: the pidfd then
//! refers to the very process that was found, or we report it gone.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::process::{pidfd_open, pidfd_send_signal, Pid, PidfdFlags};

use super::kill::Signal;
use super::procfs;

/// A handle on one live process.
#[derive(Debug)]
pub(super) struct Pidfd {
    pid: u32,
    fd: OwnedFd,
}

impl Pidfd {
    /// The pidfd of `pid`, if it is still the (non-zombie) process that started at `start_time`
    /// (any start time when `None`). `Ok(None)`: gone, or the pid now names another process.
    /// `Err`: pidfds are not available (old kernel, no descriptors left); fall back to polling.
    /// Blocks on a `/proc` read when `start_time` is given.
    pub(super) fn open(pid: u32, start_time: Option<u64>) -> std::io::Result<Option<Pidfd>> {
        let Some(raw) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
            return Ok(None);
        };
        let fd = match pidfd_open(raw, PidfdFlags::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::SRCH) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        if start_time.is_some() && !procfs::alive(pid, start_time) {
            return Ok(None);
        }
        Ok(Some(Pidfd { pid, fd }))
    }

    pub(super) fn pid(&self) -> u32 {
        self.pid
    }

    /// Signals exactly this process; `false` if it is gone.
    pub(super) fn signal(&self, signal: Signal) -> bool {
        let sig = match signal {
            Signal::Term => rustix::process::Signal::TERM,
            Signal::Kill => rustix::process::Signal::KILL,
        };
        pidfd_send_signal(&self.fd, sig).is_ok()
    }
}

impl AsRawFd for Pidfd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl AsFd for Pidfd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Blocks this thread until every process in `fds` has exited, or `within` passed; `true` if they
/// all did. For code without a runtime (the guardian, the farewell after the runtime stopped).
pub(super) fn wait_blocking(fds: &[Pidfd], within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut pending: Vec<&Pidfd> = fds.iter().collect();
    while !pending.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        let Ok(timeout) = Timespec::try_from(left) else {
            return false;
        };
        let mut polled: Vec<PollFd<'_>> = pending
            .iter()
            .map(|p| PollFd::new(*p, PollFlags::IN))
            .collect();
        match poll(&mut polled, Some(&timeout)) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(_) => return false,
        }
        let still: Vec<bool> = polled.iter().map(|p| p.revents().is_empty()).collect();
        drop(polled);
        pending = pending
            .into_iter()
            .zip(still)
            .filter_map(|(p, waiting)| waiting.then_some(p))
            .collect();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods)] // a test spawns the process it watches
    fn waits_for_and_signals_exactly_the_process_found() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let start = procfs::stat(pid).unwrap().start_time;
        assert!(
            Pidfd::open(pid, Some(start + 1)).unwrap().is_none(),
            "another start time is another process"
        );
        let fd = Pidfd::open(pid, Some(start)).unwrap().unwrap();
        assert!(
            !wait_blocking(std::slice::from_ref(&fd), Duration::from_millis(1)),
            "still running"
        );
        assert!(fd.signal(Signal::Kill));
        assert!(
            wait_blocking(std::slice::from_ref(&fd), Duration::from_secs(30)),
            "exit seen"
        );
        // A zombie until reaped: no longer "the process found".
        assert!(Pidfd::open(pid, Some(start)).unwrap().is_none());
        child.wait().unwrap();
    }
}
