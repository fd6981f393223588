//! JSON-RPC 2.0 plumbing shared by both sides of the sidecar: wire types, the bounded line reader, and
//! the table of requests we are waiting on. Nothing here knows about MCP or the host protocol.

mod lines;
mod message;
mod pending;

pub use lines::{LineError, LineReader};
pub use message::{
    encode_notification, encode_raw_response, encode_request, encode_response, ErrorObject,
    Incoming, NotJsonRpc, RequestId, NULL_ID_ERROR,
};
pub use pending::{Answer, Pending, Reply};
