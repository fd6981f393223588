//! A request whose server may ask its client questions while it runs — `tools/call`,
//! `prompts/get`, `resources/read`, `completion/complete` — run as a task of its own and waited
//! for, its server's questions answered meanwhile: a legacy session's client is asked with a
//! request of the sidecar's own on the request's stream; a 2026-07-28 client through an
//! `input_required` result, the request parked (`input`) and taken back on the client's retry
//! with `requestState` and `inputResponses` — or, when it did not declare what the question needs,
//! the request fails with -32021. `completion/complete` may not answer `input_required` in that
//! era (MCP 2026-07-28 allows it on `tools/call`, `prompts/get` and `resources/read` only), so its
//! server's questions are refused there. Progress and (2026-07-28) logs go out on the request's
//! stream when the request asked for them (`Relay`).

use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinSet;
use tokio_util::task::AbortOnDropHandle;

use super::asks::{capability_of, required, Asked};
use super::input::Running;
use super::request::Request;
use super::wire::{WireError, MISSING_CLIENT_CAPABILITY};
use super::{logs, progress};
use crate::aggregate::session::era::Era;
use crate::aggregate::session::legacy::client_capabilities;
use crate::ask::{request_capabilities, AskError, Capabilities};
use crate::error::{Error, Result};
use crate::supervisor::{LogLevel, Progress, ServerLog};

/// Where a request stands when it is answered.
pub(crate) enum Step {
    Done(Result<Value>),
    /// Parked: the client is asked (2026-07-28).
    InputRequired(Value),
}

/// What this leg of a request passes on to its client besides the answer.
#[derive(Default)]
pub(crate) struct Relay {
    /// The client's `progressToken`: the server's progress goes out under it.
    pub token: Option<Value>,
    /// The servers' logs, subscribed before the request started, and the level the request
    /// named: its server's logs at or above it go out (2026-07-28).
    pub logs: Option<(broadcast::Receiver<Arc<ServerLog>>, LogLevel)>,
}

/// A retry's continuation: the `requestState` and `inputResponses` a 2026-07-28 client sent back.
pub(crate) struct Retry<'p> {
    pub state: &'p str,
    pub responses: Option<&'p Map<String, Value>>,
}

/// The retry a request's params carry, if any (a legacy request's are ignored: it has no such
/// thing).
pub(crate) fn retry_of<'p>(r: &Request<'_>, params: Option<&'p Value>) -> Option<Retry<'p>> {
    let Era::Modern(_) = r.era else { return None };
    let params = params?;
    Some(Retry {
        state: params.get("requestState")?.as_str()?,
        responses: params.get("inputResponses").and_then(Value::as_object),
    })
}

/// Starts `work` as a task of its own (so that it can wait, parked, for a 2026-07-28 client's
/// answers), registered for the questions of `server`. `request` names what the request is for
/// (a retry must name the same); `may_park` says whether its era's answer may be
/// `input_required`.
pub(crate) fn start<F>(
    r: &Request<'_>,
    request: String,
    server: Option<String>,
    may_park: bool,
    progress: Option<watch::Receiver<Progress>>,
    work: F,
) -> Running
where
    F: Future<Output = Result<Value>> + Send + 'static,
{
    let questions = server.as_deref().map(|s| r.aggregate.asks().call_on(s));
    // What this client declared travels with the work: a 2026-07-28 server is told it per request.
    let declared = match r.era {
        Era::Legacy => r.session.capabilities(),
        Era::Modern(modern) => client_capabilities(&modern.capabilities),
    };
    Running {
        request,
        server,
        call: AbortOnDropHandle::new(tokio::spawn(request_capabilities::scoped(declared, work))),
        progress,
        questions,
        waiting: Vec::new(),
        asked: 0,
        may_park,
    }
}

/// A request other than `tools/call` (no progress, no logs): resumed when `retry` says so, else
/// started with `work`, and answered.
pub(crate) async fn run<F>(
    r: &Request<'_>,
    request: String,
    server: String,
    retry: Option<Retry<'_>>,
    may_park: bool,
    work: F,
) -> std::result::Result<Step, WireError>
where
    F: Future<Output = Result<Value>> + Send + 'static,
{
    let running = match retry {
        Some(retry) => r
            .aggregate
            .parked()
            .resume(retry.state, &request, retry.responses)?,
        None => start(r, request, Some(server), may_park, None, work),
    };
    answering(r, running, Relay::default()).await
}

/// The next log message of `server` at or above the level asked for; never, without a subscription
/// or a known server, or once the logs are over.
async fn next_log(
    logs: Option<&mut (broadcast::Receiver<Arc<ServerLog>>, LogLevel)>,
    server: Option<&str>,
) -> Arc<ServerLog> {
    let (Some((notices, min)), Some(server)) = (logs, server) else {
        return std::future::pending().await;
    };
    loop {
        match notices.recv().await {
            Ok(log) if log.server == server && logs::admits(Some(*min), &log) => return log,
            // Others' logs, and logs lost to a lag (bounded: the oldest go).
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => return std::future::pending().await,
        }
    }
}

/// Waits for the request's task, answering its server's questions meanwhile (see the module
/// doc). The server's progress (and logs) go out on the request's stream as they come; the last
/// progress before the answer.
pub(crate) async fn answering(
    r: &Request<'_>,
    mut running: Running,
    mut relay: Relay,
) -> std::result::Result<Step, WireError> {
    let mut asking = JoinSet::new();
    loop {
        if !running.waiting.is_empty() {
            match r.aggregate.parked().park(running) {
                Ok(input_required) => return Ok(Step::InputRequired(input_required)),
                Err(refused) => running = *refused,
            }
        }
        let next = async {
            match running.questions.as_mut() {
                Some(q) => q.questions.recv().await,
                None => std::future::pending().await,
            }
        };
        let watched = relay.token.as_ref().and(running.progress.as_mut());
        let log = next_log(relay.logs.as_mut(), running.server.as_deref());
        tokio::select! {
            outcome = &mut running.call => {
                let outcome = outcome.unwrap_or_else(|e| Err(Error::internal(format!("the request's task ended: {e}"))));
                // The task is over and its progress sink gone: what it reported last goes out
                // before the answer.
                if let Some(token) = &relay.token {
                    while let Some(params) = progress::next(running.progress.as_mut()).await {
                        r.sink.send(progress::notification(params, token)).await;
                    }
                }
                return Ok(Step::Done(outcome));
            }
            Some(params) = progress::next(watched) => {
                if let Some(token) = &relay.token {
                    r.sink.send(progress::notification(params, token)).await;
                }
            }
            log = log => {
                r.sink.send(logs::message(&log)).await;
            }
            Some(asked) = next => match r.era {
                Era::Legacy => {
                    let ask = r.session.ask(r.sink.clone(), asked.question);
                    asking.spawn(async move {
                        let _ = asked.answer.send(ask.await);
                    });
                }
                Era::Modern(_) if !running.may_park => {
                    let _ = asked.answer.send(Err(AskError::Unsupported {
                        reason: format!(
                            "`{}` cannot be asked during `{}`: a 2026-07-28 client answers questions only on tools/call, prompts/get and resources/read",
                            asked.question.method, running.request
                        ),
                    }));
                }
                Era::Modern(modern) => {
                    let declared = client_capabilities(&modern.capabilities);
                    consider(&mut running, asked, &declared)?;
                    // Questions a server sent together are asked together: let those already on
                    // their way land, then take every one waiting.
                    tokio::task::yield_now().await;
                    while let Some(more) = running.questions.as_mut().and_then(|q| q.questions.try_recv().ok()) {
                        consider(&mut running, more, &declared)?;
                    }
                }
            },
            // Finished questions leave the set, so it holds only those still open.
            Some(_) = asking.join_next(), if !asking.is_empty() => {}
        }
    }
}

/// A question for a 2026-07-28 client: kept for its `input_required` result when the client
/// declared what it needs; else the request fails with -32021 (the question refused), or — a
/// mode or feature it did not declare — only the question is refused.
fn consider(
    running: &mut Running,
    asked: Asked,
    declared: &Capabilities,
) -> std::result::Result<(), WireError> {
    match declared.admit(&asked.question.method, &asked.question.params) {
        Ok(()) => running.wait_for(asked),
        Err(AskError::NotDeclared { method }) => {
            let needed = capability_of(&method).unwrap_or("unknown");
            let _ = asked.answer.send(Err(AskError::NotDeclared {
                method: method.clone(),
            }));
            return Err(WireError::new(
                MISSING_CLIENT_CAPABILITY,
                format!("the server of `{}` asked for `{method}`, which needs the `{needed}` capability this request did not declare", running.request),
            )
            .with_data(required(needed)));
        }
        Err(refused) => {
            let _ = asked.answer.send(Err(refused));
        }
    }
    Ok(())
}
