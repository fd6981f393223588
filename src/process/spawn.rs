//! The only place that spawns processes (clippy's `disallowed-methods` enforces it): servers, the
//! guardian, the sidecar itself under `conformance-client` (which drives it as a host), and the
//! package managers a `package` server's first fetch runs (`npm install`, `pip install`).
//!
//! A server runs as the leader of its own process group (Unix) or in a Job Object that kills every
//! member when its last handle closes (Windows, see `job`), with no shell, a short allowlisted environment plus
//! what its config adds plus its origin marker ([`ORIGIN_ENV`]), and piped stdio. On Linux it
//! also gets `PR_SET_PDEATHSIG(SIGKILL)`: if the sidecar dies, so does the server. (The kernel sends
//! it when the *thread* that forked the child exits, not the process: servers are spawned from the
//! runtime's own thread — the main thread, the runtime being single-threaded — never from
//! `spawn_blocking`.) Where the sidecar has a cgroup (see `cgroup`), the server joins its own cgroup
//! below it between fork and exec, so its whole tree is inside from its first instruction. A
//! sandboxed server (`sandbox` in its config) is confined last, between fork and exec, by what
//! [`crate::sandbox::prepare`] made ready in the parent (on macOS it is started through
//! `sandbox-exec`, which applies its Seatbelt profile and execs it: the pid and process group are
//! the server's own); the level reached goes with the spawn.
//!
//! The child is a plain tokio child on every platform: made group leader with `process_group(0)` on
//! Unix, put in its Job Object by `job` on Windows. process-wrap (the successor of `command-group`)
//! is not used: its `ProcessGroup` wrapper's `wait` goes on to `waitpid(-pgid)` until the whole group
//! is reaped, which under our subreaper blocks forever on any grandchild still alive in the group,
//! and its Job Object wrapper neither hands out the job's handle nor waits for the job to empty
//! (see `job`).

use std::path::Path;
use std::process::Stdio;

use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

#[cfg(unix)]
use super::ledger;
use super::origin::{Origin, ORIGIN_ENV};
use super::server_env::{child_env, resolve_program};
#[cfg(target_os = "linux")]
use super::spawn_linux::{die_with_parent, join_cgroup, joined, server_cgroup};
use crate::config::ServerSpec;
use crate::error::{Error, ErrorCode, Result};
use crate::sandbox::{self, NetworkPolicy, SandboxPolicy};

/// A spawned server's leader, whose `wait` belongs to its owner.
pub(crate) type ServerChild = tokio::process::Child;

pub(crate) struct Spawned {
    pub child: ServerChild,
    pub pid: u32,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
    /// The marker this spawn and its descendants carry.
    pub origin: Origin,
    /// A sandboxed server's level and what outlives the spawn (its cgroups, its temporary folder):
    /// kept until its tree has ended.
    pub sandbox: Option<sandbox::Running>,
}

/// Spawns a server with piped stdio: the leader of a new process group (Unix), in a Job Object of
/// its own (Windows).
#[allow(clippy::disallowed_methods)] // This is the one sanctioned spawn site.
pub(crate) fn server(server: &str, spec: &ServerSpec) -> Result<Spawned> {
    let origin = Origin::next();
    let mut env = child_env(spec);
    env.retain(|(k, _)| k != ORIGIN_ENV);
    env.push((ORIGIN_ENV.to_owned(), origin.env_value()));
    let mut c = tokio::process::Command::new(&spec.command);
    c.args(&spec.args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Backstop only: the stop sequence is what normally ends the tree.
        .kill_on_drop(true);
    if let Some(cwd) = &spec.cwd {
        c.current_dir(cwd);
    }
    // `network.allow`: the server's proxy listens before the server starts, and serves it until
    // its tree has ended (held with the sandbox's running part).
    let egress = match spec.sandbox.as_ref().map(|policy| &policy.network) {
        Some(NetworkPolicy::Allow { hosts }) => Some(sandbox::egress::start_in_runtime(
            server,
            hosts.clone(),
            sandbox::egress::EgressOptions::default(),
        )?),
        _ => None,
    };
    let confined = spec.sandbox.as_ref().map(|policy| Confined {
        policy,
        program: resolve_program(spec, &env),
        args: &spec.args,
        cwd: spec.cwd.as_deref(),
        egress_port: egress.as_ref().map(sandbox::egress::EgressProxy::port),
    });
    let (child, pid, pipes, mut sandbox) = match start(server, c, origin, confined) {
        Ok(started) => started,
        Err(Failure::Io(e)) => return Err(spawn_error(server, spec, &env, e)),
        Err(Failure::Sandbox(e)) => {
            return Err(e
                .with("command", spec.display_command())
                .with("server", server))
        }
    };
    if let Some(running) = &mut sandbox {
        running.egress = egress;
    }
    let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
        return Err(Error::internal(format!(
            "server `{server}`: spawned without piped stdio"
        )));
    };
    Ok(Spawned {
        child,
        pid,
        stdin,
        stdout,
        stderr,
        origin,
        sandbox,
    })
}

/// A sandboxed spawn: its policy and what the preset's paths depend on.
struct Confined<'a> {
    policy: &'a SandboxPolicy,
    program: std::path::PathBuf,
    args: &'a [String],
    cwd: Option<&'a Path>,
    /// The port of its egress proxy (`network.allow`).
    egress_port: Option<u16>,
}

impl Confined<'_> {
    /// The sandbox prepared for this spawn (`cgroup2`: the server's own cgroup, where it has one).
    fn prepare(
        &self,
        server: &str,
        origin: Origin,
        cgroup2: Option<&Path>,
    ) -> Result<sandbox::Prepared> {
        sandbox::prepare(
            self.policy,
            &sandbox::SpawnContext {
                server,
                program: &self.program,
                args: self.args,
                cwd: self.cwd,
                instance: origin.number(),
                cgroup2,
                egress_port: self.egress_port,
            },
        )
    }
}

/// Why a spawn failed: the OS refused it, or its sandbox cannot be applied.
enum Failure {
    Io(std::io::Error),
    Sandbox(Error),
}

/// A started server's leader, its pid, its stdio pipes and its sandbox's running part.
type Started = (
    ServerChild,
    u32,
    (Option<ChildStdin>, Option<ChildStdout>, Option<ChildStderr>),
    Option<sandbox::Running>,
);

/// Unix: the leader of its own process group, recorded in the ledger (and, on Linux, dying with
/// the sidecar and inside its own cgroup where the sidecar has one); confined last when sandboxed.
#[cfg(unix)]
#[allow(clippy::disallowed_methods)] // Part of the one sanctioned spawn site.
fn start(
    server: &str,
    mut c: tokio::process::Command,
    origin: Origin,
    confined: Option<Confined<'_>>,
) -> std::result::Result<Started, Failure> {
    // Held until the child is recorded: the reaper must never mistake it for an orphan.
    let spawning = ledger::begin_spawn();
    c.process_group(0);
    #[cfg(target_os = "linux")]
    let cgroup = server_cgroup(server, &spawning, origin);
    #[cfg(target_os = "linux")]
    if let Some(cgroup) = &cgroup {
        join_cgroup(&mut c, cgroup.procs_fd());
    }
    #[cfg(target_os = "linux")]
    die_with_parent(&mut c);
    #[cfg(target_os = "linux")]
    let cgroup2 = cgroup.as_ref().map(|g| g.dir.as_path());
    #[cfg(not(target_os = "linux"))]
    let cgroup2 = None;
    let running = match confined.map(|s| s.prepare(server, origin, cgroup2)) {
        None => None,
        Some(Ok(prepared)) => {
            c.envs(prepared.env.iter().map(|(k, v)| (k, v)));
            // macOS: the server is started by `sandbox-exec`, which applies its profile and execs
            // it (same pid, same process group).
            #[cfg(target_os = "macos")]
            if let Some(wrapper) = prepared.exec_through() {
                c = started_through(&c, &wrapper.program, &wrapper.args);
            }
            let (steps, running) = prepared.split();
            confine(&mut c, steps);
            Some(running)
        }
        Some(Err(e)) => {
            #[cfg(target_os = "linux")]
            if let Some(cgroup) = cgroup {
                let _ = std::fs::remove_dir(&cgroup.dir);
            }
            return Err(Failure::Sandbox(e));
        }
    };
    let mut child = match c.spawn() {
        Ok(child) => child,
        Err(e) => {
            #[cfg(target_os = "linux")]
            if let Some(cgroup) = cgroup {
                let _ = std::fs::remove_dir(&cgroup.dir);
            }
            return Err(Failure::Io(e));
        }
    };
    let pid = child.id().unwrap_or(0);
    if let Some(running) = &running {
        tracing::info!(
            server,
            pid,
            enforced = %running.level.enforced.join(","),
            missing = %running.level.missing_text(),
            "sandboxed"
        );
    }
    #[cfg(target_os = "linux")]
    spawning.spawned_in(
        pid,
        origin,
        cgroup.and_then(|cgroup| joined(server, pid, cgroup)),
    );
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (server, origin);
        spawning.spawned(pid);
    }
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    Ok((child, pid, pipes, running))
}

/// `c` as a command starting `program args…` instead (the wrapper's arguments end with `c`'s own
/// program and arguments): the same environment (`c`'s was cleared and set whole), folder, piped
/// stdio, kill on drop and process group.
#[cfg(target_os = "macos")]
#[allow(clippy::disallowed_methods)] // Part of the one sanctioned spawn site.
fn started_through(
    c: &tokio::process::Command,
    program: &Path,
    args: &[std::ffi::OsString],
) -> tokio::process::Command {
    let original = c.as_std();
    let mut through = tokio::process::Command::new(program);
    through
        .args(args)
        .env_clear()
        .envs(
            original
                .get_envs()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    if let Some(cwd) = original.get_current_dir() {
        through.current_dir(cwd);
    }
    through
}

/// The sandbox's steps in the child, last between fork and exec (after the cgroup and the
/// parent-death signal).
#[cfg(unix)]
fn confine(c: &mut tokio::process::Command, steps: sandbox::ChildSteps) {
    // SAFETY: the closure runs in the forked child before exec; `apply_in_child` makes only
    // async-signal-safe system calls on what the parent prepared, and does not allocate (its
    // errors are raw OS errors).
    unsafe {
        c.pre_exec(move || steps.apply_in_child());
    }
}

/// Windows: created suspended, put in a Job Object of its own, then resumed (see `job`); with no
/// console window of its own (a sidecar started by a GUI host has no console to share, and each
/// console server would otherwise open a window).
#[cfg(windows)]
#[allow(clippy::disallowed_methods)] // Part of the one sanctioned spawn site.
fn start(
    server: &str,
    mut c: tokio::process::Command,
    origin: Origin,
    confined: Option<Confined<'_>>,
) -> std::result::Result<Started, Failure> {
    use windows_sys::Win32::System::Threading::{CREATE_NO_WINDOW, CREATE_SUSPENDED};
    // The Job Object holds the policy's limits (memory, processes, CPU time); files, network and
    // open handles are not enforced here: a sandbox asking for them starts only if its config
    // allows weaker (the level, `sandbox::windows`, says what is missing).
    let limits = super::job::JobLimits::of(confined.as_ref().map(|c| c.policy));
    let running = match confined.map(|s| s.prepare(server, origin, None)) {
        None => None,
        Some(Ok(prepared)) => {
            c.envs(prepared.env.iter().map(|(k, v)| (k, v)));
            Some(prepared.split().1)
        }
        Some(Err(e)) => return Err(Failure::Sandbox(e)),
    };
    c.creation_flags(CREATE_SUSPENDED | CREATE_NO_WINDOW);
    let mut child = c.spawn().map_err(Failure::Io)?;
    let pid = child.id().unwrap_or(0);
    super::job::contain(&mut child, pid, origin, limits).map_err(Failure::Io)?;
    tracing::debug!(server, pid, "started in a job object");
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    Ok((child, pid, pipes, running))
}

/// Starts the guardian (see [`super::guardian`]): this binary again, `guardian --sidecar-pid N`
/// (and `--cgroup DIR`, the sidecar's cgroup, where servers are contained in one), in its own
/// session, stdin a pipe from us, stdout closed, stderr shared (for its one-line report).
#[cfg(unix)]
#[allow(clippy::disallowed_methods)] // The guardian is spawned here too, for the same reason.
pub(super) fn guardian(
    sidecar_pid: u32,
    cgroup: Option<&Path>,
) -> std::io::Result<(std::process::Child, std::process::ChildStdin)> {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command.args(["guardian", "--sidecar-pid", &sidecar_pid.to_string()]);
    if let Some(dir) = cgroup {
        command.arg("--cgroup").arg(dir);
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    // SAFETY: setsid is async-signal-safe; the closure does not allocate.
    unsafe {
        command.pre_exec(|| {
            nix::unistd::setsid()
                .map(drop)
                .map_err(std::io::Error::from)
        });
    }
    let mut child = command.spawn()?;
    match child.stdin.take() {
        Some(stdin) => Ok((child, stdin)),
        None => Err(std::io::Error::other(
            "guardian spawned without a stdin pipe",
        )),
    }
}

/// Starts this binary in serve mode as a child with piped stdin and stdout and the caller's stderr,
/// for a subcommand that drives the sidecar as a host does (`conformance-client`). The child is
/// killed if the handle is dropped; a graceful end is the caller's `shutdown`.
#[allow(clippy::disallowed_methods)] // The sidecar as a host's child is spawned here too.
pub(crate) fn sidecar(args: &[&str]) -> std::io::Result<tokio::process::Child> {
    tokio::process::Command::new(std::env::current_exe()?)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
}

/// What a package manager run printed and how it ended.
pub(crate) struct ToolRun {
    pub success: bool,
    /// The start of its stderr (at most [`crate::limits::PACKAGE_TOOL_OUTPUT_BYTES`]).
    pub stderr: String,
}

/// Runs a package manager to completion for a `package` server's first fetch (`npm install`,
/// `python -m venv`, `pip install`): the caller's environment (registry settings, proxies, its
/// own cache), no stdin, stdout dropped, stderr's start kept. Killed when the future is dropped
/// (the fetch's timeout).
#[allow(clippy::disallowed_methods)] // Package managers are spawned here too, for the same reason.
pub(crate) async fn package_tool(
    program: &std::ffi::OsStr,
    args: &[&std::ffi::OsStr],
    env: &[(&str, &std::ffi::OsStr)],
) -> std::io::Result<ToolRun> {
    use tokio::io::AsyncReadExt;
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let mut kept = Vec::new();
    if let Some(mut stderr) = child.stderr.take() {
        let bound = crate::limits::PACKAGE_TOOL_OUTPUT_BYTES as u64;
        (&mut stderr).take(bound).read_to_end(&mut kept).await?;
        // The rest is read and dropped, so the tool never blocks on a full pipe.
        tokio::io::copy(&mut stderr, &mut tokio::io::sink()).await?;
    }
    let status = child.wait().await?;
    Ok(ToolRun {
        success: status.success(),
        stderr: String::from_utf8_lossy(&kept).into_owned(),
    })
}

fn spawn_error(
    server: &str,
    spec: &ServerSpec,
    env: &[(String, String)],
    e: std::io::Error,
) -> Error {
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    let cwd_note = spec
        .cwd
        .as_ref()
        .map(|c| format!(" (cwd {})", c.display()))
        .unwrap_or_default();
    let message = match e.kind() {
        std::io::ErrorKind::NotFound
            if spec.cwd.as_deref().is_some_and(|c| !Path::new(c).is_dir()) =>
        {
            format!(
                "server `{server}`: cwd {} does not exist",
                spec.cwd.as_deref().unwrap_or(Path::new("")).display()
            )
        }
        std::io::ErrorKind::NotFound
            if spec.command.contains('/') || spec.command.contains('\\') =>
        {
            format!(
                "server `{server}`: command `{}` not found (ENOENT){cwd_note}",
                spec.command
            )
        }
        std::io::ErrorKind::NotFound => {
            format!(
                "server `{server}`: command `{}` not found (ENOENT); PATH searched: {path}",
                spec.command
            )
        }
        std::io::ErrorKind::PermissionDenied => {
            format!(
                "server `{server}`: command `{}` is not executable (EACCES){cwd_note}",
                spec.command
            )
        }
        _ => format!(
            "server `{server}`: cannot start `{}`: {e}{cwd_note}",
            spec.command
        ),
    };
    Error::new(ErrorCode::ServerUnavailable, message)
        .with("server", server)
        .with("command", spec.display_command())
}
