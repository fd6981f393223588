//! The endpoint's drain, the first part of its stop (SIGTERM, or the end of the pipe that started
//! it): from its start `/readyz` answers 503 and no new request, session or stream is taken (503
//! `SHUTTING_DOWN`, `Connection: close`), while the requests already in flight run on — and what
//! they wait for still arrives: a client's answers to a server's questions, its cancellations —
//! until each is answered or the drain bound (`--drain-timeout-ms`) passes. Then the endpoint
//! closes (`listener`): what is left is answered `SHUTTING_DOWN` and the servers are stopped.
//!
//! The listener stays open while it drains, so that a load balancer's probes see the 503 and a
//! client's answer on a new connection still reaches the call waiting for it.

use std::time::Duration;

use hyper::header::{HeaderValue, CONNECTION};
use hyper::{Response, StatusCode};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use tokio_util::task::task_tracker::TaskTrackerToken;
use tokio_util::task::TaskTracker;

use super::body::{json, Out};
use crate::aggregate::requests::wire::INTERNAL_ERROR;
use crate::error::ErrorCode;
use crate::jsonrpc::{encode_response, RequestId};

/// Whether the endpoint drains, and the requests in flight it waits for.
#[derive(Default)]
pub(crate) struct Drain {
    draining: CancellationToken,
    in_flight: TaskTracker,
}

/// A request's place among those in flight; the drain waits until every one is dropped.
pub(crate) struct InFlight {
    _place: TaskTrackerToken,
}

impl Drain {
    /// A place for a new request, or `None` once the drain has begun (refuse it with
    /// [`refused`]). The place is taken before the look, so a request either counts for the
    /// drain or is refused: none slips between the two.
    pub(crate) fn admit(&self) -> Option<InFlight> {
        let held = InFlight {
            _place: self.in_flight.token(),
        };
        (!self.draining.is_cancelled()).then_some(held)
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.draining.is_cancelled()
    }

    /// Begins the drain and waits until every request in flight is answered, at most `bound`;
    /// how many were still in flight when the bound passed.
    pub(crate) async fn run(&self, bound: Duration) -> usize {
        self.draining.cancel();
        self.in_flight.close();
        match tokio::time::timeout(bound, self.in_flight.wait()).await {
            Ok(()) => 0,
            Err(_) => self.in_flight.len(),
        }
    }
}

/// 503 for a request that arrives while the endpoint drains: a JSON-RPC error (`id` when the
/// request had one) with the `SHUTTING_DOWN` code, and the connection closed after it, so the
/// client's next connection goes (through its load balancer) to a replica that serves.
pub(crate) fn refused(id: Option<&RequestId>, what: &str) -> Response<Out> {
    let error = json!({
        "code": INTERNAL_ERROR,
        "message": format!("Service Unavailable: the sidecar is shutting down and takes no new {what}; try again (another replica serves it)"),
        "data": {"code": ErrorCode::ShuttingDown.as_str()},
    });
    let mut response = json(
        StatusCode::SERVICE_UNAVAILABLE,
        encode_response::<Value>(id, Err(&error)),
    );
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    #[tokio::test(start_paused = true)]
    async fn the_drain_waits_for_requests_in_flight_and_refuses_new_ones() {
        let drain = Drain::default();
        let first = drain.admit().expect("admitted before the drain");
        let second = drain.admit().expect("admitted before the drain");
        let running = drain.run(Duration::from_secs(25));
        let mut running = std::pin::pin!(running);
        assert!(running.as_mut().now_or_never().is_none());
        assert!(drain.is_draining());
        assert!(drain.admit().is_none(), "no new request once draining");
        drop(first);
        assert!(running.as_mut().now_or_never().is_none());
        drop(second);
        assert_eq!(running.await, 0, "every request answered");
    }

    #[tokio::test(start_paused = true)]
    async fn the_drain_ends_at_its_bound_with_the_count_left() {
        let drain = Drain::default();
        let _stuck = drain.admit().unwrap();
        let started = tokio::time::Instant::now();
        assert_eq!(drain.run(Duration::from_secs(3)).await, 1);
        assert_eq!(started.elapsed(), Duration::from_secs(3));
    }

    #[test]
    fn a_refusal_is_503_shutting_down_and_closes_the_connection() {
        let response = refused(Some(&RequestId::Number(7)), "requests");
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[CONNECTION], "close");
    }
}
