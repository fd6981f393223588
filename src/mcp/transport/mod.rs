//! What a transport is: something that sends one serialised JSON-RPC message and yields the messages
//! the server sends back. The MCP session above it never learns whether that is a pipe or a socket.
//!
//! Files, lowest first: [`error`] (the one failure type), [`unparsable`] (a message that is not
//! JSON-RPC, its excerpt), [`sse_parser`], [`http_common`] (client,
//! bounded reads, the inbound queue), [`sse`] (the legacy event stream), [`http`] (both HTTP
//! transports, a folder of files with one job each), [`stdio`]. Each imports only files listed
//! before it.

mod error;
pub mod http;
pub mod http_common;
pub mod sse;
pub mod sse_parser;
pub mod stdio;
pub mod unparsable;

pub use error::TransportError;
pub use unparsable::{escaped_start, EXCERPT_BYTES};

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the inbound half yields.
#[derive(Debug)]
pub enum Inbound {
    /// One message from the server (one JSON text).
    Message(Vec<u8>),
    /// Our request `id` got no answer because the transport failed for that request alone (an HTTP
    /// status, a refused redirect, a response stream that ended); the connection stays usable.
    Failed {
        id: serde_json::Value,
        error: TransportError,
    },
}

/// The outbound half. Shared by every task that sends.
pub trait MessageSink: Send + Sync {
    /// Sends one message; `line` is the JSON text followed by `\n`.
    fn send(&self, line: Vec<u8>) -> BoxFuture<'_, std::io::Result<()>>;
    /// Ends the outbound direction (stdio: closes the child's stdin). Later sends fail.
    fn close(&self) -> BoxFuture<'_, ()>;
}

/// The inbound half. Owned by the session's single reader task.
pub trait MessageSource: Send {
    /// The next message or request failure, or `None` when the server closed its side. An `Err`
    /// ends the session.
    fn recv(&mut self) -> BoxFuture<'_, Result<Option<Inbound>, TransportError>>;
}

pub struct Transport {
    pub sink: Arc<dyn MessageSink>,
    pub source: Box<dyn MessageSource>,
}
