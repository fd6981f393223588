//! Waiting for the exit of any process, not only a child, as an event on macOS: a kqueue of its own
//! per watched process, holding one `EVFILT_PROC`/`NOTE_EXIT` filter, becomes readable when that
//! process exits, so it can be awaited in the runtime (`AsyncFd`: a kqueue descriptor can itself be
//! watched by tokio's kqueue) or in a plain thread (`kevent` with a timeout). The same interface as
//! Linux's pidfds, for `procs`.
//!
//! What macOS lacks is a handle that names one process for good: [`ExitWatch::signal`] checks the
//! pid's start time just before `kill`, which leaves the instant between the two for a reuse of the
//! pid (Linux's pidfds close it).

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use rustix::event::kqueue::{kevent, kqueue, Event, EventFilter, EventFlags, ProcessEvents};
use rustix::process::Pid;

use super::kill::{self, Signal};
use super::libproc;

/// A watch on one live process.
#[derive(Debug)]
pub(crate) struct ExitWatch {
    pid: u32,
    start_time: u64,
    queue: OwnedFd,
}

impl ExitWatch {
    /// A watch on `pid`, if it is still the (non-zombie) process that started at `start_time` (any
    /// start time when `None`). `Ok(None)`: gone, or the pid now names another process. `Err`: no
    /// kqueue to be had (no descriptors left); fall back to polling.
    pub(crate) fn open(pid: u32, start_time: Option<u64>) -> std::io::Result<Option<ExitWatch>> {
        let Some(raw) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
            return Ok(None);
        };
        let queue = kqueue()?;
        let exit = Event::new(
            EventFilter::Proc {
                pid: raw,
                flags: ProcessEvents::EXIT,
            },
            EventFlags::ADD | EventFlags::ONESHOT,
            std::ptr::null_mut(),
        );
        let mut none: [Event; 0] = [];
        // SAFETY: the filter names a process, not a descriptor, and carries no user pointer.
        match unsafe { kevent(&queue, &[exit], &mut none[..], Some(Duration::ZERO)) } {
            Ok(_) => {}
            // Gone already (a zombie cannot be watched either).
            Err(rustix::io::Errno::SRCH) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        // Registered first, then checked: an exit after this point wakes the watch, and the
        // process found is the one that started at `start_time`.
        let Some(found) = libproc::stat(pid).filter(|s| !s.is_dead()) else {
            return Ok(None);
        };
        if start_time.is_some_and(|t| t != found.start_time) {
            return Ok(None);
        }
        Ok(Some(ExitWatch {
            pid,
            start_time: found.start_time,
            queue,
        }))
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// Signals this process if the pid still names it; `false` if it is gone.
    pub(crate) fn signal(&self, signal: Signal) -> bool {
        libproc::alive(self.pid, Some(self.start_time)) && kill::signal_pid(self.pid, signal)
    }

    /// Blocks up to `within` for the exit; `true` if it happened.
    fn exited_within(&self, within: Duration) -> bool {
        let mut events = [Event::new(
            EventFilter::Proc {
                pid: Pid::INIT,
                flags: ProcessEvents::empty(),
            },
            EventFlags::empty(),
            std::ptr::null_mut(),
        )];
        // SAFETY: no change is registered; the buffer is for the one event this queue can hold.
        matches!(
            unsafe { kevent(&self.queue, &[], &mut events[..], Some(within)) },
            Ok(n) if n > 0
        )
    }
}

impl AsRawFd for ExitWatch {
    fn as_raw_fd(&self) -> RawFd {
        self.queue.as_raw_fd()
    }
}

impl AsFd for ExitWatch {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.queue.as_fd()
    }
}

/// Blocks this thread until every process in `watches` has exited, or `within` passed; `true` if
/// they all did. For code without a runtime (the guardian, the farewell after the runtime stopped).
pub(crate) fn wait_blocking(watches: &[ExitWatch], within: Duration) -> bool {
    let deadline = Instant::now() + within;
    watches.iter().all(|w| {
        let left = deadline.saturating_duration_since(Instant::now());
        w.exited_within(left)
    })
}
