//! One generation of one server: its process (if any) and, once the handshake succeeded, its MCP
//! client and validated tools.

use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::{oneshot, watch};

use process_wrap::tokio::ChildWrapper;

use super::process::{self, ExitInfo};
use super::stderr::StderrTail;
use crate::config::ResultPolicy;
use crate::mcp::transport::MessageSink;
use crate::mcp::{Client, ToolDef};

/// Control over a spawned process tree. Dropping it stops the tree (the monitor sees its stop
/// channel close), so a forgotten generation cannot leak processes.
pub struct ProcessControl {
    pub pid: u32,
    sink: Arc<dyn MessageSink>,
    stop: Mutex<Option<oneshot::Sender<()>>>,
    exited: watch::Receiver<Option<ExitInfo>>,
}

impl ProcessControl {
    /// Takes ownership of the child: a monitor task reaps it when it exits on its own, or runs the
    /// stop sequence when asked.
    pub fn start(mut child: Box<dyn ChildWrapper>, pid: u32, sink: Arc<dyn MessageSink>) -> Self {
        let (stop_tx, mut stop_rx) = oneshot::channel::<()>();
        let (exited_tx, exited) = watch::channel(None);
        tokio::spawn(async move {
            // `wait` is cancel-safe, so losing the race to a stop request loses nothing.
            let exited_by_itself = tokio::select! {
                _ = &mut stop_rx => None,
                status = child.wait() => Some(status),
            };
            let info = match exited_by_itself {
                None => process::stop_tree(&mut child, pid).await,
                Some(_) => process::reap_after_exit(&mut child, pid).await,
            };
            let _ = exited_tx.send(Some(info));
        });
        Self { pid, sink, stop: Mutex::new(Some(stop_tx)), exited }
    }

    /// How the process ended, if it has.
    pub fn exit_info(&self) -> Option<ExitInfo> {
        *self.exited.borrow()
    }

    /// Waits up to `within` for the process to end on its own; used to attach an exit status to errors.
    pub async fn exited_within(&self, within: Duration) -> Option<ExitInfo> {
        let mut rx = self.exited.clone();
        let info = match tokio::time::timeout(within, rx.wait_for(Option::is_some)).await {
            Ok(Ok(info)) => *info,
            _ => None,
        };
        info
    }

    /// The full stop sequence: close stdin, then let the monitor escalate. Returns once the whole
    /// group is gone. Idempotent.
    pub async fn stop(&self) -> Option<ExitInfo> {
        // A sender blocked on a full pipe holds the stdin lock; do not wait for it forever — the
        // signals below unblock it.
        let _ = tokio::time::timeout(crate::limits::STOP_AFTER_STDIN_CLOSE, self.sink.close()).await;
        let stop = self.stop.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(tx) = stop {
            let _ = tx.send(());
        }
        let mut rx = self.exited.clone();
        let info = rx.wait_for(Option::is_some).await.ok().and_then(|i| *i);
        info
    }
}

/// The limits a session enforces on calls, from the server's config.
#[derive(Clone, Copy, Debug)]
pub struct CallLimits {
    pub tool_timeout: Duration,
    pub max_result_bytes: usize,
    pub result_policy: ResultPolicy,
}

/// A ready generation.
pub struct Session {
    pub generation: u64,
    pub client: Client,
    pub limits: CallLimits,
    pub stderr: Arc<StderrTail>,
    tools: RwLock<Arc<Vec<ToolDef>>>,
}

impl Session {
    pub fn new(generation: u64, client: Client, tools: Vec<ToolDef>, limits: CallLimits, stderr: Arc<StderrTail>) -> Self {
        Self { generation, client, limits, stderr, tools: RwLock::new(Arc::new(tools)) }
    }

    pub fn tools(&self) -> Arc<Vec<ToolDef>> {
        Arc::clone(&self.tools.read().unwrap_or_else(|p| p.into_inner()))
    }

    pub fn replace_tools(&self, tools: Vec<ToolDef>) {
        *self.tools.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(tools);
    }
}
