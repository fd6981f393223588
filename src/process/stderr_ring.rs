//! Each server's stderr: drained in fixed-size chunks into a ring buffer whose tail appears in status
//! and in every error about that server. Never forwarded to stdout. (Masking secrets in the debug log
//! of each chunk is the one use of `trust` here: the drain is handed the server's secrets.)

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::limits;

/// The last [`limits::STDERR_TAIL_BYTES`] bytes a server wrote to stderr.
pub struct StderrTail {
    ring: Mutex<VecDeque<u8>>,
    /// Becomes true when the drain reached end of file.
    eof: tokio::sync::watch::Sender<bool>,
}

impl Default for StderrTail {
    fn default() -> Self {
        Self {
            ring: Mutex::default(),
            eof: tokio::sync::watch::Sender::new(false),
        }
    }
}

impl StderrTail {
    /// Waits until the drain has read everything (end of file) or `within` passed. A server that
    /// died wrote its last words before exiting; this lets an error report include them. (A
    /// grandchild holding the pipe open can delay EOF, hence the bound.)
    pub async fn drained_within(&self, within: std::time::Duration) {
        let mut rx = self.eof.subscribe();
        let _ = tokio::time::timeout(within, rx.wait_for(|eof| *eof)).await;
    }

    pub fn push(&self, bytes: &[u8]) {
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        let keep = bytes.len().min(limits::STDERR_TAIL_BYTES);
        ring.extend(&bytes[bytes.len() - keep..]);
        let excess = ring.len().saturating_sub(limits::STDERR_TAIL_BYTES);
        ring.drain(..excess);
    }

    /// The tail as text: lossy UTF-8, starting after the first newline when the buffer wrapped (so it
    /// does not begin mid-line), without trailing whitespace.
    pub fn text(&self) -> String {
        let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        let (a, b) = ring.as_slices();
        let mut bytes = Vec::with_capacity(ring.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        drop(ring);
        let start = if bytes.len() >= limits::STDERR_TAIL_BYTES {
            memchr::memchr(b'\n', &bytes).map_or(0, |i| i + 1)
        } else {
            0
        };
        String::from_utf8_lossy(&bytes[start..])
            .trim_end()
            .to_owned()
    }
}

/// Reads `stderr` to its end into `tail`, logging each chunk at debug level with the server's
/// secret values masked.
pub async fn drain(
    mut stderr: impl AsyncRead + Unpin,
    tail: std::sync::Arc<StderrTail>,
    server: String,
    secrets: crate::trust::secrets::Secrets,
) {
    let mut chunk = vec![0u8; limits::STDERR_CHUNK_BYTES];
    loop {
        match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => {
                tail.eof.send_replace(true);
                return;
            }
            Ok(n) => {
                tail.push(&chunk[..n]);
                tracing::debug!(server = %server, "stderr: {}", secrets.mask(String::from_utf8_lossy(&chunk[..n]).trim_end()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_tail_from_a_line_start() {
        let t = StderrTail::default();
        t.push(b"first line\n");
        assert_eq!(t.text(), "first line");
        let flood = vec![b'x'; limits::STDERR_TAIL_BYTES * 3];
        t.push(&flood);
        t.push(b"\nlast words\n");
        assert_eq!(t.text(), "last words");
    }
}
