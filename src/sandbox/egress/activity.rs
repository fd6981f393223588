//! When a byte last went through a connection, either way, and the wait for it to fall silent:
//! the idle bound of tunnels and of forwarded exchanges ([`EGRESS_IDLE_TIMEOUT`] by default).
//!
//! [`EGRESS_IDLE_TIMEOUT`]: crate::limits::EGRESS_IDLE_TIMEOUT

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{sleep_until, Instant};

pub(super) struct Activity(Mutex<Instant>);

impl Activity {
    pub(super) fn new() -> Self {
        Self(Mutex::new(Instant::now()))
    }

    pub(super) fn touch(&self) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    fn last(&self) -> Instant {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ends once `idle` has passed since the last byte either way.
    pub(super) async fn silent_for(&self, idle: Duration) {
        loop {
            sleep_until(self.last() + idle).await;
            if self.last() + idle <= Instant::now() {
                return;
            }
        }
    }
}

/// A stream whose reads and writes count as activity.
pub(super) struct Watched<S> {
    inner: S,
    activity: Arc<Activity>,
}

impl<S> Watched<S> {
    pub(super) fn new(inner: S, activity: Arc<Activity>) -> Self {
        Self { inner, activity }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_byte_either_way_restarts_the_silence() {
        let activity = Arc::new(Activity::new());
        let watch = activity.clone();
        let silent = tokio::spawn(async move { watch.silent_for(Duration::from_secs(10)).await });
        tokio::time::sleep(Duration::from_secs(6)).await;
        activity.touch();
        tokio::time::sleep(Duration::from_secs(6)).await;
        assert!(
            !silent.is_finished(),
            "12 s after the start but 6 s after the last byte"
        );
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(silent.is_finished(), "11 s after the last byte");
    }
}
