//! The one task that writes the sidecar's stdout. Everything its peer (the host, or the aggregate's MCP
//! client) receives passes through here, whole lines at a time, so messages never interleave. When
//! stdout breaks (the peer closed its read end: EPIPE), the task cancels `closed` and ends: the
//! session stops as at end of input.
//!
//! What waits for the peer is bounded twice: [`limits::HOST_OUTBOX_CAPACITY`] lines and
//! [`limits::HOST_OUTBOX_BYTES`] bytes (a line holds its bytes until it is written), so a peer that
//! does not read holds back whoever has something to say, whatever the lines' sizes. Once `closed`
//! is cancelled (the session is stopping) a write that stalls too long ends the writer
//! (`stall`): nothing left to say may hold the exit.

use std::sync::Arc;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::stall::StallBound;
use crate::limits;

enum Message {
    /// A line and the bytes of the budget it holds until written.
    Line(Vec<u8>, OwnedSemaphorePermit),
    /// Flush everything queued so far, then acknowledge.
    Flush(oneshot::Sender<()>),
}

/// A handle for sending lines to the peer. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Outbox {
    tx: mpsc::Sender<Message>,
    /// Bytes of [`limits::HOST_OUTBOX_BYTES`] not held by queued lines; closed with the writer.
    room: Arc<Semaphore>,
}

impl Outbox {
    /// Queues one newline-terminated line. Waits while the queue is full, in lines or in bytes
    /// (the peer is not reading).
    pub(crate) async fn send(&self, line: Vec<u8>) {
        // Clamped: a line longer than the budget waits for all of it (it fits u32, see `spawn`).
        let weight = line.len().clamp(1, limits::HOST_OUTBOX_BYTES) as u32;
        let room = match Arc::clone(&self.room).try_acquire_many_owned(weight) {
            Ok(room) => room,
            Err(_) => match Arc::clone(&self.room).acquire_many_owned(weight).await {
                Ok(room) => room,
                // Closed: the writer is gone (stdout closed), nobody can be told anything.
                Err(_) => return,
            },
        };
        let _ = self.tx.send(Message::Line(line, room)).await;
    }

    /// Returns once every line queued before this call has been written and flushed.
    pub(crate) async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Message::Flush(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }

    /// Bytes of lines queued and not yet written.
    #[cfg(test)]
    pub(crate) fn queued_bytes(&self) -> usize {
        limits::HOST_OUTBOX_BYTES.saturating_sub(self.room.available_permits())
    }
}

/// Starts the writer over `out`; `closed` is cancelled if writing fails, and once it is cancelled
/// (by anyone: the session is stopping) a stalled write fails after
/// [`limits::STDOUT_STALL_AT_STOP`].
pub(crate) fn spawn<W: AsyncWrite + Unpin + Send + 'static>(
    out: W,
    closed: CancellationToken,
) -> (Outbox, JoinHandle<()>) {
    const _: () = assert!(limits::HOST_OUTBOX_BYTES <= u32::MAX as usize);
    let (tx, rx) = mpsc::channel(limits::HOST_OUTBOX_CAPACITY);
    let room = Arc::new(Semaphore::new(limits::HOST_OUTBOX_BYTES));
    let out = StallBound::new(out, closed.clone());
    let ours = Arc::clone(&room);
    let task = async move {
        if let Err(e) = run(rx, out).await {
            // Nothing can reach the peer any more: serving on would only keep servers running
            // for nobody (and a peer that closed stdout may never close stdin).
            tracing::warn!("writing stdout failed: {e}; stopping every server");
            closed.cancel();
        }
        // Whoever still waits for room stops waiting: there is no writer to make it.
        ours.close();
    };
    (Outbox { tx, room }, tokio::spawn(task))
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
                Message::Line(line, room) => {
                    out.write_all(&line).await?;
                    // Written (or in the buffer, at most its capacity): its bytes are free.
                    drop(room);
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    #[tokio::test]
    async fn what_waits_for_a_peer_that_does_not_read_is_bounded_in_bytes() {
        // A pipe of 1 KiB nobody reads.
        let (ours, _theirs) = tokio::io::duplex(1024);
        let (outbox, _writer) = spawn(ours, CancellationToken::new());
        let line = vec![b'x'; 1024 * 1024];
        let mut sent = 0;
        loop {
            let mut send = std::pin::pin!(outbox.send(line.clone()));
            if send.as_mut().now_or_never().is_none() {
                break;
            }
            sent += 1;
            tokio::task::yield_now().await;
            assert!(sent <= 64, "never held back: {sent} MiB queued");
        }
        let queued = outbox.queued_bytes();
        assert!(
            queued <= limits::HOST_OUTBOX_BYTES,
            "{queued} bytes queued past the bound"
        );
        assert!(
            queued + line.len() > limits::HOST_OUTBOX_BYTES,
            "held back early: {queued}"
        );
    }
}
