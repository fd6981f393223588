//! Reading Linux's `/proc`: a process's parent, group, session, state and start time, a process's
//! children (and so the sidecar's own tree, walked down from it), every process on the machine (for
//! the guardian only), and one variable of a process's initial environment.
//!
//! Plain `std`: the guardian process uses it too. Every read may fail (the process exited in
//! between, or belongs to another user); failures mean "not there". Every function here blocks on
//! file reads: async code calls them through `spawn_blocking`.
//!
//! Cost: the sidecar only ever walks its own tree ([`tree_below`], a few reads per descendant), never
//! the whole machine: with thousands of unrelated processes a stop costs the same as on an empty
//! machine. [`all`] is for the guardian, whose sidecar is gone and whose escapees were re-parented
//! out of its tree.

use std::collections::{HashMap, HashSet};
use std::io::Read;

use crate::limits;

/// One line of `/proc/PID/stat`, the fields we use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stat {
    pub pid: u32,
    pub ppid: u32,
    pub pgrp: u32,
    pub session: u32,
    /// `R`, `S`, `D`, `Z` (zombie), `X` (dead), …
    pub state: char,
    /// Clock ticks after boot; with the pid it names a process uniquely (pids are reused).
    pub start_time: u64,
}

impl Stat {
    /// A zombie or dead process: it runs no code and only waits to be reaped.
    pub(crate) fn is_dead(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// Parses the text of `/proc/PID/stat`.
pub(crate) fn parse_stat(pid: u32, text: &str) -> Option<Stat> {
    // The command name is in parentheses and may contain anything; fields resume after the last ')'.
    let rest = text.get(text.rfind(')')? + 2..)?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    // Field 22 of the whole line; we have consumed fields 3 to 6.
    let start_time = fields.nth(15)?.parse().ok()?;
    Some(Stat {
        pid,
        ppid,
        pgrp,
        session,
        state,
        start_time,
    })
}

pub(crate) fn stat(pid: u32) -> Option<Stat> {
    parse_stat(
        pid,
        &std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?,
    )
}

/// Every process we can read, in no particular order. Reads one file per process on the machine.
pub(crate) fn all() -> Vec<Stat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
        })
        .filter_map(stat)
        .collect()
}

/// Whether the process `pid` exists, is not a zombie, and (when given) started at `start_time`.
pub(crate) fn alive(pid: u32, start_time: Option<u64>) -> bool {
    stat(pid).is_some_and(|s| !s.is_dead() && start_time.is_none_or(|t| t == s.start_time))
}

/// The sidecar's own children (every thread's), from `/proc/self/task/*/children`.
pub(crate) fn own_children() -> Vec<u32> {
    children_in("/proc/self/task")
}

/// The children of `pid` (every thread's), from `/proc/PID/task/*/children`.
pub(crate) fn children(pid: u32) -> Vec<u32> {
    children_in(&format!("/proc/{pid}/task"))
}

fn children_in(task_dir: &str) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(task_dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|s| s.parse::<u32>().ok()),
            );
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Every live (non-zombie) descendant of `root` in `snapshot`, excluding `root` itself.
pub(crate) fn descendants(snapshot: &[Stat], roots: &[u32]) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for s in snapshot {
        children.entry(s.ppid).or_default().push(s.pid);
    }
    let dead: HashSet<u32> = snapshot
        .iter()
        .filter(|s| s.is_dead())
        .map(|s| s.pid)
        .collect();
    let mut seen: HashSet<u32> = HashSet::new();
    let mut stack: Vec<u32> = roots.to_vec();
    let mut out = Vec::new();
    // Bounded by the snapshot: each pid is visited once.
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(child) {
                if !dead.contains(&child) {
                    out.push(child);
                }
                stack.push(child);
            }
        }
    }
    out
}

/// Every descendant of `root` (zombies included, `root` excluded), walking `children` files down
/// from it; the subtrees of the pids in `skip` are left out. Bounded by the visited set: a pid is read
/// once even if the tree changes under the walk. A process that forks while the walk runs may be
/// missed (the kernel's `children` lists are not snapshots): callers walk again after the processes
/// they found are gone.
pub(crate) fn tree_below(root: u32, skip: &[u32]) -> Vec<Stat> {
    let mut seen: HashSet<u32> = HashSet::from([root]);
    let mut stack = vec![root];
    let mut out = Vec::new();
    while let Some(pid) = stack.pop() {
        let kids = if pid == root && root == std::process::id() {
            own_children()
        } else {
            children(pid)
        };
        for child in kids {
            if skip.contains(&child) || !seen.insert(child) {
                continue;
            }
            if let Some(s) = stat(child) {
                out.push(s);
                stack.push(child);
            }
        }
    }
    out
}

/// The value of `name` in the environment `pid` was started with (`/proc/PID/environ`), reading at
/// most [`limits::PROC_ENVIRON_MAX_BYTES`].
pub(crate) fn environ_var(pid: u32, name: &str) -> Option<Vec<u8>> {
    let file = std::fs::File::open(format!("/proc/{pid}/environ")).ok()?;
    let mut bytes = Vec::new();
    file.take(limits::PROC_ENVIRON_MAX_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    bytes.split(|b| *b == 0).find_map(|entry| {
        let value = entry.strip_prefix(name.as_bytes())?.strip_prefix(b"=")?;
        Some(value.to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_odd_command_names() {
        let line =
            "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        let s = parse_stat(4242, line).unwrap();
        assert_eq!(
            (s.ppid, s.pgrp, s.session, s.state, s.start_time),
            (1, 4242, 4242, 'S', 987654)
        );
        assert!(!s.is_dead());
        assert!(parse_stat(1, "1 (x").is_none());
    }

    #[test]
    fn reads_our_own_process() {
        let me = stat(std::process::id()).unwrap();
        assert!(!me.is_dead());
        assert!(alive(me.pid, Some(me.start_time)));
        assert!(!alive(me.pid, Some(me.start_time + 1)));
        let snapshot = all();
        assert!(snapshot.iter().any(|s| s.pid == me.pid));
        assert!(descendants(&snapshot, &[me.ppid]).contains(&me.pid));
        assert!(tree_below(me.ppid, &[]).iter().any(|s| s.pid == me.pid));
        assert!(tree_below(me.ppid, &[me.pid])
            .iter()
            .all(|s| s.pid != me.pid));
        assert_eq!(environ_var(me.pid, "MCP_SIDECAR_SURELY_UNSET"), None);
        if let Ok(path) = std::env::var("PATH") {
            assert_eq!(environ_var(me.pid, "PATH"), Some(path.into_bytes()));
        }
    }
}
