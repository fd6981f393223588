//! A new MCP session after the server forgot the old one (HTTP 404 on a request that carried a
//! session id): the `initialize` sent first is replayed, then `initialized`, then the GET stream.

use std::sync::Arc;

use super::answer::{read_answer, Answer};
use super::listen::start_listener;
use super::shared::{session_id_of, Shared, REINIT};
use crate::limits;
use crate::mcp::transport::http_common::{self as common, Outgoing};
use crate::mcp::transport::TransportError;

/// A new session after the old one expired (404). Once per expired id: concurrent requests that saw
/// the same 404 wait here and then retry on the new session.
pub(super) async fn reinitialize(
    shared: &Arc<Shared>,
    stale: Option<&str>,
) -> Result<(), TransportError> {
    let _one = shared.reinit.lock().await;
    let init = {
        let mut state = shared.lock();
        if state.session_id.as_deref() != stale {
            return Ok(());
        }
        state.session_id = None;
        state.init_line.clone()
    };
    let Some(init) = init else {
        return Err(TransportError::protocol(
            "the session expired (HTTP 404) and there is no initialize to replay",
        ));
    };
    tracing::info!(server = %shared.http().server, "MCP session expired (HTTP 404); re-initialising");
    let resp = shared
        .send(shared.post(shared.url(), init.clone()), REINIT)
        .await?;
    if !resp.status().is_success() {
        return Err(common::status_error(resp, REINIT).await);
    }
    let sid = session_id_of(&resp)?;
    shared.lock().session_id = sid.clone();
    let id = Outgoing::parse(init).id.unwrap_or_default();
    match read_answer(shared, resp, &id, REINIT).await? {
        Answer::Reply(_) => {}
        Answer::Failed(error) => return Err(error),
        Answer::Accepted => {
            return Err(TransportError::protocol(format!(
                "{REINIT}: 202 without a result"
            )))
        }
    }
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec();
    let resp = shared.send(shared.post(shared.url(), note), REINIT).await?;
    let _ = common::read_body(resp, limits::HTTP_ERROR_EXCERPT_BYTES).await;
    start_listener(shared);
    Ok(())
}
