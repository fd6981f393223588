//! Taking down what a server leaves behind once its leader is reaped — the rest of its process group,
//! then the descendants that escaped the group but carry its origin marker, then (Linux) whatever is
//! left in its cgroup — and, at exit, every group and descendant still there. Event-driven: no timer
//! loop. Written against `procs`, the same on Linux and macOS.
//!
//! - **Finding them.** Only the sidecar's own tree is read (`procs::sidecar_tree`, on a blocking
//!   thread): on Linux the subreaper keeps every orphan of a server inside it, so an escapee is always
//!   there; on macOS, where an orphan goes to launchd, the orphans of the sidecar's user carrying its
//!   origin marker are added to it. A group whose every member is gone, zombies included, is
//!   recognised with one `killpg(pgid, 0)` and costs no read at all.
//! - **Waiting for them.** They are not our children in general (nothing to `wait` for): each one
//!   found is watched (a pidfd on Linux, a kqueue on macOS), which the runtime wakes us for when it
//!   exits. The tree is read again only after every process found is gone, to catch what forked in
//!   between; never on a timer.
//! - **Signalling them.** Through the same watch: on Linux a pid reused by a stranger is never
//!   signalled (on macOS, see `kqueue`).
//!
//! Where no watch can be had (Linux before 5.3, no descriptor left) each process's entry is polled
//! every [`limits::DEATH_POLL_INTERVAL`] instead.

use super::ledger;
use super::origin::{Origin, ORIGIN_ENV};
use super::procs::{self, ExitWatch, Stat};
use super::{kill, kill::Signal};
use crate::limits;

#[cfg(target_os = "linux")]
use super::cgroup;

use tokio::time::Instant;

/// Runs blocking work (process-table reads, `waitpid`) off the runtime's thread.
async fn blocking<T: Send + Default + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap_or_default()
}

/// [`ledger::reap_adoptees`] off the runtime's thread.
#[cfg(target_os = "linux")]
pub(super) async fn reap_adoptees() {
    blocking(ledger::reap_adoptees).await;
}

/// Nothing to reap: without a subreaper an orphan is launchd's child, and launchd reaps it.
#[cfg(target_os = "macos")]
pub(crate) async fn reap_adoptees() {}

/// Ends every member of `groups` still alive after their leaders are gone: SIGTERM, a grace period,
/// SIGKILL. Returns once none has a live member (or SIGKILL's grace ran out, logged).
pub(super) async fn sweep_groups(groups: &[u32]) {
    let live: Vec<u32> = groups
        .iter()
        .copied()
        .filter(|&g| kill::group_exists(g))
        .collect();
    if live.is_empty() {
        return;
    }
    for (signal, grace) in [
        (Signal::Term, limits::STOP_AFTER_SIGTERM),
        (Signal::Kill, limits::STOP_AFTER_SIGKILL),
    ] {
        for &g in &live {
            kill::signal_group(g, signal);
        }
        if groups_gone_by(&live, Instant::now() + grace).await {
            return;
        }
    }
    tracing::error!(groups = ?live, "process group members still alive after SIGKILL");
}

/// Whether every member of `groups` is gone by `deadline`.
async fn groups_gone_by(groups: &[u32], deadline: Instant) -> bool {
    loop {
        let wanted = groups.to_vec();
        let members = blocking(move || {
            let (tree, _) = candidates();
            let picked: Vec<Stat> = tree
                .into_iter()
                .filter(|s| !s.is_dead() && wanted.contains(&s.pgrp))
                .collect();
            open_all(&picked)
        })
        .await;
        if members.is_empty() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        let watches = watch_all(members);
        if !all_exited_by(&watches, deadline).await {
            return false;
        }
        reap_adoptees().await;
    }
}

/// Stops every live descendant attributed to `origin` (and their descendants): SIGTERM, a grace
/// period, SIGKILL. Called once the server's own group is gone. Returns once they are all gone.
pub(super) async fn kill_escapees(origin: Origin) {
    let marker = origin.env_value().into_bytes();
    kill_rounds(move |tree, candidates| {
        let marked: Vec<u32> = candidates
            .iter()
            .copied()
            .filter(|&pid| procs::environ_var(pid, ORIGIN_ENV).is_some_and(|v| v == marker))
            .collect();
        let mut targets = procs::descendants(tree, &marked);
        targets.extend(marked);
        targets
    })
    .await;
}

/// Empties the cgroup `dir` and removes it. Its live members, at this point, are descendants that
/// left the server's group and lost its marker (a daemon that cleared its environment): they get
/// SIGTERM and a grace period like any escapee; then the cgroup is killed whole, which also takes
/// what forked meanwhile or is outside the sidecar's tree. The common case, an empty cgroup, costs
/// one read and a `rmdir`.
#[cfg(target_os = "linux")]
pub(super) async fn empty_cgroup(dir: std::path::PathBuf, mode: cgroup::KillMode) {
    let listed = dir.clone();
    if !blocking(move || cgroup::members(&listed)).await.is_empty() {
        let listed = dir.clone();
        kill_rounds(move |_, candidates| {
            let members = cgroup::members(&listed);
            candidates
                .iter()
                .copied()
                .filter(|pid| members.binary_search(pid).is_ok())
                .collect()
        })
        .await;
        kill_cgroup(&dir, mode).await;
    }
    let removed = dir.clone();
    if let Some(e) = blocking(move || cgroup::remove(&removed).err().map(|e| e.to_string())).await {
        tracing::warn!(cgroup = %dir.display(), "cannot remove a server's cgroup: {e}");
    }
}

/// Rounds of: kill the cgroup `dir` whole, wait for the members found to exit; until none is left.
#[cfg(target_os = "linux")]
async fn kill_cgroup(dir: &std::path::Path, mode: cgroup::KillMode) {
    for _ in 0..limits::ESCAPEE_SWEEP_ROUNDS {
        let listed = dir.to_path_buf();
        let members = blocking(move || {
            let found: Vec<Stat> = cgroup::members(&listed)
                .into_iter()
                .filter_map(procs::stat)
                .collect();
            if !found.is_empty() {
                if let Err(e) = cgroup::kill(&listed, mode) {
                    tracing::warn!(cgroup = %listed.display(), "cannot kill a cgroup ({e}); killing its members one by one");
                    for s in &found {
                        kill::signal_pid(s.pid, Signal::Kill);
                    }
                }
            }
            open_all(&found)
        })
        .await;
        if members.is_empty() {
            break;
        }
        tracing::info!(cgroup = %dir.display(), pids = ?members.iter().map(Opened::pid).collect::<Vec<_>>(), "killed what was left in a cgroup");
        let watches = watch_all(members);
        all_exited_by(&watches, Instant::now() + limits::STOP_AFTER_SIGKILL).await;
        reap_adoptees().await;
    }
}

/// Stops every live descendant of the sidecar but the guardian and the leaders someone waits for,
/// whatever its origin (the last sweep before exit).
pub(super) async fn kill_descendants() {
    kill_rounds(|_, candidates| candidates.to_vec()).await;
    reap_adoptees().await;
}

/// SIGKILLs every descendant of the sidecar but the guardian, owned leaders included, without
/// waiting; twice, for what forked in between. Blocking (`/proc` reads): for the signal thread.
pub(super) fn kill_descendants_now() {
    for _ in 0..2 {
        let skip: Vec<u32> = ledger::guardian_pid().into_iter().collect();
        for s in procs::sidecar_tree(&skip) {
            if !s.is_dead() {
                kill::signal_pid(s.pid, Signal::Kill);
            }
        }
    }
}

/// The sidecar's whole tree but the guardian's, and the pids among its live members that may be
/// stopped (not the leaders someone waits for). Blocking.
fn candidates() -> (Vec<Stat>, Vec<u32>) {
    let skip: Vec<u32> = ledger::guardian_pid().into_iter().collect();
    let owned = ledger::owned();
    let tree = procs::sidecar_tree(&skip);
    let candidates = tree
        .iter()
        .filter(|s| !s.is_dead() && !owned.contains(&s.pid))
        .map(|s| s.pid)
        .collect();
    (tree, candidates)
}

/// Rounds of: pick targets among the sidecar's live descendants, SIGTERM, wait, SIGKILL, wait. A
/// round starts only when the previous one's targets are gone; the first that finds none ends it.
async fn kill_rounds(select: impl Fn(&[Stat], &[u32]) -> Vec<u32> + Send + Sync + 'static) {
    let select = std::sync::Arc::new(select);
    for _ in 0..limits::ESCAPEE_SWEEP_ROUNDS {
        let select = std::sync::Arc::clone(&select);
        let targets = blocking(move || {
            let (tree, candidates) = candidates();
            let mut picked = select(&tree, &candidates);
            picked.sort_unstable();
            picked.dedup();
            let picked: Vec<Stat> = tree
                .into_iter()
                .filter(|s| !s.is_dead() && picked.binary_search(&s.pid).is_ok())
                .collect();
            open_all(&picked)
        })
        .await;
        if targets.is_empty() {
            break;
        }
        tracing::info!(pids = ?targets.iter().map(Opened::pid).collect::<Vec<_>>(), "stopping escaped descendants");
        let watches = watch_all(targets);
        for w in &watches {
            w.signal(Signal::Term).await;
        }
        if !all_exited_by(&watches, Instant::now() + limits::STOP_AFTER_SIGTERM).await {
            for w in &watches {
                w.signal(Signal::Kill).await;
            }
            all_exited_by(&watches, Instant::now() + limits::STOP_AFTER_SIGKILL).await;
        }
        reap_adoptees().await;
    }
    reap_adoptees().await;
}

/// A process found alive, before it is handed to the runtime.
enum Opened {
    Fd(ExitWatch, u64),
    /// No watch to be had (old kernel, no descriptor left): polled instead.
    Pid(u32, u64),
}

impl Opened {
    fn pid(&self) -> u32 {
        match self {
            Opened::Fd(fd, _) => fd.pid(),
            Opened::Pid(pid, _) => *pid,
        }
    }
}

/// Watches on the processes in `found` that are still the ones found. Blocking.
fn open_all(found: &[Stat]) -> Vec<Opened> {
    found
        .iter()
        .filter_map(|s| match ExitWatch::open(s.pid, Some(s.start_time)) {
            Ok(Some(fd)) => Some(Opened::Fd(fd, s.start_time)),
            Ok(None) => None,
            Err(_) => Some(Opened::Pid(s.pid, s.start_time)),
        })
        .collect()
}

/// A process being waited for.
enum Watch {
    Fd(tokio::io::unix::AsyncFd<ExitWatch>),
    Pid(u32, u64),
}

fn watch_all(opened: Vec<Opened>) -> Vec<Watch> {
    use tokio::io::unix::AsyncFd;
    use tokio::io::Interest;
    opened
        .into_iter()
        .map(|o| match o {
            Opened::Fd(fd, start) => {
                let pid = fd.pid();
                // SAFETY: an `ExitWatch` owns its descriptor (a pidfd, or a kqueue) for its whole
                // life and `as_raw_fd` always returns that one; the `AsyncFd` owns the watch.
                match unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) } {
                    Ok(a) => Watch::Fd(a),
                    Err(e) => {
                        tracing::debug!(
                            pid,
                            "cannot watch a process's exit ({e}); polling instead"
                        );
                        Watch::Pid(pid, start)
                    }
                }
            }
            Opened::Pid(pid, start) => Watch::Pid(pid, start),
        })
        .collect()
}

impl Watch {
    /// Signals the process if it still runs.
    async fn signal(&self, signal: Signal) {
        match self {
            Watch::Fd(a) => {
                a.get_ref().signal(signal);
            }
            &Watch::Pid(pid, start) => {
                blocking(move || procs::alive(pid, Some(start)) && kill::signal_pid(pid, signal))
                    .await;
            }
        }
    }

    async fn exited(&self) -> bool {
        match self {
            Watch::Fd(a) => a.readable().await.is_ok(),
            &Watch::Pid(pid, start) => loop {
                if !blocking(move || procs::alive(pid, Some(start))).await {
                    return true;
                }
                tokio::time::sleep(limits::DEATH_POLL_INTERVAL).await;
            },
        }
    }
}

/// Whether every watched process exits by `deadline`.
async fn all_exited_by(watches: &[Watch], deadline: Instant) -> bool {
    tokio::time::timeout_at(deadline, async {
        for w in watches {
            if !w.exited().await {
                return false;
            }
        }
        true
    })
    .await
    .unwrap_or(false)
}
