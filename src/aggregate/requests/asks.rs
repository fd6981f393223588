//! The aggregate's side of the [`ask`](crate::ask) seam: a server's sampling, elicitation or roots
//! request goes to the aggregate's client it concerns.
//!
//! - Downstream, every server is told the aggregate can answer all three ([`declared`]): which
//!   client will be asked is only known when a question comes, and each client's own declaration
//!   decides then.
//! - A question from a server with a client's call in flight goes to that call (the most recent one
//!   on that server): the call's handler asks its client (`tools::call`) — in a legacy session with
//!   a request of the sidecar's own on the call's stream, in the 2026-07-28 era not at all (a
//!   server may not ask on a client's stream there; the call fails with -32021 when the client did
//!   not declare the capability).
//! - A question with no call in flight (a server asking on its own, say `roots/list` after
//!   starting) goes to the most recent legacy session that can be reached outside a call: the
//!   initialized stdio session, or an HTTP session with its GET stream open.
//! - Otherwise the question is refused (-32601), as a client that declared nothing would.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::aggregate::session::legacy::Session;
use crate::ask::{AskError, Asker, Capabilities, Elicitation, Question, Roots, Sampling};
use crate::serving::{Sink, WeakSink};

/// Questions one call can have waiting for its handler (a server asks one at a time, in practice).
const QUESTIONS_PER_CALL: usize = 8;

/// A question for a call's handler, and where its answer goes.
pub(crate) struct Asked {
    pub question: Question,
    pub answer: oneshot::Sender<Result<Value, AskError>>,
}

type Calls = HashMap<String, Vec<(u64, mpsc::Sender<Asked>)>>;

/// The aggregate's asker (see the module doc).
pub(crate) struct ClientAsks {
    declared: Capabilities,
    /// Calls in flight by server, oldest first.
    calls: Mutex<Calls>,
    /// Legacy sessions reachable outside a call, with the sink to reach each; newest last.
    standing: Mutex<Vec<(Weak<Session>, WeakSink)>>,
    next: AtomicU64,
}

/// What the aggregate tells every server it can answer.
pub(crate) fn declared() -> Capabilities {
    Capabilities {
        sampling: Some(Sampling::default()),
        elicitation: Some(Elicitation {
            form: Some(Default::default()),
            url: Some(Default::default()),
        }),
        // A client's `notifications/roots/list_changed` is passed on to every server (`dispatch`).
        roots: Some(Roots {
            list_changed: Some(true),
        }),
        // An MCP client has no way to show a login: `auth/authorize` is the host protocol's.
        auth: None,
    }
}

impl Default for ClientAsks {
    fn default() -> Self {
        Self {
            declared: declared(),
            calls: Mutex::default(),
            standing: Mutex::default(),
            next: AtomicU64::new(0),
        }
    }
}

/// A call registered for the questions of its server; unregistered when dropped.
pub(crate) struct CallQuestions {
    asks: Arc<ClientAsks>,
    server: String,
    number: u64,
    pub questions: mpsc::Receiver<Asked>,
}

impl Drop for CallQuestions {
    fn drop(&mut self) {
        let mut calls = self.asks.calls();
        if let Some(list) = calls.get_mut(&self.server) {
            list.retain(|(n, _)| *n != self.number);
            if list.is_empty() {
                calls.remove(&self.server);
            }
        }
    }
}

impl ClientAsks {
    /// Registers a call on `server`: its questions arrive on the returned receiver.
    pub(crate) fn call_on(self: &Arc<Self>, server: &str) -> CallQuestions {
        let (tx, questions) = mpsc::channel(QUESTIONS_PER_CALL);
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        self.calls()
            .entry(server.to_owned())
            .or_default()
            .push((number, tx));
        CallQuestions {
            asks: Arc::clone(self),
            server: server.to_owned(),
            number,
            questions,
        }
    }

    /// `session` can be asked outside any call, over `sink`, for as long as both last (the stream
    /// is not kept open for it).
    pub(crate) fn stand_by(&self, session: &Arc<Session>, sink: &Sink) {
        let mut standing = self.standing();
        standing.retain(|(s, sink)| s.strong_count() > 0 && sink.upgrade().is_some());
        standing.push((Arc::downgrade(session), sink.downgrade()));
    }

    fn calls(&self) -> MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn standing(&self) -> MutexGuard<'_, Vec<(Weak<Session>, WeakSink)>> {
        self.standing.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Asker for ClientAsks {
    fn capabilities(&self) -> &Capabilities {
        &self.declared
    }

    fn ask(&self, question: Question) -> BoxFuture<'static, Result<Value, AskError>> {
        let call = self
            .calls()
            .get(&question.server)
            .and_then(|list| list.last())
            .map(|(_, tx)| tx.clone());
        if let Some(call) = call {
            return Box::pin(async move {
                let (answer, answered) = oneshot::channel();
                let gone = || AskError::Gone {
                    reason: "the client's call ended".into(),
                };
                call.send(Asked { question, answer })
                    .await
                    .map_err(|_| gone())?;
                answered.await.unwrap_or_else(|_| Err(gone()))
            });
        }
        let standing = self
            .standing()
            .iter()
            .rev()
            .find_map(|(s, sink)| Some((s.upgrade()?, sink.upgrade()?)));
        match standing {
            Some((session, sink)) => session.ask(sink, question),
            None => Box::pin(async move {
                Err(AskError::NotDeclared {
                    method: question.method,
                })
            }),
        }
    }
}

/// The capability a question needs, as MCP's `ClientCapabilities` names it.
pub(crate) fn capability_of(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// The `data` of `MissingRequiredClientCapabilityError` for `capability`.
pub(crate) fn required(capability: &str) -> Value {
    json!({ "requiredCapabilities": { capability: {} } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(server: &str) -> Question {
        Question {
            server: server.into(),
            method: "roots/list".into(),
            params: json!({}),
            key: None,
        }
    }

    #[tokio::test]
    async fn a_question_goes_to_the_latest_call_on_its_server_else_is_refused() {
        let asks = Arc::new(ClientAsks::default());
        let refused = asks.ask(question("a")).await;
        assert!(matches!(refused, Err(AskError::NotDeclared { .. })));
        let mut first = asks.call_on("a");
        let mut second = asks.call_on("a");
        let _other = asks.call_on("b");
        let asked = tokio::spawn(asks.ask(question("a")));
        let got = second.questions.recv().await.unwrap();
        assert_eq!(got.question.server, "a");
        got.answer.send(Ok(json!({"roots": []}))).unwrap();
        assert_eq!(asked.await.unwrap(), Ok(json!({"roots": []})));
        assert!(
            first.questions.try_recv().is_err(),
            "only the latest call is asked"
        );
        drop(second);
        let asked = tokio::spawn(asks.ask(question("a")));
        drop(first.questions.recv().await.unwrap());
        assert!(matches!(asked.await.unwrap(), Err(AskError::Gone { .. })));
        drop(first);
        assert!(asks.calls().get("a").is_none(), "unregistered");
    }

    #[tokio::test]
    async fn with_no_call_in_flight_the_latest_standing_session_is_asked() {
        let asks = Arc::new(ClientAsks::default());
        let session = Arc::new(Session::default());
        let declared = json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}});
        session.initialize(Some(&declared)).unwrap();
        let (tx, mut lines) = mpsc::channel(4);
        let sink = Sink::Stream(tx);
        asks.stand_by(&session, &sink);
        let asked = tokio::spawn(asks.ask(question("a")));
        let request: Value = serde_json::from_slice(&lines.recv().await.unwrap()).unwrap();
        assert_eq!(request["method"], "roots/list");
        assert_eq!(request["params"]["_meta"]["mcp-sidecar/server"], "a");
        let id = serde_json::from_value(request["id"].clone()).unwrap();
        assert!(session.asked.answered(&id, Ok(json!({"roots": []})), 20));
        assert_eq!(asked.await.unwrap(), Ok(json!({"roots": []})));
        drop(session);
        let gone = asks.ask(question("a")).await;
        assert!(
            matches!(gone, Err(AskError::NotDeclared { .. })),
            "a session that ended is not asked"
        );
    }

    #[test]
    fn questions_name_their_capability() {
        assert_eq!(capability_of("elicitation/create"), Some("elicitation"));
        assert_eq!(
            required("sampling"),
            json!({"requiredCapabilities": {"sampling": {}}})
        );
    }
}
