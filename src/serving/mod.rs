//! What both front ends (`host`, the host protocol; `aggregate`, every server as one MCP server)
//! need to serve a peer, written once: the sidecar's own stdin and stdout as async pipes
//! (`stdio`), the one task that writes stdout (`writer`) and the other places a line can go to a
//! peer (`sink`), the two budgets that push back into reading (`flow`), the table of the peer's
//! requests in flight with their cancel tokens (`requests`), the sidecar's own requests to the
//! peer (`peer_requests`), and the one loop that reads a peer on stdin (`read_loop`). Nothing here
//! knows either protocol.
//!
//! Its other files:
//! - `answers`: The bytes of answers a session's requests may hold at once.
//! - `question_bytes`: The bytes of the sidecar's questions waiting for its peer's answers, in all and per server.
//! - `stall`: A bound on how long stdout may stall once the session is stopping.

pub(crate) mod answers;
pub(crate) mod flow;
pub(crate) mod peer_requests;
mod question_bytes;
pub(crate) mod read_loop;
pub(crate) mod requests;
pub(crate) mod sink;
mod stall;
pub(crate) mod stdio;
pub(crate) mod writer;

pub(crate) use answers::Answers;
pub(crate) use flow::{Flow, Ticket};
pub(crate) use peer_requests::PeerRequests;
pub(crate) use requests::{guarded, Requests, Stopped};
pub(crate) use sink::{Sink, WeakSink};
pub(crate) use writer::Outbox;
