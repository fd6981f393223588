//! The requests of one session in flight: each runs as a task of its own with a cancel token under
//! its id, so a `notifications/cancelled` finds it, and a stop can cancel them all and wait until
//! each has ended. [`guarded`] runs a handler so that it ends exactly once: with its outcome, with
//! its token, or with a caught panic.
//!
//! Cancellation is by dropping: when the token fires first, the handler's future is dropped where
//! it stands, which (for a tool call) removes the downstream request and tells the server.

use std::any::Any;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Mutex, MutexGuard};

use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;
use tokio_util::task::task_tracker::TaskTrackerToken;
use tokio_util::task::TaskTracker;

use crate::jsonrpc::RequestId;

/// The requests of one session in flight, and their tasks.
#[derive(Default)]
pub(crate) struct Requests {
    inflight: Mutex<HashMap<RequestId, CancellationToken>>,
    tasks: TaskTracker,
}

/// Why a [`guarded`] handler did not give its outcome.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// Its token fired first.
    Cancelled,
    /// It panicked; the panic's message when it had one.
    Panicked(String),
}

impl Requests {
    /// Registers request `id` and returns its token; `None` when a request with the same id is in
    /// flight (taking it over would leave the first one impossible to cancel).
    pub(crate) fn begin(&self, id: &RequestId) -> Option<CancellationToken> {
        match self.inflight().entry(id.clone()) {
            Entry::Occupied(_) => None,
            Entry::Vacant(slot) => Some(slot.insert(CancellationToken::new()).clone()),
        }
    }

    /// Forgets request `id` (it has ended).
    pub(crate) fn finish(&self, id: &RequestId) {
        self.inflight().remove(id);
    }

    /// Fires request `id`'s token; `false` when no such request is in flight.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        let token = self.inflight().remove(id);
        token.map(|t| t.cancel()).is_some()
    }

    /// How many requests are in flight.
    pub(crate) fn len(&self) -> usize {
        self.inflight().len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `task` as one of this session's tasks (a stop waits for it).
    pub(crate) fn spawn<F>(&self, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        // Boxed once here: a request's future is as large as its largest handler's state, and
        // unboxed it would be copied whole at each layer of the spawn (tracker, runtime, task
        // cell); boxed, those layers move a pointer.
        self.tasks.spawn(Box::pin(task));
    }

    /// Counts a request run in place (not spawned) among this session's tasks until the token
    /// drops, so [`Requests::stop_all`] waits for it too.
    pub(crate) fn track(&self) -> TaskTrackerToken {
        self.tasks.token()
    }

    /// Fires every token, then waits until every task has ended; no task starts after this.
    pub(crate) async fn stop_all(&self) {
        for (_, token) in self.inflight().drain() {
            token.cancel();
        }
        self.tasks.close();
        self.tasks.wait().await;
    }

    /// The table; a poisoned lock is still usable (the map stays consistent).
    fn inflight(&self) -> MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.inflight.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Runs `work` until it ends or `token` fires. A panic inside `work` is caught: only the state of
/// this one future is lost, and the request can still be answered.
pub(crate) async fn guarded<F: Future>(
    token: &CancellationToken,
    work: F,
) -> Result<F::Output, Stopped> {
    tokio::select! {
        // Dropping `work` is what cancels it (see module doc).
        _ = token.cancelled() => Err(Stopped::Cancelled),
        // Polled in place, no task of its own: a panic unwinds only to here.
        outcome = AssertUnwindSafe(work).catch_unwind() => {
            outcome.map_err(|panic| Stopped::Panicked(panic_message(panic.as_ref())))
        }
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_id_in_flight_is_refused_and_a_cancel_reaches_its_handler() {
        let requests = Requests::default();
        let id = RequestId::Number(7);
        let token = requests.begin(&id).expect("fresh id");
        assert!(requests.begin(&id).is_none(), "same id while in flight");
        assert!(requests.cancel(&id));
        assert!(!requests.cancel(&id), "already gone");
        let outcome = guarded(&token, std::future::pending::<()>()).await;
        assert_eq!(outcome, Err(Stopped::Cancelled));
        assert!(requests.begin(&id).is_some(), "free again");
    }

    #[tokio::test]
    async fn a_panic_is_caught_with_its_message() {
        let token = CancellationToken::new();
        let outcome = guarded(&token, async { panic!("boom {}", 1) }).await;
        assert_eq!(outcome, Err(Stopped::Panicked("boom 1".into())));
        assert_eq!(guarded(&token, async { 5 }).await, Ok(5));
    }

    #[tokio::test]
    async fn stop_all_cancels_every_request_and_waits_for_its_task() {
        let requests = std::sync::Arc::new(Requests::default());
        let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel();
        for n in 0..3 {
            let token = requests.begin(&RequestId::Number(n)).expect("fresh");
            let done = done_tx.clone();
            requests.spawn(async move {
                let outcome = guarded(&token, std::future::pending::<()>()).await;
                let _ = done.send(outcome);
            });
        }
        requests.stop_all().await;
        for _ in 0..3 {
            assert_eq!(done_rx.try_recv(), Ok(Err(Stopped::Cancelled)));
        }
        assert!(requests.is_empty());
    }
}
