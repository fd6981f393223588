//! Everything the sidecar must never leave behind, beyond the servers it spawned directly: their
//! process groups, the descendants that escaped those groups, and the guardian that cleans up if
//! the sidecar itself is SIGKILLed.
//!
//! - **Origin marker.** Every server starts with `MCP_SIDECAR_ORIGIN=<sidecar pid>:<n>` in its
//!   environment, a value unique to that spawn. Descendants inherit it, so a process that left its
//!   server's group (setsid + double fork) can still be attributed to the server it came from.
//! - **Subreaper (Linux).** The sidecar is a child subreaper: an orphaned descendant is re-parented
//!   to the sidecar instead of init, so it stays inside the sidecar's process tree where it can be
//!   found, and the sidecar must reap it when it exits. Tokio owns the `wait` of every server it
//!   spawned, so this module never calls `waitpid(-1)` (that would steal tokio's children and make
//!   its `wait` fail with ECHILD): it lists its own children in `/proc/self/task/*/children`, skips
//!   the pids someone else waits for ([`Tree::owned`]), and reaps the rest by pid.
//! - **Guardian.** See [`super::guardian`]: every group and adopted process is recorded there too.
//!
//! Lock: one global mutex, never held across an `.await`, also held while spawning so that the
//! reaper cannot see (and reap) a child before it is recorded as owned.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::{Mutex, MutexGuard};
#[cfg(target_os = "linux")]
use std::time::Duration;

use super::guardian::Record;
use super::process::{self, Signal};
use crate::limits;

/// The environment variable that carries a server's origin marker to all its descendants.
pub const ORIGIN_ENV: &str = "MCP_SIDECAR_ORIGIN";

/// One spawn of one server; see [`ORIGIN_ENV`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Origin(u64);

impl Origin {
    /// The value of [`ORIGIN_ENV`] for this spawn.
    pub fn env_value(self) -> String {
        format!("{}:{}", std::process::id(), self.0)
    }
}

struct Tree {
    /// Direct children whose `wait` belongs to someone else (tokio for servers, us for the
    /// guardian): never reaped here.
    owned: BTreeSet<u32>,
    /// Live process groups of servers (a group outlives its leader while a member lives).
    groups: BTreeSet<u32>,
    /// Adopted descendants seen alive (pid → start time), as told to the guardian.
    adoptees: BTreeMap<u32, u64>,
    guardian: Option<GuardianLink>,
    next_origin: u64,
    subreaper: bool,
}

struct GuardianLink {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
}

static TREE: Mutex<Tree> = Mutex::new(Tree {
    owned: BTreeSet::new(),
    groups: BTreeSet::new(),
    adoptees: BTreeMap::new(),
    guardian: None,
    next_origin: 0,
    subreaper: false,
});

fn tree() -> MutexGuard<'static, Tree> {
    TREE.lock().unwrap_or_else(|p| p.into_inner())
}

impl Tree {
    /// Tells the guardian. The pipe is non-blocking and a record is shorter than `PIPE_BUF`, so a
    /// write is all or nothing and never blocks the sidecar: a guardian that stopped reading costs
    /// a record (logged), one that is gone is dropped.
    fn tell(&mut self, record: Record) {
        let Some(link) = &mut self.guardian else {
            return;
        };
        let line = record.to_line();
        match link.stdin.write(line.as_bytes()) {
            Ok(n) if n == line.len() => {}
            Ok(_) => tracing::warn!(?record, "partial write to the guardian"),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                tracing::warn!(?record, "the guardian is not reading; record dropped");
            }
            Err(e) => {
                tracing::warn!("the guardian is gone ({e}); a SIGKILL of the sidecar could now leave processes behind");
                let pid = link.child.id();
                self.guardian = None;
                // Its zombie is now an ordinary child for the reaper.
                self.owned.remove(&pid);
            }
        }
    }

    fn guardian_pid(&self) -> Option<u32> {
        self.guardian.as_ref().map(|g| g.child.id())
    }
}

/// Makes the sidecar a subreaper, starts the guardian and the reaper. Call once, inside the
/// runtime, before the first server starts.
pub fn install() {
    #[cfg(target_os = "linux")]
    match nix::sys::prctl::set_child_subreaper(true) {
        Ok(()) => tree().subreaper = true,
        Err(e) => tracing::warn!("cannot become a child subreaper ({e}); escaped descendants will be re-parented to init"),
    }
    #[cfg(unix)]
    {
        let mut t = tree();
        match process::spawn_guardian(std::process::id()) {
            Ok((child, stdin)) => {
                tracing::debug!(pid = child.id(), "guardian started");
                set_nonblocking(&stdin);
                t.owned.insert(child.id());
                t.guardian = Some(GuardianLink { child, stdin });
            }
            Err(e) => tracing::warn!("cannot start the guardian ({e}); a SIGKILL of the sidecar could leave processes behind"),
        }
    }
    #[cfg(target_os = "linux")]
    tokio::spawn(reap_on_sigchld());
}

#[cfg(unix)]
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

/// Held while a server is spawned; see the module doc.
pub struct Spawning(MutexGuard<'static, Tree>);

/// Starts a spawn: the reaper is locked out until [`Spawning::spawned`] or drop.
pub fn begin_spawn() -> Spawning {
    Spawning(tree())
}

impl Spawning {
    /// A fresh origin marker for the process about to be spawned.
    pub fn origin(&mut self) -> Origin {
        self.0.next_origin += 1;
        Origin(self.0.next_origin)
    }

    /// Records a spawned leader whose `wait` belongs to the caller, and its process group.
    pub fn spawned(mut self, pid: u32, pgid: Option<u32>) {
        self.0.owned.insert(pid);
        if let Some(g) = pgid {
            self.0.groups.insert(g);
            self.0.tell(Record::AddGroup(g));
        }
    }
}

/// A server's leader has been waited for: its pid is no longer ours to protect.
pub fn leader_reaped(pid: u32) {
    tree().owned.remove(&pid);
}

/// A server's process group has no live member left.
pub fn group_gone(pgid: u32) {
    let mut t = tree();
    if t.groups.remove(&pgid) {
        t.tell(Record::RemoveGroup(pgid));
    }
}

/// Reaps every adopted child that exited and records the live ones. Never touches owned pids.
pub fn reap_adoptees() {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
        use nix::unistd::Pid;
        let mut t = tree();
        if !t.subreaper {
            return;
        }
        for pid in super::procfs::own_children() {
            if t.owned.contains(&pid) {
                continue;
            }
            let Ok(raw) = i32::try_from(pid) else {
                continue;
            };
            match waitpid(Pid::from_raw(raw), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => {
                    let start = match t.adoptees.entry(pid) {
                        std::collections::btree_map::Entry::Occupied(_) => continue,
                        std::collections::btree_map::Entry::Vacant(slot) => {
                            match super::procfs::stat(pid) {
                                Some(s) => *slot.insert(s.start_time),
                                None => continue,
                            }
                        }
                    };
                    tracing::debug!(pid, "adopted an orphaned descendant");
                    t.tell(Record::AddPid(pid, start));
                }
                Ok(_) => {
                    if t.adoptees.remove(&pid).is_some() {
                        t.tell(Record::RemovePid(pid));
                    }
                }
                // Not our child (any more): it was reaped between the listing and now.
                Err(_) => {}
            }
        }
    }
}

#[cfg(target_os = "linux")]
async fn reap_on_sigchld() {
    use tokio::signal::unix::{signal, SignalKind};
    // Tokio's own process driver listens to SIGCHLD too; every listener is woken, so this does not
    // compete with it. Deliveries coalesce, which is why each wake-up scans every child.
    let mut sigchld = match signal(SignalKind::child()) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!("cannot listen for SIGCHLD ({e}); adopted orphans are reaped only when a server stops");
            return;
        }
    };
    while sigchld.recv().await.is_some() {
        reap_adoptees();
    }
}

/// Stops every live descendant attributed to `origin` (and their descendants): SIGTERM, a grace
/// period, SIGKILL. Called once the server's own group is gone. Returns once they are all gone.
pub async fn kill_escapees(origin: Origin) {
    #[cfg(target_os = "linux")]
    {
        let marker = origin.env_value().into_bytes();
        kill_rounds(move |snapshot, candidates| {
            let marked: Vec<u32> = candidates
                .iter()
                .copied()
                .filter(|&pid| {
                    super::procfs::environ_var(pid, ORIGIN_ENV).is_some_and(|v| v == marker)
                })
                .collect();
            let mut targets = super::procfs::descendants(snapshot, &marked);
            targets.extend(marked);
            targets
        })
        .await;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = origin;
}

/// The last word before the sidecar exits: every recorded group and every live descendant (other
/// than the guardian) is stopped, whatever its origin. Returns once they are gone.
pub async fn final_sweep() {
    let groups: Vec<u32> = tree().groups.iter().copied().collect();
    if !groups.is_empty() {
        tracing::warn!(?groups, "process groups left at exit; stopping them");
        for &g in &groups {
            process::signal_group(g, Signal::Term);
        }
        let deadline = tokio::time::Instant::now() + limits::STOP_AFTER_SIGTERM;
        while groups.iter().any(|&g| process::group_alive(g))
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(limits::DEATH_POLL_INTERVAL).await;
        }
        for &g in &groups {
            process::signal_group(g, Signal::Kill);
        }
    }
    #[cfg(target_os = "linux")]
    kill_rounds(|_, candidates| candidates.to_vec()).await;
    reap_adoptees();
}

/// Immediate kill of everything (a second signal): SIGKILL to every group and descendant, no wait.
/// Runs on the signal thread; the process exits right after.
pub fn kill_all_now() {
    let groups: Vec<u32> = tree().groups.iter().copied().collect();
    for g in groups {
        process::signal_group(g, Signal::Kill);
    }
    #[cfg(target_os = "linux")]
    for _ in 0..2 {
        let snapshot = super::procfs::all();
        for pid in candidates(&snapshot, true) {
            process::signal_pid(pid, Signal::Kill);
        }
    }
}

/// Tells the guardian that everything is stopped (it exits without killing) and waits briefly for
/// it to exit.
pub fn farewell() {
    let link = tree().guardian.take();
    let Some(mut link) = link else { return };
    let _ = link.stdin.write_all(Record::Bye.to_line().as_bytes());
    drop(link.stdin);
    let deadline = std::time::Instant::now() + limits::GUARDIAN_EXIT_WAIT;
    while std::time::Instant::now() < deadline {
        if !matches!(link.child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(limits::DEATH_POLL_INTERVAL);
    }
    tracing::warn!("the guardian did not exit after `bye`");
}

/// Live descendants of the sidecar other than the guardian (and, unless `with_owned`, other than
/// server leaders someone waits for).
#[cfg(target_os = "linux")]
fn candidates(snapshot: &[super::procfs::Stat], with_owned: bool) -> Vec<u32> {
    let (guardian, owned) = {
        let t = tree();
        (t.guardian_pid(), t.owned.clone())
    };
    super::procfs::descendants(snapshot, &[std::process::id()])
        .into_iter()
        .filter(|pid| Some(*pid) != guardian && (with_owned || !owned.contains(pid)))
        .collect()
}

/// Rounds of: pick targets among the sidecar's live descendants, SIGTERM, wait, SIGKILL, wait.
#[cfg(target_os = "linux")]
async fn kill_rounds(select: impl Fn(&[super::procfs::Stat], &[u32]) -> Vec<u32>) {
    for _ in 0..limits::ESCAPEE_SWEEP_ROUNDS {
        let snapshot = super::procfs::all();
        let mut targets: Vec<(u32, u64)> = select(&snapshot, &candidates(&snapshot, false))
            .into_iter()
            .filter_map(|pid| {
                snapshot
                    .iter()
                    .find(|s| s.pid == pid)
                    .map(|s| (pid, s.start_time))
            })
            .collect();
        targets.sort_unstable();
        targets.dedup();
        if targets.is_empty() {
            break;
        }
        tracing::info!(pids = ?targets.iter().map(|t| t.0).collect::<Vec<_>>(), "stopping escaped descendants");
        for &(pid, _) in &targets {
            process::signal_pid(pid, Signal::Term);
        }
        if !all_dead_within(&targets, limits::STOP_AFTER_SIGTERM).await {
            for &(pid, start) in &targets {
                if super::procfs::alive(pid, Some(start)) {
                    process::signal_pid(pid, Signal::Kill);
                }
            }
            all_dead_within(&targets, limits::STOP_AFTER_SIGKILL).await;
        }
    }
    reap_adoptees();
}

/// Polls until every target is dead (these are not our children in general: there is no event to
/// await), reaping adopted zombies as it goes.
#[cfg(target_os = "linux")]
async fn all_dead_within(targets: &[(u32, u64)], within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        reap_adoptees();
        if targets
            .iter()
            .all(|&(pid, start)| !super::procfs::alive(pid, Some(start)))
        {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(limits::DEATH_POLL_INTERVAL).await;
    }
}
