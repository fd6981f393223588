//! `subscriptions/listen` (2026-07-28): the one long-lived request through which a modern server
//! tells of list changes, in place of the legacy era's unsolicited notifications and GET stream.
//! Opened once the session is modern, asking only for what the server advertised (`listChanged`
//! of tools, prompts, resources); the notifications it brings (tagged with the subscription id)
//! reach the reader like their legacy twins and become the same [`super::ClientEvent`]s. The
//! request waits in the pending table until the session ends; it is never timed out.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::modern;
use crate::jsonrpc::{encode_request, RequestId};

impl Client {
    /// Opens the listen stream for what the server advertised, if anything (never fails the start:
    /// a server that refuses it still serves; its lists are then read at each start).
    pub(super) fn open_listen(&self) {
        let Some(version) = self.modern.clone() else {
            return;
        };
        let mut wanted = Map::new();
        for (capability, filter) in [
            ("tools", "toolsListChanged"),
            ("prompts", "promptsListChanged"),
            ("resources", "resourcesListChanged"),
        ] {
            let advertised = self
                .handshake
                .capabilities
                .pointer(&format!("/{capability}/listChanged"))
                == Some(&Value::Bool(true));
            if advertised {
                wanted.insert(filter.into(), Value::Bool(true));
            }
        }
        if wanted.is_empty() {
            return;
        }
        let Ok((id, rx)) = self.pending.register() else {
            return;
        };
        let level = *self.log_level.lock().unwrap_or_else(|p| p.into_inner());
        let params = modern::enveloped(
            json!({ "notifications": wanted }),
            &version,
            &self.declared,
            level,
        );
        let line = encode_request(
            &RequestId::Number(id),
            "subscriptions/listen",
            Some(&params),
        );
        let sink = Arc::clone(&self.sink);
        let server = Arc::clone(&self.server);
        tokio::spawn(async move {
            if let Err(e) = sink.send(line).await {
                tracing::debug!(server = &*server, "subscriptions/listen not sent: {e}");
                return;
            }
            // Ends when the server ends the subscription or the session closes.
            match rx.await {
                Ok(Ok(reply)) if reply.outcome.is_err() => {
                    tracing::info!(
                        server = &*server,
                        "the server refused subscriptions/listen; list changes are not heard"
                    )
                }
                _ => tracing::debug!(server = &*server, "subscriptions/listen ended"),
            }
        });
    }
}
