//! How a client hears that the aggregate changed: a legacy session is told with plain
//! `notifications/tools/list_changed` (stdio: once initialized; HTTP: on its GET stream), and gets
//! there the servers' log messages at or above the level it set (`logs`); a modern client opens
//! `subscriptions/listen`, whose stream starts with `notifications/subscriptions/acknowledged`
//! (the filters honoured) and then carries each change tagged with the subscription's id (the
//! listen request's id) — never a log message, which 2026-07-28 keeps on a request's own stream.

use serde_json::{json, Map, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use std::sync::Arc;

use super::aggregate::{Aggregate, Notice};
use super::era::META_SUBSCRIPTION_ID;
use super::logs;
use super::session::Session;
use super::wire::WireError;
use crate::jsonrpc::{encode_notification, RequestId};
use crate::serving::Sink;
use crate::supervisor::ServerLog;

/// The `list_changed` notification of a notice (a lagged listener is told the tools changed: it
/// missed something, and a re-list is all it takes).
fn changed_method(notice: Result<Notice, RecvError>) -> Option<&'static str> {
    match notice {
        Ok(Notice::ToolsChanged) | Err(RecvError::Lagged(_)) => {
            Some("notifications/tools/list_changed")
        }
        Err(RecvError::Closed) => None,
    }
}

/// Tells a legacy session of every change among `notices`, and gives it the servers' `logs` at or
/// above its level (both subscribed before the session's stream is answered, so that nothing
/// after it is missed), until it stops listening (`sink` closed) or the aggregate is gone. Logs
/// it fell too far behind on are one warning saying how many.
pub async fn forward_legacy(
    mut notices: broadcast::Receiver<Notice>,
    mut logs: broadcast::Receiver<Arc<ServerLog>>,
    session: &Session,
    sink: &Sink,
) {
    loop {
        let line = tokio::select! {
            notice = notices.recv() => match changed_method(notice) {
                Some(method) => encode_notification::<Value>(method, None),
                None => return,
            },
            log = logs.recv() => match log {
                Ok(log) if logs::admits(session.log_level(), &log) => logs::message(&log),
                Ok(_) => continue,
                Err(RecvError::Lagged(count)) if session.log_level().is_some() => {
                    logs::message(&logs::dropped("*", count))
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
            _ = sink.closed() => return,
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
        let Some(method) = changed_method(notice) else {
            return Ok(json!({ "_meta": subscription }));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits;
    use crate::supervisor::LogLevel;
    use tokio::sync::mpsc;

    fn log(n: usize) -> Arc<ServerLog> {
        Arc::new(ServerLog {
            server: "fx".into(),
            level: LogLevel::Info,
            logger: None,
            data: json!(n),
        })
    }

    /// A session that fell behind on the logs gets one warning saying how many it lost, then the
    /// newest; one that set no level gets nothing, the warning included.
    #[tokio::test]
    async fn a_session_behind_on_logs_is_told_how_many_it_lost() {
        let overflow = 10;
        for level in [Some(LogLevel::Info), None] {
            let (_notices_tx, notices) = broadcast::channel(1);
            let (logs_tx, logs) = broadcast::channel(limits::UPSTREAM_LOGS_QUEUE);
            for n in 0..limits::UPSTREAM_LOGS_QUEUE + overflow {
                logs_tx.send(log(n)).unwrap();
            }
            drop(logs_tx);
            let session = Session::default();
            if let Some(level) = level {
                session.set_log_level(level);
            }
            let (tx, mut lines) = mpsc::channel(2 * limits::UPSTREAM_LOGS_QUEUE);
            forward_legacy(notices, logs, &session, &Sink::Stream(tx)).await;
            let mut sent = Vec::new();
            while let Ok(line) = lines.try_recv() {
                sent.push(serde_json::from_slice::<Value>(&line).unwrap()["params"].clone());
            }
            if level.is_none() {
                assert!(sent.is_empty(), "{sent:?}");
                continue;
            }
            assert_eq!(sent.len(), 1 + limits::UPSTREAM_LOGS_QUEUE);
            assert_eq!(sent[0]["level"], "warning");
            assert_eq!(
                sent[0]["data"],
                format!("{overflow} log messages of the servers were dropped: the client was not reading")
            );
            assert_eq!(sent[1]["data"], overflow);
        }
    }
}
