//! The sidecar's own requests to the host: a server's sampling, elicitation or roots request,
//! asked of the host as a request from the sidecar (`{server, …the server's params}`), and the
//! host's answer relayed back. This is the host's side of the [`Asker`] seam (`crate::ask`): it
//! checks a question against what the host declared, then asks through
//! [`PeerRequests`] (ids `"sidecar-N"`, every request ended exactly once — the host's answer,
//! routed here by the reader, which reads answers even while it waits for a ticket: see `serve`;
//! the timeout, `answerTimeoutMs`; the question withdrawn; the stop — with
//! `notifications/cancelled` to the host for a request nobody waits for any more).
//!
//! Bounds: at most [`limits::HOST_REQUESTS_MAX_OUTSTANDING`] requests wait on the host; past it a
//! question is refused at once (`AskError::Busy`). Every line goes through the bounded outbox.

use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::ask::{AskError, Asker, Capabilities, Question};
use crate::jsonrpc::{ErrorObject, RequestId};
use crate::limits;
use crate::serving::{Outbox, PeerRequests, Sink};

/// The host as the owner of every server session: what it declared, and its requests in flight.
pub(super) struct HostAsks {
    capabilities: Capabilities,
    outbox: Outbox,
    requests: PeerRequests,
}

impl HostAsks {
    /// Asks over `outbox`; `capabilities` as the host declared them, `timeout` per request.
    pub(super) fn new(capabilities: Capabilities, timeout: Duration, outbox: Outbox) -> Self {
        Self {
            capabilities,
            outbox,
            requests: PeerRequests::new(
                timeout,
                "the host did not answer in time (answerTimeoutMs)",
                limits::HOST_REQUESTS_MAX_OUTSTANDING,
            ),
        }
    }

    /// A response from the host: delivered to its request. False when nobody waits for `id` (not
    /// one of ours, answered already, timed out, withdrawn).
    pub(super) fn answered(
        &self,
        id: &RequestId,
        result: Result<Value, ErrorObject>,
        bytes: usize,
    ) -> bool {
        self.requests.answered(id, result, bytes)
    }

    /// Ends every request in flight with `why` and refuses new ones (the session is stopping).
    pub(super) fn close(&self, why: &str) {
        self.requests.close(why);
    }
}

impl Asker for HostAsks {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    fn ask(&self, question: Question) -> BoxFuture<'static, Result<Value, AskError>> {
        let sink = Sink::Outbox(self.outbox.clone());
        self.requests
            .ask(&self.capabilities, sink, question, host_params)
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn roots_host() -> HostAsks {
        let (outbox, _writer) = crate::serving::writer::spawn(
            tokio::io::sink(),
            tokio_util::sync::CancellationToken::new(),
        );
        let declared = serde_json::from_value(json!({"roots": {}})).unwrap();
        HostAsks::new(declared, Duration::from_secs(600), outbox)
    }

    fn question(method: &str) -> Question {
        Question {
            server: "fx".into(),
            method: method.into(),
            params: json!({}),
            key: None,
        }
    }

    #[tokio::test]
    async fn past_the_bound_a_question_is_refused_at_once_and_an_undeclared_one_unasked() {
        use futures_util::FutureExt;
        let host = roots_host();
        let mut open: Vec<_> = (0..limits::HOST_REQUESTS_MAX_OUTSTANDING)
            .map(|_| host.ask(question("roots/list")))
            .collect();
        for question in &mut open {
            assert!(question.now_or_never().is_none(), "waits for the host");
        }
        let over = host.ask(question("roots/list")).await;
        assert_eq!(
            over,
            Err(AskError::Busy {
                limit: limits::HOST_REQUESTS_MAX_OUTSTANDING
            })
        );
        let undeclared = host.ask(question("sampling/createMessage")).await;
        assert!(matches!(undeclared, Err(AskError::NotDeclared { .. })));
        host.close("stopping");
        for question in open {
            assert!(matches!(question.await, Err(AskError::Gone { .. })));
        }
    }

    #[test]
    fn the_host_sees_the_server_params_and_the_server_name() {
        assert_eq!(
            host_params(json!({"_meta": {"k": 1}}), "fx".into()),
            json!({"_meta": {"k": 1}, "server": "fx"})
        );
    }
}
