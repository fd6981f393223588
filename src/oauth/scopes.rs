//! Which scopes a login asks for (the MCP specification's scope selection, with step-up): the
//! configured ones; else, when no challenge named any, the resource's `scopes_supported`; plus
//! every scope wanted so far (challenged, or granted before: a step-up asks for the union); plus
//! `offline_access` when the authorization server lists it (for a refresh token). And how scopes
//! accumulate, within a bound.

use super::discovery::Discovered;
use crate::limits;

const OFFLINE: &str = "offline_access";

/// The scopes of a login, in order, at most [`limits::OAUTH_MAX_SCOPES`].
pub(super) fn for_login(
    configured: Option<&[String]>,
    wanted: &[String],
    discovered: &Discovered,
) -> Vec<String> {
    let mut scopes: Vec<String> = match (configured, wanted.is_empty()) {
        (Some(configured), _) => configured.to_vec(),
        (None, true) => discovered
            .resource
            .scopes_supported
            .clone()
            .unwrap_or_default(),
        (None, false) => Vec::new(),
    };
    add(&mut scopes, wanted.iter().cloned());
    if !scopes.is_empty() && discovered.server.supports_scope(OFFLINE) {
        add(&mut scopes, [OFFLINE.to_owned()]);
    }
    scopes.truncate(limits::OAUTH_MAX_SCOPES);
    scopes
}

/// Adds the scopes not there yet, keeping the order, up to [`limits::OAUTH_MAX_SCOPES`].
pub(super) fn add(scopes: &mut Vec<String>, more: impl IntoIterator<Item = String>) {
    for scope in more {
        if !scopes.contains(&scope) && scopes.len() < limits::OAUTH_MAX_SCOPES {
            scopes.push(scope);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn discovered(supported: Value, server_scopes: Value) -> Discovered {
        Discovered {
            resource: serde_json::from_value(json!({"resource": "https://h/mcp", "authorization_servers": ["https://as"], "scopes_supported": supported})).unwrap(),
            server: serde_json::from_value(json!({"issuer": "https://as", "authorization_endpoint": "https://as/a", "token_endpoint": "https://as/t", "scopes_supported": server_scopes})).unwrap(),
        }
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    /// The specification's order, as the conformance scenarios check it.
    #[test]
    fn selection() {
        let d = discovered(json!(["mcp:basic", "mcp:read"]), json!(null));
        // No challenge scope: every scope the resource supports.
        assert_eq!(
            for_login(None, &[], &d),
            strings(&["mcp:basic", "mcp:read"])
        );
        // The challenge's scope wins over scopes_supported.
        assert_eq!(
            for_login(None, &strings(&["files:read"]), &d),
            strings(&["files:read"])
        );
        // Configured scopes come first; wanted ones are added (a step-up keeps both).
        assert_eq!(
            for_login(Some(&strings(&["a"])), &strings(&["b", "a"]), &d),
            strings(&["a", "b"])
        );
        // Neither: no scope parameter at all.
        let none = discovered(json!(null), json!(null));
        assert!(for_login(None, &[], &none).is_empty());
        // offline_access only where the authorization server lists it, and only with a scope.
        let offline = discovered(json!(["mcp:basic"]), json!(["mcp:basic", "offline_access"]));
        assert_eq!(
            for_login(None, &[], &offline),
            strings(&["mcp:basic", "offline_access"])
        );
        let offline_only = discovered(json!(null), json!(["offline_access"]));
        assert!(for_login(None, &[], &offline_only).is_empty());
    }

    #[test]
    fn accumulation_is_bounded() {
        let mut scopes = Vec::new();
        add(&mut scopes, (0..1000).map(|i| format!("s{i}")));
        add(&mut scopes, ["s0".to_owned()]);
        assert_eq!(scopes.len(), limits::OAUTH_MAX_SCOPES);
    }
}
