//! `POST /mcp`: one JSON-RPC message per request, in either era.
//!
//! The body is read through the bound (`--max-line-bytes`), each chunk holding its bytes of the
//! reading budget as it arrives; then the request takes a ticket of the flow budgets sized by what
//! it sent. So clients together cannot make the sidecar hold more than the budgets, and a body that
//! trickles (or a `Content-Length` it never sends) holds nothing a small request needs. Then:
//! - a notification or a response is accepted (202); a legacy one needs its session;
//! - a modern request (2026-07-28) is checked against its headers and served statelessly;
//! - a legacy `initialize` opens a session (`Mcp-Session-Id` on the answer); any other legacy
//!   request needs its session.
//!
//! A request is answered with one JSON body — unless a message of its own (a subscription's
//! acknowledgement, later progress) comes before its answer: then the answer is an SSE stream that
//! carries those and ends with the answer. Modern rules for a stream that closes early: the request
//! is cancelled (2026-07-28); a legacy one runs on, its answer dropped (2025-11-25: a disconnect is
//! no cancellation; `notifications/cancelled` is).

use std::sync::Arc;

use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{HeaderMap, Request as HttpRequest, Response, StatusCode};
use serde_json::{json, Value};
use tokio::sync::OwnedSemaphorePermit;

use super::body::{self, refusal, BodyError, Out, Refusal};
use super::conns::{Activity, Phase};
use super::drain;
use super::gate::{self, Audited};
use super::job::{answer_json, status_of, Job};
use super::state::{accepts, header, State, SESSION_HEADER, VERSION_HEADER};
use crate::aggregate::access::{Caller, Outcome};
use crate::aggregate::requests::dispatch;
use crate::aggregate::requests::wire::{WireError, INVALID_REQUEST, PARSE_ERROR};
use crate::aggregate::session::era::{self, Carrier, Era};
use crate::jsonrpc::{Incoming as Message, RequestId};
use crate::serving::Ticket;
use crate::telemetry::Carried;

pub(super) async fn handle(state: Arc<State>, http: HttpRequest<Incoming>) -> Response<Out> {
    let (mut parts, body) = http.into_parts();
    let caller = parts
        .extensions
        .remove::<Caller>()
        .unwrap_or_else(Caller::anonymous);
    let headers = parts.headers;
    if let Err(refused) = check_media(&headers) {
        return refused.response();
    }
    let (bytes, reading) = match read_body(&state, &headers, body).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    if let Some(activity) = parts.extensions.get::<Arc<Activity>>() {
        activity.enter(Phase::Serving);
    }
    let ticket = state.flow.admit(bytes.len()).await;
    drop(reading);
    message(state, &headers, caller, &bytes, ticket).await
}

/// The body, within `--max-line-bytes` and `--http-body-timeout-ms`, with the permit that holds
/// its bytes of the reading budget; the refusal to answer otherwise.
async fn read_body(
    state: &State,
    headers: &HeaderMap,
    body: Incoming,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), Response<Out>> {
    let declared = header(headers, CONTENT_LENGTH.as_str()).and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > state.max_body) {
        return Err(too_large(state.max_body));
    }
    let mut read = std::pin::pin!(body::read(body, state.max_body, &state.reading));
    // A small body is usually in already (it came with its head): then no timer is armed and
    // disarmed for it. One that is not yet gets the whole bound from here.
    let read = match futures_util::future::poll_immediate(read.as_mut()).await {
        Some(read) => read,
        None => match tokio::time::timeout(state.timeouts.body, read).await {
            Ok(read) => read,
            Err(_) => return Err(body_timeout(state)),
        },
    };
    read.map_err(|e| match e {
        BodyError::TooLarge => too_large(state.max_body),
        BodyError::Broken => refusal(
            StatusCode::BAD_REQUEST,
            INVALID_REQUEST,
            "Bad Request: the body could not be read",
        ),
    })
}

fn body_timeout(state: &State) -> Response<Out> {
    refusal(
        StatusCode::REQUEST_TIMEOUT,
        INVALID_REQUEST,
        &format!(
            "Request Timeout: the body did not arrive within {} ms (--http-body-timeout-ms)",
            state.timeouts.body.as_millis()
        ),
    )
}

/// The body's one JSON-RPC message to what serves its kind.
async fn message(
    state: Arc<State>,
    headers: &HeaderMap,
    caller: Caller,
    bytes: &[u8],
    ticket: Ticket,
) -> Response<Out> {
    match Message::parse(bytes) {
        Err(e) => refusal(
            StatusCode::BAD_REQUEST,
            PARSE_ERROR,
            &format!("Parse error: {e}"),
        ),
        Ok(Err(not_rpc)) => {
            let e = WireError::invalid_request(format!(
                "not a JSON-RPC 2.0 message: {}",
                not_rpc.reason
            ));
            answer_json(not_rpc.id.as_ref(), Err(e), StatusCode::BAD_REQUEST)
        }
        Ok(Ok(Message::Notification { method, params })) => {
            notification(&state, headers, &method, params)
        }
        Ok(Ok(Message::Response { id, result })) => match state.session_of(headers) {
            Ok(http) => {
                if !http.session.asked.answered(&id, result, bytes.len()) {
                    tracing::debug!(%id, "ignored a response from the MCP client: no request of ours waits for it");
                }
                body::empty(StatusCode::ACCEPTED)
            }
            Err(refused) => refused.response(),
        },
        Ok(Ok(Message::Request { id, method, params })) => {
            request(state, headers, caller, id, method, params, ticket).await
        }
    }
}

/// `Content-Type: application/json` (415), `Accept` listing both answer kinds (406).
fn check_media(headers: &HeaderMap) -> Result<(), Refusal> {
    let json_body = header(headers, CONTENT_TYPE.as_str()).is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    });
    if !json_body {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: the body must be application/json",
        ));
    }
    if !(accepts(headers, "application/json") && accepts(headers, "text/event-stream")) {
        return Err(Refusal::new(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        ));
    }
    Ok(())
}

fn too_large(limit: usize) -> Response<Out> {
    refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        INVALID_REQUEST,
        &format!("Payload Too Large: a message may have at most {limit} bytes (--max-line-bytes)"),
    )
}

/// A notification: a legacy session's (cancel, initialized) reaches it; a modern one is accepted
/// and ignored (2026-07-28 defines none from client to server over HTTP).
fn notification(
    state: &State,
    headers: &HeaderMap,
    method: &str,
    params: Option<Value>,
) -> Response<Out> {
    let modern = header(headers, VERSION_HEADER).is_some_and(|v| era::is_modern(v.trim()));
    if modern && headers.get(SESSION_HEADER).is_none() {
        tracing::debug!(method, "ignored a notification in a 2026-07-28 envelope");
        return body::empty(StatusCode::ACCEPTED);
    }
    match state.session_of(headers) {
        Ok(http) => {
            dispatch::notification(&state.aggregate, &http.session, method, params);
            body::empty(StatusCode::ACCEPTED)
        }
        Err(refused) => refused.response(),
    }
}

/// A request past the endpoint's admission: the drain, its era, the client's rate limit and
/// access; then [`Job::serve`] runs it.
async fn request(
    state: Arc<State>,
    headers: &HeaderMap,
    caller: Caller,
    id: RequestId,
    method: String,
    params: Option<Value>,
    ticket: Ticket,
) -> Response<Out> {
    // Answers and notifications still pass while the endpoint drains (the calls in flight wait
    // for them); a new request does not.
    let Some(in_flight) = state.drain.admit() else {
        return drain::refused(Some(&id), "requests");
    };
    let carrier = Carrier::Http {
        version_header: header(headers, VERSION_HEADER),
    };
    let era = match era::classify(&method, params.as_ref(), carrier) {
        Ok(era) => era,
        Err(e) => {
            let status = status_of(&e);
            return answer_json(Some(&id), Err(e), status);
        }
    };
    let session = header(headers, SESSION_HEADER).map(|s| s.trim().to_owned());
    let audited = state
        .audit
        .as_ref()
        .map(|_| Audited::new(&state.aggregate, &caller, session, &method, params.as_ref()));
    if let Err(wait) = caller.admit() {
        if let (Some(audit), Some(audited)) = (&state.audit, &audited) {
            audited.write(audit, Outcome::RateLimited, Some(json!(429)));
        }
        return gate::too_many(&id, &caller, wait);
    }
    if let Some(e) = gate::refused_call(&state.aggregate, &caller, &method, params.as_ref()).await {
        if let (Some(audit), Some(audited)) = (&state.audit, &audited) {
            audited.write(audit, Outcome::Denied, Some(json!(e.code)));
        }
        let status = match era {
            Era::Modern(_) => status_of(&e),
            Era::Legacy => StatusCode::OK,
        };
        return answer_json(Some(&id), Err(e), status);
    }
    let traced = Carried::new(
        header(headers, "traceparent"),
        header(headers, "tracestate"),
    );
    let job = Job {
        state,
        id,
        era,
        method,
        params,
        caller,
        audited,
        traced,
    };
    job.serve(headers, ticket, in_flight).await
}
