//! The OS-process layer, below `supervisor`: spawning servers (the only spawn site), their process
//! groups (Unix) or Job Objects (Windows) and environment, the stop sequence of a server's whole
//! tree, the subreaper and the reaping of adopted orphans (Linux), the guardian that cleans up after
//! a SIGKILLed sidecar (Unix), and the drained stderr ring. It knows processes, not servers' states: it never imports `supervisor`, `host`, `mcp` or
//! `convert`.
//!
//! Each platform has its own code behind the same few functions; `stop` runs one stop sequence over
//! them and `spawn` is the one spawn site for all. Files, lower to higher (no two import each other):
//! - `origin`: the `MCP_SIDECAR_ORIGIN` marker; [`stderr_ring`]: each server's drained stderr.
//! - Unix: `kill` (signals to a group or a pid); `procs`, one view of processes over the kernel's
//!   own: on Linux [`procfs`] (reading `/proc`) and `pidfd` (an exit as an event, signals that
//!   cannot hit a reused pid), on macOS `libproc` (libproc and sysctl) and `kqueue`
//!   (`EVFILT_PROC`); `cgroup` (Linux): a cgroup per server, killed and removed whole; [`guardian`]:
//!   the guardian program and the records it reads; `ledger`: what the sidecar answers for (owned
//!   pids, groups, adoptees, the guardian's pipe) and, on Linux, the reaping of adopted orphans by
//!   pid (never `waitpid(-1)`); `sweep`: group stragglers and escaped descendants, found in the
//!   sidecar's tree and awaited by exit watch; `group`: one server's tree, its process group;
//!   `lifetime`: install, final sweep, farewell.
//! - Windows: `job`: one server's tree, its Job Object, and the sidecar's install and final sweep.
//! - `server_env`: the environment a server starts with and the program its command names;
//!   `spawn_linux` (Linux): a spawn's cgroup and parent-death signal, set between fork and exec;
//!   `spawn`: the one spawn site (servers and, on Unix, the guardian); `stop`: one server's stop
//!   sequence.
//!
//! Nothing here polls on a timer and nothing blocks the runtime: the leader's exit is tokio's `wait`,
//! any other process's exit is an event (a pidfd, a kqueue, a job's completion port), adopted
//! orphans are reaped on SIGCHLD, and the process table is read only when there is a reason (a
//! leader is gone; a round of kills landed).
//!
//! Where the kernel offers a writable cgroup2 hierarchy, each server's tree also lives in a cgroup of
//! its own (`cgroup`), which holds a descendant whatever it does (setsid, a cleared environment, an
//! adoption without SIGCHLD): a stop empties it, the guardian kills the sidecar's whole.
//!
//! Why process groups are not process-wrap's: its `ProcessGroup` wrapper's `wait` goes on to
//! `waitpid(-pgid)` until every member of the group is reaped, and a member re-parented to our
//! subreaper is never reaped by anyone else, so that `wait` blocks forever on the first grandchild
//! left in the group. On Unix a server is made group leader directly (`process_group(0)`) and is a
//! plain tokio child; on Windows it is a plain tokio child put in a Job Object by `job`.
//! `docs/platforms.md` says what each platform does and what each one's tests show.

#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(unix)]
mod group;
#[cfg(unix)]
pub(crate) mod guardian;
#[cfg(windows)]
mod job;
#[cfg(unix)]
mod kill;
#[cfg(target_os = "macos")]
mod kqueue;
#[cfg(unix)]
mod ledger;
#[cfg(target_os = "macos")]
mod libproc;
#[cfg(unix)]
mod lifetime;
mod origin;
#[cfg(target_os = "linux")]
mod pidfd;
#[cfg(target_os = "linux")]
pub(crate) mod procfs;
#[cfg(unix)]
mod procs;
mod server_env;
mod spawn;
#[cfg(target_os = "linux")]
mod spawn_linux;
pub(crate) mod stderr_ring;
mod stop;
#[cfg(unix)]
mod sweep;

#[cfg(windows)]
pub(crate) use job::{farewell, final_sweep, install};
#[cfg(unix)]
pub(crate) use lifetime::{farewell, final_sweep, install, kill_all_now};
pub(crate) use origin::Origin;
pub(crate) use server_env::child_env;
pub(crate) use spawn::{package_tool, server as spawn, sidecar as spawn_sidecar, ServerChild};
pub(crate) use stderr_ring::StderrTail;
pub(crate) use stop::{reap_after_exit, stop_tree, ExitInfo};
