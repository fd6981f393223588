//! The aggregate over stdio, for a client that spawns `mcp-sidecar mcp` (Claude Desktop, Cursor,
//! VS Code…): newline-delimited JSON-RPC on stdin and stdout, one session.
//!
//! Lines are read through a bound (`--max-line-bytes`); every request runs as its own task once it
//! has a ticket of `serving::flow`, so a client that does not read its answers is held back by its
//! own blocked writes; `initialize` is served in order on the reader, so that the session's change
//! notifications start only after its answer, and so is the refusal of a request before it. A
//! request the client cancels is not answered (MCP); one cut short by the sidecar's stop is
//! answered with an error. The session ends at end of input, on a signal (`stop`) or when stdout
//! breaks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio_util::sync::CancellationToken;

use super::aggregate::Aggregate;
use super::dispatch;
use super::era::{self, Carrier, Era};
use super::listen;
use super::request::Request;
use super::session::Session;
use super::wire::{WireError, INTERNAL_ERROR, PARSE_ERROR};
use crate::jsonrpc::{encode_response, Incoming, LineError, LineReader, RequestId};
use crate::limits;
use crate::serving::Sink;
use crate::serving::{guarded, writer, Flow, Outbox, Stopped, Ticket};
use crate::telemetry::TraceContext;

/// Bounds of one stdio session.
pub(super) struct Bounds {
    pub max_line_bytes: usize,
    pub max_inflight: usize,
}

/// What one session's tasks share.
struct Stdio {
    aggregate: Arc<Aggregate>,
    session: Arc<Session>,
    outbox: Outbox,
    /// Set when the sidecar stops the session (not the client): requests cut short are answered.
    stopping: AtomicBool,
}

/// Serves the aggregate on `input`/`output` until end of input, `stop`, or a broken output.
pub(super) async fn serve<R, W>(
    aggregate: Arc<Aggregate>,
    input: R,
    output: W,
    bounds: Bounds,
    stop: CancellationToken,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // Cancelled by a signal (the parent token) or by the writer when stdout breaks.
    let stop = stop.child_token();
    let (outbox, writer) = writer::spawn(output, stop.clone());
    let stdio = Arc::new(Stdio {
        aggregate,
        session: Arc::new(Session::default()),
        outbox,
        stopping: AtomicBool::new(false),
    });
    let flow = Flow::new(bounds.max_inflight, limits::HOST_INFLIGHT_LINE_BYTES);
    let mut lines = LineReader::new(
        BufReader::with_capacity(limits::HOST_READ_BUFFER_BYTES, input),
        bounds.max_line_bytes,
    );
    loop {
        let next = tokio::select! {
            // Reading is abandoned for good: a half-read line is lost with the session.
            _ = stop.cancelled() => break,
            next = lines.next_line() => next,
        };
        let line = match next {
            Ok(Some(line)) => line,
            Ok(None) => {
                tracing::info!("the MCP client closed stdin; stopping every server");
                break;
            }
            Err(LineError::TooLong { limit }) => {
                let e = WireError::invalid_request(format!(
                    "message longer than the {limit}-byte limit (--max-line-bytes); it was skipped"
                ));
                stdio.answer(None, Err(e)).await;
                continue;
            }
            Err(LineError::Io(e)) => {
                tracing::warn!("reading stdin failed: {e}; stopping every server");
                break;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let size = line.len();
        let Some((id, method, params)) = stdio.read_message(line).await else {
            continue;
        };
        let era = match era::classify(&method, params.as_ref(), Carrier::Stdio) {
            Ok(era) => era,
            Err(e) => {
                stdio.answer(Some(&id), Err(e)).await;
                continue;
            }
        };
        // In line order, not when the request's task runs (see `refused_before_initialize`).
        let refused = (era == Era::Legacy)
            .then(|| dispatch::refused_before_initialize(&stdio.session, &method))
            .flatten();
        if let Some(refused) = refused {
            stdio.answer(Some(&id), Err(refused)).await;
            continue;
        }
        if method == "initialize" && era == Era::Legacy {
            stdio.initialize(id, params, &stop).await;
            continue;
        }
        let ticket = tokio::select! {
            ticket = flow.admit(size) => ticket,
            _ = stop.cancelled() => {
                stdio.answer(Some(&id), Err(stopping())).await;
                break;
            }
        };
        stdio.start(id, era, method, params, ticket).await;
    }
    stdio.stopping.store(true, Ordering::SeqCst);
    stop.cancel();
    stdio.session.asked.close("the session ended");
    stdio.session.requests.stop_all().await;
    stdio.outbox.flush().await;
    drop(writer);
}

impl Stdio {
    /// A request's parts, or `None` after handling what is not a request (answering a malformed
    /// line, taking a notification).
    async fn read_message(&self, line: &[u8]) -> Option<(RequestId, String, Option<Value>)> {
        match Incoming::parse(line) {
            Err(e) => {
                let e = WireError::new(PARSE_ERROR, format!("invalid JSON: {e}"));
                self.answer(None, Err(e)).await;
                None
            }
            Ok(Err(not_rpc)) => {
                let e = WireError::invalid_request(format!(
                    "not a JSON-RPC 2.0 message: {}",
                    not_rpc.reason
                ));
                self.answer(not_rpc.id.as_ref(), Err(e)).await;
                None
            }
            Ok(Ok(Incoming::Notification { method, params })) => {
                dispatch::notification(&self.aggregate, &self.session, &method, params);
                None
            }
            Ok(Ok(Incoming::Response { id, result })) => {
                if !self.session.asked.answered(&id, result, line.len()) {
                    tracing::debug!(%id, "ignored a response from the MCP client: no request of ours waits for it");
                }
                None
            }
            Ok(Ok(Incoming::Request { id, method, params })) => Some((id, method, params)),
        }
    }

    /// `initialize`, in order on the reader; once the session is initialized, its change
    /// notifications start.
    async fn initialize(
        self: &Arc<Self>,
        id: RequestId,
        params: Option<Value>,
        stop: &CancellationToken,
    ) {
        let sink = Sink::Outbox(self.outbox.clone());
        let request = Request {
            aggregate: &self.aggregate,
            session: &self.session,
            id: &id,
            era: &Era::Legacy,
            sink: &sink,
            rules: None,
            traced: None,
            trace: TraceContext::default(),
        };
        let outcome = dispatch::request(request, "initialize", params).await;
        let initialized = outcome.is_ok();
        // Before the answer: no change after it is missed.
        let heard =
            initialized.then(|| (self.aggregate.subscribe(), self.aggregate.subscribe_logs()));
        self.answer(Some(&id), outcome).await;
        if let Some((notices, logs)) = heard {
            // Its servers' questions outside a call come to this client.
            self.aggregate.asks().stand_by(&self.session, &sink);
            let (stdio, stop) = (Arc::clone(self), stop.clone());
            tokio::spawn(async move {
                tokio::select! {
                    _ = listen::forward_legacy(notices, logs, &stdio.session, &sink) => {}
                    _ = stop.cancelled() => {}
                }
            });
        }
    }

    /// Runs request `id` as a task of its own (see the module doc for how it ends).
    async fn start(
        self: &Arc<Self>,
        id: RequestId,
        era: Era,
        method: String,
        params: Option<Value>,
        ticket: Ticket,
    ) {
        let Some(token) = self.session.requests.begin(&id) else {
            let e = WireError::invalid_request(format!(
                "request id {id} is already in flight; use a new id for each request"
            ));
            self.answer(Some(&id), Err(e)).await;
            return;
        };
        let stdio = Arc::clone(self);
        self.session.requests.spawn(async move {
            let sink = Sink::Outbox(stdio.outbox.clone());
            let request = Request {
                aggregate: &stdio.aggregate,
                session: &stdio.session,
                id: &id,
                era: &era,
                sink: &sink,
                rules: None,
                traced: None,
                trace: TraceContext::default(),
            };
            let outcome = guarded(&token, dispatch::request(request, &method, params)).await;
            stdio.session.requests.finish(&id);
            match outcome {
                Ok(outcome) => stdio.answer(Some(&id), outcome).await,
                Err(Stopped::Cancelled) if stdio.stopping.load(Ordering::SeqCst) => {
                    stdio.answer(Some(&id), Err(stopping())).await
                }
                // The client cancelled it: MCP wants no answer.
                Err(Stopped::Cancelled) => {}
                Err(Stopped::Panicked(what)) => {
                    tracing::error!(method, "a request handler panicked: {what}");
                    let e = WireError::new(
                        INTERNAL_ERROR,
                        format!("internal error while serving `{method}` ({what}); the sidecar goes on serving"),
                    );
                    stdio.answer(Some(&id), Err(e)).await;
                }
            }
            drop(ticket);
        });
    }

    async fn answer(&self, id: Option<&RequestId>, outcome: Result<Value, WireError>) {
        let line = match &outcome {
            Ok(result) => encode_response(id, Ok(result)),
            Err(e) => encode_response::<Value>(id, Err(&e.to_json())),
        };
        self.outbox.send(line).await;
    }
}

fn stopping() -> WireError {
    WireError::new(INTERNAL_ERROR, "the sidecar is shutting down")
        .with_data(json!({"code": crate::error::ErrorCode::ShuttingDown.as_str()}))
}
