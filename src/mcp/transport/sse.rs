//! Legacy HTTP+SSE (2024-11-05): the event stream half.
//!
//! The stream's first `endpoint` event names the URL to POST to (the POSTs themselves are sent by
//! [`super::http`], whose `connect` starts this stream; this file needs only the shared [`Link`]). That URL is resolved against the SSE URL and refused when its origin differs:
//! configured headers, often credentials, must never be sent to another site. Messages arrive as
//! `message` events. The stream ending without our asking is fatal: the session reports the server
//! unhealthy and the restart policy applies. A `message` event that is not JSON-RPC cannot be tied
//! to the request it may answer (answers come on this one stream, by id): it is dropped with a
//! warning, the stream's framing is intact, and that request runs into its timeout.

use std::sync::Arc;

use reqwest::header::ACCEPT;
use reqwest::Url;
use tokio::sync::oneshot;

use super::http_common::{self as common, EventReader, Link, EVENT_STREAM};
use super::sse_parser::SseParser;
use super::unparsable::not_a_message;
use super::{Inbound, TransportError};

/// Opens the event stream, reports the POST endpoint on `endpoint`, then delivers messages until the
/// stream ends (an error for the session) or the task is aborted (the transport closed).
pub(super) async fn run_stream(
    link: Arc<Link>,
    endpoint: oneshot::Sender<Result<Url, TransportError>>,
) {
    let mut endpoint = Some(endpoint);
    let error = match stream(&link, &mut endpoint).await {
        Ok(()) => TransportError::Closed {
            what: "the server closed its event stream",
        },
        Err(e) => e,
    };
    match endpoint.take() {
        Some(tx) => {
            let _ = tx.send(Err(error));
        }
        None => link.fail(error).await,
    }
}

async fn stream(
    link: &Link,
    endpoint: &mut Option<oneshot::Sender<Result<Url, TransportError>>>,
) -> Result<(), TransportError> {
    const DURING: &str = "GET event stream";
    // Legacy servers have no MCP session header: the configured headers are all there is.
    let req = link
        .http
        .client
        .get(link.url.clone())
        .headers(link.http.headers.clone())
        .header(ACCEPT, EVENT_STREAM);
    let resp = link.send(req, DURING).await?;
    if !resp.status().is_success() {
        return Err(common::status_error(resp, DURING).await);
    }
    let kind = common::content_type(&resp);
    if kind != EVENT_STREAM {
        return Err(TransportError::protocol(format!(
            "GET {} answered {kind:?}, not an event stream",
            link.url
        )));
    }
    let mut reader = EventReader::new(resp, SseParser::new(link.http.max_message_bytes));
    while let Some(event) = reader.next().await? {
        match event.name.as_str() {
            "endpoint" if endpoint.is_some() => {
                let url = resolve_endpoint(&link.url, event.data.trim())?;
                if let Some(tx) = endpoint.take() {
                    let _ = tx.send(Ok(url));
                }
            }
            "message" if endpoint.is_none() => {
                if let Some(reason) = not_a_message(event.data.as_bytes()) {
                    tracing::warn!(server = %link.http.server, bytes = event.data.len(), "dropped an event that is {reason}");
                    continue;
                }
                if !link
                    .deliver(Inbound::Message(event.data.into_bytes()))
                    .await
                {
                    return Ok(());
                }
            }
            other => {
                tracing::debug!(server = %link.http.server, event = other, "ignored SSE event")
            }
        }
    }
    Ok(())
}

/// The POST URL named by an `endpoint` event, which must stay on the SSE URL's origin.
pub fn resolve_endpoint(sse_url: &Url, data: &str) -> Result<Url, TransportError> {
    let url = sse_url.join(data).map_err(|e| {
        TransportError::protocol(format!("the endpoint event {data:?} is not a URL: {e}"))
    })?;
    if url.origin() != sse_url.origin() {
        return Err(TransportError::protocol(format!(
            "the endpoint event points to another origin ({}); refused, headers are never sent to another site",
            url.origin().ascii_serialization()
        )));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_resolution() {
        let base = Url::parse("http://127.0.0.1:9/sse").unwrap();
        assert_eq!(
            resolve_endpoint(&base, "/message?sessionId=1")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9/message?sessionId=1"
        );
        assert!(resolve_endpoint(&base, "http://127.0.0.1:9/m").is_ok());
        for foreign in [
            "http://evil.example/m",
            "//evil.example/m",
            "https://127.0.0.1:9/m",
            "http://127.0.0.1:10/m",
        ] {
            assert!(resolve_endpoint(&base, foreign).is_err(), "{foreign}");
        }
    }
}
