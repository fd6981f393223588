//! The answer to one request POST: a JSON body, or an event stream read until the response to our
//! request (other messages on the way are delivered), resumed with `Last-Event-ID` when it drops.
//! A body or event that is not a JSON-RPC message fails this request alone
//! ([`unparsable`](crate::mcp::transport::unparsable)): the stream is this request's, so that is
//! what it broke, and the session's other requests go on.

use std::sync::Arc;

use reqwest::{Response, StatusCode};
use serde_json::Value;

use super::shared::{open_get, Shared, RESUME};
use crate::limits;
use crate::mcp::transport::http_common::{
    self as common, EventReader, EVENT_STREAM, LAST_EVENT_ID,
};
use crate::mcp::transport::sse_parser::SseParser;
use crate::mcp::transport::unparsable::check_answer;
use crate::mcp::transport::{Inbound, TransportError};

/// How a request POST ended.
pub(super) enum Answer {
    /// The response to our request (other messages on the way were delivered already).
    Reply(Vec<u8>),
    /// 202: the answer will come on the GET stream.
    Accepted,
    /// A failure of this request alone (an HTTP status, a stream that ended without the answer).
    Failed(TransportError),
}

/// Reads the answer to request `id`: a JSON body or an event stream (resumed if it drops).
/// Other messages on the stream (server requests, notifications) are delivered on the way.
pub(super) async fn read_answer(
    shared: &Arc<Shared>,
    resp: Response,
    id: &Value,
    during: &'static str,
) -> Result<Answer, TransportError> {
    let status = resp.status();
    if status == StatusCode::ACCEPTED {
        return Ok(Answer::Accepted);
    }
    if !status.is_success() {
        return Ok(Answer::Failed(common::status_error(resp, during).await));
    }
    let kind = common::content_type(&resp);
    if kind == "application/json" {
        let body = common::read_body(resp, shared.http().max_message_bytes).await?;
        return Ok(match check_answer(&body, during) {
            Ok(()) => Answer::Reply(body),
            Err(broken) => Answer::Failed(broken),
        });
    }
    if kind != EVENT_STREAM {
        return Ok(Answer::Failed(TransportError::protocol(format!(
            "unexpected content type {kind:?} (want JSON or an event stream)"
        ))));
    }
    let reader = EventReader::new(resp, SseParser::new(shared.http().max_message_bytes));
    read_stream(shared, reader, id, during).await
}

/// Reads a response stream until the answer to `id`, resuming it when the connection drops.
async fn read_stream(
    shared: &Arc<Shared>,
    mut reader: EventReader,
    id: &Value,
    during: &'static str,
) -> Result<Answer, TransportError> {
    let mut reconnects = 0;
    loop {
        match reader.next().await? {
            Some(event) if event.name == "message" => {
                reconnects = 0;
                let data = event.data.into_bytes();
                if let Err(broken) = check_answer(&data, during) {
                    return Ok(Answer::Failed(broken));
                }
                if common::response_id(&data).as_ref() == Some(id) {
                    return Ok(Answer::Reply(data));
                }
                if !shared.deliver(Inbound::Message(data)).await {
                    return Ok(Answer::Accepted);
                }
            }
            Some(_) => reconnects = 0,
            None => {
                reconnects += 1;
                match resume(shared, reader.into_parser(), reconnects).await? {
                    Ok(resumed) => reader = resumed,
                    Err(failed) => return Ok(failed),
                }
            }
        }
    }
}

/// The connection closed before the answer: resume with Last-Event-ID, if the server gave the
/// stream ids; otherwise (or after too many drops) the answer is lost, `Err` says how.
async fn resume(
    shared: &Shared,
    parser: SseParser,
    reconnects: usize,
) -> Result<Result<EventReader, Answer>, TransportError> {
    let Some(last) = parser.last_event_id().map(str::to_owned) else {
        return Ok(Err(Answer::Failed(TransportError::Closed {
            what: "the server closed the response stream before answering (no event id to resume from)",
        })));
    };
    if reconnects > limits::SSE_MAX_RECONNECTS {
        return Ok(Err(Answer::Failed(TransportError::Closed {
            what: "the response stream kept dropping without an answer (SSE_MAX_RECONNECTS)",
        })));
    }
    tokio::time::sleep(common::retry_delay(&parser)).await;
    let resp = shared
        .send(open_get(shared).header(LAST_EVENT_ID, last), RESUME)
        .await?;
    if !resp.status().is_success() {
        return Ok(Err(Answer::Failed(
            common::status_error(resp, RESUME).await,
        )));
    }
    let kind = common::content_type(&resp);
    if kind != EVENT_STREAM {
        return Ok(Err(Answer::Failed(TransportError::protocol(format!(
            "{RESUME}: the server answered {kind:?}, not an event stream"
        )))));
    }
    Ok(Ok(EventReader::new(resp, parser)))
}
