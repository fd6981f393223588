//! How a client hears that the aggregate changed: a legacy session is told with plain
//! `notifications/tools/list_changed` (stdio: once initialized; HTTP: on its GET stream), and gets
//! there the servers' log messages at or above the level it set (`logs`); a modern client opens
//! `subscriptions/listen`, whose stream starts with `notifications/subscriptions/acknowledged`
//! (the filters honoured) and then carries each change tagged with the subscription's id (the
//! listen request's id) — never a log message, which 2026-07-28 keeps on a request's own stream.

use serde_json::{json, Map, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use super::aggregate::{Aggregate, Notice};
use super::era::META_SUBSCRIPTION_ID;
use super::logs;
use super::session::Session;
use super::wire::WireError;
use crate::jsonrpc::{encode_notification, RequestId};
use crate::serving::Sink;

/// What a listener is told of a notice: the `list_changed` method of a change (a lagged listener
/// is told the tools changed: it missed something, and a re-list is all it takes), or a log.
enum Told {
    Changed(&'static str),
    Log(std::sync::Arc<crate::supervisor::ServerLog>),
    /// The aggregate is gone.
    Over,
}

fn told(notice: Result<Notice, RecvError>) -> Told {
    match notice {
        Ok(Notice::ToolsChanged) | Err(RecvError::Lagged(_)) => {
            Told::Changed("notifications/tools/list_changed")
        }
        Ok(Notice::Log(log)) => Told::Log(log),
        Err(RecvError::Closed) => Told::Over,
    }
}

/// Tells a legacy session of every change among `notices` (subscribed before the session's stream
/// is answered, so that nothing after it is missed), and gives it the servers' logs at or above
/// its level, until it stops listening (`sink` closed) or the aggregate is gone.
pub async fn forward_legacy(
    mut notices: broadcast::Receiver<Notice>,
    session: &Session,
    sink: &Sink,
) {
    loop {
        let notice = tokio::select! {
            notice = notices.recv() => notice,
            _ = sink.closed() => return,
        };
        let line = match told(notice) {
            Told::Changed(method) => encode_notification::<Value>(method, None),
            Told::Log(log) if logs::admits(session.log_level(), &log) => logs::message(&log),
            Told::Log(_) => continue,
            Told::Over => return,
        };
        if !sink.send(line).await {
            return;
        }
    }
}

/// `subscriptions/listen`: acknowledges, then sends every change the client asked for until it
/// cancels (the request is dropped) or goes away; ends with a result once the aggregate is gone.
pub async fn subscribe(
    aggregate: &Aggregate,
    id: &RequestId,
    params: Option<&Value>,
    sink: &Sink,
) -> Result<Value, WireError> {
    let asked = params.and_then(|p| p.get("notifications"));
    let tools = asked
        .and_then(|a| a.get("toolsListChanged"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut honoured = Map::new();
    if tools {
        honoured.insert("toolsListChanged".into(), Value::Bool(true));
    }
    let subscription = json!({ META_SUBSCRIPTION_ID: id });
    // Subscribed before the acknowledgement is sent: no change can fall between the two.
    let mut notices = aggregate.subscribe();
    let ack = json!({"notifications": honoured, "_meta": subscription});
    if !sink
        .send(encode_notification(
            "notifications/subscriptions/acknowledged",
            Some(&ack),
        ))
        .await
    {
        return Err(gone());
    }
    loop {
        let notice = tokio::select! {
            notice = notices.recv() => notice,
            _ = sink.closed() => return Err(gone()),
        };
        let method = match told(notice) {
            Told::Changed(method) => method,
            Told::Log(_) => continue,
            Told::Over => return Ok(json!({ "_meta": subscription })),
        };
        if !tools {
            continue;
        }
        let tagged = json!({ "_meta": subscription });
        if !sink.send(encode_notification(method, Some(&tagged))).await {
            return Err(gone());
        }
    }
}

fn gone() -> WireError {
    WireError::invalid_request("the listening client went away")
}
