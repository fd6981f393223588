//! Where lines for a peer go: the one stdout writer, or one response stream of an HTTP request (in
//! `mcp --http`: the messages of a request that come before its answer, and the sidecar's own
//! requests about it).

use tokio::sync::mpsc;

use super::writer::Outbox;

#[derive(Clone)]
pub enum Sink {
    /// The one stdout writer (stdio).
    Outbox(Outbox),
    /// The response stream of one HTTP request; closed when the client went away.
    Stream(mpsc::Sender<Vec<u8>>),
}

impl Sink {
    /// Sends one encoded line, waiting while the reader is behind; `false` once nobody reads it.
    pub async fn send(&self, line: Vec<u8>) -> bool {
        match self {
            Sink::Outbox(outbox) => {
                outbox.send(line).await;
                true
            }
            Sink::Stream(stream) => stream.send(line).await.is_ok(),
        }
    }

    /// Returns once nobody reads this sink any more (never for stdout, which ends the session).
    pub async fn closed(&self) {
        match self {
            Sink::Outbox(_) => std::future::pending().await,
            Sink::Stream(stream) => stream.closed().await,
        }
    }
}
