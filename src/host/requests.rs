//! Requests other than `initialize` and `shutdown`: each runs as its own task, so calls proceed
//! concurrently, and each can be cancelled by the host. A task holds its `flow` ticket until its
//! answer is queued for the host, and a panic inside its handler still answers it (INTERNAL).
//!
//! Cancellation: every spawned request has a token in `Host::inflight`. `notifications/cancelled`
//! from the host fires it; the request's future is dropped, which (for `tools/call`) removes the
//! downstream request and sends the server its own `notifications/cancelled`; the host gets
//! CANCELLED at once.

use std::any::Any;
use std::collections::hash_map::Entry;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures_util::FutureExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::context::Host;
use super::dispatch;
use super::flow::Ticket;
use super::params::{self, parse};
use crate::ask::Asker;
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::RequestId;

/// Runs request `id` in a task of its own and answers it: its outcome, or CANCELLED (SHUTTING_DOWN
/// during a stop) when its token fires first. An id still in flight is refused at once
/// (INVALID_REQUEST): taking it over would leave the first request impossible to cancel. The
/// refusal is queued before this returns, so the reader reads on only once it is.
pub async fn start(
    host: &Arc<Host>,
    id: RequestId,
    method: String,
    params: Option<Value>,
    ticket: Ticket,
) {
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
        host.answer(Some(&id), Err(refusal)).await;
        return;
    }
    let task_host = Arc::clone(host);
    host.requests.spawn(async move {
        let host = task_host;
        let outcome = tokio::select! {
            // Dropping the method's future is what cancels it downstream (see module doc).
            _ = token.cancelled() => Err(cancelled_error(&host, &id)),
            // A panic inside the handler becomes INTERNAL: the request is still answered, and
            // only its own future's state is lost (polled in place, no task of its own).
            outcome = AssertUnwindSafe(dispatch::reply(&host, &id, &method, params)).catch_unwind() => {
                outcome.unwrap_or_else(|panic| Err(panicked(&method, panic.as_ref())))
            }
        };
        host.inflight().remove(&id);
        // The answer follows the notifications the request caused (PROTOCOL.md §3).
        if method.starts_with("servers/") || method == "tools/accept" {
            host.events_flushed().await;
        }
        host.reply(Some(&id), outcome).await;
        drop(ticket);
    });
}

/// INTERNAL for a request whose handler panicked, with the panic's message when it has one.
fn panicked(method: &str, panic: &(dyn Any + Send)) -> Error {
    let what = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message");
    tracing::error!(method, "a request handler panicked: {what}");
    Error::internal(format!(
        "internal error: the sidecar panicked while serving `{method}` ({what}); this request was abandoned, the sidecar goes on serving"
    ))
    .with("method", method)
}

/// The host's roots changed: every running server is told, if the host declared that it would
/// say so (`roots.listChanged`); off the reader, which never waits for a server.
fn roots_changed(host: &Host) {
    let declared = host
        .asks
        .get()
        .is_some_and(|asks| asks.capabilities().roots_list_changed());
    let Some(registry) = host.registry.get().filter(|_| declared) else {
        tracing::debug!(
            "ignored notifications/roots/list_changed: the host did not declare roots.listChanged"
        );
        return;
    };
    let registry = Arc::clone(registry);
    tokio::spawn(async move { registry.roots_changed().await });
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
        "notifications/roots/list_changed" => roots_changed(host),
        _ => tracing::debug!(method, "ignored notification from the host"),
    }
}
