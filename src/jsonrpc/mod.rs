//! JSON-RPC 2.0 plumbing shared by both sides of the sidecar: wire types, the bounded line reader, and
//! the table of requests we are waiting on. Nothing here knows about MCP or the host protocol.
//!
//! Its files:
//! - `lines`: A newline-delimited reader with a hard bound on line length.
//! - `message`: JSON-RPC 2.0 wire types.
//! - `params`: A message's params kept as text, and how each reader takes them.
//! - `pending`: The table of requests we sent and are waiting on, keyed by the ids we allocated.

mod lines;
mod message;
mod params;
mod pending;

pub use lines::{LineError, LineReader};
pub use message::{
    encode_notification, encode_raw_response, encode_request, encode_response, ErrorObject,
    Incoming, NotJsonRpc, RequestId, NULL_ID_ERROR,
};
pub use params::{Params, ParamsForm};
pub use pending::{Answer, Pending, Reply};
