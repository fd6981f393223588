//! The guardian program: what runs when the binary is re-executed as `mcp-sidecar guardian
//! --sidecar-pid N` (dispatched from `main` before any runtime or logging starts), a tiny process that
//! outlives a SIGKILLed sidecar just long enough to kill what the sidecar was supervising; and the
//! [`Record`]s of the pipe the sidecar feeds it (written by `ledger`, spawned by `spawn::guardian`).
//!
//! Why it exists: nothing runs in a process that receives SIGKILL, so the sidecar cannot clean up
//! after its own SIGKILL. On Linux `PR_SET_PDEATHSIG` takes down the servers themselves (its direct
//! children), but not their descendants, nor descendants that escaped into their own session; macOS
//! has no such thing at all. (Windows needs no guardian: see `job`.)
//!
//! How: at start-up the sidecar re-executes itself as `mcp-sidecar guardian --sidecar-pid N` in a new
//! session (so a signal to the host's process group does not reach it), with stdin a pipe from the
//! sidecar. The sidecar writes one [`Record`] per line whenever a process group appears or goes, or it
//! adopts an escaped descendant. When the pipe reaches end of file without a final `bye` — the sidecar
//! died, whatever the cause — the guardian kills the sidecar's cgroup whole and removes it (where
//! servers are contained in cgroups: `--cgroup DIR`, see `cgroup`), then SIGKILLs every recorded
//! group and process, then every process whose environment carries the sidecar's origin marker, and
//! exits. After `bye` it exits without touching anything.
//!
//! The guardian uses plain `std` (no async runtime) and holds a few small sets: a few hundred KiB of
//! resident memory, most of it the shared binary. See docs/supervision.md for its limits.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};

#[cfg(target_os = "linux")]
use super::cgroup;
use super::kill::{self, Signal};
use super::origin::{Origin, ORIGIN_ENV};
use super::procs::{self, ExitWatch};

/// One line on the guardian's stdin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Record {
    /// `+pgid N`: a server's process group exists.
    AddGroup(u32),
    /// `-pgid N`: that group is empty now.
    RemoveGroup(u32),
    /// `+pid N START`: an adopted descendant (START is its start time, to survive pid reuse).
    AddPid(u32, u64),
    /// `-pid N`: that process was reaped.
    RemovePid(u32),
    /// `bye`: the sidecar stopped everything itself; exit without killing.
    Bye,
}

impl Record {
    pub(crate) fn to_line(self) -> String {
        match self {
            Record::AddGroup(g) => format!("+pgid {g}\n"),
            Record::RemoveGroup(g) => format!("-pgid {g}\n"),
            Record::AddPid(p, start) => format!("+pid {p} {start}\n"),
            Record::RemovePid(p) => format!("-pid {p}\n"),
            Record::Bye => "bye\n".to_owned(),
        }
    }

    pub(crate) fn parse(line: &str) -> Option<Record> {
        let mut words = line.split_whitespace();
        let kind = words.next()?;
        let mut number = || words.next().and_then(|w| w.parse::<u64>().ok());
        let record = match kind {
            "+pgid" => Record::AddGroup(u32::try_from(number()?).ok()?),
            "-pgid" => Record::RemoveGroup(u32::try_from(number()?).ok()?),
            "+pid" => Record::AddPid(u32::try_from(number()?).ok()?, number()?),
            "-pid" => Record::RemovePid(u32::try_from(number()?).ok()?),
            "bye" => Record::Bye,
            _ => return None,
        };
        Some(record)
    }
}

/// What the guardian knows of the sidecar's processes.
#[derive(Default, Debug)]
pub(crate) struct Ledger {
    pub groups: BTreeSet<u32>,
    pub pids: BTreeMap<u32, u64>,
}

impl Ledger {
    /// Applies one record; `true` for `bye`.
    pub(crate) fn apply(&mut self, record: Record) -> bool {
        match record {
            Record::AddGroup(g) => {
                self.groups.insert(g);
            }
            Record::RemoveGroup(g) => {
                self.groups.remove(&g);
            }
            Record::AddPid(p, start) => {
                self.pids.insert(p, start);
            }
            Record::RemovePid(p) => {
                self.pids.remove(&p);
            }
            Record::Bye => return true,
        }
        false
    }
}

/// The guardian's `main`: follows the records on stdin; on end of file without `bye`, kills
/// (first the cgroup `cgroup`, the sidecar's, if it has one).
pub(crate) fn run(sidecar_pid: u32, cgroup: Option<PathBuf>) -> i32 {
    let mut ledger = Ledger::default();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => match Record::parse(&line) {
                Some(record) => {
                    if ledger.apply(record) {
                        return 0;
                    }
                }
                None => eprintln!(
                    "mcp-sidecar guardian: ignored a malformed record: {:?}",
                    line.trim_end()
                ),
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    let killed = cgroup.as_deref().map_or(0, kill_cgroup) + kill_everything(sidecar_pid, &ledger);
    if killed > 0 {
        eprintln!("mcp-sidecar guardian: sidecar {sidecar_pid} died; killed {killed} leftover process(es)");
    }
    0
}

/// Kills the sidecar's cgroup whole (every server's cgroup below it) in a few rounds, each waiting
/// for the members it found to exit, then removes it. Returns how many members it killed.
#[cfg(target_os = "linux")]
fn kill_cgroup(dir: &Path) -> usize {
    let Some(mode) = cgroup::kill_mode_of(dir) else {
        return 0; // Gone already (or never ours to kill).
    };
    let mut killed = 0;
    for _ in 0..crate::limits::ESCAPEE_SWEEP_ROUNDS {
        let members = cgroup::members(dir);
        if members.is_empty() {
            break;
        }
        // Opened before the kill, so each exit can be awaited.
        let watched: Vec<ExitWatch> = members
            .iter()
            .filter_map(|&pid| ExitWatch::open(pid, None).ok().flatten())
            .collect();
        if let Err(e) = cgroup::kill(dir, mode) {
            eprintln!(
                "mcp-sidecar guardian: cannot kill cgroup {}: {e}",
                dir.display()
            );
            for &pid in &members {
                kill::signal_pid(pid, Signal::Kill);
            }
        }
        killed += members.len();
        procs::wait_blocking(&watched, crate::limits::STOP_AFTER_SIGKILL);
    }
    if let Err(e) = cgroup::remove(dir) {
        eprintln!(
            "mcp-sidecar guardian: cannot remove cgroup {}: {e}",
            dir.display()
        );
    }
    killed
}

#[cfg(not(target_os = "linux"))]
fn kill_cgroup(_dir: &Path) -> usize {
    0
}

/// SIGKILLs every recorded group and process, then every process still carrying the sidecar's
/// origin marker. Returns how many kill calls hit something.
fn kill_everything(sidecar_pid: u32, ledger: &Ledger) -> usize {
    let mut killed = 0;
    for &g in &ledger.groups {
        if kill::signal_group(g, Signal::Kill) {
            killed += 1;
        }
    }
    for (&p, &start) in &ledger.pids {
        // Through a watch opened against the start time: only the process we recorded is killed,
        // never a stranger that reused its pid.
        let hit = match ExitWatch::open(p, Some(start)) {
            Ok(Some(watch)) => watch.signal(Signal::Kill),
            Ok(None) => false,
            Err(_) => procs::alive(p, Some(start)) && kill::signal_pid(p, Signal::Kill),
        };
        if hit {
            killed += 1;
        }
    }
    killed + kill_marked(sidecar_pid)
}

/// Kills, in a few rounds, every live process whose environment names this sidecar as its origin
/// (a descendant that escaped its group and was re-parented away from the dead sidecar). The whole
/// machine is scanned: the escapees are no longer in the sidecar's tree. Each round waits for its
/// kills to land (exit watches) before looking again for what forked in between.
fn kill_marked(sidecar_pid: u32) -> usize {
    let prefix = Origin::sidecar_prefix(sidecar_pid);
    let me = std::process::id();
    let mut killed = 0;
    for _ in 0..crate::limits::ESCAPEE_SWEEP_ROUNDS {
        let marked: Vec<procs::Stat> = procs::all()
            .into_iter()
            .filter(|s| !s.is_dead() && s.pid != me && s.pid != sidecar_pid)
            .filter(|s| {
                procs::environ_var(s.pid, ORIGIN_ENV)
                    .is_some_and(|v| v.starts_with(prefix.as_bytes()))
            })
            .collect();
        if marked.is_empty() {
            break;
        }
        let mut landed = Vec::new();
        for s in marked {
            match ExitWatch::open(s.pid, Some(s.start_time)) {
                Ok(Some(watch)) => {
                    if watch.signal(Signal::Kill) {
                        killed += 1;
                        landed.push(watch);
                    }
                }
                Ok(None) => {}
                Err(_) => {
                    if kill::signal_pid(s.pid, Signal::Kill) {
                        killed += 1;
                    }
                }
            }
        }
        procs::wait_blocking(&landed, crate::limits::STOP_AFTER_SIGKILL);
    }
    killed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        for r in [
            Record::AddGroup(7),
            Record::RemoveGroup(7),
            Record::AddPid(9, 12345),
            Record::RemovePid(9),
            Record::Bye,
        ] {
            assert_eq!(Record::parse(&r.to_line()), Some(r));
        }
        assert_eq!(Record::parse("+pgid"), None);
        assert_eq!(Record::parse("+pid 5"), None);
        assert_eq!(Record::parse("+pgid -1"), None);
        assert_eq!(Record::parse("hello"), None);
    }

    #[test]
    fn ledger_follows_records() {
        let mut l = Ledger::default();
        assert!(!l.apply(Record::AddGroup(10)));
        l.apply(Record::AddGroup(11));
        l.apply(Record::RemoveGroup(10));
        l.apply(Record::AddPid(20, 1));
        l.apply(Record::RemovePid(21));
        assert_eq!(l.groups.iter().copied().collect::<Vec<_>>(), [11]);
        assert_eq!(l.pids.get(&20), Some(&1));
        assert!(l.apply(Record::Bye));
    }
}
