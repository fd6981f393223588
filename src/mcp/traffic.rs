//! Bytes exchanged with one server: every JSON-RPC message the session writes (requests,
//! notifications, answers to the server's own requests) and every message it reads, whatever the
//! transport. Counted at the two places lines pass — the sink the session writes through
//! ([`CountingSink`]) and the session's one reader — with one relaxed atomic add per message, so
//! the hot path pays nothing measurable.
//!
//! A message counts its JSON text: the newline that frames it on stdio is left out, as are HTTP
//! headers and SSE framing, so a stdio and an HTTP server with the same traffic count the same.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::transport::{BoxFuture, MessageSink};

/// Running totals for one server, shared by every generation's session (the owner keeps the
/// `Arc` across restarts).
#[derive(Debug, Default)]
pub struct Traffic {
    received: AtomicU64,
    sent: AtomicU64,
}

impl Traffic {
    /// One message read from the server (`message` is its JSON text).
    pub fn received(&self, message: &[u8]) {
        self.received
            .fetch_add(text_len(message), Ordering::Relaxed);
    }

    /// One message written to the server (`line`, newline included or not).
    pub fn sent(&self, line: &[u8]) {
        self.sent.fetch_add(text_len(line), Ordering::Relaxed);
    }

    /// `(bytes in, bytes out)` so far.
    pub fn totals(&self) -> (u64, u64) {
        (
            self.received.load(Ordering::Relaxed),
            self.sent.load(Ordering::Relaxed),
        )
    }
}

/// Bytes of a message's JSON text: without the framing newline (and a `\r` before it).
fn text_len(line: &[u8]) -> u64 {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    text.len() as u64
}

/// A sink that counts what passes through it, then hands it to the transport's own.
pub struct CountingSink {
    pub inner: Arc<dyn MessageSink>,
    pub traffic: Arc<Traffic>,
}

impl MessageSink for CountingSink {
    fn send(&self, line: Vec<u8>) -> BoxFuture<'_, std::io::Result<()>> {
        self.traffic.sent(&line);
        self.inner.send(line)
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_counts_its_json_text_only() {
        let t = Traffic::default();
        t.sent(b"{\"a\":1}\n");
        t.sent(b"{}\r\n");
        t.received(b"{\"b\":22}");
        assert_eq!(t.totals(), (8, 9));
    }
}
