//! The one loop that reads a peer on the sidecar's stdin, for both front ends (`host`, the host
//! protocol; `upstream`, `mcp` over stdio): lines read through the line bound, classified
//! (request, notification, response to the sidecar's own request, malformed), and handed to the
//! front end ([`Front`]), which decides what a message means in its protocol. End of input, a read
//! error and the stop are handled here, once.
//!
//! Flow control: a request the front end runs as a task first takes a ticket of its
//! [`Flow`]. While none is free the loop goes on reading, but only to deliver the peer's answers
//! to the sidecar's own requests: every ticket may be held by requests waiting for exactly those
//! answers (a tool call whose server asked for a sampling), and they sit in stdin behind the
//! waiting request. The first line that is not an answer is held (one line, so memory stays
//! bounded) and reading stops until the ticket comes; a peer that never reads its answers is
//! therefore held back by its own blocked writes.
//!
//! Every answer the front end gives on the reader (malformed lines, refusals) is queued before
//! the next line is read, for the same reason.

use std::future::Future;

use serde_json::Value;
use tokio::io::AsyncBufRead;
use tokio_util::sync::CancellationToken;

use super::flow::{Flow, Ticket};
use crate::jsonrpc::{
    ErrorObject, Incoming, LineError, LineReader, NotJsonRpc, ParamsForm, RequestId,
};

/// A line the peer sent that is not a message: the front end answers it in its own words.
pub(crate) enum Malformed {
    /// Longer than the line bound (`--max-line-bytes`); it was skipped.
    TooLong { limit: usize },
    /// Not JSON.
    InvalidJson(serde_json::Error),
    /// JSON, but not a JSON-RPC 2.0 message.
    NotJsonRpc(NotJsonRpc),
}

/// What a front end decided about a request, on the reader and in line order.
pub(crate) enum Step<A> {
    /// Handled on the reader (answered or refused): read the next line.
    Done,
    /// Run it ([`Front::start`]) once it has a ticket.
    Admit(RequestId, A),
    /// End the session after this request (the host's `shutdown`): the loop returns it.
    Finish(RequestId),
}

/// Why the loop returned.
pub(crate) enum Ended {
    /// End of input, a read error, or the stop.
    Input,
    /// A request the front end said ends the session ([`Step::Finish`]).
    Finish(RequestId),
}

/// One front end's side of the loop: what its protocol makes of each kind of message.
pub(crate) trait Front: Sync {
    /// A request the front end admitted, carried to [`Front::start`].
    type Admitted: Send;

    /// How the front end takes a message's params: their text ([`crate::jsonrpc::Params`]), read
    /// straight into each handler's own type, or a value tree.
    type Params: ParamsForm + Send;

    /// Who the peer is, for the log ("the host", "the MCP client").
    fn peer(&self) -> &'static str;

    /// The budgets a request takes a ticket from before it runs.
    fn flow(&self) -> &Flow;

    /// Answers a malformed line.
    fn malformed(&self, what: Malformed) -> impl Future<Output = ()> + Send;

    /// Takes a notification (never answered).
    fn notification(&self, method: String, params: Option<Self::Params>);

    /// Delivers the peer's answer to one of the sidecar's own requests; false when none waits
    /// for `id`.
    fn answered(&self, id: &RequestId, result: Result<Value, ErrorObject>, bytes: usize) -> bool;

    /// Decides, in line order, what request `id` needs: handled here, a task, or the end.
    fn request(
        &self,
        id: RequestId,
        method: String,
        params: Option<Self::Params>,
    ) -> impl Future<Output = Step<Self::Admitted>> + Send;

    /// Starts an admitted request, holding `ticket` until its answer is queued.
    fn start(
        &self,
        id: RequestId,
        admitted: Self::Admitted,
        ticket: Ticket,
    ) -> impl Future<Output = ()> + Send;

    /// Answers a request that was read but will not run: the stop came first.
    fn abandoned(&self, id: RequestId) -> impl Future<Output = ()> + Send;
}

/// A line as read and classified: owned, so the loop can read on while it holds one.
enum Line<P> {
    Message {
        incoming: Incoming<P>,
        bytes: usize,
    },
    /// Nothing to handle: a blank line, or a malformed one (already answered).
    Nothing,
    /// Reading ends: end of input, or a read error.
    End,
}

/// Reads `lines` and serves what they carry through `front` until end of input, a read error,
/// `stop`, or a [`Step::Finish`].
pub(crate) async fn run<F: Front, R: AsyncBufRead + Unpin>(
    front: &F,
    lines: &mut LineReader<R>,
    stop: &CancellationToken,
) -> Ended {
    // A line read while a request waited for its ticket, handled next.
    let mut held: Option<Line<F::Params>> = None;
    loop {
        let line = match held.take() {
            Some(line) => line,
            None => {
                let next = tokio::select! {
                    // Reading is abandoned for good, so losing a half-read line by dropping
                    // `next_line` loses nothing that would have been served.
                    _ = stop.cancelled() => {
                        tracing::info!("stop requested (a signal, or stdout broke); stopping every server");
                        return Ended::Input;
                    }
                    next = lines.next_line() => next,
                };
                classify(front, next).await
            }
        };
        let (incoming, bytes) = match line {
            Line::Message { incoming, bytes } => (incoming, bytes),
            Line::Nothing => continue,
            Line::End => return Ended::Input,
        };
        let (id, admitted) = match incoming {
            Incoming::Notification { method, params } => {
                front.notification(method, params);
                continue;
            }
            Incoming::Response { id, result } => {
                deliver(front, &id, result, bytes);
                continue;
            }
            Incoming::Request { id, method, params } => {
                match front.request(id, method, params).await {
                    Step::Done => continue,
                    Step::Finish(id) => return Ended::Finish(id),
                    Step::Admit(id, admitted) => (id, admitted),
                }
            }
        };
        match admit(front, bytes, lines, &mut held, stop).await {
            Some(ticket) => front.start(id, admitted, ticket).await,
            None => {
                // Every request that was read is answered: this one, and one read meanwhile.
                tracing::info!(
                    "stop requested while a request waited for its turn; stopping every server"
                );
                front.abandoned(id).await;
                if let Some(Line::Message {
                    incoming: Incoming::Request { id, .. },
                    ..
                }) = held.take()
                {
                    front.abandoned(id).await;
                }
                return Ended::Input;
            }
        }
    }
}

/// What a read gave, as a [`Line`]; a malformed line is answered here.
async fn classify<F: Front>(front: &F, next: Result<Option<&[u8]>, LineError>) -> Line<F::Params> {
    let line = match next {
        Ok(Some(line)) => line,
        Ok(None) => {
            tracing::info!("{} closed stdin; stopping every server", front.peer());
            return Line::End;
        }
        Err(LineError::TooLong { limit }) => {
            front.malformed(Malformed::TooLong { limit }).await;
            return Line::Nothing;
        }
        Err(LineError::Io(e)) => {
            tracing::warn!("reading stdin failed: {e}; stopping every server");
            return Line::End;
        }
    };
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Nothing;
    }
    match Incoming::parse(line) {
        Ok(Ok(incoming)) => Line::Message {
            incoming,
            bytes: line.len(),
        },
        Ok(Err(not_rpc)) => {
            front.malformed(Malformed::NotJsonRpc(not_rpc)).await;
            Line::Nothing
        }
        Err(e) => {
            front.malformed(Malformed::InvalidJson(e)).await;
            Line::Nothing
        }
    }
}

/// The peer's answer to one of the sidecar's requests, delivered (or ignored when none waits).
fn deliver<F: Front>(front: &F, id: &RequestId, result: Result<Value, ErrorObject>, bytes: usize) {
    if !front.answered(id, result, bytes) {
        tracing::debug!(%id, peer = front.peer(), "ignored a response: no request of the sidecar waits for it");
    }
}

/// A ticket for a request of `bytes` bytes, reading the peer's answers meanwhile (see the module
/// doc); a line that is not an answer goes to `held`. `None` when `stop` was cancelled first.
async fn admit<F: Front, R: AsyncBufRead + Unpin>(
    front: &F,
    bytes: usize,
    lines: &mut LineReader<R>,
    held: &mut Option<Line<F::Params>>,
    stop: &CancellationToken,
) -> Option<Ticket> {
    let admission = front.flow().admit(bytes);
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
            next = lines.next_line(), if held.is_none() => match classify(front, next).await {
                Line::Message { incoming: Incoming::Response { id, result }, bytes } => {
                    deliver(front, &id, result, bytes)
                }
                Line::Nothing => {}
                other => *held = Some(other),
            },
        }
    }
}
