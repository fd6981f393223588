//! `GET /mcp` and `DELETE /mcp` of a legacy session: the session's own stream, on which it hears of
//! every change of the aggregate (one stream at a time; it ends with the session; at most
//! [`limits::AGGREGATE_HTTP_MAX_STREAMS`] across sessions), and the end of the session. The 2026-07-28 transport has neither (405).

use std::sync::Arc;

use hyper::{HeaderMap, Response, StatusCode};
use tokio::sync::mpsc;

use super::body::{self, events, refusal, Feed, Out};
use super::drain;
use super::state::{accepts, header, State, VERSION_HEADER};
use crate::aggregate::requests::wire::INVALID_REQUEST;
use crate::aggregate::session::era;
use crate::aggregate::session::listen;
use crate::limits;
use crate::serving::Sink;

/// `GET`: the session's stream of change notifications.
pub(crate) fn get(state: &Arc<State>, headers: &HeaderMap) -> Response<Out> {
    if let Some(refused) = modern_refusal(headers) {
        return refused;
    }
    if !accepts(headers, "text/event-stream") {
        return refusal(
            StatusCode::NOT_ACCEPTABLE,
            INVALID_REQUEST,
            "Not Acceptable: a GET stream needs Accept: text/event-stream",
        );
    }
    let http = match state.session_of(headers) {
        Ok(http) => http,
        Err(refused) => return refused.response(),
    };
    if state.drain.is_draining() {
        return drain::refused(None, "streams");
    }
    let Ok(stream_slot) = Arc::clone(&state.streams).try_acquire_owned() else {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            INVALID_REQUEST,
            &format!(
                "Service Unavailable: {} GET streams are open, the most this endpoint keeps; answers still come on POST responses",
                limits::AGGREGATE_HTTP_MAX_STREAMS
            ),
        );
    };
    if !http.open_stream() {
        return refusal(
            StatusCode::CONFLICT,
            INVALID_REQUEST,
            "Conflict: this session's GET stream is already open",
        );
    }
    let (tx, lines) = mpsc::channel(limits::AGGREGATE_HTTP_STREAM_QUEUE);
    // Its servers' questions outside a call come to this session, on this stream.
    let sink = Sink::Stream(tx);
    state.aggregate.asks().stand_by(&http.session, &sink);
    let (notices, logs) = (
        state.aggregate.subscribe(),
        state.aggregate.subscribe_logs(),
    );
    let closing = state.closing.clone();
    state.tasks.spawn(async move {
        tokio::select! {
            _ = listen::forward_legacy(notices, logs, &http.session, &sink) => {}
            _ = http.ended.cancelled() => {}
            _ = closing.cancelled() => {}
        }
        http.close_stream();
        drop(stream_slot);
    });
    events(Feed {
        first: None,
        lines,
        last: None,
    })
}

/// `DELETE`: ends the session (its stream and its requests); its id is unknown afterwards.
pub(crate) async fn delete(state: &Arc<State>, headers: &HeaderMap) -> Response<Out> {
    if let Some(refused) = modern_refusal(headers) {
        return refused;
    }
    let http = match state.session_of(headers) {
        Ok(http) => http,
        Err(refused) => return refused.response(),
    };
    state.sessions.remove(&http.id);
    http.end().await;
    tracing::debug!(session = %http.id, "the client ended its HTTP session");
    body::empty(StatusCode::OK)
}

/// 405 for a request in the 2026-07-28 envelope (no GET stream, no session to delete).
fn modern_refusal(headers: &HeaderMap) -> Option<Response<Out>> {
    let modern = header(headers, VERSION_HEADER).is_some_and(|v| era::is_modern(v.trim()));
    modern.then(|| {
        let mut response = refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            INVALID_REQUEST,
            "Method Not Allowed: 2026-07-28 has no session streams; use POST",
        );
        response.headers_mut().insert(
            hyper::header::ALLOW,
            hyper::header::HeaderValue::from_static("POST"),
        );
        response
    })
}
