//! The host session's read loop and its shutdown choreography: lines are read through a bound and
//! parsed; `initialize` and `shutdown` are handled in order on the reader (the host may pipeline
//! requests right behind them), as is the refusal of any request before `initialize` (decided by
//! line order, never by when a task runs); every other request gets a task of its own
//! (`requests`) once it has a ticket (`flow`): while none is free the reader reads nothing more
//! but the host's answers to the sidecar's own requests (`reading`), so a host that does not read
//! its answers is held back by its own blocked writes. Every answer the reader gives itself
//! (malformed lines, refusals) is queued before the next line is read, for the same reason.
//!
//! Three ways to stop, one sequence (`session::stop_all`, then a flush of the outbox): `shutdown`
//! (answered after the stop), end of input or a read error, and a signal (`ServeOptions::stop`) or
//! a broken stdout (the writer cancels the same token's child). Every way cancels that token
//! first, which bounds how long the stop's writes may wait for a host that no longer reads
//! (`limits::STDOUT_STALL_AT_STOP`): the sidecar exits even then.

use std::sync::Arc;

use serde_json::json;
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, BufReader};
use tokio_util::sync::CancellationToken;

use super::context::{self, Host};
use super::params::{self, parse};
use super::reading::{self, Line, Parsed};
use super::{requests, session};
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::{Incoming, LineReader, RequestId};
use crate::limits;
use crate::serving::{writer, Flow};

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
    // A line read while a request waited for its ticket, handled next.
    let mut held = None;
    loop {
        let line = match held.take() {
            Some(line) => line,
            None => reading::read(&host, &mut lines, &stop).await,
        };
        let (parsed, bytes) = match line {
            Line::Message { parsed, bytes } => (parsed, bytes),
            Line::Nothing => continue,
            Line::End => break,
        };
        let mut reader = Reader {
            lines: &mut lines,
            held: &mut held,
            stop: &stop,
        };
        match handle(&host, parsed, bytes, &mut reader).await {
            Next::Read => {}
            Next::Stop => {
                // A request read while the last one waited is answered too, as every request
                // that was read is.
                if let Some(Line::Message {
                    parsed: Ok(Ok(Incoming::Request { id, .. })),
                    ..
                }) = held.take()
                {
                    host.answer(Some(&id), Err(shutting_down(&id))).await;
                }
                break;
            }
            Next::Shutdown(id) => {
                // `shutdown`: answered once every server is stopped, and flushed before returning.
                // Stopping: from now on a stdout nobody reads cannot hold the exit (`writer`).
                stop.cancel();
                session::stop_all(&host).await;
                host.answer(Some(&id), Ok(json!({}))).await;
                host.outbox.flush().await;
                drop(writer);
                return;
            }
        }
    }
    stop.cancel();
    session::stop_all(&host).await;
    host.outbox.flush().await;
}

/// What handling a request may need of the reader: reading on while it waits for a ticket.
struct Reader<'a, R> {
    lines: &'a mut LineReader<R>,
    held: &'a mut Option<Line>,
    stop: &'a CancellationToken,
}

/// What the reader does after one line.
enum Next {
    Read,
    /// A valid `shutdown` request, which ends the session.
    Shutdown(RequestId),
    /// A signal came while the line waited for a ticket: stop as at end of input.
    Stop,
}

/// Handles one message.
async fn handle<R: AsyncBufRead + Unpin>(
    host: &Arc<Host>,
    parsed: Parsed,
    bytes: usize,
    reader: &mut Reader<'_, R>,
) -> Next {
    match parsed {
        Err(e) => {
            let e = Error::new(ErrorCode::ParseError, format!("invalid JSON: {e}"));
            host.answer(None, Err(e)).await;
        }
        Ok(Err(not_rpc)) => {
            let e = Error::new(
                ErrorCode::InvalidRequest,
                format!("not a JSON-RPC 2.0 message: {}", not_rpc.reason),
            );
            host.answer(not_rpc.id.as_ref(), Err(e)).await;
        }
        Ok(Ok(Incoming::Notification { method, params })) => {
            requests::notification(host, &method, params)
        }
        Ok(Ok(Incoming::Response { id, result })) => {
            reading::route_answer(host, &id, result, bytes)
        }
        Ok(Ok(Incoming::Request { id, method, params })) => match method.as_str() {
            // Handled in order, on the reader: the host may pipeline requests right behind them.
            "initialize" => {
                let outcome = session::initialize(host, params);
                host.answer(Some(&id), outcome).await;
            }
            "shutdown" => match parse::<params::Empty>("shutdown", params) {
                Ok(_) => return Next::Shutdown(id),
                Err(e) => host.answer(Some(&id), Err(e)).await,
            },
            // Refused here, in line order: a request read before `initialize` is refused even
            // when `initialize` follows it in the same burst (its task would run after it).
            _ if host.registry.get().is_none() => {
                host.answer(Some(&id), Err(context::not_initialized()))
                    .await;
            }
            _ => {
                let admitted =
                    reading::admit(host, bytes, reader.lines, reader.held, reader.stop).await;
                let Some(ticket) = admitted else {
                    // The request was read, so it is answered, as every request in flight is.
                    tracing::info!("stop requested by a signal; stopping every server");
                    host.answer(Some(&id), Err(shutting_down(&id))).await;
                    return Next::Stop;
                };
                requests::start(host, id, method, params, ticket).await;
            }
        },
    }
    Next::Read
}

fn shutting_down(id: &RequestId) -> Error {
    Error::new(
        ErrorCode::ShuttingDown,
        format!("request {id} was abandoned: the sidecar is shutting down"),
    )
}
