//! The sidecar's own requests to its peer — the host, or an MCP client of the aggregate — and the peer's
//! answers routed back: what both sides of the [`ask`](crate::ask) seam need once they decided to
//! ask (`host::asks` asks the host; `aggregate::requests::asks` asks an MCP client).
//!
//! Ids: strings `"sidecar-N"`, never a number, so a peer that keys its own requests by integer
//! cannot confuse the two (each direction has its own ids anyway). The pending table
//! (`jsonrpc::Pending`) ends every request exactly once: the peer's answer ([`PeerRequests::answered`],
//! called by whoever reads the peer), the timeout, the request being withdrawn (its future dropped:
//! the server cancelled, its session ended), or the stop ([`PeerRequests::close`]). In the middle
//! two cases the peer gets `notifications/cancelled` for the request on the same sink, so it can
//! stop working on it; a late answer is dropped.
//!
//! Bounds: at most `max_outstanding` requests wait on the peer, holding at most
//! [`limits::HOST_REQUESTS_MAX_BYTES`] bytes between them and [`limits::SERVER_REQUESTS_MAX_BYTES`]
//! for one server's questions (`question_bytes`); past any of them a request is refused at once
//! ([`AskError::Busy`], [`AskError::Crowded`]). A request keeps its line, nothing more, and the
//! line goes through a bounded sink.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::question_bytes::QuestionBytes;
use super::sink::Sink;
use crate::ask::{AskError, Capabilities, Question};
use crate::jsonrpc::{encode_notification, encode_request, ErrorObject, Pending, Reply, RequestId};
use crate::limits;

/// The prefix of every id the sidecar gives its own requests.
pub(crate) const ID_PREFIX: &str = "sidecar-";

/// The requests in flight to one peer.
pub(crate) struct PeerRequests {
    timeout: Duration,
    /// What the peer is told when it did not answer in time (names the setting).
    timeout_reason: &'static str,
    max_outstanding: usize,
    pending: Arc<Pending<AskError>>,
    slots: Arc<Semaphore>,
    bytes: Arc<QuestionBytes>,
}

impl PeerRequests {
    /// Each request waits at most `timeout` (past it the peer is told `timeout_reason`); at most
    /// `max_outstanding` wait at once.
    pub(crate) fn new(
        timeout: Duration,
        timeout_reason: &'static str,
        max_outstanding: usize,
    ) -> Self {
        Self {
            timeout,
            timeout_reason,
            max_outstanding,
            pending: Arc::new(Pending::new()),
            slots: Arc::new(Semaphore::new(max_outstanding)),
            bytes: QuestionBytes::new(
                limits::HOST_REQUESTS_MAX_BYTES,
                limits::SERVER_REQUESTS_MAX_BYTES,
            ),
        }
    }

    /// A response from the peer: delivered to its request. False when nobody waits for `id` (not
    /// one of ours, answered already, timed out, withdrawn).
    pub(crate) fn answered(
        &self,
        id: &RequestId,
        result: Result<Value, ErrorObject>,
        bytes: usize,
    ) -> bool {
        let Some(number) = our_number(id) else {
            return false;
        };
        let reply = Reply {
            outcome: result,
            bytes,
        };
        self.pending.complete(&RequestId::Number(number), reply)
    }

    /// Ends every request in flight with `why` and refuses new ones (the session is stopping).
    pub(crate) fn close(&self, why: &str) {
        self.pending.close(AskError::Gone {
            reason: why.to_owned(),
        });
    }

    /// Asks the peer `question` unless `declared` (what the peer said it can answer) lacks what it
    /// needs — then it is refused without asking. `params_for` makes the params the peer gets from
    /// the question's server and params.
    pub(crate) fn ask(
        &self,
        declared: &Capabilities,
        sink: Sink,
        question: Question,
        params_for: fn(Value, String) -> Value,
    ) -> BoxFuture<'static, Result<Value, AskError>> {
        if let Err(refused) = declared.admit(&question.method, &question.params) {
            return Box::pin(async move { Err(refused) });
        }
        let Question {
            server,
            method,
            params,
            ..
        } = question;
        let from = server.clone();
        self.request(sink, &from, method, params_for(params, server))
    }

    /// Sends `method` with `params` (a question of server `from`) to the peer over `sink` and
    /// waits for its answer (an object, or its error relayed). Every bound is checked now, not
    /// when the future first runs, and the params are made into the line now: a question refused
    /// or waiting holds its line and nothing more (a server's questions arrive faster than their
    /// futures run). Dropping the future withdraws the request.
    pub(crate) fn request(
        &self,
        sink: Sink,
        from: &str,
        method: String,
        params: Value,
    ) -> BoxFuture<'static, Result<Value, AskError>> {
        let refused = |why: AskError| -> BoxFuture<'static, Result<Value, AskError>> {
            Box::pin(async move { Err(why) })
        };
        let limit = self.max_outstanding;
        let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned() else {
            return refused(AskError::Busy { limit });
        };
        let (number, answer) = match self.pending.register() {
            Ok(registered) => registered,
            Err(gone) => return refused(gone),
        };
        let id = RequestId::String(format!("{ID_PREFIX}{number}"));
        let line = encode_request(&id, &method, Some(&params));
        drop(params);
        let taken = match self.bytes.take(from, line.len()) {
            Ok(taken) => taken,
            Err(crowded) => {
                // Never sent: nothing to tell the peer.
                self.pending.forget(number);
                return refused(crowded);
            }
        };
        let open = Open {
            pending: Arc::clone(&self.pending),
            sink: sink.clone(),
            number,
            id,
            reason: "the server withdrew its request",
            sent: false,
            finished: false,
        };
        let (timeout, timeout_reason) = (self.timeout, self.timeout_reason);
        Box::pin(async move {
            let (_held, mut open) = ((slot, taken), open);
            tracing::debug!(id = %open.id, method, "asking the peer");
            open.sent = true;
            let sent_and_answered = async {
                if !sink.send(line).await {
                    return Err(AskError::Gone {
                        reason: "the peer's stream is closed".into(),
                    });
                }
                answer.await.unwrap_or_else(|_| {
                    Err(AskError::Gone {
                        reason: "the session ended".into(),
                    })
                })
            };
            match tokio::time::timeout(timeout, sent_and_answered).await {
                Ok(outcome) => {
                    open.finished = true;
                    outcome.and_then(|reply| result_of(reply.outcome))
                }
                Err(_) => {
                    open.reason = timeout_reason;
                    Err(AskError::TimedOut { after: timeout })
                }
            }
        })
    }
}

/// The peer's answer as an outcome: its result (which must be an object), or its error relayed.
fn result_of(outcome: Result<Value, ErrorObject>) -> Result<Value, AskError> {
    match outcome {
        Ok(result @ Value::Object(_)) => Ok(result),
        Ok(other) => Err(AskError::InvalidAnswer {
            reason: format!("the result must be an object, not {other}"),
        }),
        Err(e) => Err(AskError::Refused {
            code: e.code,
            message: e.message,
            data: e.data,
        }),
    }
}

/// The number in one of our ids (`"sidecar-N"`).
fn our_number(id: &RequestId) -> Option<i64> {
    match id {
        RequestId::String(text) => text.strip_prefix(ID_PREFIX)?.parse().ok(),
        _ => None,
    }
}

/// A request to the peer that is still open; dropping it unanswered forgets it and tells the peer.
struct Open {
    pending: Arc<Pending<AskError>>,
    sink: Sink,
    number: i64,
    id: RequestId,
    reason: &'static str,
    /// Set once its line goes to the sink: a request never sent is forgotten without a notice.
    sent: bool,
    finished: bool,
}

impl Drop for Open {
    fn drop(&mut self) {
        if self.finished || !self.pending.forget(self.number) || !self.sent {
            return;
        }
        tracing::debug!(id = %self.id, reason = self.reason, "a request to the peer was abandoned");
        let line = encode_notification(
            "notifications/cancelled",
            Some(&json!({"requestId": self.id, "reason": self.reason})),
        );
        let sink = self.sink.clone();
        // Drop cannot await; the notice is best-effort (the peer may be gone).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { sink.send(line).await });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    fn peer(max: usize) -> (PeerRequests, Sink, tokio::sync::mpsc::Receiver<Vec<u8>>) {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        (
            PeerRequests::new(Duration::from_secs(600), "late", max),
            Sink::Stream(tx),
            rx,
        )
    }

    fn ask(peer: &PeerRequests, sink: &Sink) -> BoxFuture<'static, Result<Value, AskError>> {
        peer.request(sink.clone(), "fx", "roots/list".into(), json!({}))
    }

    #[tokio::test]
    async fn past_the_bound_a_request_is_refused_at_once_and_a_stop_ends_the_rest() {
        let (peer, sink, _lines) = peer(3);
        let mut open: Vec<_> = (0..3).map(|_| ask(&peer, &sink)).collect();
        for request in &mut open {
            assert!(request.now_or_never().is_none(), "waits for the peer");
        }
        assert_eq!(ask(&peer, &sink).await, Err(AskError::Busy { limit: 3 }));
        peer.close("stopping");
        for request in open {
            assert!(matches!(request.await, Err(AskError::Gone { .. })));
        }
        assert!(matches!(
            ask(&peer, &sink).await,
            Err(AskError::Gone { .. })
        ));
    }

    #[tokio::test]
    async fn an_answer_reaches_its_request_once_and_a_withdrawal_is_told() {
        let (peer, sink, mut lines) = peer(8);
        let mut request = ask(&peer, &sink);
        assert!((&mut request).now_or_never().is_none());
        let sent: Value = serde_json::from_slice(&lines.recv().await.unwrap()).unwrap();
        assert_eq!(
            (sent["id"].as_str(), sent["method"].as_str()),
            (Some("sidecar-1"), Some("roots/list"))
        );
        let id = RequestId::String(format!("{ID_PREFIX}1"));
        assert!(peer.answered(&id, Ok(json!({"roots": []})), 10));
        assert!(!peer.answered(&id, Ok(json!({"roots": []})), 10), "once");
        assert_eq!(request.await, Ok(json!({"roots": []})));

        let mut withdrawn = ask(&peer, &sink);
        assert!((&mut withdrawn).now_or_never().is_none());
        let _request = lines.recv().await.unwrap();
        drop(withdrawn);
        let cancel: Value = serde_json::from_slice(&lines.recv().await.unwrap()).unwrap();
        assert_eq!(cancel["method"], "notifications/cancelled");
        assert_eq!(cancel["params"]["requestId"], "sidecar-2");
    }

    #[tokio::test]
    async fn large_questions_are_bounded_in_bytes_per_server_and_in_all() {
        let (peer, sink, _unread) = peer(256);
        let big = json!({"messages": "x".repeat(2_000_000)});
        let ask_big = |server: &str| {
            peer.request(
                sink.clone(),
                server,
                "sampling/createMessage".into(),
                big.clone(),
            )
        };
        let mut open = Vec::new();
        for server in ["a", "b", "c", "d"] {
            for _ in 0..4 {
                let mut question = ask_big(server);
                assert!((&mut question).now_or_never().is_none(), "asked");
                open.push(question);
            }
        }
        // Four 2 MB questions of one server fill its 8 MiB; sixteen fill the 32 MiB of all.
        let crowded = ask_big("a").await.unwrap_err();
        assert!(crowded.to_string().contains("server `a`"), "{crowded}");
        let crowded = ask_big("e").await.unwrap_err();
        assert!(crowded.to_string().contains("every server"), "{crowded}");
        assert_eq!(crowded.rpc_code(), -32000);
        drop(open); // withdrawn: their bytes come back
        let mut again = ask_big("e");
        assert!((&mut again).now_or_never().is_none(), "asked again");
    }

    #[test]
    fn only_our_string_ids_are_ours() {
        assert_eq!(our_number(&RequestId::String("sidecar-7".into())), Some(7));
        assert_eq!(our_number(&RequestId::String("sidecar-x".into())), None);
        assert_eq!(our_number(&RequestId::String("7".into())), None);
        assert_eq!(our_number(&RequestId::Number(7)), None);
    }

    #[test]
    fn an_answer_must_be_an_object_and_an_error_is_relayed() {
        assert_eq!(result_of(Ok(json!({"a": 1}))), Ok(json!({"a": 1})));
        assert!(matches!(
            result_of(Ok(json!(5))),
            Err(AskError::InvalidAnswer { .. })
        ));
        let refused = result_of(Err(ErrorObject {
            code: -1,
            message: "no".into(),
            data: None,
        }));
        assert_eq!(refused.unwrap_err().rpc_code(), -1);
    }
}
