//! The host's lines as the reader takes them: read through the line bound, classified (an owned
//! message, so the reader can read on while it holds one), answers to the sidecar's own requests
//! routed to them (`asks`), and the wait for a request's ticket (`flow`) during which those
//! answers are still read.
//!
//! Why read on while a request waits: every ticket may be held by requests that wait for the
//! host's answers to the sidecar's requests (a tool call whose server asked for a sampling), and
//! those answers sit in stdin behind the waiting request. So while it waits, the reader goes on
//! reading answers; the first line that is not an answer is held (one line, so memory stays
//! bounded) and reading stops until the ticket comes.

use tokio::io::AsyncBufRead;
use tokio_util::sync::CancellationToken;

use super::context::Host;
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::{ErrorObject, Incoming, LineError, LineReader, NotJsonRpc, RequestId};
use crate::serving::Ticket;
use serde_json::Value;

/// A message as parsed: JSON syntax error, not JSON-RPC, or a message.
pub(super) type Parsed = Result<Result<Incoming, NotJsonRpc>, serde_json::Error>;

/// What one read from the host gave.
pub(super) enum Line {
    Message {
        parsed: Parsed,
        bytes: usize,
    },
    /// Nothing to handle: a blank line, or an over-long one (already answered MESSAGE_TOO_LARGE).
    Nothing,
    /// Reading ends: a signal, end of input, or a read error.
    End,
}

/// Reads and classifies the next line; ends at once when `stop` is cancelled.
pub(super) async fn read<R: AsyncBufRead + Unpin>(
    host: &Host,
    lines: &mut LineReader<R>,
    stop: &CancellationToken,
) -> Line {
    let next = tokio::select! {
        // A signal asked for a graceful stop. Reading is abandoned for good, so losing a
        // half-read line by dropping `next_line` loses nothing that would have been served.
        _ = stop.cancelled() => {
            tracing::info!("stop requested (a signal, or stdout broke); stopping every server");
            return Line::End;
        }
        next = lines.next_line() => next,
    };
    classify(host, next).await
}

/// What a read gave, as a [`Line`]; an over-long line is answered here.
async fn classify(host: &Host, next: Result<Option<&[u8]>, LineError>) -> Line {
    match next {
        Ok(Some(line)) if line.iter().all(u8::is_ascii_whitespace) => Line::Nothing,
        Ok(Some(line)) => Line::Message {
            parsed: Incoming::parse(line),
            bytes: line.len(),
        },
        Ok(None) => {
            tracing::info!("host closed stdin; stopping every server");
            Line::End
        }
        Err(LineError::TooLong { limit }) => {
            let e = Error::new(
                ErrorCode::MessageTooLarge,
                format!("request line longer than the {limit}-byte limit (--max-line-bytes); it was skipped"),
            )
            .with("setting", "--max-line-bytes")
            .with("limit", limit as u64);
            host.answer(None, Err(e)).await;
            Line::Nothing
        }
        Err(LineError::Io(e)) => {
            tracing::warn!("reading stdin failed: {e}; stopping every server");
            Line::End
        }
    }
}

/// A response from the host: the answer to one of the sidecar's requests, or ignored.
pub(super) fn route_answer(
    host: &Host,
    id: &RequestId,
    result: Result<Value, ErrorObject>,
    bytes: usize,
) {
    let delivered = host
        .asks
        .get()
        .is_some_and(|asks| asks.answered(id, result, bytes));
    if !delivered {
        tracing::debug!(%id, "ignored a response from the host: no request of the sidecar waits for it");
    }
}

/// A ticket for a request of `bytes` bytes, reading the host's answers meanwhile (see the module
/// doc); a line that is not an answer goes to `held`. `None` when `stop` was cancelled first.
pub(super) async fn admit<R: AsyncBufRead + Unpin>(
    host: &Host,
    bytes: usize,
    lines: &mut LineReader<R>,
    held: &mut Option<Line>,
    stop: &CancellationToken,
) -> Option<Ticket> {
    let admission = host.flow.admit(bytes);
    tokio::pin!(admission);
    loop {
        // `next_line` is cancel-safe (a partial line stays in the reader), so losing the race to
        // the ticket loses nothing; a line, once read, is handled in the branch, which runs to
        // its end. Biased: the ticket first, so a request that gets one at once (the common
        // case) never reads ahead.
        tokio::select! {
            biased;
            ticket = &mut admission => return Some(ticket),
            _ = stop.cancelled() => return None,
            next = lines.next_line(), if held.is_none() => match classify(host, next).await {
                Line::Message { parsed: Ok(Ok(Incoming::Response { id, result })), bytes } => {
                    route_answer(host, &id, result, bytes)
                }
                Line::Nothing => {}
                other => *held = Some(other),
            },
        }
    }
}
