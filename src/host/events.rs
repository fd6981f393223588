//! Registry events → host notifications (`notifications/servers/changed`,
//! `notifications/tools/changed`, `notifications/resources/changed`,
//! `notifications/resources/updated`, `notifications/prompts/changed`,
//! `notifications/server/log`), acknowledging on the way the barriers `Host::events_flushed` queues.

use serde_json::{json, Map, Value};

use crate::jsonrpc::encode_notification;
use crate::serving::Outbox;
use crate::supervisor::{Event, EventReceiver, ToolsChange};

/// Forwards every registry event to the host until the registry is gone. While the outbox is full
/// (the host is not reading) events wait in the queue, coalesced (`supervisor::events`).
pub(super) async fn forward(mut events: EventReceiver, outbox: Outbox) {
    while let Some(event) = events.recv().await {
        let line = match event {
            Event::Barrier(ack) => {
                let _ = ack.send(());
                continue;
            }
            Event::ServerChanged(status) => encode_notification(
                "notifications/servers/changed",
                Some(&json!({ "status": status })),
            ),
            Event::ToolsChanged(change) => {
                encode_notification("notifications/tools/changed", Some(&tools_changed(*change)))
            }
            Event::ResourcesChanged { server } => encode_notification(
                "notifications/resources/changed",
                Some(&json!({ "server": server })),
            ),
            Event::PromptsChanged { server } => encode_notification(
                "notifications/prompts/changed",
                Some(&json!({ "server": server })),
            ),
            Event::ResourceUpdated { server, uri } => {
                let mut params = json!({ "server": server });
                if let Some(uri) = uri {
                    params["uri"] = Value::String(uri);
                }
                encode_notification("notifications/resources/updated", Some(&params))
            }
            Event::ServerLog(log) => {
                let mut params = json!({
                    "server": log.server,
                    "level": log.level.as_str(),
                    "data": log.data,
                });
                if let Some(logger) = log.logger {
                    params["logger"] = Value::String(logger);
                }
                encode_notification("notifications/server/log", Some(&params))
            }
            Event::LogsDropped { server, count } => encode_notification(
                "notifications/server/log",
                Some(&json!({
                    "server": server,
                    "level": "warning",
                    "logger": "mcp-sidecar",
                    "data": format!("{count} log messages of server `{server}` were dropped: the host was not reading"),
                })),
            ),
        };
        outbox.send(line).await;
    }
}

/// `{fingerprint, added, removed, changed, withheld?}`.
fn tools_changed(change: ToolsChange) -> Value {
    let mut params = Map::new();
    params.insert("fingerprint".into(), Value::String(change.fingerprint));
    params.insert("added".into(), json!(change.added));
    params.insert("removed".into(), json!(change.removed));
    params.insert("changed".into(), json!(change.changed));
    if !change.withheld.is_empty() {
        let held: Vec<Value> = change
            .withheld
            .into_iter()
            .map(|w| json!({"server": w.server, "tool": w.tool, "hash": w.hash}))
            .collect();
        params.insert("withheld".into(), Value::Array(held));
    }
    Value::Object(params)
}
