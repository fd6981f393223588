//! A server's tree on Windows: a Job Object of its own. The server is created suspended, assigned to
//! its job, then resumed, so everything it starts (a `.cmd` launcher's `node`, that one's workers)
//! is in the job from its first instruction; a process cannot leave the job (it is created without
//! `JOB_OBJECT_LIMIT_BREAKAWAY_OK`), so Windows needs no search for escaped descendants.
//!
//! - **Stop.** Windows has no signal asking a windowless console process to stop: after the stdin
//!   close and its grace, the job is terminated whole (`TerminateJobObject`), and the stop waits for
//!   its last member's exit (the job's completion port says `ACTIVE_PROCESS_ZERO`).
//! - **A dead sidecar.** Each job is created with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE` and only the
//!   sidecar holds its handle: when the sidecar exits or is killed, the kernel closes the handle and
//!   kills every member. This is the guardian's work on Unix, done by the kernel.
//!
//! - **Sandbox limits.** A sandboxed server's job also carries its policy's limits, over the whole
//!   tree as a cgroup does on Linux ([`JobLimits`]): committed memory (`JOB_OBJECT_LIMIT_JOB_MEMORY`),
//!   live processes (`JOB_OBJECT_LIMIT_ACTIVE_PROCESS`; one when it may not spawn) and user-mode CPU
//!   time (`JOB_OBJECT_LIMIT_JOB_TIME`, past which Windows terminates the job).
//!
//! The jobs live here by origin (see `origin`), from the spawn until the server's stop has emptied
//! its job. Written with `windows-sys`: process-wrap's Job Object wrapper does not hand out the job's
//! handle, and its `wait` returns on the first completion message of any kind, not on the job's
//! emptying.

use std::collections::BTreeMap;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::process::ExitStatus;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use windows_sys::Win32::Foundation::{HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectAssociateCompletionPortInformation,
    JobObjectBasicAccountingInformation, JobObjectExtendedLimitInformation,
    QueryInformationJobObject, SetInformationJobObject, TerminateJobObject,
    JOBOBJECT_ASSOCIATE_COMPLETION_PORT, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOB_OBJECT_LIMIT_ACTIVE_PROCESS,
    JOB_OBJECT_LIMIT_JOB_MEMORY, JOB_OBJECT_LIMIT_JOB_TIME, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{OpenThread, ResumeThread, THREAD_SUSPEND_RESUME};
use windows_sys::Win32::System::IO::{CreateIoCompletionPort, GetQueuedCompletionStatus};

use super::origin::Origin;
use crate::limits;
use crate::sandbox::SandboxPolicy;
use tokio::process::Child;

/// Job time is counted in units of 100 ns.
const TICKS_PER_SECOND: i64 = 10_000_000;

/// A sandboxed server's limits that its job enforces, each over the whole tree; all `None` for a
/// server without a sandbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct JobLimits {
    /// Committed memory of every process of the job together.
    pub memory_bytes: Option<u64>,
    /// Processes alive in the job at once, the server's own included.
    pub active_processes: Option<u32>,
    /// User-mode CPU time of every process of the job together.
    pub cpu_seconds: Option<u64>,
}

impl JobLimits {
    /// The limits of `policy` (none without a sandbox). A server that may not spawn is the job's
    /// only process; the policy's open-file limit has no job counterpart.
    pub(crate) fn of(policy: Option<&SandboxPolicy>) -> JobLimits {
        let Some(policy) = policy else {
            return JobLimits::default();
        };
        JobLimits {
            memory_bytes: policy.memory_bytes,
            active_processes: if policy.spawn {
                policy.max_processes
            } else {
                Some(1)
            },
            cpu_seconds: policy.cpu_seconds,
        }
    }

    /// The job's limit information: kill-on-close always, and each limit that is set.
    fn information(&self) -> JOBOBJECT_EXTENDED_LIMIT_INFORMATION {
        let mut info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        let basic = &mut info.BasicLimitInformation;
        basic.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        if let Some(bytes) = self.memory_bytes {
            basic.LimitFlags |= JOB_OBJECT_LIMIT_JOB_MEMORY;
            info.JobMemoryLimit = usize::try_from(bytes).unwrap_or(usize::MAX);
        }
        if let Some(count) = self.active_processes {
            basic.LimitFlags |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
            basic.ActiveProcessLimit = count.max(1);
        }
        if let Some(seconds) = self.cpu_seconds {
            basic.LimitFlags |= JOB_OBJECT_LIMIT_JOB_TIME;
            basic.PerJobUserTimeLimit = i64::try_from(seconds)
                .unwrap_or(i64::MAX)
                .saturating_mul(TICKS_PER_SECOND);
        }
        info
    }
}

/// The completion message a job posts when its last process exits (winnt.h).
const JOB_OBJECT_MSG_ACTIVE_PROCESS_ZERO: u32 = 4;

/// One server's Job Object and the completion port it reports to.
#[derive(Debug)]
pub(crate) struct Job {
    job: OwnedHandle,
    port: OwnedHandle,
}

static JOBS: Mutex<BTreeMap<Origin, Arc<Job>>> = Mutex::new(BTreeMap::new());

fn jobs() -> MutexGuard<'static, BTreeMap<Origin, Arc<Job>>> {
    JOBS.lock().unwrap_or_else(|p| p.into_inner())
}

/// A handle from a Win32 call that returns null (or `INVALID_HANDLE_VALUE`) on failure.
fn owned(handle: HANDLE) -> std::io::Result<OwnedHandle> {
    if handle.is_null() || handle == INVALID_HANDLE_VALUE {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh handle the call just returned to us, closed only by the `OwnedHandle`.
    Ok(unsafe { OwnedHandle::from_raw_handle(handle as RawHandle) })
}

/// A Win32 `BOOL` result as an `io::Result`.
fn check(ok: i32) -> std::io::Result<()> {
    if ok == 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn raw(handle: &OwnedHandle) -> HANDLE {
    handle.as_raw_handle() as HANDLE
}

impl Job {
    /// A new job that kills its members when its last handle closes and holds them to `limits`,
    /// reporting to a port.
    fn new(limits: JobLimits) -> std::io::Result<Job> {
        // SAFETY: no security attributes and no name: an anonymous job only this process holds.
        let job = owned(unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) })?;
        let limits = limits.information();
        // SAFETY: the structure and its size match the information class.
        check(unsafe {
            SetInformationJobObject(
                raw(&job),
                JobObjectExtendedLimitInformation,
                std::ptr::from_ref(&limits).cast(),
                size_of_u32::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>(),
            )
        })?;
        // SAFETY: a new completion port, associated with no file.
        let port = owned(unsafe {
            CreateIoCompletionPort(INVALID_HANDLE_VALUE, std::ptr::null_mut(), 0, 1)
        })?;
        let association = JOBOBJECT_ASSOCIATE_COMPLETION_PORT {
            CompletionKey: std::ptr::null_mut(),
            CompletionPort: raw(&port),
        };
        // SAFETY: as above; both handles are ours and open.
        check(unsafe {
            SetInformationJobObject(
                raw(&job),
                JobObjectAssociateCompletionPortInformation,
                std::ptr::from_ref(&association).cast(),
                size_of_u32::<JOBOBJECT_ASSOCIATE_COMPLETION_PORT>(),
            )
        })?;
        Ok(Job { job, port })
    }

    /// Kills every member now (the call returns before they have all exited).
    fn terminate(&self) {
        // SAFETY: our open job handle.
        if let Err(e) = check(unsafe { TerminateJobObject(raw(&self.job), 1) }) {
            tracing::warn!("cannot terminate a server's job object: {e}");
        }
    }

    /// How many processes of the job are alive; `None` if the job cannot be asked.
    fn active_processes(&self) -> Option<u32> {
        let mut info = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
        // SAFETY: the structure and its size match the information class.
        check(unsafe {
            QueryInformationJobObject(
                raw(&self.job),
                JobObjectBasicAccountingInformation,
                std::ptr::from_mut(&mut info).cast(),
                size_of_u32::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>(),
                std::ptr::null_mut(),
            )
        })
        .ok()?;
        Some(info.ActiveProcesses)
    }

    /// Blocks until the job has no live member or `within` passed; `true` if it emptied. Wakes on
    /// the port's messages (each exit posts one); never on a timer.
    fn wait_empty(&self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if self.active_processes() == Some(0) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            let (mut code, mut key, mut overlapped) = (0u32, 0usize, std::ptr::null_mut());
            let millis = u32::try_from(left.as_millis()).unwrap_or(u32::MAX - 1);
            // SAFETY: our open port; the out-parameters are locals.
            let got = unsafe {
                GetQueuedCompletionStatus(
                    raw(&self.port),
                    &mut code,
                    &mut key,
                    &mut overlapped,
                    millis,
                )
            };
            if got != 0 && code == JOB_OBJECT_MSG_ACTIVE_PROCESS_ZERO {
                return true;
            }
        }
    }
}

fn size_of_u32<T>() -> u32 {
    u32::try_from(std::mem::size_of::<T>()).unwrap_or(u32::MAX)
}

/// Puts the suspended process `child` (pid `pid`) in a new job holding it to `limits`, records the
/// job for `origin`, and resumes the process. On failure the process is killed (it never ran a
/// instruction).
pub(crate) fn contain(
    child: &mut Child,
    pid: u32,
    origin: Origin,
    limits: JobLimits,
) -> std::io::Result<()> {
    let contained = Job::new(limits).and_then(|job| {
        let Some(process) = child.raw_handle() else {
            return Err(std::io::Error::other("the server exited before it started"));
        };
        // SAFETY: both handles are open: the job is ours, the process handle is the child's.
        check(unsafe { AssignProcessToJobObject(raw(&job.job), process as HANDLE) })?;
        Ok(job)
    });
    let job = match contained.and_then(|job| resume(pid).map(|()| job)) {
        Ok(job) => job,
        Err(e) => {
            let _ = child.start_kill();
            return Err(e);
        }
    };
    jobs().insert(origin, Arc::new(job));
    Ok(())
}

/// Resumes every thread of the suspended process `pid` (a new process has one).
fn resume(pid: u32) -> std::io::Result<()> {
    // SAFETY: a snapshot of the system's threads; closed by the `OwnedHandle`.
    let snapshot = owned(unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) })?;
    let mut entry = THREADENTRY32 {
        dwSize: size_of_u32::<THREADENTRY32>(),
        ..THREADENTRY32::default()
    };
    let mut resumed = 0;
    // SAFETY: our snapshot; `entry` is a THREADENTRY32 with its size set.
    let mut more = unsafe { Thread32First(raw(&snapshot), &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: opens a thread by id; the handle is closed by the `OwnedHandle`.
            let thread =
                owned(unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) })?;
            // SAFETY: our open thread handle.
            if unsafe { ResumeThread(raw(&thread)) } == u32::MAX {
                return Err(std::io::Error::last_os_error());
            }
            resumed += 1;
        }
        // SAFETY: as for `Thread32First`.
        more = unsafe { Thread32Next(raw(&snapshot), &mut entry) } != 0;
    }
    if resumed == 0 {
        return Err(std::io::Error::other(
            "no thread of the new server to resume",
        ));
    }
    Ok(())
}

fn job_of(origin: Origin) -> Option<Arc<Job>> {
    jobs().get(&origin).cloned()
}

/// Waits for the server's leader.
pub(crate) async fn wait_leader(child: &mut Child) -> std::io::Result<ExitStatus> {
    child.wait().await
}

/// Asks the tree to stop: Windows has no such request for a windowless console process (and
/// `GenerateConsoleCtrlEvent` needs a console the sidecar may not have), so there is none; the
/// stop goes on to [`kill`]. `false`: nothing was asked.
pub(crate) fn terminate(_pid: u32, _origin: Origin) -> bool {
    false
}

/// Kills the whole tree: the job is terminated.
pub(crate) fn kill(_pid: u32, origin: Origin) {
    if let Some(job) = job_of(origin) {
        job.terminate();
    }
}

/// After the leader was waited for: whatever it left in its job is killed, and the stop returns
/// once the job is empty; then the job's handles are closed.
pub(crate) async fn finish(pid: u32, origin: Origin) {
    let Some(job) = jobs().remove(&origin) else {
        return;
    };
    if !empty_job(job).await {
        tracing::error!(
            pid,
            "processes of a server's job still alive after it was terminated"
        );
    }
}

/// Terminates `job` unless it is empty already, and waits up to
/// [`limits::STOP_AFTER_SIGKILL`] for its last member's exit.
async fn empty_job(job: Arc<Job>) -> bool {
    tokio::task::spawn_blocking(move || {
        if job.active_processes() == Some(0) {
            return true;
        }
        job.terminate();
        job.wait_empty(limits::STOP_AFTER_SIGKILL)
    })
    .await
    .unwrap_or(false)
}

/// The sidecar's start as a parent: nothing to start (no guardian: the jobs' kill-on-close does its
/// work); the mechanism in use is logged once.
pub(crate) fn install() {
    tracing::info!(
        "process containment: each server's tree in a job object, killed whole when the sidecar exits"
    );
}

/// The last word before exit: every job still recorded (a server whose stop did not run) is
/// terminated and awaited.
pub(crate) async fn final_sweep() {
    let left: Vec<(Origin, Arc<Job>)> = std::mem::take(&mut *jobs()).into_iter().collect();
    if !left.is_empty() {
        tracing::warn!(
            jobs = left.len(),
            "server job objects left at exit; terminating them"
        );
    }
    for (_, job) in left {
        if !empty_job(job).await {
            tracing::error!("processes of a server's job still alive after it was terminated");
        }
    }
}

/// Nothing to tell anyone at exit on Windows (there is no guardian).
pub(crate) fn farewell() {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::presets::defaults;

    #[test]
    fn no_sandbox_is_kill_on_close_only() {
        let info = JobLimits::of(None).information();
        let basic = info.BasicLimitInformation;
        assert_eq!(basic.LimitFlags, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE);
        assert_eq!((info.JobMemoryLimit, basic.ActiveProcessLimit), (0, 0));
    }

    #[test]
    fn a_policy_limits_memory_processes_and_cpu_of_the_whole_job() {
        let Some(mut policy) = defaults("strict") else {
            panic!("no strict preset")
        };
        policy.cpu_seconds = Some(600);
        let info = JobLimits::of(Some(&policy)).information();
        let basic = info.BasicLimitInformation;
        assert_eq!(
            basic.LimitFlags,
            JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
                | JOB_OBJECT_LIMIT_JOB_MEMORY
                | JOB_OBJECT_LIMIT_ACTIVE_PROCESS
                | JOB_OBJECT_LIMIT_JOB_TIME
        );
        assert_eq!(info.JobMemoryLimit, 1024 * 1024 * 1024);
        assert_eq!(basic.ActiveProcessLimit, 64);
        assert_eq!(basic.PerJobUserTimeLimit, 600 * TICKS_PER_SECOND);
        policy.spawn = false;
        let info = JobLimits::of(Some(&policy)).information();
        assert_eq!(info.BasicLimitInformation.ActiveProcessLimit, 1);
    }
}
