//! The seccomp filters of one spawn, compiled to BPF in the parent (seccompiler) and loaded by the
//! child last, after everything else is set up (they forbid `unshare`, which the network namespace
//! needs first). Every refusal returns an errno — the server sees a failed call and can say so —
//! never a kill.
//!
//! - Always refused (EPERM): debugging other processes, mounts and the new mount API, kernel
//!   modules and kexec, namespaces, BPF, perf, keyrings, userfaultfd, io_uring (whose requests
//!   would skip this filter), swap, accounting, quotas, reboot, file handles.
//! - `network: "none"`: sockets of the IP and packet families (EACCES); Unix sockets stay (node
//!   and python use them). Other confined networks: IP sockets other than TCP (no UDP, no raw),
//!   since Landlock rules cover TCP only.
//! - `processes.spawn: false`: `fork`, `vfork`, a `clone` that makes a process rather than a
//!   thread (EPERM), and `clone3` (ENOSYS, so that libc falls back to `clone`, whose flags a
//!   filter can read).

use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// What the filters refuse beyond the fixed list.
pub(super) struct Request {
    /// No IP socket at all.
    pub no_ip_sockets: bool,
    /// IP sockets are TCP only.
    pub tcp_only: bool,
    pub no_spawn: bool,
}

/// The compiled filters, loaded in order.
pub(super) struct Prepared {
    programs: Vec<BpfProgram>,
}

/// The architecture the filters are compiled for, if seccompiler knows it.
fn arch() -> Option<TargetArch> {
    if cfg!(target_arch = "x86_64") {
        Some(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(TargetArch::aarch64)
    } else if cfg!(target_arch = "riscv64") {
        Some(TargetArch::riscv64)
    } else {
        None
    }
}

/// `kexec_file_load`: the libc crate names it everywhere but on aarch64 musl; the kernel's number
/// there is asm-generic's.
#[cfg(all(target_arch = "aarch64", target_env = "musl"))]
const SYS_KEXEC_FILE_LOAD: libc::c_long = 294;
#[cfg(not(all(target_arch = "aarch64", target_env = "musl")))]
const SYS_KEXEC_FILE_LOAD: libc::c_long = libc::SYS_kexec_file_load;

/// System calls no sandboxed server needs and an escape would.
fn always_denied() -> Vec<i64> {
    let mut calls = vec![
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_kexec_load,
        SYS_KEXEC_FILE_LOAD,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_userfaultfd,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
        libc::SYS_quotactl,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
    ];
    calls.sort_unstable();
    calls.dedup();
    calls
}

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(|e| e.to_string())
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(|e| e.to_string())
}

/// One filter: every call of `rules` that matches gets `errno`; anything else is allowed.
fn filter(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: i32,
    arch: TargetArch,
) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}

/// Compiles the filters; `Err` says why seccomp cannot be had.
pub(super) fn prepare(request: &Request) -> Result<Prepared, String> {
    let arch = arch().ok_or("seccompiler has no filters for this architecture")?;
    let mut eperm: BTreeMap<i64, Vec<SeccompRule>> = always_denied()
        .into_iter()
        .map(|c| (c, Vec::new()))
        .collect();
    let mut eacces: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut enosys: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let families = [libc::AF_INET, libc::AF_INET6];
    if request.no_ip_sockets {
        let mut rules = Vec::new();
        for family in families.iter().chain(&[libc::AF_PACKET]) {
            rules.push(rule(vec![cond(0, SeccompCmpOp::Eq, *family as u64)?])?);
        }
        eacces.insert(libc::SYS_socket, rules);
    } else if request.tcp_only {
        let mut rules = vec![rule(vec![cond(
            0,
            SeccompCmpOp::Eq,
            libc::AF_PACKET as u64,
        )?])?];
        // The socket type's low bits (flags such as SOCK_CLOEXEC sit above them).
        for family in families {
            for kind in [
                libc::SOCK_DGRAM,
                libc::SOCK_RAW,
                libc::SOCK_RDM,
                libc::SOCK_SEQPACKET,
                // SOCK_PACKET (10), obsolete but still accepted by the kernel.
                10,
            ] {
                rules.push(rule(vec![
                    cond(0, SeccompCmpOp::Eq, family as u64)?,
                    cond(1, SeccompCmpOp::MaskedEq(0xf), kind as u64)?,
                ])?);
            }
        }
        eacces.insert(libc::SYS_socket, rules);
    }
    if request.no_spawn {
        #[cfg(target_arch = "x86_64")]
        {
            eperm.insert(libc::SYS_fork, Vec::new());
            eperm.insert(libc::SYS_vfork, Vec::new());
        }
        // A clone without CLONE_THREAD makes a process.
        eperm.insert(
            libc::SYS_clone,
            vec![rule(vec![cond(
                0,
                SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
                0,
            )?])?],
        );
        enosys.insert(libc::SYS_clone3, Vec::new());
    }
    let mut programs = vec![filter(eperm, libc::EPERM, arch)?];
    if !eacces.is_empty() {
        programs.push(filter(eacces, libc::EACCES, arch)?);
    }
    if !enosys.is_empty() {
        programs.push(filter(enosys, libc::ENOSYS, arch)?);
    }
    Ok(Prepared { programs })
}

impl Prepared {
    /// In the child, last before exec: loads every filter (system calls only, no allocation).
    /// `PR_SET_NO_NEW_PRIVS` must be set already (seccompiler sets it again, harmlessly).
    pub(super) fn load(&self) -> std::io::Result<()> {
        for program in &self.programs {
            seccompiler::apply_filter(program).map_err(|e| match e {
                seccompiler::Error::Prctl(io) | seccompiler::Error::Seccomp(io) => io,
                _ => std::io::Error::from_raw_os_error(libc::EINVAL),
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_compiles() {
        for (no_ip_sockets, tcp_only, no_spawn) in [
            (false, false, false),
            (true, false, true),
            (false, true, false),
        ] {
            let p = prepare(&Request {
                no_ip_sockets,
                tcp_only,
                no_spawn,
            })
            .unwrap();
            assert_eq!(
                p.programs.len(),
                1 + usize::from(no_ip_sockets || tcp_only) + usize::from(no_spawn)
            );
        }
    }
}
