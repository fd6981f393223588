//! Linux's parts of a server's spawn: its own cgroup (made before the fork, joined between fork and
//! exec, its membership checked once the spawn returns) and the parent-death signal, set between
//! fork and exec so that the server dies with the sidecar.

use super::cgroup;
use super::ledger;
use super::origin::Origin;

/// The cgroup for this spawn, if the sidecar has one; a failure to create it leaves this server
/// uncontained (logged), not down.
pub(super) fn server_cgroup(
    server: &str,
    spawning: &ledger::Spawning,
    origin: Origin,
) -> Option<cgroup::ServerCgroup> {
    let containment = spawning.containment()?;
    match containment.server(origin.number()) {
        Ok(cgroup) => Some(cgroup),
        Err(e) => {
            tracing::warn!(
                server,
                "cannot create a cgroup for this server ({e}); its tree is contained by its process group and origin marker only"
            );
            None
        }
    }
}

/// The child joins its cgroup between fork and exec. A failure is not fatal there (the child
/// cannot say why; the parent checks the membership once the spawn returns, see [`joined`]).
pub(super) fn join_cgroup(c: &mut tokio::process::Command, procs_fd: std::os::fd::RawFd) {
    // SAFETY: the closure runs in the forked child before exec and makes one write system call
    // on a descriptor the parent holds open until the spawn returns; it does not allocate.
    unsafe {
        c.pre_exec(move || {
            let _ = cgroup::join(procs_fd);
            Ok(())
        });
    }
}

/// The cgroup's directory if the server joined it (the spawn returned, so the pre-exec hook ran):
/// it is a member, or, if it exited already, what it forked is. Otherwise the empty cgroup is
/// removed and the server is uncontained (logged).
pub(super) fn joined(
    server: &str,
    pid: u32,
    cgroup: cgroup::ServerCgroup,
) -> Option<std::path::PathBuf> {
    if !cgroup::members(&cgroup.dir).is_empty() {
        return Some(cgroup.dir);
    }
    // A server that already exited, leaving nothing, has nothing to contain: nothing to say.
    if super::procfs::alive(pid, None) {
        tracing::warn!(
            server,
            pid,
            cgroup = %cgroup.dir.display(),
            "the server did not join its cgroup; its tree is contained by its process group and origin marker only"
        );
    }
    let _ = std::fs::remove_dir(&cgroup.dir);
    None
}

/// `PR_SET_PDEATHSIG(SIGKILL)` in the child between fork and exec.
pub(super) fn die_with_parent(c: &mut tokio::process::Command) {
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
