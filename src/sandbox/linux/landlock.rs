//! The Landlock ruleset of one spawn: built in the parent (paths opened, rules added, through the
//! `landlock` crate), then, between fork and exec, the child adds its own `/proc/self` and
//! restricts itself with plain system calls.
//!
//! No silent downgrade: what the policy needs is asked as a hard requirement (filesystem rights of
//! ABI 3, TCP rules of ABI 4), so a kernel without them is an error that names the part, not a
//! ruleset quietly missing it. Newer rights (device ioctls, ABI 5) and the scopes (ABI 6: no
//! signals to, no abstract sockets of, processes outside the sandbox) are taken where the kernel
//! has them.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::PathBuf;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};

/// The filesystem rights required (ABI 3: truncate and cross-folder renames are covered).
const FS_REQUIRED: ABI = ABI::V3;
/// Rights taken where the kernel has them.
const FS_BEST: ABI = ABI::V5;

/// What the ruleset is asked to hold.
pub(super) struct Request<'a> {
    pub read: &'a [PathBuf],
    pub write: &'a [PathBuf],
    /// `Some(ports)`: TCP is confined (connect only to `ports`, no bind); `None`: TCP is not
    /// handled.
    pub tcp_connect: Option<&'a [u16]>,
}

/// A ruleset ready for the child.
pub(super) struct Prepared {
    fd: OwnedFd,
}

/// Why a part could not be had.
pub(super) enum Refused {
    /// The filesystem rules (and so everything).
    Fs(String),
    /// The TCP rules only.
    Net(String),
}

/// Builds the ruleset. `Err(Refused::Net)` when only the TCP part is beyond this kernel (the
/// caller may then build again without it, under `allowWeaker`).
pub(super) fn prepare(request: &Request<'_>) -> Result<Prepared, Refused> {
    let fs_err = |e: landlock::RulesetError| Refused::Fs(e.to_string());
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(FS_REQUIRED))
        .map_err(fs_err)?
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(FS_BEST))
        .map_err(fs_err)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(fs_err)?;
    if request.tcp_connect.is_some() {
        ruleset = ruleset
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(|e| Refused::Net(e.to_string()))?;
    }
    let created = ruleset
        .create()
        .map_err(fs_err)?
        .set_compatibility(CompatLevel::BestEffort);
    let created = created
        .add_rules(path_beneath_rules(
            request.read,
            AccessFs::from_read(FS_BEST),
        ))
        .and_then(|r| {
            r.add_rules(path_beneath_rules(
                request.write,
                AccessFs::from_all(FS_BEST),
            ))
        })
        .map_err(fs_err)?;
    let created =
        match request.tcp_connect {
            Some(ports) => created
                .add_rules(ports.iter().map(|p| {
                    Ok::<_, landlock::RulesetError>(NetPort::new(*p, AccessNet::ConnectTcp))
                }))
                .map_err(|e| Refused::Net(e.to_string()))?,
            None => created,
        };
    let fd: Option<OwnedFd> = created.into();
    fd.map(|fd| Prepared { fd })
        .ok_or_else(|| Refused::Fs("the kernel has no Landlock".into()))
}

/// `struct landlock_path_beneath_attr` (packed, as the kernel declares it).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

const LANDLOCK_RULE_PATH_BENEATH: u32 = 1;
/// `LANDLOCK_ACCESS_FS_EXECUTE | READ_FILE | READ_DIR`.
const READ_ACCESS: u64 = (1 << 0) | (1 << 2) | (1 << 3);

impl Prepared {
    /// In the child, between fork and exec (async-signal-safe: system calls only, no allocation):
    /// grants its own `/proc/self` (which the parent could not name: it is the child's pid), then
    /// restricts the process. `PR_SET_NO_NEW_PRIVS` must be set already.
    pub(super) fn restrict_self(&self) -> std::io::Result<()> {
        use nix::libc;
        let ruleset: RawFd = self.fd.as_raw_fd();
        // SAFETY: a NUL-terminated literal path; the returned descriptor is closed below.
        let proc_self = unsafe {
            libc::open(
                c"/proc/self".as_ptr(),
                libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY,
            )
        };
        if proc_self >= 0 {
            let attr = PathBeneathAttr {
                allowed_access: READ_ACCESS,
                parent_fd: proc_self,
            };
            // SAFETY: `attr` lives across the call; the kernel copies it.
            let added = unsafe {
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset,
                    LANDLOCK_RULE_PATH_BENEATH,
                    &attr as *const PathBeneathAttr,
                    0u32,
                )
            };
            // SAFETY: our own descriptor, closed once.
            unsafe { libc::close(proc_self) };
            if added != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        // SAFETY: a ruleset descriptor the parent made; flags 0.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}
