//! Requests other than `initialize` and `shutdown`: each runs as its own task, so calls proceed
//! concurrently, and each can be cancelled by the host. A task holds its `flow` ticket until its
//! answer is queued for the host, reserves its answer's bytes (`serving::answers`) before its
//! handler runs, and a panic inside its handler still answers it (INTERNAL).
//!
//! Cancellation: every spawned request has a token in `Host::requests`. `notifications/cancelled`
//! from the host fires it; the request's future is dropped, which (for `tools/call`) removes the
//! downstream request and sends the server its own `notifications/cancelled`; the host gets
//! CANCELLED at once.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::context::Host;
use super::dispatch;
use super::params::{self, parse};
use super::reply;
use crate::ask::Asker;
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::{Params, RequestId};
use crate::serving::{guarded, Stopped, Ticket};

/// Runs request `id` in a task of its own and answers it: its outcome, or CANCELLED (SHUTTING_DOWN
/// during a stop) when its token fires first. An id still in flight is refused at once
/// (INVALID_REQUEST): taking it over would leave the first request impossible to cancel. The
/// refusal is queued before this returns, so the reader reads on only once it is.
pub(super) async fn start(
    host: &Arc<Host>,
    id: RequestId,
    method: String,
    params: Option<Params>,
    ticket: Ticket,
) {
    let Some(token) = host.requests.begin(&id) else {
        let refusal = Error::new(
            ErrorCode::InvalidRequest,
            format!("request id {id} is already in flight; use a new id for each request"),
        )
        .with("field", "id");
        host.answer(Some(&id), Err(refusal)).await;
        return;
    };
    let task_host = Arc::clone(host);
    host.requests.spawn(async move {
        let host = task_host;
        // The answer's share of `Host::answers` is taken before the handler runs (see
        // `serving::answers`). A request whose answer is a few bytes takes none, so a host
        // whose long calls hold the whole budget can still ping, and still remove the server
        // they wait on (their count is bounded by `flow`'s tickets all the same).
        let work = async {
            let held = match method.as_str() {
                "ping" | "servers/remove" | "servers/logout" | "logging/setLevel" => None,
                _ => Some(host.answers.reserve().await),
            };
            (dispatch::reply(&host, &id, &method, params).await, held)
        };
        let (outcome, mut held) = match guarded(&token, work).await {
            Ok((outcome, held)) => (outcome, held),
            Err(Stopped::Cancelled) => (Err(cancelled_error(&host, &id)), None),
            Err(Stopped::Panicked(what)) => (Err(panicked(&method, &what)), None),
        };
        host.requests.finish(&id);
        // The answer follows the notifications the request caused (PROTOCOL.md §3).
        if method.starts_with("servers/") || method == "tools/accept" {
            host.events_flushed().await;
        }
        // Only the line is held from here on, and its reservation fitted to it.
        let line = reply::encode(Some(&id), &outcome);
        drop(outcome);
        if let Some(held) = held.as_mut() {
            held.fit(line.len()).await;
        }
        host.outbox.send(line).await;
        drop((held, ticket));
    });
}

/// INTERNAL for a request whose handler panicked, with the panic's message when it has one.
fn panicked(method: &str, what: &str) -> Error {
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
pub(super) fn notification(host: &Host, method: &str, params: Option<Params>) {
    match method {
        "notifications/cancelled" => match parse::<params::Cancelled>(method, params) {
            Ok(c) => {
                if host.requests.cancel(&c.request_id) {
                    tracing::debug!(id = %c.request_id, reason = c.reason.as_deref().unwrap_or(""), "host cancelled a request");
                } else {
                    tracing::debug!(id = %c.request_id, "cancel for a request that is not in flight")
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
