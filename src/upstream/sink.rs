//! Where the messages that belong to one request go before its answer (a list change on a
//! `subscriptions/listen`, progress and log messages of a call): the stdio outbox, or the request's
//! own SSE stream on HTTP.

use tokio::sync::mpsc;

use crate::serving::Outbox;

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
