//! Containment of every server's whole process tree in a cgroup (v2), where the kernel offers one
//! the sidecar may write: systemd's `KillMode=control-group` for a process that is not a service.
//!
//! Why: a process group, the subreaper and the origin marker each lose a kind of descendant. A
//! daemon that double-forks through `setsid` leaves the group; one that also clears its environment
//! loses the marker; and its re-parenting to the sidecar raises no SIGCHLD, so it is never recorded
//! for the guardian. A cgroup holds every descendant whatever it does (only a process allowed to
//! write a cgroup's `cgroup.procs` may leave), and the kernel kills one whole.
//!
//! Layout: `<the sidecar's own cgroup>/mcp-sidecar-<pid>/server-<n>`, `n` the spawn's origin number.
//! The sidecar and the guardian stay where they were; each server joins its cgroup between fork
//! and exec (it writes `0` to a `cgroup.procs` the sidecar opened), so even its first fork is
//! inside. A stop empties and removes the server's cgroup; the guardian kills
//! `mcp-sidecar-<pid>` whole (every server's at once) and removes it.
//!
//! Found, not assumed: the cgroup2 mount from `/proc/self/mountinfo` (pure v2 at `/sys/fs/cgroup`,
//! or hybrid at `/sys/fs/cgroup/unified`), the sidecar's own cgroup from the `0::` line of
//! `/proc/self/cgroup`, and writability by creating the sidecar's cgroup and opening its parent's
//! `cgroup.procs` for writing (moving a process needs both). Anything missing means no cgroup,
//! said once in the log; see docs/supervision.md for what then remains.
//!
//! Plain `std` and blocking file operations on cgroupfs (no disk behind them): the guardian uses
//! this too, and async code calls the reading and killing through `spawn_blocking`.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};

use crate::limits;

/// Set (to anything) in the sidecar's environment: no cgroups, as on a host that has none.
pub(super) const DISABLE_ENV: &str = "MCP_SIDECAR_NO_CGROUP";

/// The name of the sidecar's cgroup below its own.
fn sidecar_dir_name(pid: u32) -> String {
    format!("mcp-sidecar-{pid}")
}

/// How the members of a cgroup are killed on this kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KillMode {
    /// `cgroup.kill` (Linux 5.14+): the kernel SIGKILLs every member of the cgroup and of every
    /// cgroup below it at once; nothing can fork its way out.
    Kill,
    /// `cgroup.freeze` (Linux 5.2+), then SIGKILL to every pid in `cgroup.procs`: frozen, no member
    /// can fork between the listing and its kill.
    FreezeThenKill,
}

impl KillMode {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            KillMode::Kill => "cgroup.kill",
            KillMode::FreezeThenKill => "cgroup.freeze + SIGKILL",
        }
    }
}

/// The sidecar's cgroup, in which each server gets its own.
#[derive(Clone, Debug)]
pub(super) struct Containment {
    pub dir: PathBuf,
    pub kill_mode: KillMode,
}

/// Finds the cgroup2 hierarchy, creates the sidecar's cgroup below its own, and checks that
/// processes may be moved into it. `Err` says why there is no containment.
pub(super) fn set_up() -> Result<Containment, String> {
    if std::env::var_os(DISABLE_ENV).is_some() {
        return Err(format!("disabled by {DISABLE_ENV}"));
    }
    let mountinfo = read_bounded(Path::new("/proc/self/mountinfo"))
        .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
    let mount = cgroup2_mount(&mountinfo).ok_or("no cgroup2 hierarchy is mounted")?;
    let own = read_bounded(Path::new("/proc/self/cgroup"))
        .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
    let own = own_path(&own).ok_or("no cgroup2 line (0::) in /proc/self/cgroup")?;
    let parent = mount.locate(own).ok_or_else(|| {
        format!(
            "our cgroup {own} is not below the mounted part of the hierarchy ({})",
            mount.root
        )
    })?;
    // Moving a process needs write access to the `cgroup.procs` of the common ancestor of its
    // source and destination: the sidecar's own cgroup.
    std::fs::OpenOptions::new()
        .write(true)
        .open(parent.join("cgroup.procs"))
        .map_err(|e| format!("{}/cgroup.procs is not writable: {e}", parent.display()))?;
    let dir = parent.join(sidecar_dir_name(std::process::id()));
    create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    match kill_mode_of(&dir) {
        Some(kill_mode) => Ok(Containment { dir, kill_mode }),
        None => {
            let _ = remove(&dir);
            Err("the kernel has neither cgroup.kill nor cgroup.freeze (before 5.2)".into())
        }
    }
}

/// How the cgroup `dir` can be killed on this kernel, if at all.
pub(super) fn kill_mode_of(dir: &Path) -> Option<KillMode> {
    if dir.join("cgroup.kill").exists() {
        Some(KillMode::Kill)
    } else if dir.join("cgroup.freeze").exists() {
        Some(KillMode::FreezeThenKill)
    } else {
        None
    }
}

/// A directory that may already exist (a sidecar SIGKILLed with its guardian left it, under the
/// same pid): then it is reused, and whatever it still holds dies with ours.
fn create_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// A mounted cgroup2 hierarchy: which of its cgroups is mounted (`root`, `/` unless a container
/// mounted only its own part) and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Mount {
    pub root: String,
    pub point: PathBuf,
}

impl Mount {
    /// The directory of the cgroup `path` (as `/proc/PID/cgroup` names it), if it is mounted.
    pub(super) fn locate(&self, path: &str) -> Option<PathBuf> {
        let below = if self.root == "/" {
            path
        } else {
            let rest = path.strip_prefix(self.root.as_str())?;
            if !(rest.is_empty() || rest.starts_with('/')) {
                return None;
            }
            rest
        };
        Some(self.point.join(below.trim_start_matches('/')))
    }
}

/// The first cgroup2 hierarchy in a `/proc/PID/mountinfo` text.
pub(super) fn cgroup2_mount(mountinfo: &str) -> Option<Mount> {
    mountinfo.lines().find_map(|line| {
        // `ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPER-OPTIONS`
        let (left, right) = line.split_once(" - ")?;
        if right.split(' ').next()? != "cgroup2" {
            return None;
        }
        let mut fields = left.split(' ').skip(3);
        let root = unescape(fields.next()?);
        let point = PathBuf::from(unescape(fields.next()?));
        Some(Mount { root, point })
    })
}

/// Undoes mountinfo's octal escapes (`\040` for a space, `\011`, `\012`, `\134`).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)))
            .and_then(|d| u8::from_str_radix(std::str::from_utf8(d).ok()?, 8).ok());
        match octal {
            Some(b) => {
                out.push(b);
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The cgroup2 path in a `/proc/PID/cgroup` text (its `0::` line).
pub(super) fn own_path(proc_cgroup: &str) -> Option<&str> {
    proc_cgroup
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .filter(|p| p.starts_with('/'))
}

/// One server's cgroup, with its `cgroup.procs` open for the child to join before exec.
#[derive(Debug)]
pub(super) struct ServerCgroup {
    pub dir: PathBuf,
    procs: std::fs::File,
}

impl Containment {
    /// Creates the cgroup of the `n`th spawn.
    pub(super) fn server(&self, n: u64) -> std::io::Result<ServerCgroup> {
        let dir = self.dir.join(format!("server-{n}"));
        create_dir(&dir)?;
        // Opened by the sidecar: the kernel checks a migration against the opener's credentials.
        // `File::open` sets close-on-exec, so the server keeps no handle on it.
        match std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("cgroup.procs"))
        {
            Ok(procs) => Ok(ServerCgroup { dir, procs }),
            Err(e) => {
                let _ = std::fs::remove_dir(&dir);
                Err(e)
            }
        }
    }
}

impl ServerCgroup {
    /// The descriptor [`join`] writes to in the child.
    pub(super) fn procs_fd(&self) -> RawFd {
        self.procs.as_raw_fd()
    }
}

/// Moves the calling process into the cgroup whose `cgroup.procs` is `procs_fd`. For the child
/// between fork and exec: one `write`, async-signal-safe, no allocation.
pub(super) fn join(procs_fd: RawFd) -> std::io::Result<()> {
    // SAFETY: writes one byte from a static buffer to a descriptor the parent keeps open.
    let written = unsafe { nix::libc::write(procs_fd, b"0".as_ptr().cast(), 1) };
    if written == 1 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Every live member of `dir` and of the cgroups below it (zombies are not members). A cgroup that
/// is gone has none.
pub(super) fn members(dir: &Path) -> Vec<u32> {
    let mut out = Vec::new();
    for d in tree(dir) {
        if let Ok(text) = read_bounded(&d.join("cgroup.procs")) {
            out.extend(pids(&text));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn pids(text: &str) -> impl Iterator<Item = u32> + '_ {
    text.split_whitespace().filter_map(|w| w.parse().ok())
}

/// `dir` and every cgroup below it, parents before children; at most
/// [`limits::CGROUP_WALK_MAX_DIRS`] (a server may create cgroups of its own where it may write).
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    let mut next = 0;
    while next < out.len() && out.len() < limits::CGROUP_WALK_MAX_DIRS {
        let Ok(entries) = std::fs::read_dir(&out[next]) else {
            next += 1;
            continue;
        };
        next += 1;
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                out.push(entry.path());
                if out.len() >= limits::CGROUP_WALK_MAX_DIRS {
                    break;
                }
            }
        }
    }
    out
}

/// SIGKILLs every member of `dir` and of the cgroups below it, without waiting.
pub(super) fn kill(dir: &Path, mode: KillMode) -> std::io::Result<()> {
    match mode {
        KillMode::Kill => write_file(&dir.join("cgroup.kill"), b"1"),
        KillMode::FreezeThenKill => {
            // Freezing is recursive and waits for no one; a frozen process still dies of SIGKILL.
            write_file(&dir.join("cgroup.freeze"), b"1")?;
            for pid in members(dir) {
                super::kill::signal_pid(pid, super::kill::Signal::Kill);
            }
            // Thawed again: every member has a SIGKILL pending, and one that came in after the
            // listing must not stay frozen for ever.
            write_file(&dir.join("cgroup.freeze"), b"0")
        }
    }
}

/// Removes `dir` and every cgroup below it, children first. Fails (EBUSY) while any has a live
/// member; a cgroup already gone is not an error.
pub(super) fn remove(dir: &Path) -> std::io::Result<()> {
    let mut result = Ok(());
    for d in tree(dir).iter().rev() {
        match std::fs::remove_dir(d) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => result = Err(e),
            _ => {}
        }
    }
    result
}

fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .write_all(bytes)
}

/// Reads a cgroupfs or procfs text through [`limits::CGROUP_FILE_MAX_BYTES`].
fn read_bounded(path: &Path) -> std::io::Result<String> {
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(limits::CGROUP_FILE_MAX_BYTES)
        .read_to_string(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_cgroup2_mount_in_hybrid_and_pure_layouts() {
        let hybrid = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
            32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n\
            41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:9 - cgroup2 cgroup2 rw\n";
        let at = |point: &str| {
            Some(Mount {
                root: "/".into(),
                point: PathBuf::from(point),
            })
        };
        assert_eq!(cgroup2_mount(hybrid), at("/sys/fs/cgroup/unified"));
        let pure = "25 30 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
        assert_eq!(cgroup2_mount(pure), at("/sys/fs/cgroup"));
        let escaped = "25 30 0:22 / /mnt/my\\040cgroups rw - cgroup2 none rw\n";
        assert_eq!(cgroup2_mount(escaped), at("/mnt/my cgroups"));
        // A container without a cgroup namespace: only its own cgroup is mounted.
        let part = "25 30 0:22 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n";
        let mount = cgroup2_mount(part).unwrap();
        assert_eq!(mount.root, "/docker/abc");
        assert_eq!(
            mount.locate("/docker/abc/app"),
            Some(PathBuf::from("/sys/fs/cgroup/app"))
        );
        assert_eq!(
            mount.locate("/docker/abc"),
            Some(PathBuf::from("/sys/fs/cgroup"))
        );
        assert_eq!(mount.locate("/docker/abcd"), None);
        assert_eq!(mount.locate("/other"), None);
        assert_eq!(
            at("/sys/fs/cgroup").unwrap().locate("/a/b"),
            Some(PathBuf::from("/sys/fs/cgroup/a/b"))
        );
        let v1_only = "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
        assert_eq!(cgroup2_mount(v1_only), None);
        assert_eq!(cgroup2_mount("garbage\n\n"), None);
    }

    #[test]
    fn finds_the_own_cgroup2_path() {
        let hybrid = "9:name=systemd:/\n4:memory:/process_api/x\n0::/\n";
        assert_eq!(own_path(hybrid), Some("/"));
        let pure = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.service\n";
        assert_eq!(
            own_path(pure),
            Some("/user.slice/user-1000.slice/user@1000.service/app.slice/x.service")
        );
        assert_eq!(own_path("4:memory:/x\n"), None);
        assert_eq!(own_path("0::relative\n"), None);
    }

    /// Both ways of killing a cgroup take every member, a grandchild included, and leave a cgroup
    /// that can be removed. Needs a writable cgroup2 hierarchy (CI runs as root); says so if not.
    #[test]
    #[allow(clippy::disallowed_methods)] // a test spawns the processes it contains
    fn both_kill_modes_take_a_whole_cgroup() {
        use std::os::unix::process::CommandExt;
        let containment = match set_up() {
            Ok(c) => c,
            Err(reason) => {
                eprintln!("NOTE: no cgroup to test here ({reason}); skipped");
                return;
            }
        };
        let modes = match containment.kill_mode {
            KillMode::Kill => vec![KillMode::Kill, KillMode::FreezeThenKill],
            KillMode::FreezeThenKill => vec![KillMode::FreezeThenKill],
        };
        for (n, mode) in (1..).zip(modes) {
            let cgroup = containment.server(n).unwrap();
            let fd = cgroup.procs_fd();
            let mut command = std::process::Command::new("sh");
            command.args(["-c", "sleep 60 & wait"]);
            // SAFETY: `join` is one write system call, see its doc.
            unsafe {
                command.pre_exec(move || join(fd));
            }
            let mut child = command.spawn().unwrap();
            // No event says "sh has forked": look, bounded.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            while members(&cgroup.dir).len() < 2 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{mode:?}: no grandchild"
                );
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            let watched: Vec<super::super::pidfd::Pidfd> = members(&cgroup.dir)
                .into_iter()
                .filter_map(|p| super::super::pidfd::Pidfd::open(p, None).unwrap())
                .collect();
            assert_eq!(watched.len(), 2, "{mode:?}");
            kill(&cgroup.dir, mode).unwrap();
            assert!(
                super::super::pidfd::wait_blocking(&watched, std::time::Duration::from_secs(20)),
                "{mode:?}: every member exits"
            );
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(child.wait().unwrap().signal(), Some(9), "{mode:?}");
            assert_eq!(members(&cgroup.dir), Vec::<u32>::new(), "{mode:?}");
            remove(&cgroup.dir).unwrap();
            assert!(!cgroup.dir.exists(), "{mode:?}");
        }
        remove(&containment.dir).unwrap();
    }

    #[test]
    fn unescapes_only_octal_triples() {
        assert_eq!(unescape("a\\040b\\134c"), "a b\\c");
        assert_eq!(unescape("a\\09b\\"), "a\\09b\\");
    }
}
