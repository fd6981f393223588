//! Bodies in and out: a request body read through a bound, and the two kinds of response body — a
//! whole one (JSON, or nothing), or an SSE stream fed message by message through a bounded queue
//! (each message one `event: message` whose `data` is the JSON line).

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http_body_util::BodyExt;
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use serde_json::Value;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use crate::aggregate::requests::wire::INVALID_REQUEST;
use crate::jsonrpc::{encode_response, RequestId};
use crate::limits;

/// A response body.
pub(crate) enum Out {
    Whole(Option<Bytes>),
    /// SSE events, one per encoded JSON line.
    Events(Feed),
}

/// The lines of an SSE response: one already taken, then the queue until every sender is gone,
/// then one kept for last (a request's answer, when it was handed over apart from the queue).
pub(crate) struct Feed {
    pub first: Option<Vec<u8>>,
    pub lines: mpsc::Receiver<Vec<u8>>,
    pub last: Option<Vec<u8>>,
}

impl Feed {
    fn poll_line(&mut self, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(first));
        }
        match self.lines.poll_recv(cx) {
            Poll::Ready(None) => Poll::Ready(self.last.take()),
            other => other,
        }
    }
}

impl Body for Out {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Out::Whole(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Out::Events(feed) => feed
                .poll_line(cx)
                .map(|line| line.map(|line| Ok(Frame::data(event(&line))))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Out::Whole(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Out::Whole(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            Out::Whole(None) => SizeHint::with_exact(0),
            Out::Events(_) => SizeHint::default(),
        }
    }
}

/// One SSE event carrying one JSON line (its trailing newline dropped; JSON has no other).
fn event(line: &[u8]) -> Bytes {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let mut out = Vec::with_capacity(line.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(line);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// Why a request body could not be read.
pub(crate) enum BodyError {
    TooLarge,
    Broken,
}

/// The whole body, refused past `limit` bytes (counted as they arrive, before they are kept). Each
/// chunk takes its bytes of `budget` (shared by every body being read, at most its whole size for
/// one body) before it is kept: a body that trickles holds only what it sent, and bodies together
/// hold at most the budget. The permit returned holds the body's bytes until the caller drops it.
pub(crate) async fn read(
    mut body: Incoming,
    limit: usize,
    budget: &Arc<Semaphore>,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), BodyError> {
    // A body that comes in one chunk (a small message, the usual case) is kept as that chunk,
    // not copied; a second chunk starts the copy.
    let mut only: Option<Bytes> = None;
    let mut out = Vec::new();
    let mut held: Option<OwnedSemaphorePermit> = None;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.map_err(|_| BodyError::Broken)?.into_data() else {
            continue; // trailers
        };
        let kept = out.len() + only.as_ref().map_or(0, Bytes::len);
        if kept + data.len() > limit {
            return Err(BodyError::TooLarge);
        }
        let holding = held.as_ref().map_or(0, OwnedSemaphorePermit::num_permits);
        let weight = data
            .len()
            .min(limits::AGGREGATE_HTTP_READING_BYTES.saturating_sub(holding));
        if weight > 0 {
            // The budget is never closed; weight ≤ the budget, which fits u32.
            let permit = Arc::clone(budget)
                .acquire_many_owned(weight as u32)
                .await
                .map_err(|_| BodyError::Broken)?;
            match held.as_mut() {
                Some(h) => h.merge(permit),
                None => held = Some(permit),
            }
        }
        if let Some(first) = only.take() {
            out.reserve(first.len() + data.len());
            out.extend_from_slice(&first);
            out.extend_from_slice(&data);
        } else if out.is_empty() {
            only = Some(data);
        } else {
            out.extend_from_slice(&data);
        }
    }
    Ok((only.unwrap_or_else(|| Bytes::from(out)), held))
}

/// A response with a whole body of `content_type`.
pub(crate) fn whole(
    status: StatusCode,
    content_type: &'static str,
    body: Vec<u8>,
) -> Response<Out> {
    let mut response = Response::new(Out::Whole(Some(Bytes::from(body))));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A response without a body.
pub(crate) fn empty(status: StatusCode) -> Response<Out> {
    let mut response = Response::new(Out::Whole(None));
    *response.status_mut() = status;
    response
}

/// A JSON-RPC message as a whole JSON body.
pub(crate) fn json(status: StatusCode, line: Vec<u8>) -> Response<Out> {
    whole(status, "application/json", line)
}

/// An SSE response fed by `feed`.
pub(crate) fn events(feed: Feed) -> Response<Out> {
    let mut response = Response::new(Out::Events(feed));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(
        hyper::header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache"),
    );
    response
}

/// A refusal before any JSON-RPC is read: a JSON-RPC error without an id, with `status`.
pub(crate) fn refusal(status: StatusCode, code: i64, message: &str) -> Response<Out> {
    let error = serde_json::json!({"code": code, "message": message});
    json(
        status,
        encode_response::<Value>(None::<&RequestId>, Err(&error)),
    )
}

/// A request refused at the HTTP level, as a value (a check's `Err`), made a response with
/// [`Refusal::response`]: its status, a JSON-RPC error without an id, and maybe one header.
pub(crate) struct Refusal {
    status: StatusCode,
    message: String,
    header: Option<(HeaderName, &'static str)>,
}

impl Refusal {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
            header: None,
        }
    }

    pub(crate) fn with_header(mut self, name: HeaderName, value: &'static str) -> Refusal {
        self.header = Some((name, value));
        self
    }

    pub(crate) fn response(self) -> Response<Out> {
        let mut response = refusal(self.status, INVALID_REQUEST, &self.message);
        if let Some((name, value)) = self.header {
            response
                .headers_mut()
                .insert(name, HeaderValue::from_static(value));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_one_event() {
        assert_eq!(
            &event(b"{\"a\":1}\n")[..],
            b"event: message\ndata: {\"a\":1}\n\n"
        );
    }
}
