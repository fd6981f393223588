//! What every HTTP request of the endpoint shares: the aggregate, the guard, the legacy sessions,
//! the flow budgets (requests in flight and the bytes of their bodies, across all clients), the
//! bodies being read and the GET streams open, the connections, and the stop: `drain` refuses new
//! requests and counts those in flight, `closing` then ends every stream and request, `tasks`
//! tracks what runs apart from a response.

use std::sync::Arc;

use hyper::{HeaderMap, StatusCode};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::body::Refusal;
use super::conns::{Conns, Timeouts};
use super::drain::Drain;
use super::guard::Guard;
use super::sessions::{HttpSession, Sessions};
use crate::aggregate::access::Token;
use crate::aggregate::shared::Aggregate;
use crate::serving::Flow;

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";

pub(crate) struct State {
    pub aggregate: Arc<Aggregate>,
    pub guard: Guard,
    /// Where each request's audit line goes (`--audit-log`).
    pub audit: Option<crate::aggregate::access::Audit>,
    /// `/metrics`' own bearer tokens (`--metrics-token-file`).
    pub metrics_token: Option<Token>,
    pub sessions: Sessions,
    pub flow: Flow,
    /// Longest request body.
    pub max_body: usize,
    /// The bytes of request bodies being read, across connections
    /// ([`crate::limits::AGGREGATE_HTTP_READING_BYTES`]).
    pub reading: Arc<Semaphore>,
    /// GET streams open ([`crate::limits::AGGREGATE_HTTP_MAX_STREAMS`]).
    pub streams: Arc<Semaphore>,
    /// The open connections and what each is doing.
    pub conns: Conns,
    pub timeouts: Timeouts,
    /// The first part of the stop: new requests refused, those in flight waited for.
    pub drain: Drain,
    pub closing: CancellationToken,
    pub tasks: TaskTracker,
}

impl State {
    /// The legacy session a request names: 400 when it names none, 404 when it is unknown (ended,
    /// evicted, never was, or opened by another token: the client starts a new one).
    pub(crate) fn session_of(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Refusal> {
        let Some(id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                "Bad Request: an Mcp-Session-Id header is required (send initialize first)",
            ));
        };
        let caller = self.guard.caller(headers);
        let session = self.sessions.get(id.trim()).filter(|s| s.owner == caller);
        session.ok_or_else(|| {
            Refusal::new(
                StatusCode::NOT_FOUND,
                "Session not found: it ended; initialize a new one",
            )
        })
    }
}

/// A header's value as text (`None` when absent or not visible ASCII).
pub(crate) fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Whether the `Accept` header lists `media` (or a wildcard covering it).
pub(crate) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let kind = media.split('/').next().unwrap_or(media);
    headers
        .get_all(hyper::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|item| item.split(';').next().unwrap_or("").trim())
        .any(|item| item == media || item == "*/*" || item.strip_suffix("/*") == Some(kind))
}

/// A header map from pairs (tests of the checks).
#[cfg(test)]
pub(crate) fn header_map(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (name, value) in pairs {
        let value = hyper::header::HeaderValue::from_str(value).expect("a valid header value");
        headers.insert(*name, value);
    }
    headers
}
