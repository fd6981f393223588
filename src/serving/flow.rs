//! Flow control of a peer's requests (the host's, or the aggregate's MCP client's): how many may be in
//! flight at once, and how many bytes of request lines they may hold between them. Both bounds push
//! back into reading stdin: the reader takes a ticket before it starts a request and, when none is
//! free, stops reading until an answer has been queued for the peer. A peer that writes without
//! reading stdout therefore blocks on its own writes, and the sidecar's memory stays flat however
//! much it writes.
//!
//! A count alone would not bound memory (1024 requests of 16 MiB lines are 16 GiB), nor would bytes
//! alone (a million 40-byte pings are a million tasks): hence two semaphores.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The two budgets of one session.
pub(crate) struct Flow {
    requests: Arc<Semaphore>,
    bytes: Arc<Semaphore>,
    byte_budget: usize,
}

/// What one request in flight holds; dropped once its answer is queued.
pub(crate) struct Ticket {
    _request: OwnedSemaphorePermit,
    _bytes: OwnedSemaphorePermit,
}

impl Flow {
    /// At most `max_requests` requests (at least 1) holding at most `byte_budget` bytes of lines.
    pub(crate) fn new(max_requests: usize, byte_budget: usize) -> Self {
        let byte_budget = byte_budget.clamp(1, u32::MAX as usize);
        Self {
            requests: Arc::new(Semaphore::new(
                max_requests.clamp(1, Semaphore::MAX_PERMITS),
            )),
            bytes: Arc::new(Semaphore::new(byte_budget)),
            byte_budget,
        }
    }

    /// A ticket for a request read from a line of `line_bytes` bytes, waiting while either budget
    /// is spent. A line larger than the whole byte budget waits for all of it.
    pub(crate) async fn admit(&self, line_bytes: usize) -> Ticket {
        // `min(budget)` fits u32 (see `new`), and the semaphores are never closed.
        let weight = line_bytes.clamp(1, self.byte_budget) as u32;
        // The fast path takes no `.await`: the common case, a budget with room, costs two atomics.
        let request = match Arc::clone(&self.requests).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => acquired(Arc::clone(&self.requests).acquire_owned().await),
        };
        let bytes = match Arc::clone(&self.bytes).try_acquire_many_owned(weight) {
            Ok(permit) => permit,
            Err(_) => acquired(Arc::clone(&self.bytes).acquire_many_owned(weight).await),
        };
        Ticket {
            _request: request,
            _bytes: bytes,
        }
    }
}

/// The semaphores of a `Flow` are never closed, so acquiring cannot fail.
fn acquired(
    permit: Result<OwnedSemaphorePermit, tokio::sync::AcquireError>,
) -> OwnedSemaphorePermit {
    match permit {
        Ok(permit) => permit,
        Err(_) => unreachable!("a Flow semaphore is never closed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    #[tokio::test]
    async fn a_spent_budget_waits_until_a_ticket_is_dropped() {
        let flow = Flow::new(2, 100);
        let a = flow.admit(10).await;
        let _b = flow.admit(10).await;
        let mut third = std::pin::pin!(flow.admit(10));
        assert!((&mut third).now_or_never().is_none(), "two in flight");
        drop(a);
        let _c = third.await;

        let flow = Flow::new(10, 100);
        let big = flow.admit(1_000_000).await; // takes the whole budget
        let mut next = std::pin::pin!(flow.admit(1));
        assert!((&mut next).now_or_never().is_none(), "bytes spent");
        drop(big);
        let _n = next.await;
    }
}
