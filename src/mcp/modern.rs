//! The 2026-07-28 wire as pure functions: the `_meta` envelope every modern request carries, the
//! `server/discover` answer read into a [`Handshake`], a result's `resultType`, and the verdict a
//! probe's outcome gives (the digest's §2.7 table, one function for every transport).

use serde_json::{json, Map, Value};

use super::handshake::{Era, Handshake};
use crate::ask::{request_capabilities, DECLARABLE};
use crate::era::{
    is_modern, HEADER_MISMATCH, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL,
    META_PROTOCOL_VERSION, META_SERVER_INFO, MISSING_CLIENT_CAPABILITY, MODERN_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
};
use crate::jsonrpc::ErrorObject;

/// Who the sidecar says it is, in `initialize` and in every modern request.
pub fn client_info() -> Value {
    json!({"name": "mcp-sidecar", "version": env!("CARGO_PKG_VERSION")})
}

/// `params` with the modern envelope merged into its `_meta` (a `progressToken` already there is
/// kept): the revision, exactly the capabilities the session's owner declared, who we are, and the
/// log level when one was set.
pub fn enveloped(
    params: Value,
    version: &str,
    capabilities: &Value,
    log_level: Option<&str>,
) -> Value {
    let mut params = match params {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let meta = crate::era::meta_of(&mut params);
    meta.insert(META_PROTOCOL_VERSION.into(), Value::from(version));
    meta.insert(META_CLIENT_CAPABILITIES.into(), capabilities.clone());
    meta.insert(META_CLIENT_INFO.into(), client_info());
    if let Some(level) = log_level {
        meta.insert(META_LOG_LEVEL.into(), Value::from(level));
    }
    Value::Object(params)
}

/// The client capabilities a request declares: the session's (`session`), narrowed to what the
/// client of the request being served declared when a gateway serves one
/// ([`request_capabilities`]) — so a 2026-07-28 server never asks that client for what it cannot
/// answer, and refuses a tool that needs it (-32021) itself. The sidecar's own capabilities
/// (`tasks`) stay.
pub fn declared_for_request(session: &Value) -> Value {
    match request_capabilities::current() {
        Some(client) => narrowed(session, &client.to_mcp()),
        None => session.clone(),
    }
}

fn narrowed(session: &Value, client: &Value) -> Value {
    let mut declared = session.clone();
    if let Value::Object(map) = &mut declared {
        for key in DECLARABLE.iter().filter(|k| **k != "auth") {
            match client.get(*key) {
                Some(theirs) if map.contains_key(*key) => {
                    map.insert((*key).into(), theirs.clone());
                }
                _ => {
                    map.remove(*key);
                }
            }
        }
    }
    declared
}

/// What a modern result's `resultType` says.
#[derive(Debug, PartialEq)]
pub enum ResultType {
    /// `"complete"`, or absent (results of older servers are complete).
    Complete,
    /// `"input_required"`: answer `inputRequests`, echo `requestState`, ask again.
    InputRequired,
    /// Anything else: the result is invalid.
    Unknown(String),
}

pub fn result_type(result: &Value) -> ResultType {
    match result.get("resultType") {
        None | Some(Value::Null) => ResultType::Complete,
        Some(Value::String(t)) if t == "complete" => ResultType::Complete,
        Some(Value::String(t)) if t == "input_required" => ResultType::InputRequired,
        Some(other) => ResultType::Unknown(other.to_string()),
    }
}

/// The first modern revision of ours a `supported` list names.
pub fn mutual_modern(supported: &Value) -> Option<&'static str> {
    let list = supported.as_array()?;
    MODERN_VERSIONS
        .iter()
        .find(|ours| list.iter().any(|v| v.as_str() == Some(**ours)))
        .copied()
}

/// What a probe (`server/discover`) or a refused `initialize` says about the server's era.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// A modern server: `server/discover` answered (with this revision agreed).
    Modern(Handshake),
    /// Modern: ask again at this revision (a `-32022` naming one of ours).
    Retry(&'static str),
    /// A legacy server: speak `initialize`.
    Legacy,
    /// A modern server that refused a request of ours as malformed (-32020/-32021): falling back
    /// would not help; the message says why.
    Broken(String),
}

/// Classifies a `server/discover` outcome: a result, or the server's JSON-RPC error (an HTTP
/// error without a JSON-RPC body reaches here as a legacy-looking `-32600`).
pub fn classify_discover(outcome: &Result<Value, ErrorObject>) -> Verdict {
    match outcome {
        Ok(result) => match accept_discover(result) {
            Some(handshake) => Verdict::Modern(handshake),
            // A result without a revision of ours: a server of another (future or past) kind.
            None => Verdict::Legacy,
        },
        Err(e) => classify_error(e),
    }
}

/// Classifies a JSON-RPC error to a probe: only the recognised modern errors keep us modern.
pub fn classify_error(e: &ErrorObject) -> Verdict {
    match e.code {
        UNSUPPORTED_PROTOCOL_VERSION => {
            match e.data.as_ref().and_then(|d| mutual_modern(&d["supported"])) {
                Some(version) => Verdict::Retry(version),
                // It names only legacy revisions (or none): speak `initialize`.
                None => Verdict::Legacy,
            }
        }
        HEADER_MISMATCH | MISSING_CLIENT_CAPABILITY => Verdict::Broken(format!(
            "the server refused the 2026-07-28 request ({}: {})",
            e.code, e.message
        )),
        _ => Verdict::Legacy,
    }
}

/// Whether an error answering `initialize` says the server is modern-only: `-32022` naming a
/// modern revision of ours (the TypeScript SDK's modern-only servers), or `-32020`.
pub fn initialize_refused_as_modern(e: &ErrorObject) -> Option<&'static str> {
    match e.code {
        UNSUPPORTED_PROTOCOL_VERSION => {
            e.data.as_ref().and_then(|d| mutual_modern(&d["supported"]))
        }
        HEADER_MISMATCH => Some(MODERN_VERSIONS[0]),
        _ => None,
    }
}

/// A `DiscoverResult` read into what the session keeps; `None` when it names no modern revision
/// of ours. The server's identity is in `_meta` (older drafts put it at the top; both are read).
pub fn accept_discover(result: &Value) -> Option<Handshake> {
    let version = mutual_modern(result.get("supportedVersions")?)?;
    let capabilities = match result.get("capabilities") {
        Some(c @ Value::Object(_)) => c.clone(),
        _ => json!({}),
    };
    let server_info = result
        .pointer(&format!("/_meta/{}", META_SERVER_INFO.replace('/', "~1")))
        .or_else(|| result.get("serverInfo"))
        .filter(|v| v.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"name": "unknown"}));
    Some(Handshake {
        era: Era::Modern,
        protocol_version: version.to_owned(),
        server_info,
        capabilities,
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// Whether `version` pins the modern wire.
pub fn pins_modern(version: &str) -> bool {
    is_modern(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_declares_only_what_its_client_and_the_session_both_do() {
        let session =
            json!({"sampling": {}, "elicitation": {"form": {}}, "roots": {}, "tasks": {}});
        let client = json!({"sampling": {"tools": {}}, "roots": {}, "experimental": {}});
        assert_eq!(
            narrowed(&session, &client),
            json!({"sampling": {"tools": {}}, "roots": {}, "tasks": {}})
        );
        let session_without = json!({"tasks": {}});
        assert_eq!(narrowed(&session_without, &client), json!({"tasks": {}}));
    }

    fn err(code: i64, data: Option<Value>) -> ErrorObject {
        ErrorObject {
            code,
            message: "m".into(),
            data,
        }
    }

    #[test]
    fn the_envelope_keeps_a_progress_token_and_says_exactly_what_was_declared() {
        let caps = json!({"elicitation": {"form": {}}});
        let p = enveloped(
            json!({"name": "t", "_meta": {"progressToken": 3}}),
            "2026-07-28",
            &caps,
            None,
        );
        assert_eq!(p["_meta"]["progressToken"], 3);
        assert_eq!(p["_meta"][META_PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(p["_meta"][META_CLIENT_CAPABILITIES], caps);
        assert_eq!(p["_meta"][META_CLIENT_INFO]["name"], "mcp-sidecar");
        assert!(p["_meta"].get(META_LOG_LEVEL).is_none());
        let p = enveloped(json!({}), "2026-07-28", &json!({}), Some("debug"));
        assert_eq!(p["_meta"][META_LOG_LEVEL], "debug");
    }

    #[test]
    fn probe_outcomes_follow_the_table() {
        let ok = json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {"listChanged": true}},
            "_meta": {META_SERVER_INFO: {"name": "s", "version": "1"}}});
        match classify_discover(&Ok(ok)) {
            Verdict::Modern(h) => {
                assert_eq!(h.protocol_version, "2026-07-28");
                assert_eq!(h.server_info["name"], "s");
                assert!(h.has_tools());
            }
            other => panic!("{other:?}"),
        }
        let future_only = json!({"supportedVersions": ["2099-01-01"], "capabilities": {}});
        assert_eq!(classify_discover(&Ok(future_only)), Verdict::Legacy);
        let retry = err(
            -32022,
            Some(json!({"supported": ["2026-07-28"], "requested": "x"})),
        );
        assert_eq!(classify_discover(&Err(retry)), Verdict::Retry("2026-07-28"));
        let legacy_only = err(-32022, Some(json!({"supported": ["2025-11-25"]})));
        assert_eq!(classify_discover(&Err(legacy_only)), Verdict::Legacy);
        assert_eq!(classify_discover(&Err(err(-32022, None))), Verdict::Legacy);
        for code in [-32601, -32602, -32600, -32000, -32001] {
            assert_eq!(
                classify_discover(&Err(err(code, None))),
                Verdict::Legacy,
                "{code}"
            );
        }
        for code in [-32020, -32021] {
            assert!(matches!(
                classify_discover(&Err(err(code, None))),
                Verdict::Broken(_)
            ));
        }
    }

    #[test]
    fn result_types() {
        assert_eq!(result_type(&json!({})), ResultType::Complete);
        assert_eq!(
            result_type(&json!({"resultType": "complete"})),
            ResultType::Complete
        );
        assert_eq!(
            result_type(&json!({"resultType": "input_required"})),
            ResultType::InputRequired
        );
        assert!(matches!(
            result_type(&json!({"resultType": "task"})),
            ResultType::Unknown(_)
        ));
    }

    #[test]
    fn a_refused_initialize_names_a_modern_server() {
        let e = err(
            -32022,
            Some(json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})),
        );
        assert_eq!(initialize_refused_as_modern(&e), Some("2026-07-28"));
        assert_eq!(initialize_refused_as_modern(&err(-32601, None)), None);
    }
}
