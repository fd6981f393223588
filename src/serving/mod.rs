//! What both front ends (`host`, the host protocol; `aggregate`, every server as one MCP server)
//! need to serve a peer, written once: the sidecar's own stdin and stdout as async pipes
//! (`stdio`), the one task that writes stdout (`writer`) and the other places a line can go to a
//! peer (`sink`), the two budgets that push back into reading (`flow`), the table of the peer's
//! requests in flight with their cancel tokens (`requests`), the sidecar's own requests to the
//! peer (`peer_requests`), and the one loop that reads a peer on stdin (`read_loop`). Nothing here
//! knows either protocol.

pub mod answers;
pub mod flow;
pub mod peer_requests;
mod question_bytes;
pub mod read_loop;
pub mod requests;
pub mod sink;
mod stall;
pub mod stdio;
pub mod writer;

pub use answers::{Answers, Held};
pub use flow::{Flow, Ticket};
pub use peer_requests::PeerRequests;
pub use requests::{guarded, Requests, Stopped};
pub use sink::{Sink, WeakSink};
pub use writer::Outbox;
