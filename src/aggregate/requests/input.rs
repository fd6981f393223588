//! A server's question during a 2026-07-28 client's request (`tools/call`, `prompts/get`,
//! `resources/read`; `answering`): the era has no requests from server to client, so the request
//! answers with an `input_required` result instead (SEP-2322) and waits, parked, for the client to
//! retry with the answers.
//!
//! - The running call is kept under a fresh `requestState` (128 random bits); its questions are
//!   listed in `inputRequests` under keys of their own (`q1`, `q2`… per call).
//! - The retry (the same method and `name` or `uri`, with `requestState` and `inputResponses`)
//!   takes the call back: each answered question gets its answer, the call goes on, and its result — or its
//!   next question, as another `input_required` — is the retry's answer. A question left without
//!   an answer is asked again. An unknown or expired `requestState`, or another request's, is -32602.
//! - Bounds: at most [`limits::AGGREGATE_PARKED_MAX`] calls parked, each for at most
//!   [`limits::AGGREGATE_ANSWER_TIMEOUT`]; a call parked longer is cancelled (its server told), and
//!   past the cap a question is refused at once.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{json, Map, Value};
use tokio::sync::watch;
use tokio_util::task::AbortOnDropHandle;

use super::asks::{Asked, CallQuestions};
use super::wire::WireError;
use crate::aggregate::session::ids::random_id;
use crate::aggregate::session::legacy::naming;
use crate::ask::AskError;
use crate::error::Result;
use crate::limits;
use crate::supervisor::Progress;

/// A request on its way: the task running it (cancelled when dropped), its server's questions,
/// and the questions waiting for the client's answers, by key.
pub(crate) struct Running {
    /// What the request is for ("tool `x`", "prompt `y`"…): a retry must name the same.
    pub request: String,
    /// The server that serves it, when known at the start.
    pub server: Option<String>,
    /// The task, its answer the request's result.
    pub call: AbortOnDropHandle<Result<Value>>,
    /// The server's progress, when the first leg asked for it (`progress`).
    pub progress: Option<watch::Receiver<Progress>>,
    pub questions: Option<CallQuestions>,
    pub waiting: Vec<(String, Asked)>,
    /// Keys given so far (the next is `q{asked + 1}`).
    pub asked: usize,
    /// Whether the request may answer `input_required` (not `completion/complete`).
    pub may_park: bool,
}

impl Running {
    /// Keeps `asked` for the client: under the key its server gave it (a 2026-07-28 server's
    /// `inputRequests` key, so a client of that era sees the server's own), else — a legacy
    /// server's request, or a key already waiting — under a new one of ours.
    pub(crate) fn wait_for(&mut self, asked: Asked) {
        let taken = |key: &str| self.waiting.iter().any(|(k, _)| k == key);
        let key = match asked.question.key.as_deref() {
            Some(theirs) if !theirs.is_empty() && !taken(theirs) => theirs.to_owned(),
            _ => loop {
                self.asked += 1;
                let ours = format!("q{}", self.asked);
                if !taken(&ours) {
                    break ours;
                }
            },
        };
        self.waiting.push((key, asked));
    }
}

struct Parked {
    running: Running,
    since: Instant,
}

/// The calls parked for their clients' answers.
#[derive(Default)]
pub(crate) struct ParkedCalls {
    table: Mutex<HashMap<String, Parked>>,
}

impl ParkedCalls {
    /// Parks `running` and returns the `input_required` result that asks its waiting questions.
    /// When the table is full the questions are refused instead and the call is handed back to go
    /// on.
    pub(crate) fn park(&self, mut running: Running) -> std::result::Result<Value, Box<Running>> {
        let mut table = self.table.lock().unwrap_or_else(|p| p.into_inner());
        table.retain(|_, p| p.since.elapsed() < limits::AGGREGATE_ANSWER_TIMEOUT);
        if table.len() >= limits::AGGREGATE_PARKED_MAX {
            for (_, asked) in running.waiting.drain(..) {
                let _ = asked.answer.send(Err(AskError::Busy {
                    limit: limits::AGGREGATE_PARKED_MAX,
                }));
            }
            return Err(Box::new(running));
        }
        let requests: Map<String, Value> = running
            .waiting
            .iter()
            .map(|(key, asked)| {
                let q = &asked.question;
                let params = naming(q.params.clone(), q.server.clone());
                (key.clone(), json!({"method": q.method, "params": params}))
            })
            .collect();
        let state = random_id();
        table.insert(
            state.clone(),
            Parked {
                running,
                since: Instant::now(),
            },
        );
        Ok(json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": state,
        }))
    }

    /// Takes back the request parked under `state` for `request`, delivering `responses` to the
    /// questions they answer.
    pub(crate) fn resume(
        &self,
        state: &str,
        request: &str,
        responses: Option<&Map<String, Value>>,
    ) -> std::result::Result<Running, WireError> {
        let parked = {
            let mut table = self.table.lock().unwrap_or_else(|p| p.into_inner());
            match table.remove(state) {
                Some(p) if p.running.request == request => p,
                Some(p) => {
                    table.insert(state.to_owned(), p);
                    return Err(WireError::invalid_params(format!(
                        "requestState belongs to another request than {request}"
                    )));
                }
                None => {
                    return Err(WireError::invalid_params(
                        "requestState is unknown or expired: send the request again without it",
                    )
                    .with_data(json!({"field": "requestState"})))
                }
            }
        };
        let mut running = parked.running;
        let mut still = Vec::new();
        for (key, asked) in running.waiting.drain(..) {
            match responses.and_then(|r| r.get(&key)) {
                Some(Value::Object(answer)) => {
                    let _ = asked.answer.send(Ok(Value::Object(answer.clone())));
                }
                _ => still.push((key, asked)),
            }
        }
        running.waiting = still;
        Ok(running)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::Question;
    use tokio::sync::oneshot;

    fn running(request: &str) -> Running {
        let call = AbortOnDropHandle::new(tokio::spawn(std::future::pending()));
        Running {
            request: request.into(),
            server: None,
            call,
            progress: None,
            questions: None,
            waiting: Vec::new(),
            asked: 0,
            may_park: true,
        }
    }

    fn asked() -> (
        Asked,
        oneshot::Receiver<std::result::Result<Value, AskError>>,
    ) {
        asked_as(None)
    }

    fn asked_as(
        key: Option<&str>,
    ) -> (
        Asked,
        oneshot::Receiver<std::result::Result<Value, AskError>>,
    ) {
        let (answer, rx) = oneshot::channel();
        let question = Question {
            server: "fx".into(),
            method: "roots/list".into(),
            params: json!({}),
            key: key.map(str::to_owned),
        };
        (Asked { question, answer }, rx)
    }

    #[test]
    fn a_question_keeps_its_servers_key_unless_it_is_taken() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let _guard = rt.enter();
        let mut r = running("t");
        for key in [Some("user_name"), None, Some("user_name"), Some("q2")] {
            r.wait_for(asked_as(key).0);
        }
        let keys: Vec<&str> = r.waiting.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["user_name", "q1", "q2", "q3"]);
    }

    #[tokio::test]
    async fn a_parked_call_comes_back_with_its_answers_and_asks_again_what_was_left() {
        let parked = ParkedCalls::default();
        let mut r = running("t");
        let (a, mut a_rx) = asked();
        let (b, mut b_rx) = asked();
        r.wait_for(a);
        r.wait_for(b);
        let Ok(result) = parked.park(r) else {
            panic!("parked")
        };
        assert_eq!(result["resultType"], "input_required");
        assert_eq!(result["inputRequests"]["q1"]["method"], "roots/list");
        let state = result["requestState"].as_str().unwrap().to_owned();
        assert!(
            matches!(parked.resume(&state, "other", None), Err(e) if e.code == -32602),
            "another tool's state"
        );
        let answers = json!({"q1": {"roots": []}});
        let back = parked.resume(&state, "t", answers.as_object()).unwrap();
        assert_eq!(a_rx.try_recv().unwrap(), Ok(json!({"roots": []})));
        assert!(b_rx.try_recv().is_err(), "not answered yet");
        assert_eq!(back.waiting.len(), 1);
        assert_eq!(back.waiting[0].0, "q2", "asked again under its key");
        let Err(again) = parked.resume(&state, "t", None) else {
            panic!("a state is used once")
        };
        assert_eq!(again.code, -32602);
    }
}
