//! A small host of the sidecar, for subcommands that drive it the way a host program does: spawns
//! `mcp-sidecar` (serve mode) as a child and speaks host protocol v1 on its pipes — requests
//! matched to their responses by id, the sidecar's own requests (a server's sampling, elicitation
//! or roots request) answered by a handler, notifications ignored.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::Mutex;

use crate::jsonrpc::{encode_request, encode_response, Incoming, LineReader, Pending, RequestId};
use crate::limits;
use crate::process;

/// Why talking to the sidecar failed.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum PeerError {
    #[error("cannot start the sidecar: {0}")]
    Spawn(String),
    #[error("the sidecar is gone: {0}")]
    Gone(String),
    #[error("`{method}` failed: {message} ({code})")]
    Refused {
        method: String,
        code: String,
        message: String,
    },
    #[error("`{method}` got no answer within {} s", after.as_secs())]
    TimedOut { method: String, after: Duration },
}

/// How the host answers one of the sidecar's requests (`method`, `params`): its result, or a
/// JSON-RPC error object. Each answer runs as its own task (one may take a network round trip).
pub(crate) type Answerer =
    dyn Fn(String, Value) -> BoxFuture<'static, Result<Value, Value>> + Send + Sync;

/// The sidecar as a child, and the host's end of its protocol.
pub(crate) struct HostPeer {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    pending: Arc<Pending<PeerError>>,
}

impl HostPeer {
    /// Spawns the sidecar; `answer` answers its requests (from the reader task, in order).
    pub(crate) fn spawn(answer: Arc<Answerer>) -> Result<Self, PeerError> {
        let mut child = process::spawn_sidecar(&[]).map_err(|e| PeerError::Spawn(e.to_string()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(PeerError::Spawn("no pipes to its stdin and stdout".into()));
        };
        let stdin = Arc::new(Mutex::new(stdin));
        let pending = Arc::new(Pending::new());
        tokio::spawn(read(
            stdout,
            Arc::clone(&stdin),
            Arc::clone(&pending),
            answer,
        ));
        Ok(Self {
            child,
            stdin,
            pending,
        })
    }

    /// Sends `method` and waits up to `within` for its result.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        within: Duration,
    ) -> Result<Value, PeerError> {
        let (number, answer) = self.pending.register()?;
        let line = encode_request(&RequestId::Number(number), method, Some(&params));
        write(&self.stdin, line).await?;
        let reply = match tokio::time::timeout(within, answer).await {
            Ok(Ok(reply)) => reply?,
            Ok(Err(_)) => return Err(PeerError::Gone("its output ended".into())),
            Err(_) => {
                self.pending.forget(number);
                return Err(PeerError::TimedOut {
                    method: method.to_owned(),
                    after: within,
                });
            }
        };
        reply.outcome.map_err(|e| PeerError::Refused {
            method: method.to_owned(),
            code: e
                .data
                .as_ref()
                .and_then(|d| d.get("code"))
                .and_then(Value::as_str)
                .map_or_else(|| e.code.to_string(), str::to_owned),
            message: e.message,
        })
    }

    /// `shutdown`, then waits for the sidecar to exit (killed if it does not within `within`).
    pub(crate) async fn shutdown(mut self, within: Duration) -> Result<(), PeerError> {
        let answered = self.request("shutdown", json!({}), within).await;
        if tokio::time::timeout(within, self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
        answered.map(drop)
    }
}

async fn write(stdin: &Mutex<ChildStdin>, line: Vec<u8>) -> Result<(), PeerError> {
    let mut stdin = stdin.lock().await;
    let written = stdin.write_all(&line).await;
    written.map_err(|e| PeerError::Gone(format!("writing its stdin failed: {e}")))
}

/// The reader: responses to their waiters, requests to `answer`; at the end every waiter fails.
async fn read(
    stdout: ChildStdout,
    stdin: Arc<Mutex<ChildStdin>>,
    pending: Arc<Pending<PeerError>>,
    answer: Arc<Answerer>,
) {
    let mut lines = LineReader::new(BufReader::new(stdout), limits::DEFAULT_HOST_LINE_BYTES);
    let why = loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break "its output ended".to_owned(),
            Err(e) => break format!("reading its output failed: {e}"),
        };
        match Incoming::parse(line) {
            Ok(Ok(Incoming::Response { id, result })) => {
                let bytes = line.len();
                let reply = crate::jsonrpc::Reply {
                    outcome: result,
                    bytes,
                };
                pending.complete(&id, reply);
            }
            Ok(Ok(Incoming::Request { id, method, params })) => {
                let params = params.unwrap_or_else(|| json!({}));
                let (answering, stdin) = (answer(method, params), Arc::clone(&stdin));
                // Its own task: the reader goes on reading while the host works on the answer.
                tokio::spawn(async move {
                    let line = match answering.await {
                        Ok(result) => encode_response(Some(&id), Ok(&result)),
                        Err(error) => encode_response::<Value>(Some(&id), Err(&error)),
                    };
                    if let Err(e) = write(&stdin, line).await {
                        tracing::debug!("answering the sidecar failed: {e}");
                    }
                });
            }
            Ok(Ok(Incoming::Notification { method, .. })) => {
                tracing::debug!(method, "notification from the sidecar");
            }
            _ => tracing::warn!("the sidecar wrote a line that is not JSON-RPC"),
        }
    };
    pending.close(PeerError::Gone(why));
}
