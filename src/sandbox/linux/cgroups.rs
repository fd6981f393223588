//! The memory and task limits of a server's whole tree, held by cgroup controllers: cgroup v2's
//! `memory.max` and `pids.max` in the server's own cgroup (the one `process::cgroup` makes it join,
//! its controllers enabled from the sidecar's cgroup), else cgroup v1's `memory` and `pids`
//! hierarchies, in a cgroup per server below the sidecar's own (`mcp-sidecar-PID/server-N`, which the
//! child joins between fork and exec by writing `0` to a `cgroup.procs` the parent opened). A v1
//! cgroup is removed once the server's tree has ended ([`Placed`]'s drop).

use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use super::detect::{read_bounded, Host};
use crate::sandbox::level;

/// Where one limit is held once placed.
pub(super) struct Placed {
    /// The cgroup whose `memory.events` / `memory.oom_control` counts OOM kills.
    pub memory_dir: Option<PathBuf>,
    /// v1 cgroups made for this spawn (removed after the tree has ended).
    made: Vec<PathBuf>,
    /// `cgroup.procs` of the v1 cgroups, written by the child.
    procs: Vec<OwnedFd>,
}

/// The outcome of placing one limit: the part that holds it, or why none can.
pub(super) type Outcome = Result<&'static str, String>;

impl Placed {
    fn new() -> Self {
        Self {
            memory_dir: None,
            made: Vec::new(),
            procs: Vec::new(),
        }
    }

    /// The descriptors the child writes to join the v1 cgroups (the parent's copies close once
    /// the spawn returns and the [`Join`] is dropped).
    pub(super) fn take_join(&mut self) -> Join {
        Join {
            procs: std::mem::take(&mut self.procs),
        }
    }

    /// How many processes of the tree the kernel killed for exceeding the memory limit.
    pub(super) fn oom_kills(&self) -> u64 {
        let Some(dir) = &self.memory_dir else {
            return 0;
        };
        ["memory.events", "memory.oom_control"]
            .iter()
            .filter_map(|f| read_bounded(&dir.join(f)).ok())
            .flat_map(|text| {
                text.lines()
                    .filter_map(|l| l.strip_prefix("oom_kill "))
                    .filter_map(|n| n.trim().parse::<u64>().ok())
                    .collect::<Vec<_>>()
            })
            .max()
            .unwrap_or(0)
    }
}

/// What the child writes to join its v1 cgroups.
pub(super) struct Join {
    procs: Vec<OwnedFd>,
}

impl Join {
    /// In the child: joins every v1 cgroup (one `write` each, no allocation).
    pub(super) fn join(&self) -> std::io::Result<()> {
        for fd in &self.procs {
            // SAFETY: a one-byte write on a descriptor the parent holds open until the spawn ends.
            if unsafe { nix::libc::write(fd.as_raw_fd(), b"0".as_ptr().cast(), 1) } != 1 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

impl Drop for Placed {
    fn drop(&mut self) {
        for dir in self.made.iter().rev() {
            let _ = std::fs::remove_dir(dir);
            // The sidecar's folder goes with its last server.
            if let Some(parent) = dir.parent() {
                let _ = std::fs::remove_dir(parent);
            }
        }
    }
}

/// Places the limits: `memory` bytes and `pids` tasks, each `None` when not asked. `cgroup2`: the
/// server's own v2 cgroup, when it has one.
pub(super) fn place(
    host: &Host,
    cgroup2: Option<&Path>,
    instance: u64,
    memory: Option<u64>,
    pids: Option<u64>,
) -> (Placed, Option<Outcome>, Option<Outcome>) {
    let mut placed = Placed::new();
    let memory = memory.map(|bytes| {
        place_one(
            host,
            &mut placed,
            cgroup2,
            instance,
            Limit {
                part: level::CGROUP_MEMORY,
                controller: "memory",
                v2_file: "memory.max",
                v1_file: "memory.limit_in_bytes",
                v1_dir: host.memory_v1.as_deref(),
                value: bytes,
            },
        )
    });
    let pids = pids.map(|n| {
        place_one(
            host,
            &mut placed,
            cgroup2,
            instance,
            Limit {
                part: level::CGROUP_PIDS,
                controller: "pids",
                v2_file: "pids.max",
                v1_file: "pids.max",
                v1_dir: host.pids_v1.as_deref(),
                value: n,
            },
        )
    });
    (placed, memory, pids)
}

struct Limit<'a> {
    part: &'static str,
    controller: &'static str,
    v2_file: &'static str,
    v1_file: &'static str,
    v1_dir: Option<&'a Path>,
    value: u64,
}

fn place_one(
    host: &Host,
    placed: &mut Placed,
    cgroup2: Option<&Path>,
    instance: u64,
    limit: Limit<'_>,
) -> Outcome {
    if host.pretends_missing(limit.part) {
        return Err(format!(
            "taken as absent ({})",
            super::detect::PRETEND_MISSING_ENV
        ));
    }
    let mut why = Vec::new();
    match cgroup2.map(|dir| v2(dir, &limit)) {
        Some(Ok(())) => {
            if limit.controller == "memory" {
                placed.memory_dir = cgroup2.map(Path::to_path_buf);
            }
            return Ok(limit.part);
        }
        Some(Err(e)) => why.push(e),
        None => why.push("no cgroup v2 of the server's own".to_owned()),
    }
    match limit.v1_dir.map(|own| v1(own, instance, &limit)) {
        Some(Ok((dir, procs))) => {
            if limit.controller == "memory" {
                placed.memory_dir = Some(dir.clone());
            }
            placed.made.push(dir);
            placed.procs.push(procs);
            Ok(limit.part)
        }
        Some(Err(e)) => {
            why.push(e);
            Err(why.join("; "))
        }
        None => {
            why.push(format!(
                "no writable cgroup v1 {} hierarchy",
                limit.controller
            ));
            Err(why.join("; "))
        }
    }
}

/// v2: the controller enabled for the server's cgroup (from its parent, which holds no process),
/// then the limit written.
fn v2(dir: &Path, limit: &Limit<'_>) -> Result<(), String> {
    let file = dir.join(limit.v2_file);
    if !file.exists() {
        if let Some(parent) = dir.parent() {
            let _ = write(
                &parent.join("cgroup.subtree_control"),
                &format!("+{}", limit.controller),
            );
        }
    }
    if !file.exists() {
        return Err(format!(
            "the {} controller is not enabled for {} (cgroup v2)",
            limit.controller,
            dir.display()
        ));
    }
    write(&file, &limit.value.to_string()).map_err(|e| format!("{}: {e}", file.display()))?;
    // Swap would hold what the limit refuses: none, where the kernel accounts it.
    if limit.controller == "memory" {
        let _ = write(&dir.join("memory.swap.max"), "0");
    }
    Ok(())
}

/// v1: `own/mcp-sidecar-PID/server-N` made, the limit written, its `cgroup.procs` opened.
fn v1(own: &Path, instance: u64, limit: &Limit<'_>) -> Result<(PathBuf, OwnedFd), String> {
    let dir = own
        .join(format!("mcp-sidecar-{}", std::process::id()))
        .join(format!("server-{instance}"));
    match std::fs::create_dir_all(&dir) {
        Ok(()) => {}
        Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
    }
    let file = dir.join(limit.v1_file);
    if let Err(e) = write(&file, &limit.value.to_string()) {
        let _ = std::fs::remove_dir(&dir);
        return Err(format!("{}: {e}", file.display()));
    }
    // Memory and swap together at the same bound (where swap is accounted): swap would otherwise
    // hold what the limit refuses.
    if limit.controller == "memory" {
        let _ = write(
            &dir.join("memory.memsw.limit_in_bytes"),
            &limit.value.to_string(),
        );
    }
    let procs = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("cgroup.procs"))
        .map_err(|e| format!("{}/cgroup.procs: {e}", dir.display()))?;
    Ok((dir, procs.into()))
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .write_all(text.as_bytes())
}
