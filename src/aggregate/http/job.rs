//! One admitted JSON-RPC request of a `POST /mcp` on its way to its answer (`post` admits it):
//! its era's last checks, a legacy `initialize`'s new session, and the run itself — in its
//! connection's task (`inline`), answered with one JSON body, or with an SSE stream once a message
//! of its own comes before its answer (see `post`'s module doc for the rules of a stream that
//! closes early).

use std::sync::Arc;

use hyper::header::HeaderValue;
use hyper::{HeaderMap, Response, StatusCode};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::body::{events, json, refusal, Feed, Out};
use super::drain::InFlight;
use super::gate::Audited;
use super::headers;
use super::inline::{Home, Inline};
use super::sessions::HttpSession;
use super::state::{header, State, SESSION_HEADER, VERSION_HEADER};
use crate::aggregate::access::Caller;
use crate::aggregate::requests::answer::{self, Answer};
use crate::aggregate::requests::dispatch;
use crate::aggregate::requests::request::Request;
use crate::aggregate::requests::wire::{WireError, INTERNAL_ERROR};
use crate::aggregate::session::era::{Era, LEGACY_VERSIONS};
use crate::aggregate::session::legacy::Session;
use crate::error::ErrorCode;
use crate::jsonrpc::RequestId;
use crate::limits;
use crate::serving::Sink;
use crate::serving::{guarded, Stopped, Ticket};
use crate::telemetry::{Carried, TraceContext};

/// One request on its way to its answer.
pub(super) struct Job {
    pub state: Arc<State>,
    pub id: RequestId,
    pub era: Era,
    pub method: String,
    pub params: Option<Value>,
    /// The client it comes from: what it may see and call.
    pub caller: Caller,
    /// Its audit line's facts, when there is an audit log.
    pub audited: Option<Audited>,
    /// The W3C trace context of the request's headers.
    pub traced: Option<Carried>,
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

/// The answer side of a running request: the messages it sends before its answer, then its
/// answer (with the HTTP status it takes when it comes first).
struct Outlet {
    lines: mpsc::Receiver<Vec<u8>>,
    answer: oneshot::Receiver<(StatusCode, Vec<u8>)>,
}

impl Job {
    /// Runs the request in its era: a modern one statelessly (its headers checked first), a
    /// legacy `initialize` in a new session, any other legacy one in its session.
    pub(super) async fn serve(
        self,
        headers: &HeaderMap,
        ticket: Ticket,
        in_flight: InFlight,
    ) -> Response<Out> {
        if let Era::Modern(_) = &self.era {
            if let Err(e) = self.check_headers(headers) {
                let status = status_of(&e);
                return answer_json(Some(&self.id), Err(e), status);
            }
            return self
                .run(Client::Stateless(Box::default()), ticket, in_flight)
                .await;
        }
        if let Err(e) = legacy_version(headers) {
            return answer_json(Some(&self.id), Err(e), StatusCode::BAD_REQUEST);
        }
        if self.method == "initialize" {
            let owner = (!self.state.guard.is_open()).then(|| Arc::clone(&self.caller.name));
            return self.initialize(owner, ticket, in_flight).await;
        }
        match self.state.session_of(headers) {
            Ok(http) => self.run(Client::Session(http), ticket, in_flight).await,
            Err(refused) => refused.response(),
        }
    }

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

    /// Runs the request in this connection's task (`inline`) and answers with JSON, or with an
    /// SSE stream once a message of its own comes before its answer (module doc); then the rest
    /// of the run goes on as a task of its own.
    async fn run(self, client: Client, ticket: Ticket, in_flight: InFlight) -> Response<Out> {
        let token = match self.token(&client) {
            Ok(token) => token,
            Err(e) => return answer_json(Some(&self.id), Err(e), StatusCode::OK),
        };
        let (lines_tx, lines) = mpsc::channel(limits::AGGREGATE_HTTP_STREAM_QUEUE);
        let (answer_tx, answer) = oneshot::channel();
        let home = match &client {
            Client::Session(http) => Home::Session(Arc::clone(http)),
            Client::Stateless(_) => Home::Endpoint(Arc::clone(&self.state)),
        };
        let work = async move {
            let sink = Sink::Stream(lines_tx);
            self.finish(client, token, &sink, answer_tx).await;
            drop(ticket);
            // Answered: the drain waits for this request no longer.
            drop(in_flight);
        };
        let mut run = Inline::new(Box::pin(work), home);
        let mut outlet = Outlet { lines, answer };
        let first = tokio::select! {
            // A message queued before the answer is seen first: it was sent first.
            biased;
            line = outlet.lines.recv() => Some(First::Line(line)),
            () = &mut run => None,
        };
        // Still running: its response is a stream now, which the run goes on feeding.
        run.detach();
        respond(outlet, first).await
    }

    /// What cancels the request: its session's registration (a legacy id in flight twice is
    /// refused), or a child of the endpoint's closing.
    fn token(&self, client: &Client) -> Result<CancellationToken, WireError> {
        match client {
            Client::Session(http) => http.session.requests.begin(&self.id).ok_or_else(|| {
                WireError::invalid_request(format!(
                    "request id {} is already in flight in this session; use a new id for each request",
                    self.id
                ))
            }),
            Client::Stateless(_) => Ok(self.state.closing.child_token()),
        }
    }

    /// Runs the request to its outcome and hands its answer line over: to the response side, or
    /// into the stream once that side went SSE.
    async fn finish(
        self,
        client: Client,
        token: CancellationToken,
        sink: &Sink,
        answer_tx: oneshot::Sender<(StatusCode, Vec<u8>)>,
    ) {
        let id = self.id.clone();
        let modern = matches!(self.era, Era::Modern(_));
        let outcome = self.answer(&client, &token, sink).await;
        if let Client::Session(http) = &client {
            http.session.requests.finish(&id);
        }
        let Some(outcome) = outcome else { return };
        let status = match &outcome {
            Err(e) if modern => status_of(e),
            _ => StatusCode::OK,
        };
        let line = answer::line(Some(&id), &outcome);
        if let Err((_, line)) = answer_tx.send((status, line)) {
            let _ = sink.send(line).await;
        }
    }

    /// The request's outcome; `None` when the client cancelled it (it gets no answer).
    async fn answer(
        self,
        client: &Client,
        token: &CancellationToken,
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
        let outcome = settled(&self.state, &self.method, outcome);
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

/// What a stopped request answers: nothing when its client cancelled it, `SHUTTING_DOWN` when
/// the endpoint closed, an internal error when its handler panicked.
fn settled(
    state: &State,
    method: &str,
    outcome: Result<Result<Answer, WireError>, Stopped>,
) -> Option<Result<Answer, WireError>> {
    match outcome {
        Ok(outcome) => Some(outcome),
        Err(Stopped::Cancelled) if state.closing.is_cancelled() => Some(Err(stopping())),
        Err(Stopped::Cancelled) => None,
        Err(Stopped::Panicked(what)) => {
            tracing::error!(method, "a request handler panicked: {what}");
            Some(Err(WireError::new(
                INTERNAL_ERROR,
                format!(
                    "internal error while serving `{method}` ({what}); the sidecar goes on serving"
                ),
            )))
        }
    }
}

/// A legacy request's `MCP-Protocol-Version`, when it sends one, must be a legacy revision.
fn legacy_version(headers: &HeaderMap) -> Result<(), WireError> {
    match header(headers, VERSION_HEADER).map(str::trim) {
        Some(v) if !LEGACY_VERSIONS.contains(&v) => Err(WireError::invalid_request(format!(
            "Bad Request: unsupported MCP-Protocol-Version {v:?}; supported: {}",
            LEGACY_VERSIONS.join(", ")
        ))),
        _ => Ok(()),
    }
}

/// The response of a running request: its answer as JSON when it comes first, else an SSE stream
/// of its messages that ends with the answer. `first` is what was seen already, if anything.
async fn respond(mut outlet: Outlet, first: Option<First>) -> Response<Out> {
    let first = match first {
        Some(first) => first,
        None => tokio::select! {
            // A message queued before the answer is seen first: it was sent first.
            biased;
            line = outlet.lines.recv() => First::Line(line),
            answer = &mut outlet.answer => First::Answer(answer),
        },
    };
    let Outlet {
        lines,
        answer: mut answer_rx,
    } = outlet;
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

pub(super) fn status_of(e: &WireError) -> StatusCode {
    StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::OK)
}

pub(super) fn answer_json(
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
