//! One generation of one server: its process (if any) and, once the handshake succeeded, its MCP
//! client, validated tools, and activity (calls in flight, last use) for keepalive and idle stops.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch, Notify};
use tokio_util::sync::CancellationToken;

use super::freshness::Freshness;
use crate::config::ResultPolicy;
use crate::mcp::transport::MessageSink;
use crate::mcp::{CacheHints, Client, ToolDef};
use crate::process::{self, ExitInfo, Origin, ServerChild, StderrTail};
use crate::sandbox::{self, SandboxLevel};

/// Control over a spawned process tree. Dropping it stops the tree (the monitor sees its stop
/// channel close), so a forgotten generation cannot leak processes.
pub(crate) struct ProcessControl {
    pub pid: u32,
    /// A sandboxed process's level, and what its sandbox saw of its end.
    pub sandbox: Option<Arc<SandboxReport>>,
    sink: Arc<dyn MessageSink>,
    stop: Mutex<Option<oneshot::Sender<()>>>,
    exited: watch::Receiver<Option<ExitInfo>>,
}

impl ProcessControl {
    /// Takes ownership of the child: a monitor task reaps it when it exits on its own, or runs the
    /// stop sequence when asked.
    /// A sandbox's running part (`running`) is kept until the tree has ended, then read (memory-limit
    /// kills) and dropped, which removes its cgroups and temporary folder.
    pub(crate) fn start(
        mut child: ServerChild,
        pid: u32,
        origin: Origin,
        sink: Arc<dyn MessageSink>,
        running: Option<sandbox::Running>,
    ) -> Self {
        let (stop_tx, mut stop_rx) = oneshot::channel::<()>();
        let (exited_tx, exited) = watch::channel(None);
        let report = running.as_ref().map(|r| {
            Arc::new(SandboxReport {
                level: r.level.clone(),
                readable: r.readable().to_vec(),
                oom_kills: AtomicU64::new(0),
            })
        });
        let seen = report.clone();
        tokio::spawn(async move {
            // `wait` is cancel-safe, so losing the race to a stop request loses nothing.
            let exited_by_itself = tokio::select! {
                _ = &mut stop_rx => None,
                status = child.wait() => Some(status),
            };
            let info = match exited_by_itself {
                None => process::stop_tree(&mut child, pid, origin).await,
                Some(_) => process::reap_after_exit(&mut child, pid, origin).await,
            };
            if let (Some(running), Some(seen)) = (running, seen) {
                seen.oom_kills
                    .store(running.oom_kills(), std::sync::atomic::Ordering::Relaxed);
            }
            let _ = exited_tx.send(Some(info));
        });
        Self {
            pid,
            sandbox: report,
            sink,
            stop: Mutex::new(Some(stop_tx)),
            exited,
        }
    }

    /// Waits up to `within` for the process to end on its own; used to attach an exit status to errors.
    pub(crate) async fn exited_within(&self, within: Duration) -> Option<ExitInfo> {
        let mut rx = self.exited.clone();
        let info = match tokio::time::timeout(within, rx.wait_for(Option::is_some)).await {
            Ok(Ok(info)) => *info,
            _ => None,
        };
        info
    }

    /// The full stop sequence: close stdin, then let the monitor escalate. Returns once the whole
    /// group is gone. Idempotent.
    pub(crate) async fn stop(&self) -> Option<ExitInfo> {
        // A sender blocked on a full pipe holds the stdin lock; do not wait for it forever — the
        // signals below unblock it.
        let _ =
            tokio::time::timeout(crate::limits::STOP_AFTER_STDIN_CLOSE, self.sink.close()).await;
        let stop = self.stop.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(tx) = stop {
            let _ = tx.send(());
        }
        let mut rx = self.exited.clone();
        let info = rx.wait_for(Option::is_some).await.ok().and_then(|i| *i);
        info
    }
}

/// What a sandboxed generation's status and failure report say of its sandbox.
#[derive(Debug)]
pub(crate) struct SandboxReport {
    pub level: SandboxLevel,
    /// The paths its rules let it read (to tell a hidden file from a missing one).
    pub readable: Vec<std::path::PathBuf>,
    /// Processes of its tree the memory limit killed (read once the tree has ended).
    oom_kills: AtomicU64,
}

impl SandboxReport {
    pub(crate) fn oom_kills(&self) -> u64 {
        self.oom_kills.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The limits a session enforces on calls, from the server's config.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallLimits {
    pub tool_timeout: Duration,
    /// `resetTimeoutOnProgress`: progress restarts a call's timeout.
    pub reset_on_progress: bool,
    /// `maxTotalTimeoutSeconds`: the hard bound of one call.
    pub max_total: Option<Duration>,
    pub max_result_bytes: usize,
    pub result_policy: ResultPolicy,
}

/// A ready generation.
pub(crate) struct Session {
    pub generation: u64,
    pub client: Client,
    pub limits: CallLimits,
    pub stderr: Arc<StderrTail>,
    /// When the handshake finished (for `maxLifetimeSeconds`).
    pub started: Instant,
    /// How long the first tool discovery (every `tools/list` page) took.
    pub discovery: Duration,
    /// Cancelled when this generation leaves the slot (stopped, parked, failed, replaced).
    pub ended: CancellationToken,
    /// Signalled when the last call in flight finishes.
    pub idle: Notify,
    /// Signalled when a host's read found the list stale and claimed a background re-list
    /// ([`Session::claim_relist`]); the session's watcher runs it.
    pub relist_due: Notify,
    tools: RwLock<Arc<Vec<ToolDef>>>,
    freshness: Mutex<Freshness>,
    activity: Mutex<Activity>,
}

#[derive(Clone, Copy)]
struct Activity {
    in_flight: usize,
    last_used: Instant,
}

/// One call in flight on a session; dropping it (answer, error or cancellation) ends the call.
pub(crate) struct CallGuard {
    session: Arc<Session>,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let now_idle = {
            let mut a = self.session.activity();
            a.in_flight = a.in_flight.saturating_sub(1);
            a.last_used = Instant::now();
            a.in_flight == 0
        };
        if now_idle {
            // notify_one keeps a permit if nobody waits yet, so the upkeep task cannot miss it.
            self.session.idle.notify_one();
        }
    }
}

impl Session {
    pub(crate) fn new(
        generation: u64,
        client: Client,
        tools: Vec<ToolDef>,
        limits: CallLimits,
        stderr: Arc<StderrTail>,
        discovery: Duration,
        hints: CacheHints,
    ) -> Self {
        let now = Instant::now();
        let seed = super::restart::seed(&generation.to_string());
        Self {
            generation,
            client,
            limits,
            stderr,
            started: now,
            discovery,
            ended: CancellationToken::new(),
            idle: Notify::new(),
            relist_due: Notify::new(),
            tools: RwLock::new(Arc::new(tools)),
            freshness: Mutex::new(Freshness::new(hints, now, seed)),
            activity: Mutex::new(Activity {
                in_flight: 0,
                last_used: now,
            }),
        }
    }

    fn activity(&self) -> std::sync::MutexGuard<'_, Activity> {
        self.activity.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks a call as started. The registry calls this with the server's slot locked, so an idle
    /// stop (which checks [`Session::in_flight`] under the same lock) never closes a session a call
    /// has just picked.
    pub(crate) fn begin_call(self: &Arc<Self>) -> CallGuard {
        let mut a = self.activity();
        a.in_flight += 1;
        a.last_used = Instant::now();
        CallGuard {
            session: Arc::clone(self),
        }
    }

    /// Calls in flight and when the session was last used (a call started or ended).
    pub(crate) fn usage(&self) -> (usize, Instant) {
        let a = *self.activity();
        (a.in_flight, a.last_used)
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.activity().in_flight
    }

    pub(crate) fn tools(&self) -> Arc<Vec<ToolDef>> {
        Arc::clone(&self.tools.read().unwrap_or_else(|p| p.into_inner()))
    }

    pub(crate) fn replace_tools(&self, tools: Vec<ToolDef>) {
        *self.tools.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(tools);
    }

    /// The freshness of the tool list (its `ttlMs`, background re-lists and their backoff).
    pub(crate) fn freshness(&self) -> std::sync::MutexGuard<'_, Freshness> {
        self.freshness.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The host read the list: if it is past its positive `ttlMs` and no re-list is in flight or
    /// backing off, the watcher is woken to re-list in the background (the host is answered from
    /// the cached list meanwhile). Returns whether one was started.
    pub(crate) fn claim_relist(&self, now: Instant) -> bool {
        let claimed = self.freshness().claim_relist(now);
        if claimed {
            // notify_one keeps a permit when the watcher is busy, so the claim is never lost.
            self.relist_due.notify_one();
        }
        claimed
    }
}
