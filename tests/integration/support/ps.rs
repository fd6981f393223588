//! macOS, which has no `/proc`: the same process facts as `proc.rs` gives on Linux, read from
//! `ps` (its process table through libproc) and `getsid`.

use std::process::Command;

/// `ps -o FIELDS= -p PID` of one process: its fields, or `None` when it is gone.
fn ps_fields(pid: u32, fields: &str) -> Option<Vec<String>> {
    let out = Command::new("ps")
        .args(["-o", fields, "-p", &pid.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("run ps: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    Some(line.split_whitespace().map(str::to_owned).collect())
}

/// Whether a process exists and is not a zombie (`ps` state `Z`).
pub(crate) fn pid_alive(pid: u32) -> bool {
    ps_fields(pid, "stat=").is_some_and(|f| f.first().is_some_and(|s| !s.starts_with('Z')))
}

/// The program a live process runs now (`ps -o comm=`), or `None` when it is gone.
pub(crate) fn command_of(pid: u32) -> Option<String> {
    Some(ps_fields(pid, "comm=")?.join(" "))
}

/// The parent of a live process.
pub(crate) fn parent_of(pid: u32) -> Option<u32> {
    ps_fields(pid, "ppid=")?.first()?.parse().ok()
}

/// `(ppid, pgrp, session)` of a live process.
pub(crate) fn parentage(pid: u32) -> (u32, u32, u32) {
    let fields = ps_fields(pid, "ppid=,pgid=").unwrap_or_else(|| panic!("no process {pid}"));
    let number = |i: usize| fields[i].parse::<u32>().unwrap();
    let raw = nix::unistd::Pid::from_raw(pid as i32);
    let session = nix::unistd::getsid(Some(raw)).unwrap_or_else(|e| panic!("getsid({pid}): {e}"));
    (number(0), number(1), session.as_raw() as u32)
}

/// The guardian process of a running sidecar: its child whose arguments include `guardian`.
pub(crate) fn guardian_of(sidecar: u32) -> u32 {
    let out = Command::new("ps")
        .args(["-A", "-o", "pid=,ppid=,args="])
        .output()
        .unwrap_or_else(|e| panic!("run ps: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let found = text.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let pid = fields.next()?.parse::<u32>().ok()?;
        let ppid = fields.next()?.parse::<u32>().ok()?;
        (ppid == sidecar && fields.any(|arg| arg == "guardian")).then_some(pid)
    });
    found.unwrap_or_else(|| panic!("sidecar {sidecar} has no guardian child"))
}
