//! The sidecar's own requests to the host: a server's sampling, elicitation or roots request,
//! asked of the host as a request from the sidecar (`{server, …the server's params}`), and the
//! host's answer relayed back. This is the host's side of the [`Asker`] seam (`crate::ask`).
//!
//! Ids: strings `"sidecar-N"`, never a number, so a host that keys its own requests by integer
//! cannot confuse the two (each direction has its own ids anyway). The pending table
//! (`jsonrpc::Pending`) ends every request exactly once: the host's answer (routed here by the
//! reader, which reads answers even while it waits for a ticket: see `serve`), the timeout
//! (`answerTimeoutMs`), the question being withdrawn (the server cancelled it, its session ended),
//! or the stop (`close`). In the middle two cases the host gets `notifications/cancelled` for the
//! request, so it can stop working on it; a late answer is dropped.
//!
//! Bounds: at most [`limits::HOST_REQUESTS_MAX_OUTSTANDING`] requests wait on the host; past it a
//! question is refused at once (`AskError::Busy`). Every line goes through the bounded outbox.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use crate::ask::{AskError, Asker, Capabilities, Question};
use crate::jsonrpc::{encode_notification, encode_request, ErrorObject, Pending, Reply, RequestId};
use crate::limits;
use crate::serving::Outbox;

/// The prefix of every id the sidecar gives its own requests.
pub const ID_PREFIX: &str = "sidecar-";

/// The host as the owner of every server session: what it declared, and its requests in flight.
pub struct HostAsks {
    capabilities: Capabilities,
    timeout: Duration,
    outbox: Outbox,
    pending: Arc<Pending<AskError>>,
    slots: Arc<Semaphore>,
}

impl HostAsks {
    /// Asks over `outbox`; `capabilities` as the host declared them, `timeout` per request.
    pub fn new(capabilities: Capabilities, timeout: Duration, outbox: Outbox) -> Self {
        Self {
            capabilities,
            timeout,
            outbox,
            pending: Arc::new(Pending::new()),
            slots: Arc::new(Semaphore::new(limits::HOST_REQUESTS_MAX_OUTSTANDING)),
        }
    }

    /// A response from the host: delivered to its request. False when nobody waits for `id` (not
    /// one of ours, answered already, timed out, withdrawn).
    pub fn answered(
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
    pub fn close(&self, why: &str) {
        self.pending.close(AskError::Gone {
            reason: why.to_owned(),
        });
    }
}

impl Asker for HostAsks {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    fn ask(&self, question: Question) -> BoxFuture<'static, Result<Value, AskError>> {
        let admitted = self.capabilities.admit(&question.method, &question.params);
        let slot = Arc::clone(&self.slots).try_acquire_owned();
        let (outbox, pending, timeout) =
            (self.outbox.clone(), Arc::clone(&self.pending), self.timeout);
        Box::pin(async move {
            admitted?;
            let _slot = slot.map_err(|_| AskError::Busy {
                limit: limits::HOST_REQUESTS_MAX_OUTSTANDING,
            })?;
            let (number, answer) = pending.register()?;
            let id = RequestId::String(format!("{ID_PREFIX}{number}"));
            let mut open = Open {
                pending,
                outbox: outbox.clone(),
                number,
                id: id.clone(),
                reason: "the server withdrew its request",
                finished: false,
            };
            let Question {
                server,
                method,
                params,
            } = question;
            let line = encode_request(&id, &method, Some(&host_params(params, server)));
            tracing::debug!(%id, "asking the host");
            let sent_and_answered = async {
                outbox.send(line).await;
                answer.await
            };
            match tokio::time::timeout(timeout, sent_and_answered).await {
                Ok(Ok(outcome)) => {
                    open.finished = true;
                    outcome.and_then(|reply| result_of(reply.outcome))
                }
                // The table was dropped without an answer: only when the session is gone.
                Ok(Err(_)) => {
                    open.finished = true;
                    Err(AskError::Gone {
                        reason: "the session ended".into(),
                    })
                }
                Err(_) => {
                    open.reason = "the host did not answer in time (answerTimeoutMs)";
                    Err(AskError::TimedOut { after: timeout })
                }
            }
        })
    }
}

/// The params the host gets: the server's params with the server's name added.
fn host_params(params: Value, server: String) -> Value {
    let mut params = match params {
        Value::Object(map) => map,
        _ => Default::default(),
    };
    params.insert("server".into(), Value::String(server));
    Value::Object(params)
}

/// The host's answer as an outcome: its result (which must be an object), or its error relayed.
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

/// A request to the host that is still open; dropping it unanswered forgets it and tells the host.
struct Open {
    pending: Arc<Pending<AskError>>,
    outbox: Outbox,
    number: i64,
    id: RequestId,
    reason: &'static str,
    finished: bool,
}

impl Drop for Open {
    fn drop(&mut self) {
        if self.finished || !self.pending.forget(self.number) {
            return;
        }
        tracing::debug!(id = %self.id, reason = self.reason, "a request to the host was abandoned");
        let line = encode_notification(
            "notifications/cancelled",
            Some(&json!({"requestId": self.id, "reason": self.reason})),
        );
        let outbox = self.outbox.clone();
        // Drop cannot await; the notice is best-effort (the host may be gone).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { outbox.send(line).await });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots_host() -> HostAsks {
        let (outbox, _writer) = crate::serving::writer::spawn(
            tokio::io::sink(),
            tokio_util::sync::CancellationToken::new(),
        );
        let declared = serde_json::from_value(json!({"roots": {}})).unwrap();
        HostAsks::new(declared, Duration::from_secs(600), outbox)
    }

    fn roots_question() -> Question {
        Question {
            server: "fx".into(),
            method: "roots/list".into(),
            params: json!({}),
        }
    }

    #[tokio::test]
    async fn past_the_bound_a_question_is_refused_at_once_and_a_stop_ends_the_rest() {
        use futures_util::FutureExt;
        let host = roots_host();
        let mut open: Vec<_> = (0..limits::HOST_REQUESTS_MAX_OUTSTANDING)
            .map(|_| host.ask(roots_question()))
            .collect();
        for question in &mut open {
            assert!(question.now_or_never().is_none(), "waits for the host");
        }
        let over = host.ask(roots_question()).await;
        assert_eq!(
            over,
            Err(AskError::Busy {
                limit: limits::HOST_REQUESTS_MAX_OUTSTANDING
            })
        );
        host.close("stopping");
        for question in open {
            assert!(matches!(question.await, Err(AskError::Gone { .. })));
        }
        assert!(matches!(
            host.ask(roots_question()).await,
            Err(AskError::Gone { .. })
        ));
    }

    #[tokio::test]
    async fn an_answer_reaches_its_question_once() {
        use futures_util::FutureExt;
        let host = roots_host();
        let mut question = host.ask(roots_question());
        assert!((&mut question).now_or_never().is_none());
        let id = RequestId::String(format!("{ID_PREFIX}1"));
        assert!(host.answered(&id, Ok(json!({"roots": []})), 10));
        assert!(!host.answered(&id, Ok(json!({"roots": []})), 10), "once");
        assert_eq!(question.await, Ok(json!({"roots": []})));
    }

    #[test]
    fn only_our_string_ids_are_ours() {
        assert_eq!(our_number(&RequestId::String("sidecar-7".into())), Some(7));
        assert_eq!(our_number(&RequestId::String("sidecar-x".into())), None);
        assert_eq!(our_number(&RequestId::String("7".into())), None);
        assert_eq!(our_number(&RequestId::Number(7)), None);
    }

    #[test]
    fn the_host_sees_the_server_params_and_the_server_name() {
        assert_eq!(
            host_params(json!({"_meta": {"k": 1}}), "fx".into()),
            json!({"_meta": {"k": 1}, "server": "fx"})
        );
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
