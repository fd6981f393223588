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

use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{HeaderMap, Request as HttpRequest, Response, StatusCode};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use super::body::{self, events, json, refusal, BodyError, Feed, Out, Refusal};
use super::conns::{Activity, Phase};
use super::drain::{self, InFlight};
use super::gate::{self, Audited};
use super::headers;
use super::sessions::HttpSession;
use super::state::{accepts, header, State, SESSION_HEADER, VERSION_HEADER};
use crate::aggregate::access::{Caller, Outcome};
use crate::aggregate::requests::answer::{self, Answer};
use crate::aggregate::requests::dispatch;
use crate::aggregate::requests::request::Request;
use crate::aggregate::requests::wire::{WireError, INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR};
use crate::aggregate::session::era::{self, Carrier, Era, LEGACY_VERSIONS};
use crate::aggregate::session::legacy::Session;
use crate::error::ErrorCode;
use crate::jsonrpc::{Incoming as Message, RequestId};
use crate::limits;
use crate::serving::Sink;
use crate::serving::{guarded, Stopped, Ticket};
use crate::telemetry::{Carried, TraceContext};

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
    let declared = header(&headers, CONTENT_LENGTH.as_str()).and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > state.max_body) {
        return too_large(state.max_body);
    }
    let read = body::read(body, state.max_body, &state.reading);
    let Ok(read) = tokio::time::timeout(state.timeouts.body, read).await else {
        return refusal(
            StatusCode::REQUEST_TIMEOUT,
            INVALID_REQUEST,
            &format!(
                "Request Timeout: the body did not arrive within {} ms (--http-body-timeout-ms)",
                state.timeouts.body.as_millis()
            ),
        );
    };
    let (bytes, reading) = match read {
        Ok(read) => read,
        Err(BodyError::TooLarge) => return too_large(state.max_body),
        Err(BodyError::Broken) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                INVALID_REQUEST,
                "Bad Request: the body could not be read",
            )
        }
    };
    if let Some(activity) = parts.extensions.get::<Arc<Activity>>() {
        activity.enter(Phase::Serving);
    }
    let ticket = state.flow.admit(bytes.len()).await;
    drop(reading);
    match Message::parse(&bytes) {
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
            notification(&state, &headers, &method, params)
        }
        Ok(Ok(Message::Response { id, result })) => match state.session_of(&headers) {
            Ok(http) => {
                if !http.session.asked.answered(&id, result, bytes.len()) {
                    tracing::debug!(%id, "ignored a response from the MCP client: no request of ours waits for it");
                }
                body::empty(StatusCode::ACCEPTED)
            }
            Err(refused) => refused.response(),
        },
        Ok(Ok(Message::Request { id, method, params })) => {
            request(state, &headers, caller, id, method, params, ticket).await
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
    let job = Job {
        state: Arc::clone(&state),
        id,
        era,
        method,
        params,
        caller,
        audited,
        traced: Carried::new(
            header(headers, "traceparent"),
            header(headers, "tracestate"),
        ),
    };
    match &job.era {
        Era::Modern(_) => {
            if let Err(e) = job.check_headers(headers) {
                let status = status_of(&e);
                return answer_json(Some(&job.id), Err(e), status);
            }
            job.run(Client::Stateless(Box::default()), ticket, in_flight)
                .await
        }
        Era::Legacy => {
            if let Some(v) = header(headers, VERSION_HEADER).map(str::trim) {
                if !LEGACY_VERSIONS.contains(&v) {
                    let e = WireError::invalid_request(format!(
                        "Bad Request: unsupported MCP-Protocol-Version {v:?}; supported: {}",
                        LEGACY_VERSIONS.join(", ")
                    ));
                    return answer_json(Some(&job.id), Err(e), StatusCode::BAD_REQUEST);
                }
            }
            if job.method == "initialize" {
                let owner = (!state.guard.is_open()).then(|| Arc::clone(&job.caller.name));
                return job.initialize(owner, ticket, in_flight).await;
            }
            match state.session_of(headers) {
                Ok(http) => job.run(Client::Session(http), ticket, in_flight).await,
                Err(refused) => refused.response(),
            }
        }
    }
}

/// One request on its way to its answer.
struct Job {
    state: Arc<State>,
    id: RequestId,
    era: Era,
    method: String,
    params: Option<Value>,
    /// The client it comes from: what it may see and call.
    caller: Caller,
    /// Its audit line's facts, when there is an audit log.
    audited: Option<Audited>,
    /// The W3C trace context of the request's headers.
    traced: Option<Carried>,
}

/// Whose request it is.
enum Client {
    /// A legacy session's: registered in it (a `notifications/cancelled` finds it by id), ended
    /// with it.
    Session(Arc<HttpSession>),
    /// A modern request's own throwaway state: cancelled when its stream closes.
    Stateless(Box<Session>),
}

impl Client {
    fn session(&self) -> &Session {
        match self {
            Client::Session(http) => &http.session,
            Client::Stateless(session) => session,
        }
    }
}

/// What the response side sees first.
enum First {
    Line(Option<Vec<u8>>),
    Answer(Result<(StatusCode, Vec<u8>), oneshot::error::RecvError>),
}

impl Job {
    /// A legacy `initialize`: a new session, named in the answer's `Mcp-Session-Id`.
    async fn initialize(
        self,
        owner: Option<Arc<str>>,
        ticket: Ticket,
        in_flight: InFlight,
    ) -> Response<Out> {
        let Some(http) = self.state.sessions.create(owner) else {
            return refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                INTERNAL_ERROR,
                "Service Unavailable: every session slot is in use; try again later",
            );
        };
        let (quiet, _) = mpsc::channel(1);
        let request = Request {
            aggregate: &self.state.aggregate,
            session: &http.session,
            id: &self.id,
            era: &self.era,
            sink: &Sink::Stream(quiet),
            rules: Some(&self.caller.rules),
            traced: self.traced,
            trace: TraceContext::default(),
        };
        let outcome = dispatch::request(request, "initialize", self.params).await;
        if let (Some(audit), Some(audited)) = (&self.state.audit, &self.audited) {
            audited.finish(audit, Some(&outcome));
        }
        drop(ticket);
        drop(in_flight);
        let initialized = outcome.is_ok();
        let mut response = answer_json(Some(&self.id), outcome, StatusCode::OK);
        match HeaderValue::from_str(&http.id) {
            Ok(id) if initialized => {
                response.headers_mut().insert(SESSION_HEADER, id);
            }
            _ => {
                self.state.sessions.remove(&http.id);
            }
        }
        response
    }

    /// Runs the request as a task of its own and answers with JSON, or with an SSE stream once a
    /// message of its own comes before its answer (module doc).
    async fn run(self, client: Client, ticket: Ticket, in_flight: InFlight) -> Response<Out> {
        let token = match &client {
            Client::Session(http) => match http.session.requests.begin(&self.id) {
                Some(token) => token,
                None => {
                    let e = WireError::invalid_request(format!(
                        "request id {} is already in flight in this session; use a new id for each request",
                        self.id
                    ));
                    return answer_json(Some(&self.id), Err(e), StatusCode::OK);
                }
            },
            Client::Stateless(_) => self.state.closing.child_token(),
        };
        let (lines_tx, mut lines) = mpsc::channel(limits::AGGREGATE_HTTP_STREAM_QUEUE);
        let (answer_tx, mut answer_rx) = oneshot::channel();
        let state = Arc::clone(&self.state);
        let tracked = match &client {
            Client::Session(http) => Some(Arc::clone(http)),
            Client::Stateless(_) => None,
        };
        let task = async move {
            let sink = Sink::Stream(lines_tx);
            let id = self.id.clone();
            let modern = matches!(self.era, Era::Modern(_));
            let outcome = self.answer(&client, &token, &sink).await;
            if let Client::Session(http) = &client {
                http.session.requests.finish(&id);
            }
            if let Some(outcome) = outcome {
                let status = match &outcome {
                    Err(e) if modern => status_of(e),
                    _ => StatusCode::OK,
                };
                let line = answer::line(Some(&id), &outcome);
                // Handed to the response side, or into the stream once that side went SSE.
                if let Err((_, line)) = answer_tx.send((status, line)) {
                    let _ = sink.send(line).await;
                }
            }
            drop(ticket);
            // Answered: the drain waits for this request no longer.
            drop(in_flight);
        };
        match tracked {
            Some(http) => http.session.requests.spawn(task),
            None => {
                state.tasks.spawn(task);
            }
        }
        let first = tokio::select! {
            // A message queued before the answer is seen first: it was sent first.
            biased;
            line = lines.recv() => First::Line(line),
            answer = &mut answer_rx => First::Answer(answer),
        };
        match first {
            First::Answer(Ok((status, line))) => json(status, line),
            First::Line(Some(first)) => {
                answer_rx.close();
                let last = answer_rx.try_recv().ok().map(|(_, line)| line);
                events(Feed {
                    first: Some(first),
                    lines,
                    last,
                })
            }
            // The task ended: with its answer handed over, or with none (cancelled by the
            // client, who then expects nothing: an empty stream).
            First::Line(None) | First::Answer(Err(_)) => match answer_rx.try_recv() {
                Ok((status, line)) => json(status, line),
                Err(_) => events(Feed {
                    first: None,
                    lines,
                    last: None,
                }),
            },
        }
    }

    /// The request's outcome; `None` when the client cancelled it (it gets no answer).
    async fn answer(
        self,
        client: &Client,
        token: &tokio_util::sync::CancellationToken,
        sink: &Sink,
    ) -> Option<Result<Answer, WireError>> {
        let request = Request {
            aggregate: &self.state.aggregate,
            session: client.session(),
            id: &self.id,
            era: &self.era,
            sink,
            rules: Some(&self.caller.rules),
            traced: self.traced,
            trace: TraceContext::default(),
        };
        let work = guarded(token, dispatch::request(request, &self.method, self.params));
        let outcome = match client {
            // 2026-07-28: closing the response stream cancels the request.
            Client::Stateless(_) => tokio::select! {
                outcome = work => outcome,
                _ = sink.closed() => Err(Stopped::Cancelled),
            },
            Client::Session(http) => tokio::select! {
                outcome = work => outcome,
                _ = http.ended.cancelled() => Err(Stopped::Cancelled),
                _ = self.state.closing.cancelled() => Err(Stopped::Cancelled),
            },
        };
        let outcome = match outcome {
            Ok(outcome) => Some(outcome),
            Err(Stopped::Cancelled) if self.state.closing.is_cancelled() => Some(Err(stopping())),
            Err(Stopped::Cancelled) => None,
            Err(Stopped::Panicked(what)) => {
                tracing::error!(method = self.method, "a request handler panicked: {what}");
                Some(Err(WireError::new(
                    INTERNAL_ERROR,
                    format!(
                        "internal error while serving `{}` ({what}); the sidecar goes on serving",
                        self.method
                    ),
                )))
            }
        };
        if let (Some(audit), Some(audited)) = (&self.state.audit, &self.audited) {
            audited.finish(audit, outcome.as_ref());
        }
        outcome
    }

    /// The standard headers against the body; a `tools/call`'s against the schema the client was
    /// shown for its tool, borrowed from the listing (this runs on every modern call: no copy).
    fn check_headers(&self, headers: &HeaderMap) -> Result<(), WireError> {
        let tools = (self.method == "tools/call").then(|| self.state.aggregate.tools());
        let name = self.params.as_ref().and_then(|p| p.get("name")?.as_str());
        let schema = tools
            .as_deref()
            .zip(name)
            .and_then(|(tools, name)| {
                tools
                    .iter()
                    .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
            })
            .and_then(|t| t.get("inputSchema"));
        headers::check(headers, &self.method, self.params.as_ref(), schema)
    }
}

fn status_of(e: &WireError) -> StatusCode {
    StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::OK)
}

fn answer_json(
    id: Option<&RequestId>,
    outcome: Result<Answer, WireError>,
    status: StatusCode,
) -> Response<Out> {
    json(status, answer::line(id, &outcome))
}

fn stopping() -> WireError {
    WireError::new(
        INTERNAL_ERROR,
        "the sidecar is shutting down: this request was still running when the drain ended (--drain-timeout-ms)",
    )
        .with_data(json!({"code": ErrorCode::ShuttingDown.as_str()}))
}
