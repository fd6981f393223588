//! The HTTP transports behind one [`Transport`]: Streamable HTTP (2025-11-25), legacy HTTP+SSE
//! (2024-11-05, in [`super::sse`]), and the automatic choice between them.
//!
//! Shape: `send` queues a message; one dispatcher task POSTs them in order. A request's POST runs in
//! its own task (a slow tool must not hold up the others) and whatever answers it — a JSON body or
//! an event stream, resumed with `Last-Event-ID` if it drops — lands in the inbound queue that the
//! session reads. HTTP failures of a request are queued as [`Inbound::Failed`] for that request (a
//! typed [`TransportError`], never a made-up JSON-RPC error), so the session fails that request
//! alone; failures that end the connection (refused, oversize, a legacy stream that ended) are
//! fatal transport errors and the supervisor's restart policy takes over. A request's POST ends when its answer arrived, or when the session cancels it
//! (`notifications/cancelled`, sent on timeout and on host cancellation), or when the transport closes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{RequestBuilder, Response, StatusCode, Url};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use super::http_common::{
    self as common, send, Http, InboundSource, Link, Outgoing, RemoteOptions, ACCEPT_BOTH,
    EVENT_STREAM, LAST_EVENT_ID, SESSION_HEADER, VERSION_HEADER,
};
use super::sse_parser::SseParser;
use super::{BoxFuture, Inbound, MessageSink, Transport, TransportError};
use crate::config::RemoteKind;
use crate::limits;

// The steps a failure names (`TransportError`'s `during`).
const POST_INITIALIZE: &str = "POST initialize";
const POST: &str = "POST";

/// The step of POSTing `method`, for the messages of its failures.
fn post_step(method: Option<&str>) -> &'static str {
    match method {
        Some("initialize") => POST_INITIALIZE,
        Some("tools/call") => "POST tools/call",
        Some("tools/list") => "POST tools/list",
        Some("ping") => "POST ping",
        _ => POST,
    }
}
const RESUME: &str = "resuming the response stream";
const LISTEN: &str = "GET stream";
const REINIT: &str = "re-initialising the expired session";

/// Builds the transport; nothing is sent until the session's first message (`initialize`).
pub fn transport(options: RemoteOptions, kind: RemoteKind) -> Result<Transport, TransportError> {
    let http = Http::new(&options)?;
    let (in_tx, in_rx) = mpsc::channel(limits::HTTP_INBOUND_QUEUE);
    let (out_tx, out_rx) = mpsc::channel(limits::HTTP_OUTBOUND_QUEUE);
    let shared = Arc::new(Shared {
        link: Arc::new(Link::new(http, options.url, in_tx)),
        kind,
        state: Mutex::new(State::default()),
        reinit: tokio::sync::Mutex::new(()),
    });
    let dispatcher = tokio::spawn(dispatch(Arc::clone(&shared), out_rx));
    shared.lock().background.push(dispatcher.abort_handle());
    Ok(Transport {
        sink: Arc::new(HttpSink {
            shared,
            out: out_tx,
        }),
        source: Box::new(InboundSource(in_rx)),
    })
}

struct Shared {
    /// Client, configured URL and inbound queue; the legacy event stream holds it too.
    link: Arc<Link>,
    kind: RemoteKind,
    state: Mutex<State>,
    /// Serialises re-initialisation after a session expired.
    reinit: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    mode: Mode,
    session_id: Option<String>,
    /// Negotiated in `initialize`; sent on every later request.
    protocol_version: Option<String>,
    /// The `initialize` request as sent, replayed when the session expired.
    init_line: Option<Vec<u8>>,
    /// In-flight request POSTs by request id (JSON text), with a token so a finished task removes
    /// only its own entry.
    requests: HashMap<String, (u64, AbortHandle)>,
    next_token: u64,
    /// Dispatcher, GET listener, legacy event stream.
    background: Vec<AbortHandle>,
    listener: Option<AbortHandle>,
}

#[derive(Default, Clone)]
enum Mode {
    /// Nothing sent yet.
    #[default]
    Unknown,
    Streamable,
    /// Legacy HTTP+SSE: messages are POSTed to the endpoint the event stream named.
    Legacy {
        post_url: Url,
    },
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn http(&self) -> &Http {
        &self.link.http
    }

    fn url(&self) -> &Url {
        &self.link.url
    }

    fn with_headers(&self, req: RequestBuilder) -> RequestBuilder {
        let state = self.lock();
        let mut req = req.headers(self.http().headers.clone());
        if let Some(sid) = &state.session_id {
            req = req.header(SESSION_HEADER, sid);
        }
        if let Some(v) = &state.protocol_version {
            req = req.header(VERSION_HEADER, v);
        }
        req
    }

    fn post(&self, url: &Url, body: Vec<u8>) -> RequestBuilder {
        self.with_headers(self.http().client.post(url.clone()))
            .header(ACCEPT, ACCEPT_BOTH)
            .header(CONTENT_TYPE, "application/json")
            .body(body)
    }

    /// Queues a message for the session; false once the session stopped reading.
    async fn deliver(&self, item: Inbound) -> bool {
        self.link.deliver(item).await
    }

    async fn fail(&self, error: TransportError) {
        self.link.fail(error).await
    }

    fn session_id(&self) -> Option<String> {
        self.lock().session_id.clone()
    }

    fn abort_all(&self) {
        let mut state = self.lock();
        // Under the state lock, so `add_background` and `spawn_request` see it before registering.
        self.link.set_closed();
        for handle in state.background.drain(..) {
            handle.abort();
        }
        for (_, (_, handle)) in state.requests.drain() {
            handle.abort();
        }
        if let Some(l) = state.listener.take() {
            l.abort();
        }
    }

    fn add_background(&self, handle: AbortHandle) {
        let mut state = self.lock();
        if self.link.is_closed() {
            handle.abort();
        } else {
            state.background.push(handle);
        }
    }
}

struct HttpSink {
    shared: Arc<Shared>,
    out: mpsc::Sender<Vec<u8>>,
}

impl Drop for HttpSink {
    fn drop(&mut self) {
        // Without this the GET listener would outlive a session that was dropped unclosed.
        self.shared.abort_all();
    }
}

impl MessageSink for HttpSink {
    fn send(&self, line: Vec<u8>) -> BoxFuture<'_, std::io::Result<()>> {
        Box::pin(async move {
            self.out.send(line).await.map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the transport is closed")
            })
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let (sid, streamable) = {
                let state = self.shared.lock();
                (
                    state.session_id.clone(),
                    matches!(state.mode, Mode::Streamable),
                )
            };
            self.shared.abort_all();
            if let (Some(_), true) = (sid, streamable) {
                // Best effort: the server may not allow termination (405) or may be gone.
                let req = self
                    .shared
                    .with_headers(self.shared.http().client.delete(self.shared.url().clone()));
                let _ = tokio::time::timeout(limits::HTTP_DELETE_TIMEOUT, req.send()).await;
            }
        })
    }
}

/// Sends queued messages in order; see the module doc.
async fn dispatch(shared: Arc<Shared>, mut out: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = out.recv().await {
        let msg = Outgoing::parse(line);
        let mode = shared.lock().mode.clone();
        match mode {
            Mode::Unknown => {
                if let Err(e) = connect(&shared, msg).await {
                    shared.fail(e).await;
                    return;
                }
            }
            Mode::Streamable => {
                if let Some(target) = &msg.cancels {
                    cancel_post(&shared, target);
                }
                if let Some(id) = msg.id.clone() {
                    spawn_request(&shared, msg, id);
                } else {
                    let initialized = msg.method.as_deref() == Some("notifications/initialized");
                    if let Err(e) = post_oneway(&shared, shared.url(), msg.line).await {
                        shared.fail(e).await;
                        return;
                    }
                    if initialized {
                        start_listener(&shared);
                    }
                }
            }
            Mode::Legacy { post_url } => {
                let id = msg.id.clone();
                let during = post_step(msg.method.as_deref());
                match post_legacy(&shared, &post_url, msg.line, during).await {
                    Ok(None) => {}
                    Ok(Some(error)) => match id {
                        Some(id) => {
                            if !shared.deliver(Inbound::Failed { id, error }).await {
                                return;
                            }
                        }
                        None => {
                            tracing::debug!(server = %shared.http().server, "notification refused: {error}")
                        }
                    },
                    Err(e) => {
                        shared.fail(e).await;
                        return;
                    }
                }
            }
        }
    }
}

/// The first message (`initialize`): picks the transport, per the configured kind.
async fn connect(shared: &Arc<Shared>, msg: Outgoing) -> Result<(), TransportError> {
    let Some(id) = msg.id.clone() else {
        return Err(TransportError::protocol(
            "the first message to a remote server must be initialize",
        ));
    };
    if shared.kind == RemoteKind::Sse {
        return connect_legacy(shared, msg).await;
    }
    shared.lock().init_line = Some(msg.line.clone());
    let resp = send(shared.post(shared.url(), msg.line.clone()), POST_INITIALIZE).await?;
    let status = resp.status();
    if shared.kind == RemoteKind::Auto
        && matches!(
            status,
            StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        )
    {
        tracing::info!(server = %shared.http().server, %status, "POST initialize refused; trying legacy HTTP+SSE");
        shared.lock().init_line = None;
        return connect_legacy(shared, msg).await;
    }
    if !status.is_success() {
        return Err(common::status_error(resp, POST_INITIALIZE).await);
    }
    let sid = session_id_of(&resp)?;
    {
        let mut state = shared.lock();
        state.mode = Mode::Streamable;
        state.session_id = sid;
    }
    match read_answer(shared, resp, &id, POST_INITIALIZE).await? {
        Answer::Reply(reply) => {
            let version = serde_json::from_slice::<Value>(&reply).ok().and_then(|v| {
                v.pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            shared.lock().protocol_version = version;
            shared.deliver(Inbound::Message(reply)).await;
            Ok(())
        }
        Answer::Failed(error) => Err(error),
        Answer::Accepted => Err(TransportError::protocol(
            "the server answered initialize with 202 and no result",
        )),
    }
}

async fn connect_legacy(shared: &Arc<Shared>, msg: Outgoing) -> Result<(), TransportError> {
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(super::sse::run_stream(Arc::clone(&shared.link), tx));
    shared.add_background(task.abort_handle());
    let post_url = match rx.await {
        Ok(Ok(url)) => url,
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            return Err(TransportError::Closed {
                what: "the event stream ended before its `endpoint` event",
            })
        }
    };
    shared.lock().mode = Mode::Legacy {
        post_url: post_url.clone(),
    };
    match post_legacy(shared, &post_url, msg.line, POST_INITIALIZE).await? {
        None => Ok(()),
        Some(error) => Err(error),
    }
}

/// Legacy POST: the answer comes on the event stream; `Some(error)` when the POST was refused
/// (an answer for that message alone), `Err` when the server could not be reached.
async fn post_legacy(
    shared: &Shared,
    url: &Url,
    line: Vec<u8>,
    during: &'static str,
) -> Result<Option<TransportError>, TransportError> {
    let resp = send(shared.post(url, line), during).await?;
    if resp.status().is_success() {
        // "Accepted" or similar; read (bounded) so the connection can be reused.
        let _ = common::read_body(resp, limits::HTTP_ERROR_EXCERPT_BYTES).await;
        Ok(None)
    } else {
        Ok(Some(common::status_error(resp, during).await))
    }
}

/// A notification or response: the server answers 202.
async fn post_oneway(shared: &Arc<Shared>, url: &Url, line: Vec<u8>) -> Result<(), TransportError> {
    let sent_sid = shared.session_id();
    let mut resp = send(shared.post(url, line.clone()), POST).await?;
    if resp.status() == StatusCode::NOT_FOUND && sent_sid.is_some() {
        reinitialize(shared, sent_sid.as_deref()).await?;
        resp = send(shared.post(url, line), POST).await?;
    }
    if !resp.status().is_success() {
        tracing::debug!(server = %shared.http().server, "notification refused: {}", common::status_error(resp, POST).await);
    }
    Ok(())
}

fn spawn_request(shared: &Arc<Shared>, msg: Outgoing, id: Value) {
    let key = id.to_string();
    let token = {
        let mut state = shared.lock();
        state.next_token += 1;
        state.next_token
    };
    let this = Arc::clone(shared);
    let task_key = key.clone();
    let task = tokio::spawn(async move {
        let outcome = run_request(&this, msg, &id).await;
        {
            let mut state = this.lock();
            if state
                .requests
                .get(&task_key)
                .is_some_and(|(t, _)| *t == token)
            {
                state.requests.remove(&task_key);
            }
        }
        match outcome {
            Ok(Answer::Reply(reply)) => {
                this.deliver(Inbound::Message(reply)).await;
            }
            Ok(Answer::Failed(error)) => {
                this.deliver(Inbound::Failed { id, error }).await;
            }
            Ok(Answer::Accepted) => {}
            Err(e) => this.fail(e).await,
        }
    });
    let mut state = shared.lock();
    if shared.link.is_closed() {
        task.abort();
    } else if !task.is_finished() {
        state.requests.insert(key, (token, task.abort_handle()));
    }
}

fn cancel_post(shared: &Shared, target: &Value) {
    if let Some((_, handle)) = shared.lock().requests.remove(&target.to_string()) {
        handle.abort();
    }
}

/// How a request POST ended.
enum Answer {
    /// The response to our request (other messages on the way were delivered already).
    Reply(Vec<u8>),
    /// 202: the answer will come on the GET stream.
    Accepted,
    /// A failure of this request alone (an HTTP status, a stream that ended without the answer).
    Failed(TransportError),
}

async fn run_request(
    shared: &Arc<Shared>,
    msg: Outgoing,
    id: &Value,
) -> Result<Answer, TransportError> {
    let sent_sid = shared.session_id();
    let during = post_step(msg.method.as_deref());
    let resp = send(shared.post(shared.url(), msg.line.clone()), during).await?;
    if resp.status() == StatusCode::NOT_FOUND && sent_sid.is_some() {
        reinitialize(shared, sent_sid.as_deref()).await?;
        // Only a tool call may have side effects; everything else the client sends is safe to repeat.
        if msg.method.as_deref() == Some("tools/call") {
            return Ok(Answer::Failed(TransportError::SessionExpired));
        }
        let resp = send(shared.post(shared.url(), msg.line), during).await?;
        return read_answer(shared, resp, id, during).await;
    }
    read_answer(shared, resp, id, during).await
}

/// Reads the answer to request `id`: a JSON body or an event stream (resumed if it drops).
/// Other messages on the stream (server requests, notifications) are delivered on the way.
async fn read_answer(
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
        return Ok(Answer::Reply(body));
    }
    if kind != EVENT_STREAM {
        return Ok(Answer::Failed(TransportError::protocol(format!(
            "unexpected content type {kind:?} (want JSON or an event stream)"
        ))));
    }
    let mut reader =
        common::EventReader::new(resp, SseParser::new(shared.http().max_message_bytes));
    let mut reconnects = 0;
    loop {
        match reader.next().await? {
            Some(event) if event.name == "message" => {
                reconnects = 0;
                let data = event.data.into_bytes();
                if common::response_id(&data).as_ref() == Some(id) {
                    return Ok(Answer::Reply(data));
                }
                if !shared.deliver(Inbound::Message(data)).await {
                    return Ok(Answer::Accepted);
                }
            }
            Some(_) => reconnects = 0,
            None => {
                // The connection closed before the answer: resume with Last-Event-ID, if the server
                // gave the stream ids; otherwise the answer is lost.
                let parser = reader.into_parser();
                let Some(last) = parser.last_event_id().map(str::to_owned) else {
                    return Ok(Answer::Failed(TransportError::Closed {
                        what: "the server closed the response stream before answering (no event id to resume from)",
                    }));
                };
                reconnects += 1;
                if reconnects > limits::SSE_MAX_RECONNECTS {
                    return Ok(Answer::Failed(TransportError::Closed {
                        what: "the response stream kept dropping without an answer (SSE_MAX_RECONNECTS)",
                    }));
                }
                tokio::time::sleep(common::retry_delay(&parser)).await;
                let resp = send(open_get(shared).header(LAST_EVENT_ID, last), RESUME).await?;
                if !resp.status().is_success() {
                    return Ok(Answer::Failed(common::status_error(resp, RESUME).await));
                }
                let kind = common::content_type(&resp);
                if kind != EVENT_STREAM {
                    return Ok(Answer::Failed(TransportError::protocol(format!(
                        "{RESUME}: the server answered {kind:?}, not an event stream"
                    ))));
                }
                reader = common::EventReader::new(resp, parser);
            }
        }
    }
}

fn open_get(shared: &Shared) -> RequestBuilder {
    shared
        .with_headers(shared.http().client.get(shared.url().clone()))
        .header(ACCEPT, EVENT_STREAM)
}

/// The optional GET stream for server-initiated messages. 405 means the server offers none.
fn start_listener(shared: &Arc<Shared>) {
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
        let resp = match send(req, LISTEN).await {
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
                    if event.name == "message"
                        && !shared
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

/// A new session after the old one expired (404). Once per expired id: concurrent requests that saw
/// the same 404 wait here and then retry on the new session.
async fn reinitialize(shared: &Arc<Shared>, stale: Option<&str>) -> Result<(), TransportError> {
    let _one = shared.reinit.lock().await;
    let init = {
        let mut state = shared.lock();
        if state.session_id.as_deref() != stale {
            return Ok(());
        }
        state.session_id = None;
        state.init_line.clone()
    };
    let Some(init) = init else {
        return Err(TransportError::protocol(
            "the session expired (HTTP 404) and there is no initialize to replay",
        ));
    };
    tracing::info!(server = %shared.http().server, "MCP session expired (HTTP 404); re-initialising");
    let resp = send(shared.post(shared.url(), init.clone()), REINIT).await?;
    if !resp.status().is_success() {
        return Err(common::status_error(resp, REINIT).await);
    }
    let sid = session_id_of(&resp)?;
    shared.lock().session_id = sid.clone();
    let id = Outgoing::parse(init).id.unwrap_or_default();
    match read_answer(shared, resp, &id, REINIT).await? {
        Answer::Reply(_) => {}
        Answer::Failed(error) => return Err(error),
        Answer::Accepted => {
            return Err(TransportError::protocol(format!(
                "{REINIT}: 202 without a result"
            )))
        }
    }
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec();
    let resp = send(shared.post(shared.url(), note), REINIT).await?;
    let _ = common::read_body(resp, limits::HTTP_ERROR_EXCERPT_BYTES).await;
    start_listener(shared);
    Ok(())
}

fn session_id_of(resp: &Response) -> Result<Option<String>, TransportError> {
    let Some(value) = resp.headers().get(SESSION_HEADER) else {
        return Ok(None);
    };
    let bytes = value.as_bytes();
    if bytes.is_empty()
        || bytes.len() > limits::HTTP_SESSION_ID_MAX_BYTES
        || !bytes.iter().all(|b| (0x21..=0x7e).contains(b))
    {
        return Err(TransportError::protocol(
            "the server sent an invalid Mcp-Session-Id (empty, too long, or not visible ASCII)",
        ));
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}
