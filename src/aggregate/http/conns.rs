//! The endpoint's open connections and what each is doing: waiting (for a request's head, or idle
//! between requests), reading a request's body, or serving (a request past its body, a response
//! or stream being written). Two things follow from it:
//!
//! - time bounds: a connection waits at most [`crate::limits::AGGREGATE_HTTP_IDLE_TIMEOUT`] and
//!   reads a body for at most [`crate::limits::AGGREGATE_HTTP_BODY_TIMEOUT`] (the defaults), then
//!   it is closed (a head has hyper's own [`crate::limits::AGGREGATE_HTTP_HEADER_TIMEOUT`]
//!   besides); serving has no bound here;
//! - the reserve: when every connection slot is taken and a client connects, the connection that
//!   has waited or read longest without serving is closed to make room. A client that holds
//!   connections open without finishing a request (slow-loris) therefore cannot keep a new client
//!   out; only requests being served and the GET streams (capped apart,
//!   [`crate::limits::AGGREGATE_HTTP_MAX_STREAMS`]) keep their slots.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Frame, SizeHint};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// What a connection is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Waiting for a request's head: a new connection, or one idle between requests.
    Waiting,
    /// A request's head is in; its body is being read.
    Reading,
    /// A request is being served or its response written.
    Serving,
}

/// How long a connection may stay in each phase before it is closed (`--http-idle-timeout-ms`,
/// `--http-body-timeout-ms`). A body past its bound is answered 408 by `post`; the connection is
/// closed [`BODY_GRACE`] later if that answer could not be written.
#[derive(Clone, Copy, Debug)]
pub(super) struct Timeouts {
    pub idle: Duration,
    pub body: Duration,
}

/// How long past the body's bound a connection still reading is closed without an answer.
pub(super) const BODY_GRACE: Duration = Duration::from_secs(1);

/// One connection's phase and since when; requests reach it through their extensions.
///
/// A phase change only records itself: it wakes nothing. [`Activity::expired`] reads the phase
/// when its timer fires and sleeps again when the phase changed meanwhile (a request changes it
/// three times, and waking the connection to re-arm its timer each time was a measurable part of
/// a small call's cost).
pub(super) struct Activity(Mutex<(Phase, Instant)>);

impl Activity {
    fn new() -> Activity {
        Activity(Mutex::new((Phase::Waiting, Instant::now())))
    }

    pub(super) fn enter(&self, phase: Phase) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = (phase, Instant::now());
    }

    fn now(&self) -> (Phase, Instant) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Completes once the connection has been in a bounded phase past its bound.
    pub(super) async fn expired(&self, timeouts: Timeouts) {
        let reading = timeouts.body + BODY_GRACE;
        loop {
            let (phase, since) = self.now();
            let deadline = match phase {
                Phase::Waiting => since + timeouts.idle,
                Phase::Reading => since + reading,
                // No bound while serving; looked at again within the shorter bound, so a
                // connection back to waiting or reading meets its own bound on time.
                Phase::Serving => Instant::now() + timeouts.idle.min(reading),
            };
            tokio::time::sleep_until(deadline).await;
            if self.now() == (phase, since) && phase != Phase::Serving {
                return;
            }
        }
    }
}

struct Entry {
    activity: Arc<Activity>,
    evict: CancellationToken,
}

/// The open connections.
#[derive(Default)]
pub(super) struct Conns {
    table: Mutex<HashMap<u64, Entry>>,
    next: AtomicU64,
}

/// A connection's place in [`Conns`]; leaves it when dropped.
pub(super) struct Registered<'a> {
    conns: &'a Conns,
    id: u64,
    pub activity: Arc<Activity>,
    /// Cancelled when the connection is closed to make room for a new one.
    pub evicted: CancellationToken,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.conns.table().remove(&self.id);
    }
}

impl Conns {
    pub(super) fn register(&self) -> Registered<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let activity = Arc::new(Activity::new());
        let evicted = CancellationToken::new();
        self.table().insert(
            id,
            Entry {
                activity: Arc::clone(&activity),
                evict: evicted.clone(),
            },
        );
        Registered {
            conns: self,
            id,
            activity,
            evicted,
        }
    }

    /// Closes the connection that has waited or read longest without serving; `false` when every
    /// connection is serving.
    pub(super) fn evict_one(&self) -> bool {
        let table = self.table();
        let victim = table
            .values()
            .filter(|e| !e.evict.is_cancelled())
            .filter_map(|e| {
                let (phase, since) = e.activity.now();
                (phase != Phase::Serving).then_some((since, &e.evict))
            })
            .min_by_key(|(since, _)| *since);
        match victim {
            Some((_, evict)) => {
                evict.cancel();
                true
            }
            None => false,
        }
    }

    fn table(&self) -> MutexGuard<'_, HashMap<u64, Entry>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A response body that puts its connection back to [`Phase::Waiting`] once it is written (or
/// dropped).
pub(super) struct Tracked<B> {
    pub body: B,
    pub activity: Arc<Activity>,
}

impl<B> Drop for Tracked<B> {
    fn drop(&mut self) {
        self.activity.enter(Phase::Waiting);
    }
}

impl<B: Body + Unpin> Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    const T: Timeouts = Timeouts {
        idle: Duration::from_secs(30),
        body: Duration::from_secs(10),
    };

    /// Paused time: the bounds are checked against tokio's clock, not the wall's.
    #[tokio::test(start_paused = true)]
    async fn each_phase_has_its_bound_and_serving_none() {
        let activity = Activity::new();
        let started = Instant::now();
        activity.expired(T).await;
        assert_eq!(started.elapsed(), T.idle, "waiting: the idle bound");

        activity.enter(Phase::Reading);
        let started = Instant::now();
        activity.expired(T).await;
        assert_eq!(
            started.elapsed(),
            T.body + BODY_GRACE,
            "reading: the body bound, and the grace for its 408"
        );

        activity.enter(Phase::Serving);
        let serving = activity.expired(T);
        let mut serving = std::pin::pin!(serving);
        tokio::time::sleep(Duration::from_secs(3600)).await;
        assert!(
            serving.as_mut().now_or_never().is_none(),
            "serving: no bound"
        );
        activity.enter(Phase::Waiting);
        let started = Instant::now();
        serving.await;
        assert_eq!(
            started.elapsed(),
            T.idle,
            "a phase change restarts the clock"
        );
    }

    /// A phase change wakes nothing: the timer armed for the old bound fires, and the bound is
    /// read again from the phase the connection is in now.
    #[tokio::test(start_paused = true)]
    async fn a_request_while_the_idle_timer_runs_pushes_the_bound_back() {
        let activity = Activity::new();
        let started = Instant::now();
        let expired = activity.expired(T);
        let mut expired = std::pin::pin!(expired);
        assert!(expired.as_mut().now_or_never().is_none(), "armed");
        let request_at = T.idle - Duration::from_secs(1);
        tokio::time::sleep(request_at).await;
        activity.enter(Phase::Reading);
        activity.enter(Phase::Serving);
        activity.enter(Phase::Waiting);
        expired.await;
        assert_eq!(
            started.elapsed(),
            request_at + T.idle,
            "idle counts from the end of the last request"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn eviction_takes_the_longest_waiting_connection_that_is_not_serving() {
        let conns = Conns::default();
        let oldest = conns.register();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let serving = conns.register();
        serving.activity.enter(Phase::Serving);
        tokio::time::sleep(Duration::from_secs(1)).await;
        let reading = conns.register();
        reading.activity.enter(Phase::Reading);
        tokio::time::sleep(Duration::from_secs(1)).await;
        oldest.activity.enter(Phase::Serving);
        // Now: `oldest` serves, `reading` entered its phase last, `serving` serves.
        let newer = conns.register();
        assert!(conns.evict_one());
        assert!(
            reading.evicted.is_cancelled(),
            "the earliest non-serving phase"
        );
        assert!(!newer.evicted.is_cancelled());
        assert!(conns.evict_one());
        assert!(newer.evicted.is_cancelled());
        assert!(!conns.evict_one(), "every other connection is serving");
        assert!(!oldest.evicted.is_cancelled() && !serving.evicted.is_cancelled());
        drop(newer);
        assert_eq!(conns.table().len(), 3);
    }
}
