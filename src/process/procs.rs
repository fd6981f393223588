//! The one view of processes the Unix sweep and guardian are written against, whatever the kernel:
//! a snapshot entry ([`Stat`]: pid, parent, group, start time, zombie or not), the sidecar's tree
//! and every process, one variable of a process's initial environment, and a watch on a process's
//! exit ([`ExitWatch`]) that can be awaited and signals only the process it was opened on.
//!
//! | | Linux | macOS |
//! |---|---|---|
//! | reading processes | `/proc` (`procfs`) | libproc and sysctl (`libproc`) |
//! | exit as an event | pidfd (`pidfd`) | kqueue `EVFILT_PROC` (`kqueue`) |
//! | escaped descendants | kept in the tree by the subreaper | launchd's orphans with our marker |

#[cfg(target_os = "linux")]
pub(super) use super::pidfd::{wait_blocking, Pidfd as ExitWatch};
#[cfg(target_os = "linux")]
pub(super) use super::procfs::{alive, all, descendants, environ_var, stat, tree_below, Stat};

#[cfg(target_os = "macos")]
pub(crate) use super::kqueue::{wait_blocking, ExitWatch};
#[cfg(target_os = "macos")]
pub(crate) use super::libproc::{alive, all, descendants, environ_var, sidecar_tree, Stat};

/// The sidecar's whole tree but the subtrees of `skip`. The subreaper (see `lifetime`) keeps every
/// orphan of a server inside it, escapees included. Blocking.
#[cfg(target_os = "linux")]
pub(super) fn sidecar_tree(skip: &[u32]) -> Vec<Stat> {
    tree_below(std::process::id(), skip)
}
