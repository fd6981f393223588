//! The one task that writes the sidecar's stdout. Everything its peer (the host, or the upstream MCP
//! client) receives passes through here, whole lines at a time, so messages never interleave. When
//! stdout breaks (the peer closed its read end: EPIPE), the task cancels `closed` and ends: the
//! session stops as at end of input. Once `closed` is cancelled (the session is stopping) a write
//! that stalls too long ends the writer (`stall`): nothing left to say may hold the exit.

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::stall::StallBound;
use crate::limits;

enum Message {
    Line(Vec<u8>),
    /// Flush everything queued so far, then acknowledge.
    Flush(oneshot::Sender<()>),
}

/// A handle for sending lines to the peer. Cheap to clone.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Message>,
}

impl Outbox {
    /// Queues one newline-terminated line. Waits when the queue is full (the peer is not reading).
    pub async fn send(&self, line: Vec<u8>) {
        // An error means the writer is gone (stdout closed): the peer can no longer be told anything.
        let _ = self.tx.send(Message::Line(line)).await;
    }

    /// Returns once every line queued before this call has been written and flushed.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Message::Flush(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }
}

/// Starts the writer over `out`; `closed` is cancelled if writing fails, and once it is cancelled
/// (by anyone: the session is stopping) a stalled write fails after
/// [`limits::STDOUT_STALL_AT_STOP`].
pub fn spawn<W: AsyncWrite + Unpin + Send + 'static>(
    out: W,
    closed: CancellationToken,
) -> (Outbox, JoinHandle<()>) {
    let (tx, rx) = mpsc::channel(limits::HOST_OUTBOX_CAPACITY);
    let out = StallBound::new(out, closed.clone());
    let task = async move {
        if let Err(e) = run(rx, out).await {
            // Nothing can reach the peer any more: serving on would only keep servers running
            // for nobody (and a peer that closed stdout may never close stdin).
            tracing::warn!("writing stdout failed: {e}; stopping every server");
            closed.cancel();
        }
    };
    (Outbox { tx }, tokio::spawn(task))
}

async fn run<W: AsyncWrite + Unpin>(
    mut rx: mpsc::Receiver<Message>,
    out: W,
) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(64 * 1024, out);
    while let Some(first) = rx.recv().await {
        let mut acks = Vec::new();
        let mut next = Some(first);
        // Write everything already queued, then flush once: one syscall per burst, not per message.
        while let Some(message) = next {
            match message {
                Message::Line(line) => out.write_all(&line).await?,
                Message::Flush(ack) => acks.push(ack),
            }
            next = rx.try_recv().ok();
        }
        out.flush().await?;
        for ack in acks {
            let _ = ack.send(());
        }
    }
    Ok(())
}
