//! `subscriptions/listen` (2026-07-28): the one long-lived request through which a modern server
//! tells of list changes, in place of the legacy era's unsolicited notifications and GET stream.
//! Opened once the session is modern, asking only for what the server advertised (`listChanged`
//! of tools, prompts, resources); the notifications it brings (tagged with the subscription id)
//! reach the reader like their legacy twins and become the same [`crate::mcp::ClientEvent`]s. The
//! request waits in the pending table until the session ends; it is never timed out.
//!
//! The era has no `resources/subscribe` either: the resources subscribed to are watched through a
//! second listen stream asking `resourceSubscriptions` for all of them, opened again (the old one
//! cancelled) whenever the set changes, and closed when it is empty — so a gateway's legacy
//! client subscribes to a modern server's resources as to any other's. The set is bounded by the
//! registry's [`crate::limits::RESOURCE_SUBSCRIPTIONS_MAX`] per server.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::session::Client;
use crate::error::{Error, Result};
use crate::jsonrpc::{encode_notification, encode_request, RequestId};
use crate::mcp::modern;
use crate::mcp::watched::Change;

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

    /// `resources/subscribe` (`on`) or `unsubscribe` for `uri` on the modern wire: the set of
    /// resources watched changes, and the stream that watches them is opened afresh for the new
    /// set (none for an empty one), and answered once the server acknowledged it with `uri` in
    /// its filter — within `timeout` — or refused it.
    pub(super) async fn watch_resource(
        &self,
        uri: &str,
        on: bool,
        timeout: Duration,
    ) -> Result<()> {
        let Some(version) = self.modern.clone() else {
            return Ok(());
        };
        let change = self
            .watched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .change(uri, on);
        let Some(Change {
            replaced: old,
            uris,
        }) = change
        else {
            return Ok(());
        };
        if let Some(id) = old {
            self.end_listen(id, &version).await;
        }
        if uris.is_empty() {
            return Ok(());
        }
        let (id, mut rx) = self.pending.register()?;
        let ack = self.acks.expect(id);
        let line = self.resources_listen_line(id, &uris, &version);
        self.watched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .listening(id);
        if let Err(e) = self.sink.send(line).await {
            self.acks.forget(id);
            return Err(self.protocol_error(&format!("subscriptions/listen not sent: {e}")));
        }
        // Subscribed once the server acknowledged the stream with `uri` in its filter: updates
        // sent after this answer are heard.
        let acknowledged = tokio::time::timeout(timeout, async {
            tokio::select! {
                filter = ack => Ok(filter.unwrap_or(Value::Null)),
                reply = &mut rx => Err(match reply {
                    Ok(Ok(reply)) => match reply.outcome {
                        Err(e) => self.upstream_error(e),
                        Ok(_) => self.protocol_error("subscriptions/listen ended before it was acknowledged"),
                    },
                    Ok(Err(e)) => e,
                    Err(_) => self.protocol_error("the session ended"),
                }),
            }
        })
        .await;
        self.acks.forget(id);
        let refused = self.refusal(acknowledged, uri, on, timeout);
        if let Some(e) = refused {
            if on {
                self.watched
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .failed(uri);
            }
            return Err(e);
        }
        let server = Arc::clone(&self.server);
        tokio::spawn(async move {
            if let Ok(Ok(reply)) = rx.await {
                if let Err(e) = reply.outcome {
                    tracing::info!(
                        server = &*server,
                        "the server refused subscriptions/listen for resources; updates are not heard: {}",
                        e.message
                    );
                }
            }
        });
        Ok(())
    }

    /// The `subscriptions/listen` request `id` for the resources `uris`, enveloped.
    fn resources_listen_line(&self, id: i64, uris: &BTreeSet<String>, version: &str) -> Vec<u8> {
        let level = *self.log_level.lock().unwrap_or_else(|p| p.into_inner());
        let params = modern::enveloped(
            json!({ "notifications": { "resourceSubscriptions": uris } }),
            version,
            &self.declared,
            level,
        );
        encode_request(
            &RequestId::Number(id),
            "subscriptions/listen",
            Some(&params),
        )
    }

    /// Ends the listen stream `id` (the set of resources watched changed): forgotten first, so its
    /// end is not a refusal, then cancelled.
    async fn end_listen(&self, id: i64, version: &str) {
        // Forgotten first: the stream's end is not a refusal.
        self.pending.forget(id);
        // Enveloped: over HTTP a modern message is told from a legacy one by its `_meta`.
        let params = modern::enveloped(
            json!({"requestId": id, "reason": "the resources watched changed"}),
            version,
            &self.declared,
            None,
        );
        let cancel = encode_notification("notifications/cancelled", Some(&params));
        let _ = self.sink.send(cancel).await;
    }

    /// Why a listen stream for `uri` does not count as subscribed, if it does not: the server
    /// refused it, left `uri` out of its filter (when subscribing), or did not acknowledge it within
    /// `timeout`.
    fn refusal(
        &self,
        acknowledged: std::result::Result<Result<Value>, tokio::time::error::Elapsed>,
        uri: &str,
        on: bool,
        timeout: Duration,
    ) -> Option<Error> {
        match acknowledged {
            Ok(Ok(filter)) => {
                let honoured = filter
                    .get("resourceSubscriptions")
                    .and_then(Value::as_array)
                    .is_some_and(|uris| uris.iter().any(|u| u.as_str() == Some(uri)));
                (on && !honoured).then(|| {
                    self.protocol_error(&format!(
                    "the server's subscriptions/listen did not accept the subscription to `{uri}`"
                ))
                })
            }
            Ok(Err(e)) => Some(e),
            Err(_) => Some(self.protocol_error(&format!(
                "subscriptions/listen for resources was not acknowledged within {} ms",
                timeout.as_millis()
            ))),
        }
    }
}
