//! One spawn's sandbox on Linux: each part the policy needs attempted in the parent (rulesets,
//! filters, cgroups, the private temporary folder), the level reached, and what the child does
//! between fork and exec ([`ChildSteps`], only system calls on what was prepared).

use std::path::{Path, PathBuf};

use nix::libc;

use super::cgroups::{self, Join, Placed};
use super::detect::{self, Host};
use super::landlock::{self, Refused};
use super::netns;
use super::rlimits::Limits;
use super::seccomp;
use crate::sandbox::level::{self, Missing, SandboxLevel};
use crate::sandbox::policy::{NetworkPolicy, SandboxPolicy};
use crate::sandbox::presets;

/// What one spawn is.
pub struct Input<'a> {
    pub server: &'a str,
    pub policy: &'a SandboxPolicy,
    /// The program as resolved on PATH.
    pub program: &'a Path,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    /// The spawn's number (its origin marker's), naming its cgroups and temporary folder.
    pub instance: u64,
    /// The server's own cgroup v2, when it has one.
    pub cgroup2: Option<&'a Path>,
    /// The egress proxy's port, for `network.allow`.
    pub egress_port: Option<u16>,
}

/// What the child does between fork and exec, in this order.
pub struct ChildSteps {
    limits: Limits,
    join: Join,
    /// `Some(lo up?)`: a network namespace of its own.
    netns: Option<bool>,
    landlock: Option<landlock::Prepared>,
    seccomp: Option<seccomp::Prepared>,
}

/// What outlives the spawn: the limits' cgroups and the private temporary folder, removed once
/// the server's tree has ended (dropped then).
pub struct Running {
    placed: Placed,
    tmp: PathBuf,
    /// Every path the rules let the server read (its written ones included).
    readable: Vec<PathBuf>,
}

impl Running {
    /// How many of the tree's processes the memory limit killed.
    pub fn oom_kills(&self) -> u64 {
        self.placed.oom_kills()
    }

    /// The paths the server could read, for telling a hidden file from a missing one.
    pub fn readable(&self) -> &[PathBuf] {
        &self.readable
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
        if let Some(parent) = self.tmp.parent() {
            let _ = std::fs::remove_dir(parent);
        }
    }
}

/// A prepared spawn.
pub struct Planned {
    pub level: SandboxLevel,
    pub steps: ChildSteps,
    pub running: Running,
    /// Variables the server gets: TMPDIR (and TMP, TEMP) at its private folder; the proxy's.
    pub env: Vec<(String, String)>,
}

/// The network part of a policy: TCP rules, socket filter, namespace, and the parts required.
struct Network {
    tcp_connect: Option<Vec<u16>>,
    no_ip_sockets: bool,
    tcp_only: bool,
    /// `Some(lo up?)`.
    netns: Option<bool>,
    netns_required: bool,
}

fn network(policy: &NetworkPolicy, egress_port: Option<u16>) -> Network {
    let none = Network {
        tcp_connect: None,
        no_ip_sockets: false,
        tcp_only: false,
        netns: None,
        netns_required: false,
    };
    match policy {
        NetworkPolicy::Any => none,
        // Defence in depth: the socket filter alone already holds `none`; the namespace (where
        // the sidecar may make one) and the TCP rules add to it.
        NetworkPolicy::None => Network {
            tcp_connect: Some(Vec::new()),
            no_ip_sockets: true,
            netns: Some(false),
            ..none
        },
        // Landlock cannot tell addresses apart, so a loopback of any port is a private one.
        NetworkPolicy::Loopback { ports } if ports.is_empty() => Network {
            netns: Some(true),
            netns_required: true,
            ..none
        },
        NetworkPolicy::Loopback { ports } => Network {
            tcp_connect: Some(ports.clone()),
            tcp_only: true,
            ..none
        },
        NetworkPolicy::Allow { .. } => Network {
            tcp_connect: Some(egress_port.into_iter().collect()),
            tcp_only: true,
            ..none
        },
    }
}

/// Collects the level while the parts are attempted.
struct Level {
    level: SandboxLevel,
    host: &'static Host,
}

impl Level {
    fn new(policy: &SandboxPolicy) -> Self {
        Self {
            level: SandboxLevel {
                preset: policy.preset.clone(),
                ..SandboxLevel::default()
            },
            host: detect::host(),
        }
    }

    fn enforced(&mut self, part: &'static str) {
        if !self.level.enforced.contains(&part) {
            self.level.enforced.push(part);
        }
    }

    fn missing(&mut self, part: &'static str, why: impl Into<String>) {
        self.level.missing.push(Missing {
            part,
            why: why.into(),
        });
    }

    /// `Err(why)` when the test override takes `part` as absent.
    fn pretend(&self, part: &str) -> Result<(), String> {
        if self.host.pretends_missing(part) {
            Err(format!("taken as absent ({})", detect::PRETEND_MISSING_ENV))
        } else {
            Ok(())
        }
    }
}

/// What this host would enforce of `policy`, without making anything (the trust request; the
/// status of a server not started yet).
pub fn probe(policy: &SandboxPolicy) -> SandboxLevel {
    let mut l = Level::new(policy);
    let host = l.host;
    let net = network(&policy.network, None);
    let landlock = l.pretend(level::LANDLOCK_FS).and_then(|()| {
        (host.landlock_abi >= 3)
            .then_some(())
            .ok_or_else(|| landlock_abi_note(host.landlock_abi, 3))
    });
    match landlock {
        Ok(()) => l.enforced(level::LANDLOCK_FS),
        Err(why) => l.missing(level::LANDLOCK_FS, why),
    }
    if net.tcp_connect.is_some() {
        let tcp = l.pretend(level::LANDLOCK_NET).and_then(|()| {
            (host.landlock_abi >= 4)
                .then_some(())
                .ok_or_else(|| landlock_abi_note(host.landlock_abi, 4))
        });
        match tcp {
            Ok(()) => l.enforced(level::LANDLOCK_NET),
            Err(why) => l.missing(level::LANDLOCK_NET, why),
        }
    }
    if matches!(policy.network, NetworkPolicy::Allow { .. }) {
        // The spawn starts the proxy before the server (`process::spawn`).
        l.enforced(level::EGRESS_PROXY);
    }
    match l
        .pretend(level::SECCOMP)
        .and_then(|()| seccomp_available(host))
    {
        Ok(()) => l.enforced(level::SECCOMP),
        Err(why) => l.missing(level::SECCOMP, why),
    }
    if net.netns.is_some() {
        match l.pretend(level::NETNS).and_then(|()| netns_available(host)) {
            Ok(()) => l.enforced(level::NETNS),
            Err(why) if net.netns_required => l.missing(level::NETNS, why),
            Err(_) => {}
        }
    }
    if policy.open_files.is_some() || policy.cpu_seconds.is_some() {
        match l.pretend(level::RLIMITS) {
            Ok(()) => l.enforced(level::RLIMITS),
            Err(why) => l.missing(level::RLIMITS, why),
        }
    }
    if policy.memory_bytes.is_some() {
        let v2 = cgroup2_has("memory");
        match l.pretend(level::CGROUP_MEMORY) {
            Ok(()) if v2 || host.memory_v1.is_some() => l.enforced(level::CGROUP_MEMORY),
            Ok(()) => weaker_memory(&mut l, policy, "no writable memory controller".into()),
            Err(why) => weaker_memory(&mut l, policy, why),
        }
    }
    if policy.max_processes.is_some() {
        let v2 = cgroup2_has("pids");
        match l.pretend(level::CGROUP_PIDS) {
            Ok(()) if v2 || host.pids_v1.is_some() => l.enforced(level::CGROUP_PIDS),
            Ok(()) => weaker_pids(&mut l, policy, "no writable pids controller".into()),
            Err(why) => weaker_pids(&mut l, policy, why),
        }
    }
    l.level
}

/// Whether the sidecar's own cgroup v2 offers `controller` to the cgroups below it.
fn cgroup2_has(controller: &str) -> bool {
    [
        "/sys/fs/cgroup/cgroup.controllers",
        "/sys/fs/cgroup/unified/cgroup.controllers",
    ]
    .iter()
    .filter_map(|f| detect::read_bounded(Path::new(f)).ok())
    .any(|t| t.split_whitespace().any(|c| c == controller))
}

const EGRESS_NOT_STARTED: &str =
    "no egress proxy was started for this spawn, and `network.allow` goes through one";

fn landlock_abi_note(abi: i32, needed: i32) -> String {
    match abi {
        0 => "the kernel has no Landlock (Linux 5.13+, enabled in the `lsm=` boot list)".into(),
        _ => format!(
            "the kernel's Landlock ABI is {abi}; {} needs ABI {needed} (Linux {})",
            if needed >= 4 {
                "TCP rules"
            } else {
                "truncate and rename rules"
            },
            if needed >= 4 { "6.7+" } else { "6.2+" }
        ),
    }
}

fn seccomp_available(host: &Host) -> Result<(), String> {
    if !host.seccomp {
        return Err("the kernel has no seccomp filters".into());
    }
    if !(cfg!(target_arch = "x86_64")
        || cfg!(target_arch = "aarch64")
        || cfg!(target_arch = "riscv64"))
    {
        return Err("no seccomp filters are compiled for this architecture".into());
    }
    Ok(())
}

fn netns_available(host: &Host) -> Result<(), String> {
    if host.netns {
        Ok(())
    } else {
        Err("the sidecar lacks CAP_SYS_ADMIN to make a network namespace".into())
    }
}

/// The memory limit without a cgroup: `RLIMIT_AS` when weaker is allowed (reported as such).
fn weaker_memory(l: &mut Level, policy: &SandboxPolicy, why: String) {
    l.missing(level::CGROUP_MEMORY, why);
    if policy.allow_weaker {
        l.enforced(level::RLIMIT_AS);
    }
}

/// The task limit without a cgroup: `RLIMIT_NPROC` (per user; root is exempt) when weaker is
/// allowed.
fn weaker_pids(l: &mut Level, policy: &SandboxPolicy, why: String) {
    l.missing(level::CGROUP_PIDS, why);
    if policy.allow_weaker && !is_root() {
        l.enforced(level::RLIMIT_NPROC);
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Prepares one spawn: every part attempted, the level reached. `Err((level, ..))` when a part is
/// missing and the config does not allow weaker (nothing was made that outlives the error).
pub fn prepare(input: &Input<'_>) -> Result<Planned, SandboxLevel> {
    let policy = input.policy;
    let mut l = Level::new(policy);
    let tmp = crate::sandbox::spawn_env::private_tmp(input.instance).map_err(|e| {
        let mut l = Level::new(policy);
        l.missing(
            level::LANDLOCK_FS,
            format!("cannot make the private temporary folder: {e}"),
        );
        l.level
    })?;
    let net = network(&policy.network, input.egress_port);
    if matches!(policy.network, NetworkPolicy::Allow { .. }) {
        match input.egress_port {
            Some(_) => l.enforced(level::EGRESS_PROXY),
            None => l.missing(level::EGRESS_PROXY, EGRESS_NOT_STARTED),
        }
    }
    let (read, write) = rule_paths(input, &tmp);
    let landlock_ruleset = landlock_part(&mut l, &net, &read, &write);
    let seccomp = seccomp_part(&mut l, &net, policy);
    let netns = netns_part(&mut l, &net);
    let (limits, mut placed) = limits_part(&mut l, input);
    let join = placed.take_join();
    let running = Running {
        tmp: tmp.clone(),
        placed,
        readable: read.iter().chain(&write).cloned().collect(),
    };
    if !l.level.is_complete() && !policy.allow_weaker {
        return Err(l.level);
    }
    let env = crate::sandbox::spawn_env::env(Some(&tmp), policy, input.egress_port);
    Ok(Planned {
        level: l.level,
        steps: ChildSteps {
            limits,
            join,
            netns,
            landlock: landlock_ruleset,
            seccomp,
        },
        running,
        env,
    })
}

/// The paths the filesystem rules let the server read and write: the preset's, the policy's that
/// exist (one that does not is left out, logged), and the server's folder (readable).
fn rule_paths(input: &Input<'_>, tmp: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let policy = input.policy;
    let base = presets::base_paths(policy, input.program, input.args, input.cwd, tmp);
    let existing = |list: &[PathBuf], key: &str| -> Vec<PathBuf> {
        list.iter()
            .filter(|p| {
                let there = p.exists();
                if !there {
                    tracing::warn!(server = input.server, path = %p.display(), "sandbox.{key} names a path that does not exist; it is left out");
                }
                there
            })
            .cloned()
            .collect()
    };
    let mut read = base.read;
    read.extend(existing(&policy.read, "read"));
    let mut write = base.write;
    write.extend(existing(&policy.write, "write"));
    if let Some(cwd) = input.cwd {
        // The server's folder is readable; writable only when listed in `write`.
        if cwd.exists() {
            read.push(cwd.to_path_buf());
        }
    }
    (read, write)
}

/// The Landlock ruleset: filesystem rules, and TCP rules when the network policy has ports and the
/// kernel's ABI can say them.
fn landlock_part(
    l: &mut Level,
    net: &Network,
    read: &[PathBuf],
    write: &[PathBuf],
) -> Option<landlock::Prepared> {
    let host = l.host;
    let tcp_wanted = net.tcp_connect.is_some();
    let tcp_refused = l.pretend(level::LANDLOCK_NET).err().or_else(|| {
        (tcp_wanted && host.landlock_abi >= 1 && host.landlock_abi < 4)
            .then(|| landlock_abi_note(host.landlock_abi, 4))
    });
    let mut landlock_ruleset = None;
    match l.pretend(level::LANDLOCK_FS) {
        Err(why) => l.missing(level::LANDLOCK_FS, why),
        Ok(()) if host.landlock_abi < 3 => {
            l.missing(level::LANDLOCK_FS, landlock_abi_note(host.landlock_abi, 3))
        }
        Ok(()) => {
            let tcp = match (&net.tcp_connect, &tcp_refused) {
                (Some(ports), None) => Some(ports.as_slice()),
                _ => None,
            };
            let request = landlock::Request {
                read,
                write,
                tcp_connect: tcp,
            };
            match landlock::prepare(&request) {
                Ok(prepared) => {
                    l.enforced(level::LANDLOCK_FS);
                    if tcp.is_some() {
                        l.enforced(level::LANDLOCK_NET);
                    }
                    landlock_ruleset = Some(prepared);
                }
                Err(Refused::Fs(why)) => l.missing(level::LANDLOCK_FS, why),
                Err(Refused::Net(why)) => {
                    l.missing(level::LANDLOCK_NET, why);
                }
            }
        }
    }
    if tcp_wanted {
        if let Some(why) = tcp_refused {
            l.missing(level::LANDLOCK_NET, why);
        } else if !l.level.enforced.contains(&level::LANDLOCK_NET)
            && !l
                .level
                .missing
                .iter()
                .any(|m| m.part == level::LANDLOCK_NET)
        {
            l.missing(level::LANDLOCK_NET, "no Landlock ruleset could be made");
        }
    }
    landlock_ruleset
}

/// The system-call filter: no IP sockets, TCP only, or no new programs, as the policy says.
fn seccomp_part(l: &mut Level, net: &Network, policy: &SandboxPolicy) -> Option<seccomp::Prepared> {
    let host = l.host;
    match l
        .pretend(level::SECCOMP)
        .and_then(|()| seccomp_available(host))
        .and_then(|()| {
            seccomp::prepare(&seccomp::Request {
                no_ip_sockets: net.no_ip_sockets,
                tcp_only: net.tcp_only,
                no_spawn: !policy.spawn,
            })
        }) {
        Ok(p) => {
            l.enforced(level::SECCOMP);
            Some(p)
        }
        Err(why) => {
            l.missing(level::SECCOMP, why);
            None
        }
    }
}

/// A network namespace of its own, when the network policy asks for one (`Some(lo up?)`).
fn netns_part(l: &mut Level, net: &Network) -> Option<bool> {
    let host = l.host;
    let up = net.netns?;
    match l.pretend(level::NETNS).and_then(|()| netns_available(host)) {
        Ok(()) => {
            l.enforced(level::NETNS);
            Some(up)
        }
        Err(why) => {
            if net.netns_required {
                l.missing(level::NETNS, why);
            }
            None
        }
    }
}

/// The resource limits: rlimits, and the memory and task limits in cgroups where the host has
/// them (else as rlimits, when weaker is allowed).
fn limits_part(l: &mut Level, input: &Input<'_>) -> (Limits, Placed) {
    let policy = input.policy;
    let mut limits = Limits::default();
    if policy.open_files.is_some() || policy.cpu_seconds.is_some() {
        match l.pretend(level::RLIMITS) {
            Ok(()) => {
                limits.open_files = policy.open_files;
                limits.cpu_seconds = policy.cpu_seconds;
                l.enforced(level::RLIMITS);
            }
            Err(why) => l.missing(level::RLIMITS, why),
        }
    }
    let (placed, memory, pids) = cgroups::place(
        l.host,
        input.cgroup2,
        input.instance,
        policy.memory_bytes,
        policy.max_processes.map(u64::from),
    );
    match memory {
        None => {}
        Some(Ok(part)) => l.enforced(part),
        Some(Err(why)) => {
            weaker_memory(l, policy, why);
            if policy.allow_weaker {
                limits.address_space = policy.memory_bytes;
            }
        }
    }
    match pids {
        None => {}
        Some(Ok(part)) => l.enforced(part),
        Some(Err(why)) => {
            weaker_pids(l, policy, why);
            if l.level.enforced.contains(&level::RLIMIT_NPROC) {
                limits.processes = policy.max_processes.map(u64::from);
            }
        }
    }
    (limits, placed)
}

impl ChildSteps {
    /// Between fork and exec: limits, cgroups, namespace, no-new-privileges, Landlock, seccomp
    /// last (it forbids `unshare`). Only system calls on what the parent prepared; no allocation.
    pub fn apply(&self) -> std::io::Result<()> {
        self.limits.apply()?;
        self.join.join()?;
        if let Some(up) = self.netns {
            netns::enter(up)?;
        }
        // SAFETY: a plain prctl.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if let Some(landlock) = &self.landlock {
            landlock.restrict_self()?;
        }
        if let Some(seccomp) = &self.seccomp {
            seccomp.load()?;
        }
        Ok(())
    }
}
