//! The host session: its read loop (`serving::read_loop`, with the host protocol's answers to
//! each kind of line) and its shutdown choreography. `initialize` and `shutdown` are handled in
//! order on the reader (the host may pipeline requests right behind them), as is the refusal of
//! any request before `initialize` (decided by line order, never by when a task runs); every
//! other request gets a task of its own (`requests`) once it has a ticket (`flow`), and while none
//! is free the reader reads nothing more but the host's answers to the sidecar's own requests.
//!
//! Three ways to stop, one sequence (`session::stop_all`, then a flush of the outbox): `shutdown`
//! (answered after the stop), end of input or a read error, and a signal (`ServeOptions::stop`) or
//! a broken stdout (the writer cancels the same token's child). Every way cancels that token
//! first, which bounds how long the stop's writes may wait for a host that no longer reads
//! (`limits::STDOUT_STALL_AT_STOP`): the sidecar exits even then.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio_util::sync::CancellationToken;

use super::context::{self, Host};
use super::params::{self, parse};
use super::{requests, session};
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::{ErrorObject, LineReader, Params, RequestId};
use crate::limits;
use crate::serving::read_loop::{self, Ended, Front, Malformed, Step};
use crate::serving::{writer, Flow, Ticket};

pub(crate) struct ServeOptions {
    /// Longest line accepted from the host.
    pub max_line_bytes: usize,
    /// The schema cache for lazy servers (`None`: no cache).
    pub cache: Option<crate::store::SchemaCache>,
    /// Cancelled to stop gracefully as if stdin had ended (the first SIGTERM/SIGINT/SIGHUP).
    pub stop: CancellationToken,
    /// `--config` files, loaded (source `user`) once the host has initialized.
    pub configs: Vec<std::path::PathBuf>,
    /// Requests in flight at once (`--max-inflight`); past it the reader waits.
    pub max_inflight: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            max_line_bytes: limits::DEFAULT_HOST_LINE_BYTES,
            cache: None,
            stop: CancellationToken::new(),
            configs: Vec::new(),
            max_inflight: limits::DEFAULT_HOST_MAX_INFLIGHT,
        }
    }
}

/// Serves host protocol v1 until `shutdown` or end of input, then stops every server.
pub(crate) async fn serve<R, W>(input: R, output: W, options: ServeOptions)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // Cancelled by a signal (the parent token) or by the writer when stdout breaks.
    let stop = options.stop.child_token();
    let (outbox, writer) = writer::spawn(output, stop.clone());
    let flow = Flow::new(options.max_inflight, limits::HOST_INFLIGHT_LINE_BYTES);
    let host = Arc::new(Host::new(outbox, options.cache, options.configs, flow));
    let mut lines = LineReader::new(
        BufReader::with_capacity(limits::HOST_READ_BUFFER_BYTES, input),
        options.max_line_bytes,
    );
    let front = HostFront(Arc::clone(&host));
    if let Ended::Finish(id) = read_loop::run(&front, &mut lines, &stop).await {
        // `shutdown`: answered once every server is stopped, and flushed before returning.
        // Stopping: from now on a stdout nobody reads cannot hold the exit (`writer`).
        stop.cancel();
        session::stop_all(&host).await;
        host.answer(Some(&id), Ok(json!({}))).await;
        host.outbox.flush().await;
        drop(writer);
        return;
    }
    stop.cancel();
    session::stop_all(&host).await;
    host.outbox.flush().await;
}

/// The host protocol's side of the read loop.
struct HostFront(Arc<Host>);

impl Front for HostFront {
    /// A request's method and params.
    type Admitted = (String, Option<Params>);
    type Params = Params;

    fn peer(&self) -> &'static str {
        "the host"
    }

    fn flow(&self) -> &Flow {
        &self.0.flow
    }

    async fn malformed(&self, what: Malformed) {
        let (id, e) = match what {
            Malformed::TooLong { limit } => (
                None,
                Error::new(
                    ErrorCode::MessageTooLarge,
                    format!("request line longer than the {limit}-byte limit (--max-line-bytes); it was skipped"),
                )
                .with("setting", "--max-line-bytes")
                .with("limit", limit as u64),
            ),
            Malformed::InvalidJson(e) => (
                None,
                Error::new(ErrorCode::ParseError, format!("invalid JSON: {e}")),
            ),
            Malformed::NotJsonRpc(not_rpc) => (
                not_rpc.id,
                Error::new(
                    ErrorCode::InvalidRequest,
                    format!("not a JSON-RPC 2.0 message: {}", not_rpc.reason),
                ),
            ),
        };
        self.0.answer(id.as_ref(), Err(e)).await;
    }

    fn notification(&self, method: String, params: Option<Params>) {
        requests::notification(&self.0, &method, params)
    }

    fn answered(&self, id: &RequestId, result: Result<Value, ErrorObject>, bytes: usize) -> bool {
        self.0
            .asks
            .get()
            .is_some_and(|asks| asks.answered(id, result, bytes))
    }

    async fn request(
        &self,
        id: RequestId,
        method: String,
        params: Option<Params>,
    ) -> Step<Self::Admitted> {
        let host = &self.0;
        match method.as_str() {
            // Handled in order, on the reader: the host may pipeline requests right behind them.
            "initialize" => {
                let outcome = session::initialize(host, params);
                host.answer(Some(&id), outcome).await;
            }
            "shutdown" => match parse::<params::Empty>("shutdown", params) {
                Ok(_) => return Step::Finish(id),
                Err(e) => host.answer(Some(&id), Err(e)).await,
            },
            // Refused here, in line order: a request read before `initialize` is refused even
            // when `initialize` follows it in the same burst (its task would run after it).
            _ if host.registry.get().is_none() => {
                host.answer(Some(&id), Err(context::not_initialized()))
                    .await;
            }
            _ => return Step::Admit(id, (method, params)),
        }
        Step::Done
    }

    async fn start(&self, id: RequestId, (method, params): Self::Admitted, ticket: Ticket) {
        requests::start(&self.0, id, method, params, ticket).await
    }

    async fn abandoned(&self, id: RequestId) {
        let e = Error::new(
            ErrorCode::ShuttingDown,
            format!("request {id} was abandoned: the sidecar is shutting down"),
        );
        self.0.answer(Some(&id), Err(e)).await;
    }
}
