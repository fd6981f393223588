//! Streamable HTTP POSTs after the handshake: a request's POST in a task of its own (cancellable by
//! `notifications/cancelled`) whose answer lands in the inbound queue, and one-way messages
//! (notifications, responses) the server answers with 202. Both retry once on a re-initialised
//! session when the old one expired; a tool call is not repeated (it may have side effects).

use std::sync::Arc;

use reqwest::{StatusCode, Url};
use serde_json::Value;

use super::answer::{read_answer, Answer};
use super::modern::{learn_tools, refused, with_modern_headers};
use super::reinit::reinitialize;
use super::shared::{post_step, Shared, POST};
use crate::mcp::transport::http_common::{self as common, Outgoing};
use crate::mcp::transport::{Inbound, TransportError};

/// A notification or response: the server answers 202.
pub(super) async fn post_oneway(
    shared: &Arc<Shared>,
    url: &Url,
    line: Vec<u8>,
) -> Result<(), TransportError> {
    let sent_sid = shared.session_id();
    let mut resp = match shared.send(shared.post(url, line.clone()), POST).await {
        // A scope a notification lacks does not end the session.
        Err(e) if e.is_request_only() => {
            tracing::debug!(server = %shared.http().server, "notification refused: {e}");
            return Ok(());
        }
        other => other?,
    };
    if resp.status() == StatusCode::NOT_FOUND && sent_sid.is_some() {
        reinitialize(shared, sent_sid.as_deref()).await?;
        resp = shared.send(shared.post(url, line), POST).await?;
    }
    if !resp.status().is_success() {
        tracing::debug!(server = %shared.http().server, "notification refused: {}", common::status_error(resp, POST).await);
    }
    Ok(())
}

pub(super) fn spawn_request(shared: &Arc<Shared>, msg: Outgoing, id: Value) {
    let key = id.to_string();
    let token = {
        let mut state = shared.lock();
        state.next_token += 1;
        state.next_token
    };
    let this = Arc::clone(shared);
    let task_key = key.clone();
    let task = tokio::spawn(async move {
        let outcome = run_request(&this, &msg, &id).await;
        {
            let mut state = this.lock();
            if state
                .requests
                .get(&task_key)
                .is_some_and(|(t, _)| *t == token)
            {
                state.requests.remove(&task_key);
            }
        }
        match outcome {
            Ok(Answer::Reply(reply)) => {
                learn_tools(&this, &msg, &reply);
                this.deliver(Inbound::Message(reply)).await;
            }
            Ok(Answer::Failed(error)) => {
                this.deliver(Inbound::Failed { id, error }).await;
            }
            Ok(Answer::Accepted) => {}
            Err(e) => this.fail(e).await,
        }
    });
    let mut state = shared.lock();
    if shared.link.is_closed() {
        task.abort();
    } else if !task.is_finished() {
        state.requests.insert(key, (token, task.abort_handle()));
    }
}

pub(super) fn cancel_post(shared: &Shared, target: &Value) {
    if let Some((_, handle)) = shared.lock().requests.remove(&target.to_string()) {
        handle.abort();
    }
}

async fn run_request(
    shared: &Arc<Shared>,
    msg: &Outgoing,
    id: &Value,
) -> Result<Answer, TransportError> {
    let sent_sid = shared.session_id();
    let during = post_step(msg.method.as_deref());
    let post = |line| async move {
        let mut req = with_modern_headers(shared, msg, shared.post(shared.url(), line));
        if let Some(trace) = &msg.trace {
            req = req.header("traceparent", trace.traceparent.as_str());
            if let Some(state) = &trace.tracestate {
                req = req.header("tracestate", state.as_str());
            }
        }
        match shared.send(req, during).await {
            // A scope this request lacks fails it alone.
            Err(e) if e.is_request_only() => Ok(Err(Answer::Failed(e))),
            other => other.map(Ok),
        }
    };
    let resp = match post(msg.line.clone()).await? {
        Ok(resp) => resp,
        Err(failed) => return Ok(failed),
    };
    if msg.modern.is_some() && resp.status().is_client_error() {
        return refused(resp, id, during).await;
    }
    if resp.status() == StatusCode::NOT_FOUND && sent_sid.is_some() {
        reinitialize(shared, sent_sid.as_deref()).await?;
        // Only a tool call may have side effects; everything else the client sends is safe to repeat.
        if msg.method.as_deref() == Some("tools/call") {
            return Ok(Answer::Failed(TransportError::SessionExpired));
        }
        let resp = match post(msg.line.clone()).await? {
            Ok(resp) => resp,
            Err(failed) => return Ok(failed),
        };
        return read_answer(shared, resp, id, during).await;
    }
    read_answer(shared, resp, id, during).await
}
