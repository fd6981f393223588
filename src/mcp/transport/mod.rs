//! What a transport is: something that sends one serialised JSON-RPC message and yields the messages
//! the server sends back. The MCP session above it never learns whether that is a pipe or a socket.

pub mod http;
pub mod http_common;
pub mod sse;
pub mod sse_parser;
pub mod stdio;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// A message over `maxMessageBytes`; the bound tripped before the message was buffered.
    #[error("message longer than the {limit}-byte limit (maxMessageBytes)")]
    TooLong { limit: usize },
    #[error("{0}")]
    Io(#[from] std::io::Error),
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
    /// The next message (one JSON text), or `None` when the server closed its side.
    fn recv(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, TransportError>>;
}

pub struct Transport {
    pub sink: Arc<dyn MessageSink>,
    pub source: Box<dyn MessageSource>,
}
