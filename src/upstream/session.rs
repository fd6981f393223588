//! One client's legacy session (2024-11-05 … 2025-11-25): what its `initialize` negotiated and
//! declared, the log level it asked for, and its requests in flight (for `notifications/cancelled`
//! and for ending them with the session). Over stdio there is one; over HTTP one per
//! `Mcp-Session-Id`. Modern (2026-07-28) requests need none of it: each carries its own.

use std::sync::{Mutex, MutexGuard};

use serde_json::Value;

use super::era;
use super::wire::WireError;
use crate::serving::Requests;

#[derive(Default)]
pub struct Session {
    state: Mutex<State>,
    pub requests: Requests,
}

#[derive(Default)]
struct State {
    /// The negotiated revision; `None` until `initialize`.
    version: Option<&'static str>,
    /// The client's `initialize` capabilities.
    capabilities: Value,
    /// `logging/setLevel`'s level.
    log_level: Option<String>,
}

impl Session {
    /// Takes `initialize`'s params: negotiates the revision (the one asked for when served, else
    /// the newest) and keeps the client's capabilities. A second `initialize` is refused.
    pub fn initialize(&self, params: Option<&Value>) -> Result<&'static str, WireError> {
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
        state.capabilities = params
            .and_then(|p| p.get("capabilities"))
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_default();
        if let Some(client) = params
            .and_then(|p| p.pointer("/clientInfo/name"))
            .and_then(Value::as_str)
        {
            tracing::info!(client, version, "an MCP client initialized");
        }
        Ok(version)
    }

    /// The negotiated revision, once initialized.
    pub fn version(&self) -> Option<&'static str> {
        self.state().version
    }

    pub fn set_log_level(&self, level: &str) {
        self.state().log_level = Some(level.to_owned());
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
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
        assert_eq!(s.initialize(Some(&p)).unwrap_err().code, -32600);
        let fresh = Session::default();
        assert_eq!(fresh.initialize(Some(&json!({}))).unwrap_err().code, -32602);
    }
}
