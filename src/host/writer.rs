//! The one task that writes the sidecar's stdout. Everything the host receives passes through here,
//! whole lines at a time, so messages never interleave.

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::limits;

enum Message {
    Line(Vec<u8>),
    /// Flush everything queued so far, then acknowledge.
    Flush(oneshot::Sender<()>),
}

/// A handle for sending lines to the host. Cheap to clone.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Message>,
}

impl Outbox {
    /// Queues one newline-terminated line. Waits when the queue is full (the host is not reading).
    pub async fn send(&self, line: Vec<u8>) {
        // An error means the writer is gone (stdout closed): the host can no longer be told anything.
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

/// Starts the writer over `out`.
pub fn spawn<W: AsyncWrite + Unpin + Send + 'static>(out: W) -> (Outbox, JoinHandle<()>) {
    let (tx, rx) = mpsc::channel(limits::HOST_OUTBOX_CAPACITY);
    (Outbox { tx }, tokio::spawn(run(rx, out)))
}

async fn run<W: AsyncWrite + Unpin>(mut rx: mpsc::Receiver<Message>, out: W) {
    let mut out = BufWriter::with_capacity(64 * 1024, out);
    while let Some(first) = rx.recv().await {
        let mut acks = Vec::new();
        let mut next = Some(first);
        // Write everything already queued, then flush once: one syscall per burst, not per message.
        while let Some(message) = next {
            match message {
                Message::Line(line) => {
                    if out.write_all(&line).await.is_err() {
                        return;
                    }
                }
                Message::Flush(ack) => acks.push(ack),
            }
            next = rx.try_recv().ok();
        }
        if out.flush().await.is_err() {
            return;
        }
        for ack in acks {
            let _ = ack.send(());
        }
    }
}
