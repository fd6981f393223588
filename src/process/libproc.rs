//! Reading macOS's process table, which has no `/proc`: a process's parent, group, owner, state and
//! start time (`proc_pidinfo(PROC_PIDTBSDINFO)`), a process's children (`proc_listchildpids`),
//! every process (`proc_listallpids`), and one variable of a process's initial environment
//! (`sysctl(KERN_PROCARGS2)`, readable for the processes of the same user). The same functions as
//! Linux's `procfs`, for `procs`.
//!
//! macOS has no child subreaper: a descendant that leaves its group and whose parent exits (setsid
//! and a double fork) is re-parented to launchd (pid 1), out of the sidecar's tree. [`sidecar_tree`]
//! therefore adds, to the walk down from the sidecar, the subtrees of launchd's children of the
//! sidecar's user that carry its origin marker (see `origin`): one `proc_pidinfo` per process on
//! the machine and one `sysctl` per such orphan, only when a stop or the final sweep looks.
//!
//! Every function blocks on system calls; async callers go through `spawn_blocking`. Every read
//! may fail (the process exited, or belongs to another user); failures mean "not there".

use std::collections::{HashMap, HashSet};

use nix::libc;

use super::origin::{Origin, ORIGIN_ENV};
use crate::limits;

/// The fields of `proc_bsdinfo` we use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stat {
    pub pid: u32,
    pub ppid: u32,
    pub pgrp: u32,
    pub uid: u32,
    zombie: bool,
    /// Microseconds since the epoch; with the pid it names a process uniquely (pids are reused).
    pub start_time: u64,
}

impl Stat {
    /// A zombie: it runs no code and only waits to be reaped.
    pub(crate) fn is_dead(&self) -> bool {
        self.zombie
    }
}

pub(crate) fn stat(pid: u32) -> Option<Stat> {
    let raw = libc::c_int::try_from(pid).ok()?;
    let size = libc::c_int::try_from(std::mem::size_of::<libc::proc_bsdinfo>()).ok()?;
    let mut info = std::mem::MaybeUninit::<libc::proc_bsdinfo>::zeroed();
    // SAFETY: the buffer is one `proc_bsdinfo` of the size passed; the kernel writes at most that.
    let written = unsafe {
        libc::proc_pidinfo(
            raw,
            libc::PROC_PIDTBSDINFO,
            0,
            info.as_mut_ptr().cast(),
            size,
        )
    };
    if written != size {
        return None;
    }
    // SAFETY: zeroed, then written whole; every field is plain data.
    let info = unsafe { info.assume_init() };
    Some(Stat {
        pid,
        ppid: info.pbi_ppid,
        pgrp: info.pbi_pgid,
        uid: info.pbi_uid,
        zombie: info.pbi_status == libc::SZOMB,
        start_time: info
            .pbi_start_tvsec
            .saturating_mul(1_000_000)
            .saturating_add(info.pbi_start_tvusec),
    })
}

/// Whether the process `pid` exists, is not a zombie, and (when given) started at `start_time`.
pub(crate) fn alive(pid: u32, start_time: Option<u64>) -> bool {
    stat(pid).is_some_and(|s| !s.is_dead() && start_time.is_none_or(|t| t == s.start_time))
}

/// Room for processes forked between counting and listing.
const PID_LIST_SLACK: usize = 64;

/// A pid list from one of libproc's `proc_list*pids` calls, which return a count of pids: asked
/// once for the count, then filled with room for that many and [`PID_LIST_SLACK`] more (processes
/// fork between the two calls).
fn pid_list(fill: impl Fn(*mut libc::c_void, libc::c_int) -> libc::c_int) -> Vec<u32> {
    let Ok(count) = usize::try_from(fill(std::ptr::null_mut(), 0)) else {
        return Vec::new();
    };
    let room = count.saturating_add(PID_LIST_SLACK);
    let mut pids: Vec<libc::c_int> = vec![0; room];
    let Ok(bytes) = libc::c_int::try_from(room * std::mem::size_of::<libc::c_int>()) else {
        return Vec::new();
    };
    let filled = usize::try_from(fill(pids.as_mut_ptr().cast(), bytes)).unwrap_or(0);
    pids.truncate(filled.min(room));
    pids.into_iter()
        .filter_map(|p| u32::try_from(p).ok())
        .filter(|&p| p > 0)
        .collect()
}

/// The children of `pid`.
pub(crate) fn children(pid: u32) -> Vec<u32> {
    let Ok(raw) = libc::pid_t::try_from(pid) else {
        return Vec::new();
    };
    // SAFETY: libproc writes at most `size` bytes into `buffer` (null with size 0: count only).
    pid_list(|buffer, size| unsafe { libc::proc_listchildpids(raw, buffer, size) })
}

/// Every process we can read, in no particular order. One call per process on the machine.
pub(crate) fn all() -> Vec<Stat> {
    // SAFETY: as in `children`.
    pid_list(|buffer, size| unsafe { libc::proc_listallpids(buffer, size) })
        .into_iter()
        .filter_map(stat)
        .collect()
}

/// Every live (non-zombie) descendant of `roots` in `snapshot`, the roots excluded.
pub(crate) fn descendants(snapshot: &[Stat], roots: &[u32]) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<&Stat>> = HashMap::new();
    for s in snapshot {
        children.entry(s.ppid).or_default().push(s);
    }
    let mut seen: HashSet<u32> = roots.iter().copied().collect();
    let mut stack: Vec<u32> = roots.to_vec();
    let mut out = Vec::new();
    // Bounded by the snapshot: each pid is visited once.
    while let Some(pid) = stack.pop() {
        for child in children.get(&pid).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(child.pid) {
                if !child.is_dead() {
                    out.push(child.pid);
                }
                stack.push(child.pid);
            }
        }
    }
    out
}

/// Every descendant of `root` (zombies included, `root` excluded), walking children down from it;
/// the subtrees of the pids in `skip` are left out. A process that forks while the walk runs may be
/// missed: callers walk again after the processes they found are gone.
pub(crate) fn tree_below(root: u32, skip: &[u32]) -> Vec<Stat> {
    let mut seen: HashSet<u32> = HashSet::from([root]);
    let mut stack = vec![root];
    let mut out = Vec::new();
    while let Some(pid) = stack.pop() {
        for child in children(pid) {
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

/// The sidecar's tree (see [`tree_below`]), plus what escaped it: every child of launchd owned by
/// the sidecar's user whose environment carries this sidecar's origin marker, with its subtree.
pub(crate) fn sidecar_tree(skip: &[u32]) -> Vec<Stat> {
    let me = std::process::id();
    let mut tree = tree_below(me, skip);
    // SAFETY: getuid cannot fail and touches no memory.
    let uid = unsafe { libc::getuid() };
    let prefix = Origin::sidecar_prefix(me);
    let escaped: Vec<Stat> = all()
        .into_iter()
        .filter(|s| s.ppid == 1 && s.uid == uid && !s.is_dead() && !skip.contains(&s.pid))
        .filter(|s| {
            environ_var(s.pid, ORIGIN_ENV).is_some_and(|v| v.starts_with(prefix.as_bytes()))
        })
        .collect();
    for orphan in escaped {
        if tree.iter().any(|s| s.pid == orphan.pid) {
            continue;
        }
        tree.extend(tree_below(orphan.pid, skip));
        tree.push(orphan);
    }
    tree
}

/// The value of `name` in the environment `pid` was started with, from `sysctl(KERN_PROCARGS2)`
/// read into at most [`limits::PROC_ENVIRON_MAX_BYTES`].
pub(crate) fn environ_var(pid: u32, name: &str) -> Option<Vec<u8>> {
    let mut mib = [
        libc::CTL_KERN,
        libc::KERN_PROCARGS2,
        libc::c_int::try_from(pid).ok()?,
    ];
    let mut size = usize::try_from(limits::PROC_ENVIRON_MAX_BYTES).ok()?;
    let mut bytes = vec![0u8; size];
    // SAFETY: `mib` names three levels; the kernel writes at most `size` bytes into `bytes` and
    // stores the length it wrote in `size`.
    let status = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            3,
            bytes.as_mut_ptr().cast(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if status != 0 {
        return None;
    }
    bytes.truncate(size);
    procargs_var(&bytes, name)
}

/// The variable `name` in a `KERN_PROCARGS2` buffer: `argc` (a native `int`), the executable's
/// path, NUL padding, `argc` arguments, then the environment, each NUL-terminated.
fn procargs_var(bytes: &[u8], name: &str) -> Option<Vec<u8>> {
    let argc_bytes: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    let argc = usize::try_from(i32::from_ne_bytes(argc_bytes)).ok()?;
    let rest = &bytes[4..];
    let rest = &rest[rest.iter().position(|b| *b == 0)?..];
    let rest = &rest[rest.iter().position(|b| *b != 0)?..];
    let mut fields = rest.split(|b| *b == 0);
    // The arguments (an empty one is an empty field); what follows is the environment.
    for _ in 0..argc {
        fields.next()?;
    }
    fields.take_while(|s| !s.is_empty()).find_map(|entry| {
        let value = entry.strip_prefix(name.as_bytes())?.strip_prefix(b"=")?;
        Some(value.to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_variable_after_the_arguments() {
        let mut buffer = 2i32.to_ne_bytes().to_vec();
        buffer.extend_from_slice(b"/bin/sh\0\0\0\0sh\0X=1\0X=2\0Y=3\0\0W=4\0");
        // `X=1` is the second argument, not a variable; the environment ends at an empty string.
        assert_eq!(procargs_var(&buffer, "X"), Some(b"2".to_vec()));
        assert_eq!(procargs_var(&buffer, "Y"), Some(b"3".to_vec()));
        assert_eq!(procargs_var(&buffer, "Z"), None);
        assert_eq!(procargs_var(&buffer, "W"), None);
        assert_eq!(procargs_var(&buffer[..2], "X"), None);
    }
}
