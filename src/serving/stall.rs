//! A bound on how long stdout may stall once the session is stopping. While it serves, a peer that
//! does not read is held back by the writer waiting (that is the pushback). Once the session stops
//! — stdin ended, a signal, `shutdown` — nothing the sidecar still has to say may keep it alive:
//! a peer that closed stdin and never reads again would otherwise hold the last writes, and with
//! them the exit, forever. So from then on a write or flush that makes no progress for
//! [`limits::STDOUT_STALL_AT_STOP`] fails with `TimedOut`, which ends the writer as a broken pipe
//! does. Progress (any bytes taken) starts the wait again: a peer that reads slowly is still
//! served to the end.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::AsyncWrite;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::limits;

/// `inner`, whose writes fail once they stall for too long after `stopping` is cancelled.
pub(super) struct StallBound<W> {
    inner: W,
    stopping: Pin<Box<WaitForCancellationFutureOwned>>,
    stopped: bool,
    bound: Duration,
    /// Running while a write is stalled (after the stop); `None` while writes make progress.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<W> StallBound<W> {
    pub(super) fn new(inner: W, stopping: CancellationToken) -> Self {
        Self::with_bound(inner, stopping, limits::STDOUT_STALL_AT_STOP)
    }

    fn with_bound(inner: W, stopping: CancellationToken, bound: Duration) -> Self {
        Self {
            inner,
            stopping: Box::pin(stopping.cancelled_owned()),
            stopped: false,
            bound,
            stalled: None,
        }
    }

    /// Called when the inner writer is not ready: `Ready(Err)` once it has stalled for the bound
    /// since the stop, else `Pending` (woken by the stop or by the deadline, as well as by the
    /// inner writer).
    fn poll_stall(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        if !self.stopped {
            if self.stopping.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.stopped = true;
        }
        let bound = self.bound;
        let deadline = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(Instant::now() + bound)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the peer read nothing for {} ms after the session began stopping",
                    bound.as_millis()
                ),
            )),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The inner writer's outcome; a stall past the bound when it is not ready.
    fn bounded<T>(
        &mut self,
        cx: &mut Context<'_>,
        outcome: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match outcome {
            Poll::Ready(done) => {
                self.stalled = None;
                Poll::Ready(done)
            }
            Poll::Pending => self.poll_stall(cx).map(Err),
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for StallBound<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let outcome = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.bounded(cx, outcome)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let outcome = Pin::new(&mut this.inner).poll_flush(cx);
        this.bounded(cx, outcome)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let outcome = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.bounded(cx, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test(start_paused = true)]
    async fn a_stalled_write_waits_while_serving_and_fails_once_stopping() {
        // A pipe of 4 bytes nobody reads: the second write stalls.
        let (ours, _theirs) = tokio::io::duplex(4);
        let stopping = CancellationToken::new();
        let mut out = StallBound::with_bound(ours, stopping.clone(), Duration::from_secs(2));
        out.write_all(b"1234").await.unwrap();
        let stalled = tokio::time::timeout(Duration::from_secs(3600), out.write_all(b"5")).await;
        assert!(
            stalled.is_err(),
            "serving: the writer waits as long as it takes"
        );
        stopping.cancel();
        let started = Instant::now();
        let e = out.write_all(b"5").await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn progress_starts_the_wait_again() {
        let (ours, mut theirs) = tokio::io::duplex(4);
        let stopping = CancellationToken::new();
        stopping.cancel();
        let mut out = StallBound::with_bound(ours, stopping, Duration::from_secs(2));
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            let mut chunk = [0u8; 4];
            // Reads 4 bytes each 1.5 s: always within the bound, never fast.
            while got.len() < 16 {
                tokio::time::sleep(Duration::from_millis(1500)).await;
                let n = tokio::io::AsyncReadExt::read(&mut theirs, &mut chunk)
                    .await
                    .unwrap();
                got.extend_from_slice(&chunk[..n]);
            }
            got
        });
        out.write_all(b"0123456789abcdef").await.unwrap();
        assert_eq!(reader.await.unwrap(), b"0123456789abcdef");
    }
}
