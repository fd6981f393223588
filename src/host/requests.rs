//! Requests other than `initialize` and `shutdown`: each runs as its own task, so calls proceed
//! concurrently, and each can be cancelled by the host.
//!
//! Cancellation: every spawned request has a token in `Host::inflight`. `notifications/cancelled`
//! from the host fires it; the request's future is dropped, which (for `tools/call`) removes the
//! downstream request and sends the server its own `notifications/cancelled`; the host gets
//! CANCELLED at once.

use std::collections::hash_map::Entry;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::context::Host;
use super::dispatch;
use super::params::{self, parse};
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::RequestId;

/// Runs request `id` in a task of its own and answers it: its outcome, or CANCELLED (SHUTTING_DOWN
/// during a stop) when its token fires first. An id still in flight is refused at once
/// (INVALID_REQUEST): taking it over would leave the first request impossible to cancel.
pub fn spawn(host: Arc<Host>, id: RequestId, method: String, params: Option<Value>) {
    let token = CancellationToken::new();
    let fresh = match host.inflight().entry(id.clone()) {
        Entry::Occupied(_) => false,
        Entry::Vacant(slot) => {
            slot.insert(token.clone());
            true
        }
    };
    if !fresh {
        let refusal = Error::new(
            ErrorCode::InvalidRequest,
            format!("request id {id} is already in flight; use a new id for each request"),
        )
        .with("field", "id");
        let task_host = Arc::clone(&host);
        host.requests
            .spawn(async move { task_host.answer(Some(&id), Err(refusal)).await });
        return;
    }
    let task_host = Arc::clone(&host);
    host.requests.spawn(async move {
        let host = task_host;
        let outcome = tokio::select! {
            // Dropping the method's future is what cancels it downstream (see module doc).
            _ = token.cancelled() => Err(cancelled_error(&host, &id)),
            outcome = dispatch::run(&host, &method, params) => outcome,
        };
        host.inflight().remove(&id);
        if method.starts_with("servers/") {
            host.events_flushed().await;
        }
        host.answer(Some(&id), outcome).await;
    });
}

fn cancelled_error(host: &Host, id: &RequestId) -> Error {
    if host.shutting_down.load(Ordering::SeqCst) {
        Error::new(
            ErrorCode::ShuttingDown,
            format!("request {id} was abandoned: the sidecar is shutting down"),
        )
    } else {
        Error::new(
            ErrorCode::Cancelled,
            format!("request {id} was cancelled by the host"),
        )
    }
}

/// A notification from the host: `notifications/cancelled` fires its request's token; any other
/// is logged and ignored.
pub fn notification(host: &Host, method: &str, params: Option<Value>) {
    match method {
        "notifications/cancelled" => match parse::<params::Cancelled>(method, params) {
            Ok(c) => {
                let token = host.inflight().remove(&c.request_id);
                match token {
                    Some(token) => {
                        tracing::debug!(id = %c.request_id, reason = c.reason.as_deref().unwrap_or(""), "host cancelled a request");
                        token.cancel();
                    }
                    None => {
                        tracing::debug!(id = %c.request_id, "cancel for a request that is not in flight")
                    }
                }
            }
            Err(e) => {
                tracing::warn!("ignored malformed notifications/cancelled: {}", e.message)
            }
        },
        _ => tracing::debug!(method, "ignored notification from the host"),
    }
}
