//! The table of requests we sent and are waiting on, keyed by the ids we allocated.
//!
//! Invariant: every registered request ends exactly once — by its response (`complete`), by the
//! caller giving up (`forget`, on timeout or cancellation), by a failure of that request alone
//! (`fail`, e.g. an HTTP error status for it), or by the peer going away (`close`, which answers every
//! waiter with the close reason and refuses new registrations). A response whose id is no longer in
//! the table (it arrived after a timeout or cancel) is dropped by `complete`.
//!
//! `E` is the owner's error type: a waiter gets its reply or an `E`, nothing in between.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::oneshot;

use super::message::{ErrorObject, RequestId};

/// A response as received: its outcome and the size of the line that carried it.
#[derive(Debug)]
pub struct Reply {
    pub outcome: Result<Value, ErrorObject>,
    pub bytes: usize,
}

type Waiter<E> = oneshot::Sender<Result<Reply, E>>;

/// What a registered request's receiver yields: its reply, or why there is none.
pub type Answer<E> = oneshot::Receiver<Result<Reply, E>>;

pub struct Pending<E> {
    next_id: AtomicI64,
    // A std Mutex: it is never held across an `.await`, and every critical section is a map operation.
    table: Mutex<Table<E>>,
}

struct Table<E> {
    waiters: HashMap<i64, Waiter<E>>,
    closed: Option<E>,
}

impl<E: Clone> Default for Pending<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Clone> Pending<E> {
    pub fn new() -> Self {
        Self {
            next_id: AtomicI64::new(1),
            table: Mutex::new(Table {
                waiters: HashMap::new(),
                closed: None,
            }),
        }
    }

    /// Allocates an id and a receiver for its reply, or returns the close reason if the peer is gone.
    pub fn register(&self) -> Result<(i64, Answer<E>), E> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let mut table = self.lock();
        if let Some(reason) = &table.closed {
            return Err(reason.clone());
        }
        table.waiters.insert(id, tx);
        Ok((id, rx))
    }

    /// Delivers a response. Returns false when no one waits for this id (late, duplicate or unknown).
    pub fn complete(&self, id: &RequestId, reply: Reply) -> bool {
        let RequestId::Number(n) = id else {
            return false;
        };
        let waiter = self.lock().waiters.remove(n);
        match waiter {
            Some(tx) => tx.send(Ok(reply)).is_ok(),
            None => false,
        }
    }

    /// Fails one request with `error`. Returns false when no one waits for this id.
    pub fn fail(&self, id: &RequestId, error: E) -> bool {
        let RequestId::Number(n) = id else {
            return false;
        };
        let waiter = self.lock().waiters.remove(n);
        match waiter {
            Some(tx) => tx.send(Err(error)).is_ok(),
            None => false,
        }
    }

    /// Removes a request the caller stopped waiting for. Returns true if it was still pending.
    pub fn forget(&self, id: i64) -> bool {
        self.lock().waiters.remove(&id).is_some()
    }

    /// Fails every pending request with `reason` and refuses new ones. Only the first reason is kept.
    pub fn close(&self, reason: E) {
        let drained: Vec<Waiter<E>> = {
            let mut table = self.lock();
            if table.closed.is_none() {
                table.closed = Some(reason.clone());
            }
            table.waiters.drain().map(|(_, tx)| tx).collect()
        };
        for tx in drained {
            let _ = tx.send(Err(reason.clone()));
        }
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed.is_some()
    }

    pub fn in_flight(&self) -> usize {
        self.lock().waiters.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table<E>> {
        // A poisoned lock means a panic elsewhere; the table itself is always consistent.
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(v: i64) -> Reply {
        Reply {
            outcome: Ok(Value::from(v)),
            bytes: 1,
        }
    }

    #[tokio::test]
    async fn response_reaches_its_waiter_once() {
        let p = Pending::<String>::new();
        let (id, rx) = p.register().unwrap();
        assert!(p.complete(&RequestId::Number(id), reply(5)));
        assert!(
            !p.complete(&RequestId::Number(id), reply(6)),
            "a duplicate is dropped"
        );
        assert_eq!(rx.await.unwrap().unwrap().outcome.unwrap(), Value::from(5));
    }

    #[tokio::test]
    async fn late_response_after_forget_is_dropped() {
        let p = Pending::<String>::new();
        let (id, _rx) = p.register().unwrap();
        assert!(p.forget(id));
        assert!(!p.complete(&RequestId::Number(id), reply(1)));
        assert_eq!(p.in_flight(), 0);
    }

    #[tokio::test]
    async fn close_fails_every_waiter_and_refuses_new_ones() {
        let p = Pending::<String>::new();
        let (_, a) = p.register().unwrap();
        let (_, b) = p.register().unwrap();
        p.close("gone".into());
        for rx in [a, b] {
            assert!(matches!(rx.await.unwrap(), Err(r) if r == "gone"));
        }
        assert_eq!(p.register().err().as_deref(), Some("gone"));
    }

    #[tokio::test]
    async fn fail_answers_one_waiter_and_leaves_the_others() {
        let p = Pending::<String>::new();
        let (a, rx_a) = p.register().unwrap();
        let (b, rx_b) = p.register().unwrap();
        assert!(p.fail(&RequestId::Number(a), "503".into()));
        assert!(!p.fail(&RequestId::Number(a), "again".into()), "ended once");
        assert!(matches!(rx_a.await.unwrap(), Err(r) if r == "503"));
        assert!(p.complete(&RequestId::Number(b), reply(2)));
        assert!(rx_b.await.unwrap().is_ok());
        assert!(!p.is_closed());
    }

    #[test]
    fn string_ids_are_never_ours() {
        let p = Pending::<String>::new();
        assert!(!p.complete(&RequestId::String("1".into()), reply(1)));
    }
}
