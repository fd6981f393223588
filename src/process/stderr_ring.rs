//! Each server's stderr: drained in fixed-size chunks into a ring buffer whose tail appears in status
//! and in every error about that server. Never forwarded to stdout. (Masking secrets in the debug log
//! of each line is the one use of `trust` here: the drain is handed the server's secrets. The tail
//! may begin inside a secret when the ring wrapped with no newline in it: whoever shows it masks it
//! as an excerpt, `Secrets::mask_excerpt`.)

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::limits;

/// The last [`limits::STDERR_TAIL_BYTES`] bytes a server wrote to stderr.
pub(crate) struct StderrTail {
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
    pub(crate) async fn drained_within(&self, within: std::time::Duration) {
        let mut rx = self.eof.subscribe();
        let _ = tokio::time::timeout(within, rx.wait_for(|eof| *eof)).await;
    }

    pub(crate) fn push(&self, bytes: &[u8]) {
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        let keep = bytes.len().min(limits::STDERR_TAIL_BYTES);
        ring.extend(&bytes[bytes.len() - keep..]);
        let excess = ring.len().saturating_sub(limits::STDERR_TAIL_BYTES);
        ring.drain(..excess);
    }

    /// The tail as text: lossy UTF-8, starting after the first newline when the buffer wrapped (so it
    /// does not begin mid-line), without trailing whitespace.
    pub(crate) fn text(&self) -> String {
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

/// Reads `stderr` to its end into `tail`, logging it at debug level in whole lines with the server's
/// secret values masked: each read's completed lines are one event, an unfinished line waits for
/// the next read. So a secret a server writes in two halves (two writes, two reads here) is whole
/// again in its line before it is masked. A line longer than
/// [`limits::STDERR_TAIL_BYTES`] is logged in pieces, each masked as an excerpt (a piece that
/// starts or stops inside a secret loses that part too).
pub(crate) async fn drain(
    mut stderr: impl AsyncRead + Unpin,
    tail: std::sync::Arc<StderrTail>,
    server: String,
    secrets: crate::trust::secrets::Secrets,
) {
    let mut chunk = vec![0u8; limits::STDERR_CHUNK_BYTES];
    let mut line = LineLog::default();
    loop {
        match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => {
                line.finish(|text| log(&server, &secrets, text));
                tail.eof.send_replace(true);
                return;
            }
            Ok(n) => {
                tail.push(&chunk[..n]);
                line.push(&chunk[..n], |text| log(&server, &secrets, text));
            }
        }
    }
}

fn log(server: &str, secrets: &crate::trust::secrets::Secrets, text: &str) {
    if tracing::enabled!(tracing::Level::DEBUG) {
        tracing::debug!(server = %server, "stderr: {}", secrets.mask_excerpt(text.trim_end()));
    }
}

/// The unfinished line of a stream being logged line by line, bounded.
#[derive(Default)]
struct LineLog {
    pending: Vec<u8>,
}

impl LineLog {
    /// Adds `bytes`; calls `emit` with every line they complete (and with a piece of an over-long one).
    fn push(&mut self, bytes: &[u8], mut emit: impl FnMut(&str)) {
        self.pending.extend_from_slice(bytes);
        // Every line this read completed, as one event (one event per read, as a flood needs).
        if let Some(last) = memchr::memrchr(b'\n', &self.pending) {
            emit(&String::from_utf8_lossy(&self.pending[..last]));
            self.pending.drain(..=last);
        }
        if self.pending.len() > limits::STDERR_TAIL_BYTES {
            emit(&String::from_utf8_lossy(&self.pending));
            self.pending.clear();
        }
    }

    /// The last line, unterminated.
    fn finish(&mut self, mut emit: impl FnMut(&str)) {
        if !self.pending.is_empty() {
            emit(&String::from_utf8_lossy(&self.pending));
            self.pending.clear();
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

    #[test]
    fn a_secret_written_in_two_halves_is_logged_whole() {
        let mut log = LineLog::default();
        let mut lines = Vec::new();
        log.push(b"one\ntoken=HALF-", |l| lines.push(l.to_owned()));
        log.push(b"AND-HALF\nthree\nfour", |l| lines.push(l.to_owned()));
        log.finish(|l| lines.push(l.to_owned()));
        assert_eq!(lines, ["one", "token=HALF-AND-HALF\nthree", "four"]);
        let secrets = crate::trust::secrets::Secrets::from_values(["HALF-AND-HALF".to_owned()]);
        assert_eq!(secrets.mask_excerpt(&lines[1]), "token=***\nthree");
    }
}
