//! What the sidecar answers for, in one place: the server leaders whose `wait` belongs to someone
//! else, the live process groups, the adopted orphans, the guardian and its pipe — and the reaping
//! of adopted orphans, by pid.
//!
//! - **Owned pids.** Tokio owns the `wait` of every server it spawned (and `lifetime` that of the
//!   guardian), so this module never calls `waitpid(-1)` (that would steal tokio's children and make
//!   its `wait` fail with ECHILD): on Linux, where the sidecar is a subreaper, `reap_adoptees` lists
//!   the sidecar's children in `/proc/self/task/*/children`, skips the owned ones, and reaps the rest
//!   by pid. (macOS has no subreaper: nothing is adopted, launchd reaps the orphans.)
//! - **Guardian records.** Every change to the groups and adoptees is told to the guardian (see
//!   `guardian`), so it knows what to kill if the sidecar is SIGKILLed.
//! - **Cgroups (Linux).** The sidecar's cgroup, if it has one (see `cgroup`), and each running
//!   spawn's cgroup by origin. The guardian was told the sidecar's at its start: it needs no record
//!   per server, killing the sidecar's cgroup kills every server's below it.
//!
//! Lock: one global mutex, never held across an `.await`, also held while spawning so that the
//! reaper cannot see (and reap) a child before it is recorded as owned. The reaper lists children
//! before taking it: a child listed was forked before the listing, so by the time the lock is ours
//! its spawn has recorded it.

#[cfg(target_os = "linux")]
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::io::Write;
use std::sync::{Mutex, MutexGuard};

#[cfg(target_os = "linux")]
use super::cgroup::Containment;
use super::guardian::Record;
#[cfg(target_os = "linux")]
use super::origin::Origin;

struct Ledger {
    /// Direct children whose `wait` belongs to someone else (tokio for servers, `lifetime` for the
    /// guardian): never reaped here.
    owned: BTreeSet<u32>,
    /// Live process groups of servers (a group outlives its leader while a member lives).
    groups: BTreeSet<u32>,
    /// Adopted descendants seen alive (pid → start time), as told to the guardian.
    #[cfg(target_os = "linux")]
    adoptees: BTreeMap<u32, u64>,
    guardian: Option<GuardianLink>,
    #[cfg(target_os = "linux")]
    subreaper: bool,
    /// The sidecar's cgroup, when servers are contained in cgroups.
    #[cfg(target_os = "linux")]
    containment: Option<Containment>,
    /// The cgroup of each spawn whose server joined one, until its stop removes it.
    #[cfg(target_os = "linux")]
    cgroups: BTreeMap<Origin, std::path::PathBuf>,
}

/// The guardian process and the write end of its pipe.
pub(super) struct GuardianLink {
    pub child: std::process::Child,
    pub stdin: std::process::ChildStdin,
}

static LEDGER: Mutex<Ledger> = Mutex::new(Ledger {
    owned: BTreeSet::new(),
    groups: BTreeSet::new(),
    #[cfg(target_os = "linux")]
    adoptees: BTreeMap::new(),
    guardian: None,
    #[cfg(target_os = "linux")]
    subreaper: false,
    #[cfg(target_os = "linux")]
    containment: None,
    #[cfg(target_os = "linux")]
    cgroups: BTreeMap::new(),
});

fn ledger() -> MutexGuard<'static, Ledger> {
    LEDGER.lock().unwrap_or_else(|p| p.into_inner())
}

impl Ledger {
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
}

/// The sidecar is now a child subreaper: orphans of its tree are its children to reap.
#[cfg(target_os = "linux")]
pub(super) fn set_subreaper() {
    ledger().subreaper = true;
}

/// Records the sidecar's cgroup: every server spawned from now on gets one below it.
#[cfg(target_os = "linux")]
pub(super) fn set_containment(containment: Containment) {
    ledger().containment = Some(containment);
}

/// The sidecar's cgroup, if servers are contained in cgroups.
#[cfg(target_os = "linux")]
pub(super) fn containment() -> Option<Containment> {
    ledger().containment.clone()
}

/// Takes the cgroup of the spawn `origin` out, for its stop to empty and remove.
#[cfg(target_os = "linux")]
pub(super) fn take_cgroup(origin: Origin) -> Option<std::path::PathBuf> {
    ledger().cgroups.remove(&origin)
}

/// Records the guardian (its pid is owned: never reaped by [`reap_adoptees`]). The pipe must
/// already be non-blocking.
pub(super) fn set_guardian(link: GuardianLink) {
    let mut l = ledger();
    l.owned.insert(link.child.id());
    l.guardian = Some(link);
}

/// Takes the guardian link out (for the farewell); nothing is told to the guardian after this.
pub(super) fn take_guardian() -> Option<GuardianLink> {
    ledger().guardian.take()
}

/// The guardian's pid, if it runs: its subtree is never swept.
pub(super) fn guardian_pid() -> Option<u32> {
    ledger().guardian.as_ref().map(|g| g.child.id())
}

/// Pids whose `wait` belongs to someone else.
pub(super) fn owned() -> BTreeSet<u32> {
    ledger().owned.clone()
}

/// The live process groups of servers.
pub(super) fn groups() -> Vec<u32> {
    ledger().groups.iter().copied().collect()
}

/// Held while a server is spawned; see the module doc.
pub(super) struct Spawning(MutexGuard<'static, Ledger>);

/// Starts a spawn: the reaper is locked out until [`Spawning::spawned`] or drop.
pub(super) fn begin_spawn() -> Spawning {
    Spawning(ledger())
}

impl Spawning {
    /// The sidecar's cgroup, if servers are contained in cgroups.
    #[cfg(target_os = "linux")]
    pub(super) fn containment(&self) -> Option<Containment> {
        self.0.containment.clone()
    }

    /// Records a spawned leader whose `wait` belongs to the caller and its process group (the
    /// leader's pid).
    pub(super) fn spawned(mut self, pid: u32) {
        self.0.owned.insert(pid);
        self.0.groups.insert(pid);
        self.0.tell(Record::AddGroup(pid));
    }

    /// As [`Spawning::spawned`], and the cgroup the spawn `origin` runs in.
    #[cfg(target_os = "linux")]
    pub(super) fn spawned_in(
        mut self,
        pid: u32,
        origin: Origin,
        cgroup: Option<std::path::PathBuf>,
    ) {
        if let Some(dir) = cgroup {
            self.0.cgroups.insert(origin, dir);
        }
        self.spawned(pid);
    }
}

/// A server's leader has been waited for: its pid is no longer ours to protect.
pub(super) fn leader_reaped(pid: u32) {
    ledger().owned.remove(&pid);
}

/// A server's process group has no live member left.
pub(super) fn group_gone(pgid: u32) {
    let mut l = ledger();
    if l.groups.remove(&pgid) {
        l.tell(Record::RemoveGroup(pgid));
    }
}

/// Reaps every adopted child that exited and records the live ones. Never touches owned pids.
/// Blocks on `/proc` reads: async code calls it through `spawn_blocking`.
#[cfg(target_os = "linux")]
pub(super) fn reap_adoptees() {
    {
        use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
        use nix::unistd::Pid;
        if !ledger().subreaper {
            return;
        }
        let children = super::procfs::own_children();
        let mut l = ledger();
        for pid in children {
            if l.owned.contains(&pid) {
                continue;
            }
            let Ok(raw) = i32::try_from(pid) else {
                continue;
            };
            match waitpid(Pid::from_raw(raw), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => {
                    if l.adoptees.contains_key(&pid) {
                        continue;
                    }
                    let Some(s) = super::procfs::stat(pid) else {
                        continue;
                    };
                    l.adoptees.insert(pid, s.start_time);
                    tracing::debug!(pid, "adopted an orphaned descendant");
                    l.tell(Record::AddPid(pid, s.start_time));
                }
                Ok(_) => {
                    if l.adoptees.remove(&pid).is_some() {
                        l.tell(Record::RemovePid(pid));
                    }
                }
                // Not our child (any more): it was reaped between the listing and now.
                Err(_) => {}
            }
        }
    }
}
