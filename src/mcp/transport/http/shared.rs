//! What every part of the HTTP transport shares: the connection's [`Shared`] state (mode, session
//! id, negotiated version, the `initialize` to replay, the tasks to abort), the headers every request
//! carries, and the names of the steps a failure reports.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{RequestBuilder, Response, Url};
use tokio::task::AbortHandle;

use crate::config::RemoteKind;
use crate::limits;
use crate::mcp::transport::http_common::{
    Http, Link, ACCEPT_BOTH, EVENT_STREAM, SESSION_HEADER, VERSION_HEADER,
};
use crate::mcp::transport::{Inbound, TransportError};

// The steps a failure names (`TransportError`'s `during`).
pub(super) const POST_INITIALIZE: &str = "POST initialize";
pub(super) const POST: &str = "POST";
pub(super) const RESUME: &str = "resuming the response stream";
pub(super) const LISTEN: &str = "GET stream";
pub(super) const REINIT: &str = "re-initialising the expired session";

/// The step of POSTing `method`, for the messages of its failures.
pub(super) fn post_step(method: Option<&str>) -> &'static str {
    match method {
        Some("initialize") => POST_INITIALIZE,
        Some("tools/call") => "POST tools/call",
        Some("tools/list") => "POST tools/list",
        Some("ping") => "POST ping",
        _ => POST,
    }
}

/// The connection: what every task of the transport holds.
pub(super) struct Shared {
    /// Client, configured URL and inbound queue; the legacy event stream holds it too.
    pub link: Arc<Link>,
    pub kind: RemoteKind,
    pub state: Mutex<State>,
    /// Serialises re-initialisation after a session expired.
    pub reinit: tokio::sync::Mutex<()>,
}

/// What changes over the connection's life, behind one lock.
#[derive(Default)]
pub(super) struct State {
    pub mode: Mode,
    pub session_id: Option<String>,
    /// Negotiated in `initialize`; sent on every later request.
    pub protocol_version: Option<String>,
    /// The `initialize` request as sent, replayed when the session expired.
    pub init_line: Option<Vec<u8>>,
    /// In-flight request POSTs by request id (JSON text), with a token so a finished task removes
    /// only its own entry.
    pub requests: HashMap<String, (u64, AbortHandle)>,
    pub next_token: u64,
    /// Dispatcher, GET listener, legacy event stream.
    pub background: Vec<AbortHandle>,
    pub listener: Option<AbortHandle>,
    /// 2026-07-28: the `Mcp-Param-*` headers of each tool's calls, learnt from `tools/list`.
    pub tool_headers: HashMap<String, Vec<crate::mcp::tool_headers::ParamHeader>>,
}

/// Which transport the first message chose.
#[derive(Default, Clone)]
pub(super) enum Mode {
    /// Nothing sent yet.
    #[default]
    Unknown,
    Streamable,
    /// Legacy HTTP+SSE: messages are POSTed to the endpoint the event stream named.
    Legacy {
        post_url: Url,
    },
}

impl Shared {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn http(&self) -> &Http {
        &self.link.http
    }

    pub(super) fn url(&self) -> &Url {
        &self.link.url
    }

    pub(super) fn with_headers(&self, req: RequestBuilder) -> RequestBuilder {
        let state = self.lock();
        let mut req = req.headers(self.http().headers.clone());
        if let Some(sid) = &state.session_id {
            req = req.header(SESSION_HEADER, sid);
        }
        if let Some(v) = &state.protocol_version {
            req = req.header(VERSION_HEADER, v);
        }
        req
    }

    /// Sends a request with the server's token (see [`Link::send`]).
    pub(super) async fn send(
        &self,
        req: RequestBuilder,
        during: &'static str,
    ) -> Result<Response, TransportError> {
        self.link.send(req, during).await
    }

    pub(super) fn post(&self, url: &Url, body: Vec<u8>) -> RequestBuilder {
        self.with_headers(self.http().client.post(url.clone()))
            .header(ACCEPT, ACCEPT_BOTH)
            .header(CONTENT_TYPE, "application/json")
            .body(body)
    }

    /// Queues a message for the session; false once the session stopped reading.
    pub(super) async fn deliver(&self, item: Inbound) -> bool {
        self.link.deliver(item).await
    }

    pub(super) async fn fail(&self, error: TransportError) {
        self.link.fail(error).await
    }

    pub(super) fn session_id(&self) -> Option<String> {
        self.lock().session_id.clone()
    }

    pub(super) fn abort_all(&self) {
        let mut state = self.lock();
        // Under the state lock, so `add_background` and `spawn_request` see it before registering.
        self.link.set_closed();
        for handle in state.background.drain(..) {
            handle.abort();
        }
        for (_, (_, handle)) in state.requests.drain() {
            handle.abort();
        }
        if let Some(l) = state.listener.take() {
            l.abort();
        }
    }

    pub(super) fn add_background(&self, handle: AbortHandle) {
        let mut state = self.lock();
        if self.link.is_closed() {
            handle.abort();
        } else {
            state.background.push(handle);
        }
    }
}

/// A GET for the event stream, with the session's headers.
pub(super) fn open_get(shared: &Shared) -> RequestBuilder {
    shared
        .with_headers(shared.http().client.get(shared.url().clone()))
        .header(ACCEPT, EVENT_STREAM)
}

pub(super) fn session_id_of(resp: &Response) -> Result<Option<String>, TransportError> {
    let Some(value) = resp.headers().get(SESSION_HEADER) else {
        return Ok(None);
    };
    let bytes = value.as_bytes();
    if bytes.is_empty()
        || bytes.len() > limits::HTTP_SESSION_ID_MAX_BYTES
        || !bytes.iter().all(|b| (0x21..=0x7e).contains(b))
    {
        return Err(TransportError::protocol(
            "the server sent an invalid Mcp-Session-Id (empty, too long, or not visible ASCII)",
        ));
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}
