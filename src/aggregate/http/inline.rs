//! A request's run in its connection's own task. Most requests answer with one JSON body, so the
//! run is polled where the response waits for it: no task is spawned for it, and its answer wakes
//! no other task. Once it must go on without that task — its response turned into a stream, or
//! the connection ended first — it is spawned where it belongs (its legacy session's requests, or
//! the endpoint's tasks), so it runs on exactly as a spawned request would: a legacy request to
//! its end with its answer dropped, a modern one into its closed stream's cancellation, both with
//! their audit lines.
//!
//! While it runs in place it holds a token of the tracker it would be spawned on, so a session's
//! stop and the endpoint's close wait for it as for any spawned request.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio_util::task::task_tracker::TaskTrackerToken;

use super::sessions::HttpSession;
use super::state::State;

/// A request's run, boxed once: it moves from here into a task without being copied.
pub(super) type Work = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where a run goes when it must go on as a task of its own.
pub(super) enum Home {
    /// A legacy session's request: among its session's requests.
    Session(Arc<HttpSession>),
    /// A modern request: among the endpoint's tasks.
    Endpoint(Arc<State>),
}

/// A request's run, polled in place until it ends or [`Inline::detach`] (or a drop) spawns it.
pub(super) struct Inline {
    work: Option<(Work, TaskTrackerToken)>,
    home: Home,
}

impl Inline {
    pub(super) fn new(work: Work, home: Home) -> Inline {
        let token = match &home {
            Home::Session(http) => http.session.requests.track(),
            Home::Endpoint(state) => state.tasks.token(),
        };
        Inline {
            work: Some((work, token)),
            home,
        }
    }

    /// Spawns the run, when it has not ended, as a task of its own.
    pub(super) fn detach(&mut self) {
        let Some((work, _token)) = self.work.take() else {
            return;
        };
        // A drop outside the runtime (the process tearing down) has nothing to spawn on: the run
        // ends here with the runtime's other tasks.
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        match &self.home {
            Home::Session(http) => http.session.requests.spawn(work),
            Home::Endpoint(state) => {
                state.tasks.spawn(work);
            }
        }
    }
}

impl Future for Inline {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let Some((work, _)) = self.work.as_mut() else {
            return Poll::Ready(());
        };
        match work.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.work = None;
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Inline {
    fn drop(&mut self) {
        self.detach();
    }
}
