//! The aggregate over stdio, for a client that spawns `mcp-sidecar mcp` (Claude Desktop, Cursor,
//! VS Code…): newline-delimited JSON-RPC on stdin and stdout, one session.
//!
//! Lines are read by `serving::read_loop` (through `--max-line-bytes`); every request runs as its
//! own task once it has a ticket of `serving::flow`, so a client that does not read its answers is
//! held back by its own blocked writes, while its answers to the servers' questions are still read;
//! `initialize` is served in order on the reader, so that the session's change notifications start
//! only after its answer, and so is the refusal of a request before it. A
//! request the client cancels is not answered (MCP); one cut short by the sidecar's stop is
//! answered with an error. The session ends at end of input, on a signal (`stop`) or when stdout
//! breaks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio_util::sync::CancellationToken;

use super::requests::answer::{self, Answer};
use super::requests::dispatch;
use super::requests::request::Request;
use super::requests::wire::{WireError, INTERNAL_ERROR, PARSE_ERROR};
use super::session::era::{self, Carrier, Era};
use super::session::legacy::Session;
use super::session::listen;
use super::shared::Aggregate;
use crate::jsonrpc::{ErrorObject, LineReader, RequestId};
use crate::limits;
use crate::serving::read_loop::{self, Front, Malformed, Step};
use crate::serving::Sink;
use crate::serving::{guarded, writer, Flow, Outbox, Stopped, Ticket};
use crate::telemetry::TraceContext;

/// Bounds of one stdio session.
pub(crate) struct Bounds {
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
    /// The budgets the client's requests take before they run.
    flow: Flow,
    /// Cancelled when the session ends: ends its notifications' task.
    stop: CancellationToken,
}

/// Serves the aggregate on `input`/`output` until end of input, `stop`, or a broken output.
pub(crate) async fn serve<R, W>(
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
        flow: Flow::new(bounds.max_inflight, limits::HOST_INFLIGHT_LINE_BYTES),
        stop: stop.clone(),
    });
    let mut lines = LineReader::new(
        BufReader::with_capacity(limits::HOST_READ_BUFFER_BYTES, input),
        bounds.max_line_bytes,
    );
    // No request ends an MCP session: only the input's end or the stop do.
    read_loop::run(&StdioFront(Arc::clone(&stdio)), &mut lines, &stop).await;
    stdio.stopping.store(true, Ordering::SeqCst);
    stop.cancel();
    stdio.session.asked.close("the session ended");
    stdio.session.requests.stop_all().await;
    stdio.outbox.flush().await;
    drop(writer);
}

/// MCP's side of the read loop.
struct StdioFront(Arc<Stdio>);

impl Front for StdioFront {
    type Params = Value;
    /// A request's era, method and params.
    type Admitted = (Era, String, Option<Value>);

    fn peer(&self) -> &'static str {
        "the MCP client"
    }

    fn flow(&self) -> &Flow {
        &self.0.flow
    }

    async fn malformed(&self, what: Malformed) {
        let (id, e) = match what {
            Malformed::TooLong { limit } => (
                None,
                WireError::invalid_request(format!(
                    "message longer than the {limit}-byte limit (--max-line-bytes); it was skipped"
                )),
            ),
            Malformed::InvalidJson(e) => (
                None,
                WireError::new(PARSE_ERROR, format!("invalid JSON: {e}")),
            ),
            Malformed::NotJsonRpc(not_rpc) => (
                not_rpc.id,
                WireError::invalid_request(format!(
                    "not a JSON-RPC 2.0 message: {}",
                    not_rpc.reason
                )),
            ),
        };
        self.0.answer(id.as_ref(), Err(e)).await;
    }

    fn notification(&self, method: String, params: Option<Value>) {
        dispatch::notification(&self.0.aggregate, &self.0.session, &method, params);
    }

    fn answered(&self, id: &RequestId, result: Result<Value, ErrorObject>, bytes: usize) -> bool {
        self.0.session.asked.answered(id, result, bytes)
    }

    async fn request(
        &self,
        id: RequestId,
        method: String,
        params: Option<Value>,
    ) -> Step<Self::Admitted> {
        let stdio = &self.0;
        let era = match era::classify(&method, params.as_ref(), Carrier::Stdio) {
            Ok(era) => era,
            Err(e) => {
                stdio.answer(Some(&id), Err(e)).await;
                return Step::Done;
            }
        };
        // In line order, not when the request's task runs (see `refused_before_initialize`).
        let refused = (era == Era::Legacy)
            .then(|| dispatch::refused_before_initialize(&stdio.session, &method))
            .flatten();
        if let Some(refused) = refused {
            stdio.answer(Some(&id), Err(refused)).await;
            return Step::Done;
        }
        if method == "initialize" && era == Era::Legacy {
            stdio.initialize(id, params).await;
            return Step::Done;
        }
        Step::Admit(id, (era, method, params))
    }

    async fn start(&self, id: RequestId, (era, method, params): Self::Admitted, ticket: Ticket) {
        self.0.start(id, era, method, params, ticket).await
    }

    async fn abandoned(&self, id: RequestId) {
        self.0.answer(Some(&id), Err(stopping())).await
    }
}

impl Stdio {
    /// `initialize`, in order on the reader; once the session is initialized, its change
    /// notifications start.
    async fn initialize(self: &Arc<Self>, id: RequestId, params: Option<Value>) {
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
            let (stdio, stop) = (Arc::clone(self), self.stop.clone());
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

    async fn answer(&self, id: Option<&RequestId>, outcome: Result<Answer, WireError>) {
        self.outbox.send(answer::line(id, &outcome)).await;
    }
}

fn stopping() -> WireError {
    WireError::new(INTERNAL_ERROR, "the sidecar is shutting down")
        .with_data(json!({"code": crate::error::ErrorCode::ShuttingDown.as_str()}))
}
