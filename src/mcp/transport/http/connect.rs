//! The first message (`initialize`) picks the transport, per the configured kind: Streamable HTTP
//! (its session id and negotiated version kept for every later request), or legacy HTTP+SSE (the
//! event stream started, messages POSTed to the endpoint it names), or, with `auto`, legacy after a
//! Streamable `initialize` was refused.

use std::sync::Arc;

use reqwest::{StatusCode, Url};
use serde_json::Value;
use tokio::sync::oneshot;

use super::answer::{read_answer, Answer};
use super::shared::{session_id_of, Mode, Shared, POST_INITIALIZE};
use crate::config::RemoteKind;
use crate::limits;
use crate::mcp::transport::http_common::{self as common, Outgoing};
use crate::mcp::transport::{sse, Inbound, TransportError};

/// The first message (`initialize`): picks the transport, per the configured kind.
pub(super) async fn connect(shared: &Arc<Shared>, msg: Outgoing) -> Result<(), TransportError> {
    let Some(id) = msg.id.clone() else {
        return Err(TransportError::protocol(
            "the first message to a remote server must be initialize",
        ));
    };
    if shared.kind == RemoteKind::Sse {
        return connect_legacy(shared, msg).await;
    }
    shared.lock().init_line = Some(msg.line.clone());
    let resp = shared
        .send(shared.post(shared.url(), msg.line.clone()), POST_INITIALIZE)
        .await?;
    let status = resp.status();
    if shared.kind == RemoteKind::Auto
        && matches!(
            status,
            StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        )
    {
        tracing::info!(server = %shared.http().server, %status, "POST initialize refused; trying legacy HTTP+SSE");
        shared.lock().init_line = None;
        return connect_legacy(shared, msg).await;
    }
    if !status.is_success() {
        return Err(common::status_error(resp, POST_INITIALIZE).await);
    }
    let sid = session_id_of(&resp)?;
    {
        let mut state = shared.lock();
        state.mode = Mode::Streamable;
        state.session_id = sid;
    }
    match read_answer(shared, resp, &id, POST_INITIALIZE).await? {
        Answer::Reply(reply) => {
            let version = serde_json::from_slice::<Value>(&reply).ok().and_then(|v| {
                v.pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
            shared.lock().protocol_version = version;
            shared.deliver(Inbound::Message(reply)).await;
            Ok(())
        }
        Answer::Failed(error) => Err(error),
        Answer::Accepted => Err(TransportError::protocol(
            "the server answered initialize with 202 and no result",
        )),
    }
}

async fn connect_legacy(shared: &Arc<Shared>, msg: Outgoing) -> Result<(), TransportError> {
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(sse::run_stream(Arc::clone(&shared.link), tx));
    shared.add_background(task.abort_handle());
    let post_url = match rx.await {
        Ok(Ok(url)) => url,
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            return Err(TransportError::Closed {
                what: "the event stream ended before its `endpoint` event",
            })
        }
    };
    shared.lock().mode = Mode::Legacy {
        post_url: post_url.clone(),
    };
    match post_legacy(shared, &post_url, msg.line, POST_INITIALIZE).await? {
        None => Ok(()),
        Some(error) => Err(error),
    }
}

/// Legacy POST: the answer comes on the event stream; `Some(error)` when the POST was refused
/// (an answer for that message alone), `Err` when the server could not be reached.
pub(super) async fn post_legacy(
    shared: &Shared,
    url: &Url,
    line: Vec<u8>,
    during: &'static str,
) -> Result<Option<TransportError>, TransportError> {
    let resp = shared.send(shared.post(url, line), during).await?;
    if resp.status().is_success() {
        // "Accepted" or similar; read (bounded) so the connection can be reused.
        let _ = common::read_body(resp, limits::HTTP_ERROR_EXCERPT_BYTES).await;
        Ok(None)
    } else {
        Ok(Some(common::status_error(resp, during).await))
    }
}
