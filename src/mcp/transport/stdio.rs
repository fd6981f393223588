//! The stdio transport: newline-delimited JSON on a child's stdin and stdout.
//!
//! Reads go through the bounded [`LineReader`], so a server that writes an endless line costs at most
//! `maxMessageBytes` of memory. The process itself is owned by the supervisor, not by this transport.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::{BoxFuture, MessageSink, MessageSource, Transport, TransportError};
use crate::jsonrpc::{LineError, LineReader};
use crate::limits;

/// Builds a transport from the child's stdin and stdout.
pub fn transport<W, R>(stdin: W, stdout: R, max_message_bytes: usize) -> Transport
where
    W: AsyncWrite + Unpin + Send + 'static,
    R: AsyncRead + Unpin + Send + 'static,
{
    Transport {
        sink: Arc::new(StdinSink { stdin: Mutex::new(Some(stdin)) }),
        source: Box::new(StdoutSource {
            lines: LineReader::new(
                BufReader::with_capacity(limits::SERVER_READ_BUFFER_BYTES, stdout),
                max_message_bytes,
            ),
        }),
    }
}

struct StdinSink<W> {
    // Each message is written whole under the lock, so concurrent senders never interleave bytes.
    // Writing directly (no writer task) keeps a sequential call to one write syscall and no hop.
    stdin: Mutex<Option<W>>,
}

impl<W: AsyncWrite + Unpin + Send> MessageSink for StdinSink<W> {
    fn send(&self, line: Vec<u8>) -> BoxFuture<'_, std::io::Result<()>> {
        Box::pin(async move {
            let mut guard = self.stdin.lock().await;
            let stdin = guard
                .as_mut()
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin already closed"))?;
            stdin.write_all(&line).await?;
            stdin.flush().await
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(mut stdin) = self.stdin.lock().await.take() {
                let _ = stdin.shutdown().await;
            }
        })
    }
}

struct StdoutSource<R> {
    lines: LineReader<BufReader<R>>,
}

impl<R: AsyncRead + Unpin + Send> MessageSource for StdoutSource<R> {
    fn recv(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, TransportError>> {
        Box::pin(async move {
            loop {
                match self.lines.next_line().await {
                    // Blank lines carry no message; tolerate them as most clients do.
                    Ok(Some(line)) if line.iter().all(u8::is_ascii_whitespace) => continue,
                    Ok(Some(line)) => return Ok(Some(line.to_vec())),
                    Ok(None) => return Ok(None),
                    Err(LineError::TooLong { limit }) => return Err(TransportError::TooLong { limit }),
                    Err(LineError::Io(e)) => return Err(TransportError::Io(e)),
                }
            }
        })
    }
}
