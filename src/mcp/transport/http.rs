//! The HTTP transports behind one [`Transport`]: Streamable HTTP (2025-11-25), legacy HTTP+SSE
//! (2024-11-05, in [`super::sse`]), and the automatic choice between them.
//!
//! Shape: `send` queues a message; one dispatcher task POSTs them in order. A request's POST runs in
//! its own task (a slow tool must not hold up the others) and whatever answers it — a JSON body or
//! an event stream, resumed with `Last-Event-ID` if it drops — lands in the inbound queue that the
//! session reads. HTTP failures of a request become a JSON-RPC error reply to that request, so the
//! session (shared with stdio) needs no HTTP knowledge; failures that end the connection (refused,
//! oversize, a legacy stream that ended) are fatal transport errors and the supervisor's restart
//! policy takes over. A request's POST ends when its answer arrived, or when the session cancels it
//! (`notifications/cancelled`, sent on timeout and on host cancellation), or when the transport closes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{RequestBuilder, Response, StatusCode, Url};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use super::http_common::{
    self as common, Http, InboundSource, InboundTx, Outgoing, RemoteOptions, ACCEPT_BOTH,
    EVENT_STREAM, LAST_EVENT_ID, SESSION_HEADER, VERSION_HEADER,
};
use super::sse_parser::SseParser;
use super::{BoxFuture, MessageSink, Transport, TransportError};
use crate::config::RemoteKind;
use crate::limits;

/// Builds the transport; nothing is sent until the session's first message (`initialize`).
pub fn transport(options: RemoteOptions, kind: RemoteKind) -> Result<Transport, String> {
    let http = Http::new(&options)?;
    let (in_tx, in_rx) = mpsc::channel(limits::HTTP_INBOUND_QUEUE);
    let (out_tx, out_rx) = mpsc::channel(limits::HTTP_OUTBOUND_QUEUE);
    let shared = Arc::new(Shared {
        http,
        url: options.url,
        kind,
        inbound: in_tx,
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

pub(super) struct Shared {
    pub(super) http: Http,
    /// The configured URL: the MCP endpoint, or the legacy SSE URL.
    pub(super) url: Url,
    kind: RemoteKind,
    pub(super) inbound: InboundTx,
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
    closed: bool,
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

    pub(super) fn with_headers(&self, req: RequestBuilder) -> RequestBuilder {
        let state = self.lock();
        let mut req = req.headers(self.http.headers.clone());
        if let Some(sid) = &state.session_id {
            req = req.header(SESSION_HEADER, sid);
        }
        if let Some(v) = &state.protocol_version {
            req = req.header(VERSION_HEADER, v);
        }
        req
    }

    fn post(&self, url: &Url, body: Vec<u8>) -> RequestBuilder {
        self.with_headers(self.http.client.post(url.clone()))
            .header(ACCEPT, ACCEPT_BOTH)
            .header(CONTENT_TYPE, "application/json")
            .body(body)
    }

    /// Queues a message for the session; false once the session stopped reading.
    pub(super) async fn deliver(&self, message: Result<Vec<u8>, TransportError>) -> bool {
        self.inbound.send(message).await.is_ok()
    }

    pub(super) async fn fail(&self, error: TransportError) {
        if !self.lock().closed {
            let _ = self.inbound.send(Err(error)).await;
        }
    }

    fn session_id(&self) -> Option<String> {
        self.lock().session_id.clone()
    }

    fn abort_all(&self) {
        let mut state = self.lock();
        state.closed = true;
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

    pub(super) fn add_background(&self, handle: AbortHandle) {
        let mut state = self.lock();
        if state.closed {
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
                    .with_headers(self.shared.http.client.delete(self.shared.url.clone()));
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
                    if let Err(e) = post_oneway(&shared, &shared.url, msg.line).await {
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
                match post_legacy(&shared, &post_url, msg.line).await {
                    Ok(None) => {}
                    Ok(Some(why)) => match id {
                        Some(id) => {
                            if !shared.deliver(Ok(common::error_reply(&id, &why))).await {
                                return;
                            }
                        }
                        None => {
                            tracing::debug!(server = %shared.http.server, "notification refused: {why}")
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
        return Err(common::io(
            "the first message to a remote server must be initialize",
        ));
    };
    if shared.kind == RemoteKind::Sse {
        return connect_legacy(shared, msg).await;
    }
    shared.lock().init_line = Some(msg.line.clone());
    let resp = send(shared.post(&shared.url, msg.line.clone())).await?;
    let status = resp.status();
    if shared.kind == RemoteKind::Auto
        && matches!(
            status,
            StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        )
    {
        tracing::info!(server = %shared.http.server, %status, "POST initialize refused; trying legacy HTTP+SSE");
        shared.lock().init_line = None;
        return connect_legacy(shared, msg).await;
    }
    if !status.is_success() {
        let what = if status.is_redirection() {
            format!("HTTP {status}: a redirect to another origin was refused")
        } else {
            common::error_excerpt(resp).await
        };
        return Err(common::io(format!(
            "POST initialize to {} failed: {what}",
            shared.url
        )));
    }
    let sid = session_id_of(&resp)?;
    {
        let mut state = shared.lock();
        state.mode = Mode::Streamable;
        state.session_id = sid;
    }
    match read_answer(shared, resp, &id).await? {
        Answer::Reply(reply) => {
            let version = serde_json::from_slice::<Value>(&reply).ok().and_then(|v| {
                v.pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            shared.lock().protocol_version = version;
            shared.deliver(Ok(reply)).await;
            Ok(())
        }
        Answer::Failed(why) => Err(common::io(format!("initialize failed: {why}"))),
        Answer::Accepted => Err(common::io(
            "the server answered initialize with 202 and no result",
        )),
    }
}

async fn connect_legacy(shared: &Arc<Shared>, msg: Outgoing) -> Result<(), TransportError> {
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(super::sse::run_stream(Arc::clone(shared), tx));
    shared.add_background(task.abort_handle());
    let post_url = match rx.await {
        Ok(Ok(url)) => url,
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            return Err(common::io(
                "the event stream ended before its `endpoint` event",
            ))
        }
    };
    shared.lock().mode = Mode::Legacy {
        post_url: post_url.clone(),
    };
    match post_legacy(shared, &post_url, msg.line).await? {
        None => Ok(()),
        Some(why) => Err(common::io(format!("POST initialize failed: {why}"))),
    }
}

/// Legacy POST: the answer comes on the event stream; `Some(why)` when the POST was refused.
async fn post_legacy(
    shared: &Shared,
    url: &Url,
    line: Vec<u8>,
) -> Result<Option<String>, TransportError> {
    let resp = send(shared.post(url, line)).await?;
    if resp.status().is_success() {
        // "Accepted" or similar; read (bounded) so the connection can be reused.
        let _ = common::read_body(resp, limits::HTTP_ERROR_EXCERPT_BYTES).await;
        Ok(None)
    } else {
        Ok(Some(common::error_excerpt(resp).await))
    }
}

/// A notification or response: the server answers 202.
async fn post_oneway(shared: &Arc<Shared>, url: &Url, line: Vec<u8>) -> Result<(), TransportError> {
    let sent_sid = shared.session_id();
    let resp = send(shared.post(url, line.clone())).await?;
    if resp.status() == StatusCode::NOT_FOUND && sent_sid.is_some() {
        reinitialize(shared, sent_sid.as_deref()).await?;
        let resp = send(shared.post(url, line)).await?;
        if !resp.status().is_success() {
            tracing::debug!(server = %shared.http.server, "notification refused: {}", common::error_excerpt(resp).await);
        }
        return Ok(());
    }
    if !resp.status().is_success() {
        tracing::debug!(server = %shared.http.server, "notification refused: {}", common::error_excerpt(resp).await);
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
                this.deliver(Ok(reply)).await;
            }
            Ok(Answer::Failed(why)) => {
                this.deliver(Ok(common::error_reply(&id, &why))).await;
            }
            Ok(Answer::Accepted) => {}
            Err(e) => this.fail(e).await,
        }
    });
    let mut state = shared.lock();
    if state.closed {
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
    /// An HTTP-level failure, as a message for the error reply.
    Failed(String),
}

async fn run_request(
    shared: &Arc<Shared>,
    msg: Outgoing,
    id: &Value,
) -> Result<Answer, TransportError> {
    let sent_sid = shared.session_id();
    let resp = send(shared.post(&shared.url, msg.line.clone())).await?;
    if resp.status() == StatusCode::NOT_FOUND && sent_sid.is_some() {
        reinitialize(shared, sent_sid.as_deref()).await?;
        if msg.method.as_deref() == Some("tools/call") {
            return Ok(Answer::Failed(
                "the server's MCP session expired (HTTP 404) while tools/call was sent; a new session was \
                 started but the call was not retried because it may have run"
                    .to_owned(),
            ));
        }
        let resp = send(shared.post(&shared.url, msg.line)).await?;
        return read_answer(shared, resp, id).await;
    }
    read_answer(shared, resp, id).await
}

/// Reads the answer to request `id`: a JSON body or an event stream (resumed if it drops).
/// Other messages on the stream (server requests, notifications) are delivered on the way.
async fn read_answer(
    shared: &Arc<Shared>,
    resp: Response,
    id: &Value,
) -> Result<Answer, TransportError> {
    let status = resp.status();
    if status == StatusCode::ACCEPTED {
        return Ok(Answer::Accepted);
    }
    if !status.is_success() {
        if status.is_redirection() {
            return Ok(Answer::Failed(format!(
                "HTTP {status}: a redirect to another origin was refused"
            )));
        }
        return Ok(Answer::Failed(common::error_excerpt(resp).await));
    }
    let kind = common::content_type(&resp);
    if kind == "application/json" {
        let body = common::read_body(resp, shared.http.max_message_bytes).await?;
        return Ok(Answer::Reply(body));
    }
    if kind != EVENT_STREAM {
        return Ok(Answer::Failed(format!(
            "unexpected content type {kind:?} (want JSON or an event stream)"
        )));
    }
    let mut reader = common::EventReader::new(resp, SseParser::new(shared.http.max_message_bytes));
    let mut reconnects = 0;
    loop {
        match reader.next().await? {
            Some(event) if event.name == "message" => {
                reconnects = 0;
                let data = event.data.into_bytes();
                if common::response_id(&data).as_ref() == Some(id) {
                    return Ok(Answer::Reply(data));
                }
                if !shared.deliver(Ok(data)).await {
                    return Ok(Answer::Accepted);
                }
            }
            Some(_) => reconnects = 0,
            None => {
                // The connection closed before the answer: resume with Last-Event-ID, if the server
                // gave the stream ids; otherwise the answer is lost.
                let parser = reader.into_parser();
                let Some(last) = parser.last_event_id().map(str::to_owned) else {
                    return Ok(Answer::Failed(
                        "the server closed the response stream before answering (no event id to resume from)".to_owned(),
                    ));
                };
                reconnects += 1;
                if reconnects > limits::SSE_MAX_RECONNECTS {
                    return Ok(Answer::Failed(format!(
                        "the response stream dropped {} times in a row without an answer",
                        limits::SSE_MAX_RECONNECTS
                    )));
                }
                tokio::time::sleep(common::retry_delay(&parser)).await;
                let resp = send(open_get(shared).header(LAST_EVENT_ID, last)).await?;
                if !resp.status().is_success() || common::content_type(&resp) != EVENT_STREAM {
                    return Ok(Answer::Failed(format!(
                        "resuming the response stream failed: {}",
                        common::error_excerpt(resp).await
                    )));
                }
                reader = common::EventReader::new(resp, parser);
            }
        }
    }
}

fn open_get(shared: &Shared) -> RequestBuilder {
    shared
        .with_headers(shared.http.client.get(shared.url.clone()))
        .header(ACCEPT, EVENT_STREAM)
}

/// The optional GET stream for server-initiated messages. 405 means the server offers none.
fn start_listener(shared: &Arc<Shared>) {
    let this = Arc::clone(shared);
    let task = tokio::spawn(async move { listen(&this).await });
    let mut state = shared.lock();
    if state.closed {
        task.abort();
    } else if let Some(old) = state.listener.replace(task.abort_handle()) {
        old.abort();
    }
}

async fn listen(shared: &Arc<Shared>) {
    let mut parser = SseParser::new(shared.http.max_message_bytes);
    let mut failures = 0;
    loop {
        let mut req = open_get(shared);
        if let Some(last) = parser.last_event_id() {
            req = req.header(LAST_EVENT_ID, last.to_owned());
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(server = %shared.http.server, "GET stream failed: {}", common::describe(&e));
                return;
            }
        };
        if resp.status() == StatusCode::METHOD_NOT_ALLOWED {
            tracing::debug!(server = %shared.http.server, "the server offers no GET stream (405)");
            return;
        }
        if !resp.status().is_success() || common::content_type(&resp) != EVENT_STREAM {
            tracing::debug!(server = %shared.http.server, "no GET stream: {}", common::error_excerpt(resp).await);
            return;
        }
        let mut reader = common::EventReader::new(resp, parser);
        loop {
            match reader.next().await {
                Ok(Some(event)) => {
                    failures = 0;
                    if event.name == "message" && !shared.deliver(Ok(event.data.into_bytes())).await
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
            tracing::debug!(server = %shared.http.server, "GET stream given up after repeated drops");
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
        return Err(common::io(
            "the session expired and there is no initialize to replay",
        ));
    };
    tracing::info!(server = %shared.http.server, "MCP session expired (HTTP 404); re-initialising");
    let resp = send(shared.post(&shared.url, init.clone())).await?;
    if !resp.status().is_success() {
        return Err(common::io(format!(
            "the session expired and re-initialising failed: {}",
            common::error_excerpt(resp).await
        )));
    }
    let sid = session_id_of(&resp)?;
    shared.lock().session_id = sid.clone();
    let id = Outgoing::parse(init).id.unwrap_or_default();
    match read_answer(shared, resp, &id).await? {
        Answer::Reply(_) => {}
        Answer::Failed(why) => return Err(common::io(format!("re-initialising failed: {why}"))),
        Answer::Accepted => return Err(common::io("re-initialising failed: 202 without a result")),
    }
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec();
    let resp = send(shared.post(&shared.url, note)).await?;
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
        return Err(common::io(
            "the server sent an invalid Mcp-Session-Id (empty, too long, or not visible ASCII)",
        ));
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}

pub(super) async fn send(req: RequestBuilder) -> Result<Response, TransportError> {
    req.send()
        .await
        .map_err(|e| common::io(format!("HTTP request failed: {}", common::describe(&e))))
}
