//! How a client hears that the aggregate changed: a legacy session is told with plain
//! `notifications/tools/list_changed` (stdio: once initialized; HTTP: on its GET stream), and gets
//! there the servers' log messages at or above the level it set (`logs`); a modern client opens
//! `subscriptions/listen`, whose stream starts with `notifications/subscriptions/acknowledged`
//! (the filters honoured) and then carries each change tagged with the subscription's id (the
//! listen request's id) — never a log message, which 2026-07-28 keeps on a request's own stream.

use serde_json::{json, Map, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use std::collections::BTreeSet;
use std::sync::Arc;

use super::era::META_SUBSCRIPTION_ID;
use super::legacy::Session;
use crate::aggregate::requests::logs;
use crate::aggregate::requests::surface;
use crate::aggregate::requests::wire::WireError;
use crate::aggregate::shared::{Aggregate, Notice, Subscribers};
use crate::jsonrpc::{encode_notification, RequestId};
use crate::limits;
use crate::serving::Sink;
use crate::supervisor::ServerLog;

/// What a listener asked to be told of.
#[derive(Default)]
struct Wants {
    tools: bool,
    resources: bool,
    prompts: bool,
}

/// The notifications a notice makes, as `(method, params)`, for a listener that wants `wants` and
/// is subscribed to the resources `subscribed` says; a lagged listener is told every list it
/// wants changed (it missed something, and a re-list is all it takes). `None`: the aggregate is
/// gone.
fn notifications_of(
    notice: Result<Notice, RecvError>,
    wants: &Wants,
    subscribed: impl Fn(&str) -> bool,
) -> Option<Vec<(&'static str, Option<Value>)>> {
    let lists = |tools: bool, resources: bool, prompts: bool| {
        let mut out = Vec::new();
        if tools && wants.tools {
            out.push(("notifications/tools/list_changed", None));
        }
        if resources && wants.resources {
            out.push(("notifications/resources/list_changed", None));
        }
        if prompts && wants.prompts {
            out.push(("notifications/prompts/list_changed", None));
        }
        out
    };
    Some(match notice {
        Ok(Notice::ToolsChanged) => lists(true, false, false),
        Ok(Notice::ResourcesChanged) => lists(false, true, false),
        Ok(Notice::PromptsChanged) => lists(false, false, true),
        Ok(Notice::ResourceUpdated(uri)) if subscribed(&uri) => {
            vec![(
                "notifications/resources/updated",
                Some(json!({ "uri": &*uri })),
            )]
        }
        Ok(Notice::ResourceUpdated(_)) => Vec::new(),
        Err(RecvError::Lagged(_)) => lists(true, true, true),
        Err(RecvError::Closed) => return None,
    })
}

/// Tells a legacy session of every change among `notices`, and gives it the servers' `logs` at or
/// above its level (both subscribed before the session's stream is answered, so that nothing
/// after it is missed), until it stops listening (`sink` closed) or the aggregate is gone. Logs
/// it fell too far behind on are one warning saying how many.
pub(crate) async fn forward_legacy(
    mut notices: broadcast::Receiver<Notice>,
    mut logs: broadcast::Receiver<Arc<ServerLog>>,
    session: &Session,
    sink: &Sink,
) {
    let everything = Wants {
        tools: true,
        resources: true,
        prompts: true,
    };
    loop {
        let line = tokio::select! {
            notice = notices.recv() => {
                let Some(sent) = notifications_of(notice, &everything, |uri| session.is_subscribed(uri)) else {
                    return;
                };
                for (method, params) in sent {
                    if !sink.send(encode_notification(method, params.as_ref())).await {
                        return;
                    }
                }
                continue;
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
/// The resources it asks for (`resourceSubscriptions`) are subscribed to for as long as it
/// listens; those that cannot be (unknown, or their server refuses) are left out of the
/// acknowledgement.
pub(crate) async fn subscribe(
    aggregate: &Aggregate,
    id: &RequestId,
    params: Option<&Value>,
    sink: &Sink,
) -> Result<Value, WireError> {
    let asked = params.and_then(|p| p.get("notifications"));
    let flag = |key: &str| {
        asked
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let wants = Wants {
        tools: flag("toolsListChanged"),
        resources: flag("resourcesListChanged"),
        prompts: flag("promptsListChanged"),
    };
    let uris: Vec<&str> = asked
        .and_then(|a| a.get("resourceSubscriptions"))
        .and_then(Value::as_array)
        .map(|uris| uris.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if uris.len() > limits::AGGREGATE_SUBSCRIPTIONS_MAX {
        return Err(WireError::invalid_params(format!(
            "`resourceSubscriptions` names {} resources, over the {} one listener may hold",
            uris.len(),
            limits::AGGREGATE_SUBSCRIPTIONS_MAX
        ))
        .with_data(json!({"field": "notifications.resourceSubscriptions", "limit": limits::AGGREGATE_SUBSCRIPTIONS_MAX})));
    }
    let mut honoured = Map::new();
    for (key, on) in [
        ("toolsListChanged", wants.tools),
        ("resourcesListChanged", wants.resources),
        ("promptsListChanged", wants.prompts),
    ] {
        if on {
            honoured.insert(key.into(), Value::Bool(true));
        }
    }
    let subscription = json!({ META_SUBSCRIPTION_ID: id });
    // Subscribed before the acknowledgement is sent: no change can fall between the two.
    let mut notices = aggregate.subscribe();
    let mut held = Held::new(aggregate);
    for uri in uris {
        if held.uris.contains(uri) {
            continue;
        }
        match surface::hold(aggregate, uri).await {
            Ok(_) => {
                held.uris.insert(uri.to_owned());
            }
            Err(e) => tracing::debug!(uri, "not subscribed for a listener: {}", e.message),
        }
    }
    if !held.uris.is_empty() {
        honoured.insert("resourceSubscriptions".into(), json!(held.uris));
    }
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
        let Some(sent) = notifications_of(notice, &wants, |uri| held.uris.contains(uri)) else {
            return Ok(json!({ "_meta": subscription }));
        };
        for (method, params) in sent {
            let mut tagged = params.unwrap_or_else(|| json!({}));
            tagged["_meta"] = subscription.clone();
            if !sink.send(encode_notification(method, Some(&tagged))).await {
                return Err(gone());
            }
        }
    }
}

/// The resources one listener subscribed to, released when it stops listening (however it
/// stops: the request's future is dropped on a cancel).
struct Held {
    registry: Arc<crate::supervisor::Registry>,
    subscribers: Arc<Subscribers>,
    uris: BTreeSet<String>,
}

impl Held {
    fn new(aggregate: &Aggregate) -> Self {
        Held {
            registry: Arc::clone(aggregate.registry()),
            subscribers: aggregate.subscribers_arc(),
            uris: BTreeSet::new(),
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.uris.is_empty() {
            return;
        }
        let (registry, subscribers) = (Arc::clone(&self.registry), Arc::clone(&self.subscribers));
        let uris = std::mem::take(&mut self.uris);
        // Off the dropping task: telling the servers waits for them.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                for uri in uris {
                    surface::release(&registry, &subscribers, &uri).await;
                }
            });
        }
    }
}

fn gone() -> WireError {
    WireError::invalid_request("the listening client went away")
}

#[cfg(test)]
mod tests {
    use super::*;
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
            let (logs_tx, logs) = broadcast::channel(limits::AGGREGATE_LOGS_QUEUE);
            for n in 0..limits::AGGREGATE_LOGS_QUEUE + overflow {
                logs_tx.send(log(n)).unwrap();
            }
            drop(logs_tx);
            let session = Session::default();
            if let Some(level) = level {
                session.set_log_level(level);
            }
            let (tx, mut lines) = mpsc::channel(2 * limits::AGGREGATE_LOGS_QUEUE);
            forward_legacy(notices, logs, &session, &Sink::Stream(tx)).await;
            let mut sent = Vec::new();
            while let Ok(line) = lines.try_recv() {
                sent.push(serde_json::from_slice::<Value>(&line).unwrap()["params"].clone());
            }
            if level.is_none() {
                assert!(sent.is_empty(), "{sent:?}");
                continue;
            }
            assert_eq!(sent.len(), 1 + limits::AGGREGATE_LOGS_QUEUE);
            assert_eq!(sent[0]["level"], "warning");
            assert_eq!(
                sent[0]["data"],
                format!("{overflow} log messages of the servers were dropped: the client was not reading")
            );
            assert_eq!(sent[1]["data"], overflow);
        }
    }
}
