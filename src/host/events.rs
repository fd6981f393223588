//! Registry events → host notifications (`notifications/servers/changed`,
//! `notifications/tools/changed`), acknowledging on the way the barriers `Host::events_flushed` queues.

use serde_json::json;

use crate::jsonrpc::encode_notification;
use crate::serving::Outbox;
use crate::supervisor::{Event, EventReceiver};

/// Forwards every registry event to the host until the registry is gone. While the outbox is full
/// (the host is not reading) events wait in the queue, coalesced (`supervisor::events`).
pub async fn forward(mut events: EventReceiver, outbox: Outbox) {
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
            Event::ToolsChanged {
                fingerprint,
                added,
                removed,
            } => encode_notification(
                "notifications/tools/changed",
                Some(&json!({ "fingerprint": fingerprint, "added": added, "removed": removed })),
            ),
        };
        outbox.send(line).await;
    }
}
