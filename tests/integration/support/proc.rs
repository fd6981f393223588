//! Linux /proc reads about processes the tests did not spawn themselves (no event tells their
//! fate): the one parser of `/proc/PID/stat`, and the facts built on it.

/// The fields of `/proc/PID/stat` the tests use (see proc(5)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    /// Field 3: `R`, `S`, `D`, `Z` (zombie), `X` (dead), …
    pub state: char,
    /// Field 4.
    pub ppid: u32,
    /// Field 5: the process group.
    pub pgrp: u32,
    /// Field 6: the session.
    pub session: u32,
}

/// Parses one `/proc/PID/stat` text. The command name (field 2) is in parentheses and may itself
/// contain spaces and parentheses, so the fields after it are counted from the *last* `)`.
pub(crate) fn parse_stat(text: &str) -> Option<Stat> {
    let rest = text.get(text.rfind(')')? + 1..)?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let mut number = || fields.next()?.parse::<u32>().ok();
    Some(Stat {
        state,
        ppid: number()?,
        pgrp: number()?,
        session: number()?,
    })
}

/// The stat of `pid`, or `None` when it is gone.
pub(crate) fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Whether a process exists and is not a zombie.
pub(crate) fn pid_alive(pid: u32) -> bool {
    stat(pid).is_some_and(|s| !matches!(s.state, 'Z' | 'X'))
}

/// The parent of a live process.
pub(crate) fn parent_of(pid: u32) -> Option<u32> {
    stat(pid).map(|s| s.ppid)
}

/// `(ppid, pgrp, session)` of a live process.
pub(crate) fn parentage(pid: u32) -> (u32, u32, u32) {
    let s = stat(pid).unwrap_or_else(|| panic!("no /proc/{pid}/stat"));
    (s.ppid, s.pgrp, s.session)
}

/// Direct children of `pid`, from `/proc/PID/task/*/children`.
pub(crate) fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                out.extend(
                    text.split_whitespace()
                        .filter_map(|s| s.parse::<u32>().ok()),
                );
            }
        }
    }
    out
}

/// The guardian process of a running sidecar.
pub(crate) fn guardian_of(sidecar: u32) -> u32 {
    let found = children(sidecar).into_iter().find(|c| {
        std::fs::read(format!("/proc/{c}/cmdline"))
            .is_ok_and(|cmd| cmd.split(|b| *b == 0).any(|arg| arg == b"guardian"))
    });
    found.unwrap_or_else(|| panic!("sidecar {sidecar} has no guardian child"))
}

/// The cgroup (v2) path of `pid`, from its `0::` line in `/proc/PID/cgroup`.
pub(crate) fn cgroup_of(pid: u32) -> Option<String> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix("0::"))
        .map(str::to_owned)
}

/// Whether this test process may create a cgroup below its own in a cgroup2 hierarchy (found in
/// `/proc/self/mountinfo`), checked by creating and removing one: then so may a sidecar it spawns.
pub(crate) fn cgroup2_writable() -> bool {
    let Ok(mounts) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    let mount = mounts.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        (right.split(' ').next()? == "cgroup2")
            .then(|| left.split(' ').nth(4).map(str::to_owned))?
    });
    let (Some(mount), Some(own)) = (mount, cgroup_of(std::process::id())) else {
        return false;
    };
    let probe = std::path::Path::new(&mount)
        .join(own.trim_start_matches('/'))
        .join(format!("mcp-sidecar-test-probe-{}", std::process::id()));
    let made = std::fs::create_dir(&probe).is_ok();
    if made {
        let _ = std::fs::remove_dir(&probe);
    }
    made
}

#[cfg(target_os = "linux")]
#[test]
fn stat_fields_are_counted_from_the_last_parenthesis() {
    let text = "4242 (a) (b c)) S 17 4242 99 0 -1 4194560 1 0 0 0";
    assert_eq!(
        parse_stat(text),
        Some(Stat {
            state: 'S',
            ppid: 17,
            pgrp: 4242,
            session: 99
        })
    );
    assert_eq!(parse_stat("garbage"), None);
    let me = stat(std::process::id()).expect("our own stat");
    assert!(pid_alive(std::process::id()) && me.ppid > 0);
}
