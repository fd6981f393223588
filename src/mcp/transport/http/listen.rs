//! The optional GET stream for server-initiated messages, (re)started after `initialized` and after
//! a re-initialisation; reconnects with `Last-Event-ID` when it drops, up to a bound.

use std::sync::Arc;

use reqwest::StatusCode;

use super::shared::{open_get, Shared, LISTEN};
use crate::limits;
use crate::mcp::transport::http_common::{self as common, EVENT_STREAM, LAST_EVENT_ID};
use crate::mcp::transport::sse_parser::SseParser;
use crate::mcp::transport::unparsable::not_a_message;
use crate::mcp::transport::{Inbound, TransportError};

/// The optional GET stream for server-initiated messages. 405 means the server offers none.
pub(super) fn start_listener(shared: &Arc<Shared>) {
    let this = Arc::clone(shared);
    let task = tokio::spawn(async move { listen(&this).await });
    let mut state = shared.lock();
    if shared.link.is_closed() {
        task.abort();
    } else if let Some(old) = state.listener.replace(task.abort_handle()) {
        old.abort();
    }
}

async fn listen(shared: &Arc<Shared>) {
    let mut parser = SseParser::new(shared.http().max_message_bytes);
    let mut failures = 0;
    loop {
        let mut req = open_get(shared);
        if let Some(last) = parser.last_event_id() {
            req = req.header(LAST_EVENT_ID, last.to_owned());
        }
        let resp = match shared.send(req, LISTEN).await {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(server = %shared.http().server, "no GET stream: {e}");
                return;
            }
        };
        if resp.status() == StatusCode::METHOD_NOT_ALLOWED {
            tracing::debug!(server = %shared.http().server, "the server offers no GET stream (405)");
            return;
        }
        if !resp.status().is_success() {
            tracing::debug!(server = %shared.http().server, "no GET stream: {}", common::status_error(resp, LISTEN).await);
            return;
        }
        if common::content_type(&resp) != EVENT_STREAM {
            tracing::debug!(server = %shared.http().server, "no GET stream: not an event stream");
            return;
        }
        let mut reader = common::EventReader::new(resp, parser);
        loop {
            match reader.next().await {
                Ok(Some(event)) => {
                    failures = 0;
                    if event.name != "message" {
                        continue;
                    }
                    // No request is tied to this stream: a broken event is dropped, not fatal.
                    if let Some(reason) = not_a_message(event.data.as_bytes()) {
                        tracing::warn!(server = %shared.http().server, bytes = event.data.len(), "dropped an event of the GET stream that is {reason}");
                        continue;
                    }
                    if !shared
                        .deliver(Inbound::Message(event.data.into_bytes()))
                        .await
                    {
                        return;
                    }
                }
                Ok(None) => break,
                Err(e @ TransportError::TooLong { .. }) => {
                    shared.fail(e).await;
                    return;
                }
                Err(_) => break,
            }
        }
        parser = reader.into_parser();
        failures += 1;
        if failures > limits::SSE_MAX_RECONNECTS {
            tracing::debug!(server = %shared.http().server, "GET stream given up after repeated drops");
            return;
        }
        tokio::time::sleep(common::retry_delay(&parser)).await;
    }
}
