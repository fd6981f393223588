//! The stdio transport: newline-delimited JSON on a child's stdin and stdout.
//!
//! Reads go through the bounded [`LineReader`], so a server that writes an endless line costs at most
//! `maxMessageBytes` of memory. The process itself is owned by the supervisor, not by this transport.

use std::sync::Arc;

use std::sync::Mutex;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use tokio::sync::Notify;

use super::{BoxFuture, Inbound, MessageSink, MessageSource, Transport, TransportError};
use crate::jsonrpc::{LineError, LineReader};
use crate::limits;

/// Builds a transport from the child's stdin and stdout. Spawns the stdin writer task.
pub fn transport<W, R>(stdin: W, stdout: R, max_message_bytes: usize) -> Transport
where
    W: AsyncWrite + Unpin + Send + 'static,
    R: AsyncRead + Unpin + Send + 'static,
{
    let shared = Arc::new(Shared::default());
    tokio::spawn(write_loop(Arc::clone(&shared), stdin));
    Transport {
        sink: Arc::new(StdinSink { shared }),
        source: Box::new(StdoutSource {
            lines: LineReader::new(
                BufReader::with_capacity(limits::SERVER_READ_BUFFER_BYTES, stdout),
                max_message_bytes,
            ),
        }),
    }
}

/// Messages are appended to one buffer and a writer task writes whatever has accumulated in one
/// syscall: under load many messages share a write, and a sender never waits for the pipe unless the
/// buffer is over [`limits::SERVER_WRITE_BUFFER_BYTES`] (the server is not reading: backpressure).
#[derive(Default)]
struct Shared {
    state: Mutex<Pending>,
    /// Wakes the writer: data was queued or the sink was closed.
    queued: Notify,
    /// Wakes senders waiting for room.
    drained: Notify,
}

#[derive(Default)]
struct Pending {
    buf: Vec<u8>,
    closed: bool,
    /// Set when a write failed; later sends report it.
    broken: Option<String>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

struct StdinSink {
    shared: Arc<Shared>,
}

impl StdinSink {
    /// Appends `line` when there is room: `Some(Ok)` queued, `Some(Err)` the sink is closed or
    /// broken, `None` the buffer is full (the server is not reading).
    fn try_queue(&self, line: &[u8]) -> Option<std::io::Result<()>> {
        let mut pending = self.shared.lock();
        if let Some(why) = &pending.broken {
            return Some(Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                why.clone(),
            )));
        }
        if pending.closed {
            return Some(Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "stdin already closed",
            )));
        }
        let was_empty = pending.buf.is_empty();
        if !was_empty && pending.buf.len() + line.len() > limits::SERVER_WRITE_BUFFER_BYTES {
            return None;
        }
        pending.buf.extend_from_slice(line);
        drop(pending);
        // A non-empty buffer was not taken yet: the writer was woken for it and will see this too.
        if was_empty {
            self.shared.queued.notify_one();
        }
        Some(Ok(()))
    }
}

impl MessageSink for StdinSink {
    fn send(&self, line: Vec<u8>) -> BoxFuture<'_, std::io::Result<()>> {
        Box::pin(async move {
            loop {
                if let Some(queued) = self.try_queue(&line) {
                    return queued;
                }
                let room = self.shared.drained.notified();
                tokio::pin!(room);
                // Register interest, then look again, so a drain between the two is not lost.
                room.as_mut().enable();
                if let Some(queued) = self.try_queue(&line) {
                    return queued;
                }
                room.await;
            }
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.shared.lock().closed = true;
            self.shared.queued.notify_one();
        })
    }
}

/// Writes queued bytes until the sink is closed and drained (then closes stdin) or a write fails.
async fn write_loop<W: AsyncWrite + Unpin>(shared: Arc<Shared>, mut stdin: W) {
    let mut out = Vec::new();
    loop {
        let closed = {
            let mut pending = shared.lock();
            std::mem::swap(&mut out, &mut pending.buf);
            pending.closed
        };
        if !out.is_empty() {
            shared.drained.notify_waiters();
            let written = async {
                stdin.write_all(&out).await?;
                stdin.flush().await
            }
            .await;
            if let Err(e) = written {
                let mut pending = shared.lock();
                pending.broken = Some(format!("writing to the server's stdin failed: {e}"));
                pending.buf = Vec::new();
                drop(pending);
                shared.drained.notify_waiters();
                return;
            }
            out.clear();
            continue;
        }
        if closed {
            let _ = stdin.shutdown().await;
            return;
        }
        shared.queued.notified().await;
    }
}

struct StdoutSource<R> {
    lines: LineReader<BufReader<R>>,
}

impl<R: AsyncRead + Unpin + Send> MessageSource for StdoutSource<R> {
    fn recv(&mut self) -> BoxFuture<'_, Result<Option<Inbound>, TransportError>> {
        Box::pin(async move {
            loop {
                match self.lines.next_line().await {
                    // Blank lines carry no message; tolerate them as most clients do.
                    Ok(Some(line)) if line.iter().all(u8::is_ascii_whitespace) => continue,
                    Ok(Some(line)) => return Ok(Some(Inbound::Message(line.to_vec()))),
                    Ok(None) => return Ok(None),
                    Err(LineError::TooLong { limit }) => {
                        return Err(TransportError::TooLong { limit })
                    }
                    Err(LineError::Io(e)) => return Err(TransportError::from(e)),
                }
            }
        })
    }
}
