//! Windows: which processes are alive, as Windows itself lists them: the fixture crate's
//! `mcp-proclist` (a ToolHelp snapshot, one `PID PARENT EXE` line each), built once per run.

use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::build_fixture;

/// A process of the snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Process {
    pub pid: u32,
    pub parent: u32,
    pub exe: String,
}

/// Every process on the machine, from a fresh snapshot.
pub(crate) fn processes() -> Vec<Process> {
    static LISTER: OnceLock<std::path::PathBuf> = OnceLock::new();
    let lister = LISTER.get_or_init(|| build_fixture("mcp-proclist"));
    let out = Command::new(lister)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", lister.display()));
    assert!(out.status.success(), "mcp-proclist failed: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, ' ');
            Some(Process {
                pid: fields.next()?.parse().ok()?,
                parent: fields.next()?.parse().ok()?,
                exe: fields.next().unwrap_or_default().to_owned(),
            })
        })
        .collect()
}

/// Whether a process with this pid is listed.
pub(crate) fn pid_alive(pid: u32) -> bool {
    processes().iter().any(|p| p.pid == pid)
}

/// The parent of a listed process.
pub(crate) fn parent_of(pid: u32) -> Option<u32> {
    processes()
        .into_iter()
        .find(|p| p.pid == pid)
        .map(|p| p.parent)
}
