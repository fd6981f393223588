//! Where lines for a peer go: the one stdout writer, or one response stream of an HTTP request (in
//! `mcp --http`: the messages of a request that come before its answer, and the sidecar's own
//! requests about it).

use tokio::sync::mpsc;

use super::writer::Outbox;

#[derive(Clone)]
pub(crate) enum Sink {
    /// The one stdout writer (stdio).
    Outbox(Outbox),
    /// The response stream of one HTTP request; closed when the client went away.
    Stream(mpsc::Sender<Vec<u8>>),
}

/// A [`Sink`] that does not keep a stream open: whoever holds it can write only while the stream's
/// own writer still does.
#[derive(Clone)]
pub(crate) enum WeakSink {
    Outbox(Outbox),
    Stream(mpsc::WeakSender<Vec<u8>>),
}

impl WeakSink {
    /// The sink, while its stream is open and someone reads it.
    pub(crate) fn upgrade(&self) -> Option<Sink> {
        match self {
            WeakSink::Outbox(outbox) => Some(Sink::Outbox(outbox.clone())),
            WeakSink::Stream(stream) => stream
                .upgrade()
                .filter(|s| !s.is_closed())
                .map(Sink::Stream),
        }
    }
}

impl Sink {
    /// This sink without keeping its stream open.
    pub(crate) fn downgrade(&self) -> WeakSink {
        match self {
            Sink::Outbox(outbox) => WeakSink::Outbox(outbox.clone()),
            Sink::Stream(stream) => WeakSink::Stream(stream.downgrade()),
        }
    }

    /// Sends one encoded line, waiting while the reader is behind; `false` once nobody reads it.
    pub(crate) async fn send(&self, line: Vec<u8>) -> bool {
        match self {
            Sink::Outbox(outbox) => {
                outbox.send(line).await;
                true
            }
            Sink::Stream(stream) => stream.send(line).await.is_ok(),
        }
    }

    /// Returns once nobody reads this sink any more (never for stdout, which ends the session).
    pub(crate) async fn closed(&self) {
        match self {
            Sink::Outbox(_) => std::future::pending().await,
            Sink::Stream(stream) => stream.closed().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_weak_sink_writes_only_while_the_stream_lives_and_keeps_it_from_nobody() {
        let (tx, mut rx) = mpsc::channel(2);
        let sink = Sink::Stream(tx);
        let weak = sink.downgrade();
        assert!(weak.upgrade().expect("open").send(b"x\n".to_vec()).await);
        assert_eq!(rx.recv().await.as_deref(), Some(&b"x\n"[..]));
        drop(sink);
        assert!(weak.upgrade().is_none(), "the writer is gone");
        assert_eq!(
            rx.recv().await,
            None,
            "the weak sink does not keep the stream open"
        );
    }
}
