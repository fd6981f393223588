//! Per-process resource limits, set by the child between fork and exec (`setrlimit` is
//! async-signal-safe): open files and CPU seconds always; virtual memory and the user's process
//! count only as the weaker stand-ins for a cgroup's limits, when the config allows weaker.

use nix::libc;

/// The limits to set, soft and hard alike (a server cannot raise them again).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Limits {
    pub open_files: Option<u64>,
    pub cpu_seconds: Option<u64>,
    /// `RLIMIT_AS`: only where no memory cgroup holds the memory limit.
    pub address_space: Option<u64>,
    /// `RLIMIT_NPROC`: only where no pids cgroup holds the task limit.
    pub processes: Option<u64>,
}

impl Limits {
    /// In the child: each limit set, or the error of the first refused.
    pub(super) fn apply(&self) -> std::io::Result<()> {
        for (resource, value) in [
            (libc::RLIMIT_NOFILE, self.open_files),
            (libc::RLIMIT_CPU, self.cpu_seconds),
            (libc::RLIMIT_AS, self.address_space),
            (libc::RLIMIT_NPROC, self.processes),
        ] {
            let Some(value) = value else { continue };
            let limit = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            // SAFETY: a plain system call on a struct that lives across it.
            if unsafe { libc::setrlimit(resource, &limit) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}
