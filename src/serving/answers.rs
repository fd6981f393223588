//! The bytes of answers a session's requests may hold at once: made, and not yet queued for the
//! writer (whose own queue is bounded in `writer`). Without it a peer that sends many calls and
//! stops reading gets every call made and every answer kept — thousands of results of up to
//! `maxResultBytes` each — however flat the writer's queue is.
//!
//! A request reserves its share before its handler runs, waiting while none is left; so when the
//! peer stops reading, answers wait for the writer, the reservations stay taken, and the requests
//! behind them wait to start (their tickets held, the reader stops: the pushback of `flow`). Once
//! its answer is made the request [`Held::fit`]s the reservation to the answer's size: the rest
//! goes back at once, and an answer larger than its reservation gives it back and waits for its
//! whole size (waiting for the difference while holding the rest could leave every reservation
//! waiting for another's).

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The answer budget of one session.
pub(crate) struct Answers {
    room: Arc<Semaphore>,
    budget: usize,
    reserve: usize,
}

/// The part of the budget one request holds; given back when dropped.
pub(crate) struct Held {
    room: Arc<Semaphore>,
    budget: usize,
    permit: Option<OwnedSemaphorePermit>,
}

impl Answers {
    /// `budget` bytes between every request's answers; each request reserves `reserve` first.
    pub(crate) fn new(budget: usize, reserve: usize) -> Self {
        let budget = budget.clamp(1, u32::MAX as usize);
        Self {
            room: Arc::new(Semaphore::new(budget)),
            budget,
            reserve: reserve.clamp(1, budget),
        }
    }

    /// A request's reservation, waiting while the budget is spent.
    pub(crate) async fn reserve(&self) -> Held {
        let mut held = Held {
            room: Arc::clone(&self.room),
            budget: self.budget,
            permit: None,
        };
        held.permit = Some(take(&self.room, self.reserve).await);
        held
    }

    /// Bytes reserved or held right now.
    #[cfg(test)]
    pub(crate) fn held_bytes(&self) -> usize {
        self.budget.saturating_sub(self.room.available_permits())
    }
}

impl Held {
    /// Makes this hold `bytes` (an answer's size, clamped to the budget): the rest goes back; more
    /// is waited for, with nothing held meanwhile.
    pub(crate) async fn fit(&mut self, bytes: usize) {
        let bytes = bytes.clamp(1, self.budget);
        let held = self.permit.as_ref().map_or(0, |p| p.num_permits());
        if bytes <= held {
            if let Some(permit) = self.permit.as_mut() {
                drop(permit.split(held - bytes));
            }
            return;
        }
        self.permit = None;
        self.permit = Some(take(&self.room, bytes).await);
    }
}

/// `bytes` (at most the budget: see `Answers::new`) of `room`, which is never closed.
async fn take(room: &Arc<Semaphore>, bytes: usize) -> OwnedSemaphorePermit {
    let weight = bytes as u32;
    if let Ok(permit) = Arc::clone(room).try_acquire_many_owned(weight) {
        return permit;
    }
    match Arc::clone(room).acquire_many_owned(weight).await {
        Ok(permit) => permit,
        Err(_) => unreachable!("an answer budget is never closed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    #[tokio::test]
    async fn reservations_wait_for_room_and_fit_their_answers() {
        let answers = Answers::new(100, 40);
        let mut a = answers.reserve().await;
        let b = answers.reserve().await;
        let mut third = std::pin::pin!(answers.reserve());
        assert!(third.as_mut().now_or_never().is_none(), "80 of 100 held");
        a.fit(10).await; // a small answer gives the rest of its reservation back
        let _c = third.await;
        assert_eq!(answers.held_bytes(), 90);

        // An answer larger than its reservation gives it back and waits for its whole size.
        let mut grow = std::pin::pin!(a.fit(60));
        assert!(grow.as_mut().now_or_never().is_none(), "60 are not free");
        drop(b); // 40 back, with its own 10: 60
        grow.await;
        assert_eq!(answers.held_bytes(), 100);
    }
}
