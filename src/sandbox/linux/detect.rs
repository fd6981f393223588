//! What this host can enforce, found once per process: the Landlock ABI, seccomp filters, whether
//! the sidecar may make network namespaces (CAP_SYS_ADMIN), and the cgroup v1 controllers it may
//! write (`memory`, `pids`). cgroup v2 limits are found per spawn, in the server's own cgroup
//! (`super::cgroups`).
//!
//! Debug builds (the tests') read `MCP_SIDECAR_SANDBOX_PRETEND_MISSING=part,part`: those parts are
//! taken as absent, so a test can show what a host without them does. Release builds ignore it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::limits;

/// The test-only variable naming parts to take as absent (debug builds only).
pub const PRETEND_MISSING_ENV: &str = "MCP_SIDECAR_SANDBOX_PRETEND_MISSING";

/// The host's sandboxing features.
#[derive(Clone, Debug, Default)]
pub struct Host {
    /// The Landlock ABI version, 0 when Landlock is absent or disabled.
    pub landlock_abi: i32,
    pub seccomp: bool,
    /// The sidecar may unshare a network namespace for a child.
    pub netns: bool,
    /// The folder below which per-server v1 `memory` cgroups are made (the sidecar's own).
    pub memory_v1: Option<PathBuf>,
    /// The same for the v1 `pids` controller.
    pub pids_v1: Option<PathBuf>,
    /// Parts taken as absent (see [`PRETEND_MISSING_ENV`]).
    pub pretend_missing: Vec<String>,
}

impl Host {
    /// Whether `part` is taken as absent by the test override.
    pub fn pretends_missing(&self, part: &str) -> bool {
        self.pretend_missing.iter().any(|p| p == part)
    }
}

/// The host's features, detected on first use.
pub fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(detect)
}

fn detect() -> Host {
    let mountinfo = read_bounded(Path::new("/proc/self/mountinfo")).unwrap_or_default();
    let own = read_bounded(Path::new("/proc/self/cgroup")).unwrap_or_default();
    let status = read_bounded(Path::new("/proc/self/status")).unwrap_or_default();
    Host {
        landlock_abi: landlock_abi(),
        seccomp: status.lines().any(|l| l.starts_with("Seccomp:")),
        netns: has_cap_sys_admin(&status),
        memory_v1: v1_dir(&mountinfo, &own, "memory"),
        pids_v1: v1_dir(&mountinfo, &own, "pids"),
        pretend_missing: pretend_missing(),
    }
}

#[cfg(debug_assertions)]
fn pretend_missing() -> Vec<String> {
    std::env::var(PRETEND_MISSING_ENV)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(not(debug_assertions))]
fn pretend_missing() -> Vec<String> {
    Vec::new()
}

/// `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`: the ABI, or 0.
fn landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: the version query reads no memory (a null attribute of size 0).
    let v = unsafe {
        nix::libc::syscall(
            nix::libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}

/// CAP_SYS_ADMIN (bit 21) in the effective set of `/proc/self/status`: what `unshare(CLONE_NEWNET)`
/// needs without a user namespace.
fn has_cap_sys_admin(status: &str) -> bool {
    const CAP_SYS_ADMIN: u32 = 21;
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << CAP_SYS_ADMIN) != 0)
}

/// The sidecar's own cgroup directory in the v1 hierarchy of `controller`, when one is mounted
/// there and lets the sidecar make a cgroup below it. (The limit files are in the cgroups below:
/// a root cgroup has none.)
fn v1_dir(mountinfo: &str, own: &str, controller: &str) -> Option<PathBuf> {
    let (root, point) = v1_mount(mountinfo, controller)?;
    let path = own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == controller)
            .then_some(path)
    })?;
    let below = if root == "/" {
        path
    } else {
        path.strip_prefix(root.as_str())?
    };
    let dir = point.join(below.trim_start_matches('/'));
    let writable = std::fs::metadata(dir.join("cgroup.procs")).is_ok() && access_w(&dir);
    writable.then_some(dir)
}

/// `access(dir, W_OK)`: the sidecar may make a cgroup there.
fn access_w(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path that lives across the call.
    unsafe { nix::libc::access(path.as_ptr(), nix::libc::W_OK) == 0 }
}

/// `(root, mount point)` of the v1 hierarchy holding `controller`.
fn v1_mount(mountinfo: &str, controller: &str) -> Option<(String, PathBuf)> {
    mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut right = right.split_whitespace();
        let (fstype, _source, options) = (right.next()?, right.next()?, right.next()?);
        if fstype != "cgroup" || !options.split(',').any(|o| o == controller) {
            return None;
        }
        let fields: Vec<&str> = left.split_whitespace().collect();
        Some((fields.get(3)?.to_string(), PathBuf::from(fields.get(4)?)))
    })
}

/// A small kernel file, read within [`limits::CGROUP_FILE_MAX_BYTES`].
pub fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
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
    fn v1_mounts_and_caps() {
        let mountinfo = "30 25 0:26 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n\
                         31 25 0:27 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            v1_mount(mountinfo, "memory"),
            Some(("/".into(), PathBuf::from("/sys/fs/cgroup/memory")))
        );
        assert_eq!(v1_mount(mountinfo, "pids"), None);
        assert!(has_cap_sys_admin("CapEff:\t000001ffffffffff\n"));
        assert!(!has_cap_sys_admin("CapEff:\t0000000000000000\n"));
    }
}
