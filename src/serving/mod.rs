//! What both front ends (`host`, the host protocol; `upstream`, the aggregate as one MCP server)
//! need to serve a peer, written once: the sidecar's own stdin and stdout as async pipes
//! (`stdio`), the one task that writes stdout (`writer`), the two budgets that push back into
//! reading (`flow`), and the table of requests in flight with their cancel tokens (`requests`).
//! Nothing here knows either protocol.

pub mod flow;
pub mod requests;
pub mod stdio;
pub mod writer;

pub use flow::{Flow, Ticket};
pub use requests::{guarded, Requests, Stopped};
pub use writer::Outbox;
