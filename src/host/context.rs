//! The state one host session shares between its reader and its request tasks: the outbox, the
//! registry once `initialize` created it, the requests in flight with their cancel tokens.
//!
//! Owns `impl Host`: construction and the helpers every handler needs (`registry`, `answer`,
//! `events_flushed`). What the session does with this state lives in free functions elsewhere:
//! `session` (initialize, stop), `requests` (spawning, cancelling), `serve` (the read loop).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::asks::HostAsks;
use super::reply::{self, Reply};
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::RequestId;
use crate::limits;
use crate::serving::{Answers, Flow, Outbox, Requests};
use crate::store::SchemaCache;
use crate::supervisor::{Event, EventSender, Registry};

/// NOT_INITIALIZED: a request before `initialize` succeeded.
pub(super) fn not_initialized() -> Error {
    Error::new(
        ErrorCode::NotInitialized,
        "the first request must be `initialize`",
    )
}

pub(super) struct Host {
    pub outbox: Outbox,
    pub cache: Option<SchemaCache>,
    pub configs: Vec<PathBuf>,
    /// A sender into the registry's event queue, to queue a barrier behind pending events.
    pub events: OnceLock<EventSender>,
    pub registry: OnceLock<Arc<Registry>>,
    /// The sidecar's own requests to the host, set up by `initialize` with what the host declared.
    pub asks: OnceLock<Arc<HostAsks>>,
    /// The requests in flight with their cancel tokens, so a stop can wait until each one has
    /// been answered.
    pub requests: Requests,
    /// The budgets a request takes before it starts (`flow`): they push back into reading stdin.
    pub flow: Flow,
    /// The bytes the requests' answers may hold before they are queued for the host.
    pub answers: Answers,
    pub shutting_down: AtomicBool,
}

impl Host {
    pub(super) fn new(
        outbox: Outbox,
        cache: Option<SchemaCache>,
        configs: Vec<PathBuf>,
        flow: Flow,
    ) -> Self {
        Self {
            outbox,
            cache,
            configs,
            events: OnceLock::new(),
            registry: OnceLock::new(),
            asks: OnceLock::new(),
            requests: Requests::default(),
            flow,
            answers: Answers::new(limits::HOST_ANSWER_BYTES, limits::HOST_ANSWER_RESERVE_BYTES),
            shutting_down: AtomicBool::new(false),
        }
    }

    pub(super) fn registry(&self) -> Result<&Arc<Registry>> {
        self.registry.get().ok_or_else(not_initialized)
    }

    pub(super) async fn answer(&self, id: Option<&RequestId>, outcome: Result<Value>) {
        self.reply(id, outcome.map(Reply::Value)).await;
    }

    /// [`Host::answer`] with a reply that may be JSON text already.
    pub(super) async fn reply(&self, id: Option<&RequestId>, outcome: Result<Reply>) {
        self.outbox.send(reply::encode(id, &outcome)).await;
    }

    /// Returns once every registry event queued so far has been queued for the host, so an answer
    /// sent next comes after the notifications its request caused.
    pub(super) async fn events_flushed(&self) {
        if let Some(events) = self.events.get() {
            let (tx, rx) = tokio::sync::oneshot::channel();
            events.send(Event::Barrier(tx));
            // An error: the queue is gone, nothing is left to wait for.
            let _ = rx.await;
        }
    }
}
