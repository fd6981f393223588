//! The OS-process layer, below `supervisor`: spawning servers (the only spawn site), their process
//! groups and environment, the stop sequence of a server's whole tree, the subreaper and the reaping
//! of adopted orphans, the guardian that cleans up after a SIGKILLed sidecar, and the drained stderr
//! ring. It knows processes, not servers' states: it never imports `supervisor`, `host`, `mcp` or
//! `convert`.
//!
//! Files, lower to higher (no two import each other):
//! - [`procfs`]: reading `/proc` (blocking; async callers go through `spawn_blocking`).
//! - `origin`: the `MCP_SIDECAR_ORIGIN` marker; `kill`: signals to a group or a pid.
//! - `pidfd` (Linux): a process's exit as an event, and signals that cannot hit a reused pid.
//! - `cgroup` (Linux): finding a writable cgroup2 hierarchy, a cgroup per server, killing and
//!   removing one whole.
//! - [`guardian`]: the guardian program and the records it reads.
//! - `ledger`: what the sidecar answers for (owned pids, groups, adoptees, the guardian's pipe), and
//!   the reaping of adopted orphans by pid (never `waitpid(-1)`).
//! - `spawn`: the one spawn site (servers and the guardian), the server environment.
//! - `sweep`: group stragglers and escaped descendants, found in the sidecar's own tree and awaited
//!   by pidfd; `stop`: one server's stop sequence; `lifetime`: install, final sweep, farewell.
//! - [`stderr_ring`]: each server's drained stderr and its tail.
//!
//! Nothing here polls on a timer and nothing blocks the runtime: the leader's exit is tokio's `wait`,
//! any other process's exit is its pidfd becoming readable, adopted orphans are reaped on SIGCHLD, and
//! `/proc` is read only when there is a reason (a leader is gone; a round of kills landed).
//!
//! Where the kernel offers a writable cgroup2 hierarchy, each server's tree also lives in a cgroup of
//! its own (`cgroup`), which holds a descendant whatever it does (setsid, a cleared environment, an
//! adoption without SIGCHLD): a stop empties it, the guardian kills the sidecar's whole.
//!
//! Why process groups are not process-wrap's: its `ProcessGroup` wrapper's `wait` goes on to
//! `waitpid(-pgid)` until every member of the group is reaped, and a member re-parented to our
//! subreaper is never reaped by anyone else, so that `wait` blocks forever on the first grandchild
//! left in the group. On Unix a server is made group leader directly (`process_group(0)`) and is a
//! plain tokio child; process-wrap is a dependency on Windows only, for its Job Object with
//! kill-on-job-close.

#[cfg(target_os = "linux")]
mod cgroup;
pub mod guardian;
mod kill;
mod ledger;
mod lifetime;
mod origin;
#[cfg(target_os = "linux")]
mod pidfd;
#[cfg(target_os = "linux")]
pub mod procfs;
mod spawn;
pub mod stderr_ring;
mod stop;
mod sweep;

pub use lifetime::{farewell, final_sweep, install, kill_all_now};
pub use origin::{Origin, ORIGIN_ENV};
pub use spawn::{
    child_env, server as spawn, sidecar as spawn_sidecar, ServerChild, Spawned, BASE_ENV,
};
pub use stderr_ring::StderrTail;
pub use stop::{reap_after_exit, stop_tree, ExitInfo};
