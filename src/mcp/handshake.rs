//! Protocol-version negotiation and what a session learned from it.

use serde_json::{json, Value};

use crate::error::{Error, ErrorCode, Result};

/// The revision we offer in `initialize`.
pub const OFFERED_PROTOCOL_VERSION: &str = "2025-11-25";

/// Revisions of the stateful era we accept in a server's answer.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// How a session with one server works.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Era {
    /// `initialize` handshake once, then plain requests (2024-11-05 … 2025-11-25).
    Stateful,
    /// 2026-07-28: `server/discover`, then every request carries `_meta`; no session.
    Modern,
}

impl Era {
    /// How the status names it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Stateful => "legacy",
            Self::Modern => "modern",
        }
    }
}

/// How a session is started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Negotiation {
    /// `initialize` offering this legacy revision, and nothing else.
    Legacy(String),
    /// `server/discover` at this modern revision (again at the one a `-32022` names), never
    /// `initialize`.
    Modern(String),
    /// `initialize` first; `server/discover` when the server refuses it (stdio `auto`).
    LegacyFirst,
    /// `server/discover` first; `initialize` when the answer is not a modern one (HTTP `auto`).
    DiscoverFirst,
}

impl Default for Negotiation {
    fn default() -> Self {
        Self::Legacy(OFFERED_PROTOCOL_VERSION.to_owned())
    }
}

/// What the handshake established.
#[derive(Clone, Debug, PartialEq)]
pub struct Handshake {
    pub era: Era,
    pub protocol_version: String,
    pub server_info: Value,
    pub capabilities: Value,
    pub instructions: Option<String>,
}

impl Handshake {
    /// Whether the server declared the `tools` capability.
    pub fn has_tools(&self) -> bool {
        self.declares(Capability::Tools)
    }

    /// Whether the server declared `capability` (an object under its name; `resources.subscribe`
    /// must be `true`).
    pub fn declares(&self, capability: Capability) -> bool {
        let object = |name: &str| self.capabilities.get(name).is_some_and(Value::is_object);
        match capability {
            Capability::Tools => object("tools"),
            Capability::Resources => object("resources"),
            Capability::ResourceSubscriptions => {
                self.capabilities
                    .pointer("/resources/subscribe")
                    .and_then(Value::as_bool)
                    == Some(true)
            }
            Capability::Prompts => object("prompts"),
            Capability::Completions => object("completions"),
            Capability::Logging => object("logging"),
        }
    }
}

/// A server capability the sidecar asks about before it sends a request that needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    Tools,
    Resources,
    /// `resources.subscribe: true`.
    ResourceSubscriptions,
    Prompts,
    Completions,
    Logging,
}

impl Capability {
    /// How the capability is written in a server's `capabilities` (for error messages).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Resources => "resources",
            Self::ResourceSubscriptions => "resources.subscribe",
            Self::Prompts => "prompts",
            Self::Completions => "completions",
            Self::Logging => "logging",
        }
    }
}

/// The `initialize` params we send, declaring `capabilities` (what the session's owner can
/// answer, see `crate::ask`).
pub fn initialize_params(version: &str, capabilities: Value) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "mcp-sidecar", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// Validates an `initialize` result. `server` names the server in errors.
pub fn accept_initialize_result(server: &str, result: &Value) -> Result<Handshake> {
    let bad = |what: &str| {
        Error::new(
            ErrorCode::ProtocolError,
            format!("server `{server}` sent an invalid initialize result: {what}"),
        )
        .with("server", server)
    };
    let Value::Object(map) = result else {
        return Err(bad("not an object"));
    };
    let version = match map.get("protocolVersion") {
        Some(Value::String(v)) => v.clone(),
        _ => return Err(bad("protocolVersion is missing or not a string")),
    };
    if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version.as_str()) {
        return Err(Error::new(
            ErrorCode::VersionUnsupported,
            format!(
                "server `{server}` answered with protocol version {version:?}; supported: {}",
                SUPPORTED_PROTOCOL_VERSIONS.join(", ")
            ),
        )
        .with("server", server)
        .with("protocolVersion", version)
        .with("supported", SUPPORTED_PROTOCOL_VERSIONS.to_vec()));
    }
    let capabilities = match map.get("capabilities") {
        Some(c @ Value::Object(_)) => c.clone(),
        _ => return Err(bad("capabilities is missing or not an object")),
    };
    let server_info = match map.get("serverInfo") {
        Some(info @ Value::Object(o)) if o.get("name").is_some_and(Value::is_string) => {
            info.clone()
        }
        _ => return Err(bad("serverInfo is missing or has no name")),
    };
    let instructions = map
        .get("instructions")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(Handshake {
        era: Era::Stateful,
        protocol_version: version,
        server_info,
        capabilities,
        instructions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_every_supported_version() {
        for v in SUPPORTED_PROTOCOL_VERSIONS {
            let r = json!({"protocolVersion": v, "capabilities": {"tools": {}}, "serverInfo": {"name": "s"}});
            let h = accept_initialize_result("s", &r).unwrap();
            assert!(h.has_tools());
            assert_eq!(h.protocol_version, v);
        }
    }

    #[test]
    fn rejects_unknown_versions_and_malformed_results() {
        let r = json!({"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "s"}});
        assert_eq!(
            accept_initialize_result("s", &r).unwrap_err().code,
            ErrorCode::VersionUnsupported
        );
        let r = json!({"capabilities": "nope"});
        assert_eq!(
            accept_initialize_result("s", &r).unwrap_err().code,
            ErrorCode::ProtocolError
        );
        let r = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {}});
        assert_eq!(
            accept_initialize_result("s", &r).unwrap_err().code,
            ErrorCode::ProtocolError
        );
    }

    #[test]
    fn declared_capabilities() {
        let r = json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "s"},
            "capabilities": {"resources": {"subscribe": true}, "prompts": {}, "logging": {}, "completions": null}});
        let h = accept_initialize_result("s", &r).unwrap();
        assert!(h.declares(Capability::Resources) && h.declares(Capability::ResourceSubscriptions));
        assert!(h.declares(Capability::Prompts) && h.declares(Capability::Logging));
        assert!(!h.declares(Capability::Completions) && !h.declares(Capability::Tools));
        let r = json!({"protocolVersion": "2025-11-25", "serverInfo": {"name": "s"},
            "capabilities": {"resources": {"subscribe": "yes"}}});
        let h = accept_initialize_result("s", &r).unwrap();
        assert!(
            h.declares(Capability::Resources) && !h.declares(Capability::ResourceSubscriptions)
        );
    }

    #[test]
    fn tools_capability_must_be_an_object() {
        let r = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s"}});
        assert!(!accept_initialize_result("s", &r).unwrap().has_tools());
    }
}
