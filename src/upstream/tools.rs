//! `tools/list` and `tools/call` of the aggregate. A call goes through the registry like a host's:
//! arguments checked against the tool's own schema, the server started if dormant, the server's
//! timeout and `maxInflight`, the result held to `maxResultBytes` and its secrets masked.
//!
//! Errors, per kind (README "mcp-sidecar mcp"): a tool that does not exist is a protocol error
//! (-32602, as MCP servers answer an unknown tool); a server's own JSON-RPC error is passed on with
//! its code; every failure of *running* the tool — invalid arguments, timeout, the server down or
//! overloaded, a result too large, a server that broke the protocol — is a tool result with
//! `isError: true` and the message as its text, so the model sees it and can react, the way MCP
//! asks tool execution errors to be reported. Its stable code rides in
//! `_meta["mcp-sidecar/error"]`.
//!
//! While a call runs, its server's questions (sampling, elicitation, roots) are this client's to
//! answer (`answering`, `asks`, `input`); its server's progress reaches the client when the call
//! carries a `progressToken` (`progress`), and — a 2026-07-28 call that names a log level — its
//! server's log messages at or above that level (`logs`), both on the call's stream.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::sync::{broadcast, watch};
use tokio::task::JoinSet;
use tokio_util::task::AbortOnDropHandle;

use super::aggregate::Aggregate;
use super::asks::{capability_of, required, Asked};
use super::era::Era;
use super::input::Running;
use super::request::Request;
use super::session::client_capabilities;
use super::wire::{WireError, MISSING_CLIENT_CAPABILITY};
use super::{logs, pages, progress};
use crate::ask::{AskError, Capabilities};
use crate::error::{Error, ErrorCode};
use crate::supervisor::{CallOptions, CallOutcome, LogLevel, ServerLog};

/// The `_meta` key of an error result's details (code, server, tool, limit…).
pub const ERROR_META: &str = "mcp-sidecar/error";
/// The `_meta` key of a truncated result's details (original size, handle…).
pub const TRUNCATED_META: &str = "mcp-sidecar/truncated";

/// `tools/list`: every tool, in one page or in pages of `--page-size` (`pages`) (with
/// `--wait-for-servers`, once every configured server started or failed).
pub async fn list(aggregate: &Aggregate, params: Option<&Value>) -> Result<Value, WireError> {
    let cursor = match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => None,
        Some(Value::String(cursor)) => Some(cursor.as_str()),
        Some(other) => {
            return Err(WireError::invalid_params(format!(
                "`cursor` must be a string, not {other}"
            ))
            .with_data(json!({"field": "cursor"})))
        }
    };
    aggregate.before_listing().await;
    pages::page(&aggregate.tools(), cursor, aggregate.page_size())
}

/// What `tools/call` reads (MCP allows more; the rest is ignored, `task` included: tasks are not
/// offered, so a call runs in place). `requestState` and `inputResponses` continue a call that
/// asked its 2026-07-28 client a question (`input`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    request_state: Option<String>,
    #[serde(default)]
    input_responses: Option<Map<String, Value>>,
}

/// `tools/call`: the server's result (masked, held to its budget), or the failure as above; the
/// server's questions meanwhile are asked of this client, its progress and (2026-07-28) logs
/// passed on (`answering`).
pub async fn call(r: &Request<'_>, params: Option<Value>) -> Result<Value, WireError> {
    let token = progress::token_of(params.as_ref());
    let p: CallParams = serde_json::from_value(params.unwrap_or_default())
        .map_err(|e| WireError::invalid_params(format!("invalid tools/call params: {e}")))?;
    let log_level = match r.era {
        Era::Modern(modern) => modern.log_level.as_deref().and_then(LogLevel::parse),
        Era::Legacy => None,
    };
    // Subscribed before the call starts, so that none of its server's logs is missed.
    let logs = match log_level {
        Some(level) => {
            r.aggregate.want_logs(level).await;
            Some((r.aggregate.subscribe_logs(), level))
        }
        None => None,
    };
    r.aggregate.registered().await;
    let running = match (&p.request_state, r.era) {
        (Some(state), Era::Modern(_)) => {
            r.aggregate
                .parked()
                .resume(state, &p.name, p.input_responses.as_ref())?
        }
        _ => start(r.aggregate, p.name, p.arguments, token.is_some()),
    };
    let relay = Relay { token, logs };
    match answering(r, running, relay).await? {
        Step::Done(Ok(outcome)) => Ok(result_of(outcome)),
        Step::Done(Err(e)) if runs_into_result(e.code) => Ok(error_result(&e)),
        Step::Done(Err(e)) => Err(e.into()),
        Step::InputRequired(result) => Ok(result),
    }
}

/// Starts the call as a task of its own (so that it can wait, parked, for a 2026-07-28 client's
/// answers), registered for its server's questions, its progress watched when the client wants it
/// (`resetTimeoutOnProgress` and the total bound are the server's config).
fn start(
    aggregate: &Aggregate,
    tool: String,
    arguments: Option<Value>,
    with_progress: bool,
) -> Running {
    let registry = Arc::clone(aggregate.registry());
    // A tool of a server still on its first start is not listed yet: the call waits for that
    // server (the registry sees to it), and its questions come from the server that may name it.
    let server = match registry.catalog().get(&tool) {
        Some(entry) => Some(entry.server.clone()),
        None => registry
            .list()
            .into_iter()
            .map(|s| s.name)
            .find(|s| registry.settings().names.may_name(s, &tool)),
    };
    let questions = server.as_deref().map(|s| aggregate.asks().call_on(s));
    let mut options = CallOptions::default();
    let progress = with_progress.then(|| {
        let (sink, watched) = watch::channel(None);
        options.progress = Some(sink);
        watched
    });
    let name = tool.clone();
    // The progress sink moves into the call and drops with it: the watch then ends.
    let call =
        tokio::spawn(async move { registry.call_tool_with(&name, arguments, options).await });
    Running {
        tool,
        server,
        call: AbortOnDropHandle::new(call),
        progress,
        questions,
        waiting: Vec::new(),
        asked: 0,
    }
}

/// Where a call stands when its request is answered.
enum Step {
    Done(crate::error::Result<CallOutcome>),
    /// Parked: the client is asked (2026-07-28).
    InputRequired(Value),
}

/// What this leg of a call passes on to its client besides the answer.
struct Relay {
    /// The client's `progressToken`: the server's progress goes out under it.
    token: Option<Value>,
    /// The servers' logs, subscribed before the call started, and the level the request named: its
    /// server's logs at or above it go out (2026-07-28).
    logs: Option<(broadcast::Receiver<Arc<ServerLog>>, LogLevel)>,
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

/// Waits for the call, answering its server's questions meanwhile: a legacy session's client is
/// asked with a request of the sidecar's own on the call's stream; a 2026-07-28 client through an
/// `input_required` result — or, when it did not declare what the question needs, the call fails
/// with -32021 (`MissingRequiredClientCapability`). The server's progress (and logs) go out on
/// the call's stream as they come; the last progress before the answer.
async fn answering(
    r: &Request<'_>,
    mut running: Running,
    mut relay: Relay,
) -> Result<Step, WireError> {
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
                let outcome = outcome.unwrap_or_else(|e| Err(Error::internal(format!("the call's task ended: {e}"))));
                // The call is over and its progress sink gone: what it reported last goes out
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
/// declared what it needs; else the call fails with -32021 (the question refused), or — a mode or
/// feature it did not declare — only the question is refused.
fn consider(running: &mut Running, asked: Asked, declared: &Capabilities) -> Result<(), WireError> {
    match declared.admit(&asked.question.method, &asked.question.params) {
        Ok(()) => running.wait_for(asked),
        Err(AskError::NotDeclared { method }) => {
            let needed = capability_of(&method).unwrap_or("unknown");
            let _ = asked.answer.send(Err(AskError::NotDeclared {
                method: method.clone(),
            }));
            return Err(WireError::new(
                MISSING_CLIENT_CAPABILITY,
                format!("the tool's server asked for `{method}`, which needs the `{needed}` capability this request did not declare"),
            )
            .with_data(required(needed)));
        }
        Err(refused) => {
            let _ = asked.answer.send(Err(refused));
        }
    }
    Ok(())
}

/// Whether a failure is the tool's (reported to the model as `isError`), not the request's.
fn runs_into_result(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::InvalidArguments
            | ErrorCode::ToolTimeout
            | ErrorCode::ServerUnavailable
            | ErrorCode::Overloaded
            | ErrorCode::ResultTooLarge
            | ErrorCode::ProtocolError
            | ErrorCode::HttpError
            | ErrorCode::NetworkError
            | ErrorCode::VersionUnsupported
            | ErrorCode::TrustRequired
    )
}

fn result_of(outcome: CallOutcome) -> Value {
    let mut result = outcome.result;
    if let (Some(truncated), Value::Object(map)) = (&outcome.truncated, &mut result) {
        meta(map).insert(TRUNCATED_META.into(), truncated.to_json());
    }
    result
}

/// A failure as a tool result: its message as the text, its code and details in `_meta`.
pub fn error_result(e: &Error) -> Value {
    let mut map = Map::new();
    map.insert(
        "content".into(),
        json!([{"type": "text", "text": e.message}]),
    );
    map.insert("isError".into(), Value::Bool(true));
    let details = e.to_rpc_error()["data"].take();
    meta(&mut map).insert(ERROR_META.into(), details);
    Value::Object(map)
}

/// The result's `_meta` object (made one if it is missing or not an object).
fn meta(result: &mut Map<String, Value>) -> &mut Map<String, Value> {
    let slot = result
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(map) => map,
        _ => unreachable!("made an object just above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_of_the_tool_is_a_result_the_model_sees() {
        let e = Error::new(
            ErrorCode::ToolTimeout,
            "tool `sleep` on server `fx` did not answer within 1 s",
        )
        .with("server", "fx");
        assert!(runs_into_result(e.code));
        assert_eq!(
            error_result(&e).to_string(),
            r#"{"_meta":{"mcp-sidecar/error":{"code":"TOOL_TIMEOUT","server":"fx"}},"content":[{"text":"tool `sleep` on server `fx` did not answer within 1 s","type":"text"}],"isError":true}"#
        );
        for request_errors in [
            ErrorCode::ToolNotFound,
            ErrorCode::UpstreamError,
            ErrorCode::ShuttingDown,
            ErrorCode::InvalidParams,
        ] {
            assert!(!runs_into_result(request_errors), "{request_errors}");
        }
    }
}
