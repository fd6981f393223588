//! Requests a server sends to its client: `ping` is answered here; every other request becomes a
//! [`Question`] for whoever owns the session (the [`Asker`]: the host, usually), and its answer —
//! or the reason there is none — goes back to the server as the response.
//!
//! Bounds: at most [`limits::SERVER_REQUESTS_MAX_INFLIGHT`] of one session's requests wait at
//! once (past it a request is answered -32000 at once), and the owner bounds how long each waits
//! (see `crate::ask`). Secret values of the server's config are masked in what is asked.
//!
//! Cancellation: `notifications/cancelled` from the server for one of its requests drops the
//! question (the owner is told) and sends nothing back, as MCP asks; the end of the session drops
//! every question still open.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::transport::MessageSink;
use crate::ask::{Asker, Question};
use crate::jsonrpc::{encode_response, RequestId};
use crate::limits;
use crate::trust::secrets::Secrets;

/// The requests of one session's server that are being answered.
pub(super) struct ServerRequests {
    server: Arc<str>,
    secrets: Secrets,
    asker: Arc<dyn Asker>,
    sink: Arc<dyn MessageSink>,
    /// The questions open, by the server's request id; cancelling a token drops its question.
    open: Arc<Mutex<Open>>,
    /// Numbers the questions, so a finished one never removes a newer one under a reused id.
    asked: AtomicU64,
    /// Cancelled when the session ends: the parent of every open question's token.
    ended: CancellationToken,
}

impl ServerRequests {
    pub(super) fn new(
        server: Arc<str>,
        secrets: Secrets,
        asker: Arc<dyn Asker>,
        sink: Arc<dyn MessageSink>,
        ended: CancellationToken,
    ) -> Self {
        Self {
            server,
            secrets,
            asker,
            sink,
            open: Arc::default(),
            asked: AtomicU64::new(0),
            ended,
        }
    }

    /// Handles request `id`; never waits (the answer is sent from a task of its own).
    pub(super) fn handle(&self, id: RequestId, method: String, params: Option<Value>) {
        let server = &*self.server;
        if method == "ping" {
            return self.respond(encode_response(Some(&id), Ok(&json!({}))));
        }
        let mut params = params.unwrap_or_else(|| json!({}));
        if !params.is_object() {
            let e = json!({"code": -32602, "message": format!("params of `{method}` must be an object")});
            return self.respond(encode_response::<Value>(Some(&id), Err(&e)));
        }
        let (number, token) = match self.open(&id) {
            Ok(opened) => opened,
            Err(refusal) => {
                return self.respond(encode_response::<Value>(Some(&id), Err(&refusal)))
            }
        };
        self.secrets.mask_json(&mut params);
        tracing::debug!(server, %id, method, "the server asks its client");
        let question = self.asker.ask(Question {
            server: server.to_owned(),
            method,
            params,
            key: None,
        });
        let (sink, open) = (Arc::clone(&self.sink), Arc::clone(&self.open));
        let server = Arc::clone(&self.server);
        tokio::spawn(async move {
            let outcome = tokio::select! {
                // Dropping the question withdraws it from its owner; the server is not answered
                // (it cancelled, or the session is gone).
                _ = token.cancelled() => None,
                outcome = question => Some(outcome),
            };
            close(&open, &id, number);
            let Some(outcome) = outcome else { return };
            let line = match outcome {
                Ok(result) => encode_response(Some(&id), Ok(&result)),
                Err(e) => {
                    tracing::debug!(server = &*server, %id, "the server's request got no answer: {e}");
                    encode_response::<Value>(Some(&id), Err(&e.to_rpc_error()))
                }
            };
            let _ = sink.send(line).await;
        });
    }

    /// The session ended: every open question is dropped, nothing more is answered.
    pub(super) fn end(&self) {
        self.ended.cancel();
    }

    /// `notifications/cancelled` from the server: drops the question it names, if still open.
    pub(super) fn cancelled(&self, params: Option<&Value>) {
        let id = params
            .and_then(|p| p.get("requestId"))
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        let Some(id) = id else { return };
        let token = self.lock().remove(&id);
        if let Some((_, token)) = token {
            tracing::debug!(server = &*self.server, %id, "the server withdrew its request");
            token.cancel();
        }
    }

    /// A token for request `id`, or the error to answer it with: a reused id, or the bound reached.
    fn open(&self, id: &RequestId) -> Result<(u64, CancellationToken), Value> {
        let mut open = self.lock();
        if open.len() >= limits::SERVER_REQUESTS_MAX_INFLIGHT {
            return Err(json!({"code": -32000, "message": format!(
                "too many requests in flight: {} wait for an answer already",
                limits::SERVER_REQUESTS_MAX_INFLIGHT
            )}));
        }
        match open.entry(id.clone()) {
            Entry::Occupied(_) => Err(
                json!({"code": -32600, "message": format!("request id {id} is already in flight")}),
            ),
            Entry::Vacant(slot) => {
                let number = self.asked.fetch_add(1, Ordering::Relaxed);
                let token = self.ended.child_token();
                slot.insert((number, token.clone()));
                Ok((number, token))
            }
        }
    }

    /// Sends a response off the read loop, so a server that is not reading cannot stall it.
    fn respond(&self, line: Vec<u8>) {
        let sink = Arc::clone(&self.sink);
        tokio::spawn(async move {
            let _ = sink.send(line).await;
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        lock(&self.open)
    }
}

/// Open questions by request id: their number and their token.
type Open = HashMap<RequestId, (u64, CancellationToken)>;

fn lock(open: &Mutex<Open>) -> std::sync::MutexGuard<'_, Open> {
    // A poisoned lock is still consistent: every critical section is one map operation.
    open.lock().unwrap_or_else(|p| p.into_inner())
}

/// Forgets question `number` of request `id`, unless a newer one took the id meanwhile.
fn close(open: &Mutex<Open>, id: &RequestId, number: u64) {
    let mut open = lock(open);
    if open.get(id).is_some_and(|(n, _)| *n == number) {
        open.remove(id);
    }
}
