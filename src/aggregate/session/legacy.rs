//! One client's legacy session (2024-11-05 … 2025-11-25): what its `initialize` negotiated and
//! declared, the log level it asked for, its requests in flight (for `notifications/cancelled`
//! and for ending them with the session), and the sidecar's own requests to it (a server's
//! question, asked of this client). Over stdio there is one; over HTTP one per `Mcp-Session-Id`.
//! Modern (2026-07-28) requests need none of it: each carries its own.

use std::sync::{Mutex, MutexGuard};

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use super::era;
use crate::aggregate::requests::wire::WireError;
use crate::ask::{AskError, Capabilities, Question};
use crate::limits;
use crate::serving::{PeerRequests, Requests, Sink};
use crate::supervisor::LogLevel;

pub(crate) struct Session {
    state: Mutex<State>,
    pub requests: Requests,
    /// The sidecar's requests to this client (its answers are routed here; the session's end
    /// closes it).
    pub asked: PeerRequests,
}

impl Default for Session {
    fn default() -> Self {
        Self {
            state: Mutex::default(),
            requests: Requests::default(),
            asked: PeerRequests::new(
                limits::AGGREGATE_ANSWER_TIMEOUT,
                "the client did not answer in time",
                limits::AGGREGATE_REQUESTS_MAX_OUTSTANDING,
            ),
        }
    }
}

#[derive(Default)]
struct State {
    /// The negotiated revision; `None` until `initialize`.
    version: Option<&'static str>,
    /// What the client's `initialize` declared it can answer.
    capabilities: Capabilities,
    /// `logging/setLevel`'s level: the servers' logs this client gets (none before it sets one).
    log_level: Option<LogLevel>,
    /// The resource URIs it subscribed to (`resources/subscribe`), at most
    /// [`limits::AGGREGATE_SUBSCRIPTIONS_MAX`].
    subscriptions: std::collections::BTreeSet<String>,
    /// Gives its subscriptions back when the session ends (set with the first one).
    release: Option<Release>,
}

/// What lets a session's resource subscriptions go when it ends (told the URIs it held).
pub(crate) type Release = Box<dyn FnOnce(Vec<String>) + Send>;

impl Drop for Session {
    /// A session that ends (stdio's end, `DELETE`, eviction) without unsubscribing gives its
    /// subscriptions back, so a server is not kept subscribed for nobody.
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        let held: Vec<String> = std::mem::take(&mut state.subscriptions)
            .into_iter()
            .collect();
        if let (Some(release), false) = (state.release.take(), held.is_empty()) {
            release(held);
        }
    }
}

impl Session {
    /// Takes `initialize`'s params: negotiates the revision (the one asked for when served, else
    /// the newest) and keeps the client's capabilities. A second `initialize` is refused.
    pub(crate) fn initialize(&self, params: Option<&Value>) -> Result<&'static str, WireError> {
        let requested = match params.and_then(|p| p.get("protocolVersion")) {
            Some(Value::String(v)) => v.as_str(),
            _ => {
                return Err(WireError::invalid_params(
                    "initialize needs `protocolVersion` (a string)",
                ))
            }
        };
        let mut state = self.state();
        if state.version.is_some() {
            return Err(WireError::invalid_request(
                "this session is already initialized",
            ));
        }
        let version = era::negotiate(Some(requested));
        state.version = Some(version);
        let declared = params.and_then(|p| p.get("capabilities"));
        state.capabilities = client_capabilities(declared.unwrap_or(&Value::Null));
        if let Some(client) = params
            .and_then(|p| p.pointer("/clientInfo/name"))
            .and_then(Value::as_str)
        {
            tracing::info!(client, version, "an MCP client initialized");
        }
        Ok(version)
    }

    /// What the client declared in `initialize` (nothing before).
    pub(crate) fn capabilities(&self) -> Capabilities {
        self.state().capabilities.clone()
    }

    /// The negotiated revision, once initialized.
    pub(crate) fn version(&self) -> Option<&'static str> {
        self.state().version
    }

    /// Asks this client `question` over `sink` (a server's request; the server named in `_meta`),
    /// unless the client did not declare what it needs.
    pub(crate) fn ask(
        &self,
        sink: Sink,
        question: Question,
    ) -> BoxFuture<'static, Result<Value, AskError>> {
        let declared = self.state().capabilities.clone();
        self.asked.ask(&declared, sink, question, naming)
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
        self.state().log_level = Some(level);
    }

    /// The level this client set, if it did.
    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        self.state().log_level
    }

    /// Whether the client subscribed to `uri`.
    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        self.state().subscriptions.contains(uri)
    }

    /// Invalid params when the client holds as many subscriptions as one may.
    pub(crate) fn can_subscribe(&self) -> Result<(), WireError> {
        if self.state().subscriptions.len() < limits::AGGREGATE_SUBSCRIPTIONS_MAX {
            return Ok(());
        }
        Err(WireError::invalid_params(format!(
            "this session already has {} resource subscriptions (the most kept per client)",
            limits::AGGREGATE_SUBSCRIPTIONS_MAX
        ))
        .with_data(
            serde_json::json!({"field": "uri", "limit": limits::AGGREGATE_SUBSCRIPTIONS_MAX}),
        ))
    }

    /// Notes a subscription (`release` gives them back when the session ends); `false` when it
    /// was there already.
    pub(crate) fn subscribe(&self, uri: &str, release: impl FnOnce() -> Release) -> bool {
        let mut state = self.state();
        if state.release.is_none() {
            state.release = Some(release());
        }
        state.subscriptions.insert(uri.to_owned())
    }

    /// Forgets a subscription; `false` when there was none.
    pub(crate) fn unsubscribe(&self, uri: &str) -> bool {
        self.state().subscriptions.remove(uri)
    }

    /// Whether the client said it will announce changes of its roots (`roots.listChanged`).
    pub(crate) fn announces_roots(&self) -> bool {
        self.state().capabilities.roots_list_changed()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The capabilities a client declared (its `initialize` capabilities, or a 2026-07-28 request's
/// `clientCapabilities`), read for the three the seam knows; a part this build cannot read is
/// taken as declared with nothing more.
pub(crate) fn client_capabilities(declared: &Value) -> Capabilities {
    fn part<T: serde::de::DeserializeOwned + Default>(declared: &Value, key: &str) -> Option<T> {
        declared
            .get(key)
            .filter(|v| v.is_object())
            .map(|v| serde_json::from_value(v.clone()).unwrap_or_default())
    }
    Capabilities {
        sampling: part(declared, "sampling"),
        elicitation: part(declared, "elicitation"),
        roots: part(declared, "roots"),
        auth: None,
    }
}

/// A server's params with the server named in `_meta` (`mcp-sidecar/server`), so the client can
/// show who is asking.
pub(crate) fn naming(params: Value, server: String) -> Value {
    let mut params = match params {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    crate::era::meta_of(&mut params).insert("mcp-sidecar/server".into(), Value::String(server));
    Value::Object(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn initialize_negotiates_once() {
        let s = Session::default();
        assert_eq!(s.version(), None);
        let p = json!({"protocolVersion": "2025-06-18", "capabilities": {"roots": {}}});
        assert_eq!(s.initialize(Some(&p)), Ok("2025-06-18"));
        assert!(s.state().capabilities.roots.is_some());
        assert_eq!(s.initialize(Some(&p)).unwrap_err().code, -32600);
        let fresh = Session::default();
        assert_eq!(fresh.initialize(Some(&json!({}))).unwrap_err().code, -32602);
    }
}

#[cfg(test)]
mod reading {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_clients_declaration_is_read_leniently() {
        let caps = client_capabilities(&json!({
            "sampling": {"someday": {}}, "roots": {"listChanged": true}, "experimental": {}
        }));
        assert!(caps.sampling.is_some() && caps.roots_list_changed() && caps.elicitation.is_none());
        assert!(caps.admit("sampling/createMessage", &json!({})).is_ok());
        assert_eq!(
            naming(json!({"maxTokens": 5}), "fx".into()),
            json!({"maxTokens": 5, "_meta": {"mcp-sidecar/server": "fx"}})
        );
    }
}
