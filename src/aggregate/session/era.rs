//! The two protocol eras a request can come in, told apart by its envelope, and what each era's
//! answer carries. The sidecar serves both at once, on one stdio pipe or one HTTP endpoint:
//!
//! - *legacy* (2024-11-05 … 2025-11-25): the session's `initialize` fixed the version; requests are
//!   plain;
//! - *modern* (2026-07-28): no session; every request carries `_meta` with its protocol version and
//!   the client's capabilities (and, over HTTP, the version again in `MCP-Protocol-Version`); every
//!   result says `resultType` and names the server in `_meta`, list results carry cache hints.
//!
//! A request is modern when its `_meta` names a protocol version or client capabilities, when its
//! HTTP header names a modern version, or when it is `server/discover` (modern only); a modern
//! request that lacks a required field is refused, never served as legacy.

use serde_json::{json, Map, Value};

use crate::aggregate::requests::wire::{
    WireError, HEADER_MISMATCH, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION,
};

// The revisions and envelope keys are shared with the downstream client (`crate::era`).
pub(crate) use crate::era::{
    is_modern, LEGACY_VERSIONS, META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION,
    META_SERVER_INFO, META_SUBSCRIPTION_ID, MODERN_VERSIONS,
};

/// How long a client may reuse a list result (`ttlMs`): never. The aggregate changes whenever a
/// server's tools do, and a client that is not listening would not hear of it.
pub(crate) const LIST_TTL_MS: u64 = 0;

/// How one request is served.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Era {
    /// In the session's negotiated (legacy) revision.
    Legacy,
    /// Stateless, in the revision the request names.
    Modern(Modern),
}

/// What a modern request's envelope says.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Modern {
    pub version: String,
    /// The client's capabilities, for this request only.
    pub capabilities: Value,
    /// `io.modelcontextprotocol/logLevel`: without it, no log message may reach this request.
    pub log_level: Option<String>,
}

/// The request's carrier: stdio has no headers; HTTP has the `MCP-Protocol-Version` header (or not).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Carrier<'a> {
    Stdio,
    Http { version_header: Option<&'a str> },
}

/// Reads request `method`'s era from its params and carrier (see the module doc).
pub(crate) fn classify(
    method: &str,
    params: Option<&Value>,
    carrier: Carrier<'_>,
) -> Result<Era, WireError> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    let header = match carrier {
        Carrier::Http { version_header } => version_header.map(str::trim),
        Carrier::Stdio => None,
    };
    let says_modern = meta.is_some_and(|m| {
        m.contains_key(META_PROTOCOL_VERSION) || m.contains_key(META_CLIENT_CAPABILITIES)
    }) || header.is_some_and(is_modern)
        || method == "server/discover";
    if !says_modern {
        return Ok(Era::Legacy);
    }
    let meta = meta.cloned().unwrap_or_default();
    let version = match meta.get(META_PROTOCOL_VERSION) {
        Some(Value::String(v)) => v.clone(),
        _ => return Err(missing(META_PROTOCOL_VERSION)),
    };
    let capabilities = match meta.get(META_CLIENT_CAPABILITIES) {
        Some(c @ Value::Object(_)) => c.clone(),
        _ => return Err(missing(META_CLIENT_CAPABILITIES)),
    };
    if let Carrier::Http { .. } = carrier {
        if header != Some(version.as_str()) {
            return Err(WireError::new(
                HEADER_MISMATCH,
                format!(
                    "the MCP-Protocol-Version header ({}) does not match `_meta.{META_PROTOCOL_VERSION}` ({version})",
                    header.map_or_else(|| "missing".to_owned(), |h| format!("{h:?}"))
                ),
            ));
        }
    }
    if !MODERN_VERSIONS.contains(&version.as_str()) {
        return Err(unsupported(&version));
    }
    let log_level = meta
        .get(META_LOG_LEVEL)
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(Era::Modern(Modern {
        version,
        capabilities,
        log_level,
    }))
}

/// The legacy revision `initialize` answers with: the one asked for when served, else the newest.
pub(crate) fn negotiate(requested: Option<&str>) -> &'static str {
    LEGACY_VERSIONS
        .iter()
        .find(|v| Some(**v) == requested)
        .copied()
        .unwrap_or(LEGACY_VERSIONS[0])
}

/// `UnsupportedProtocolVersionError`: what is served, and what was asked for.
pub(crate) fn unsupported(requested: &str) -> WireError {
    WireError::new(
        UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "protocol version {requested:?} is not supported; supported: {}",
            MODERN_VERSIONS.join(", ")
        ),
    )
    .with_data(json!({ "supported": MODERN_VERSIONS, "requested": requested }))
}

fn missing(key: &str) -> WireError {
    WireError::new(
        INVALID_PARAMS,
        format!("a 2026-07-28 request must carry `_meta.{key}`"),
    )
    .with_data(json!({ "field": format!("_meta.{key}") }))
}

/// A modern result: `resultType: "complete"`, the server named in `_meta`, and cache hints on a
/// list result (`cacheable`).
pub(crate) fn complete(result: Value, server_info: &Value, cacheable: bool) -> Value {
    let mut result = match result {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    // An `input_required` result says so itself; every other is complete.
    result
        .entry("resultType")
        .or_insert_with(|| Value::from("complete"));
    crate::era::meta_of(&mut result).insert(META_SERVER_INFO.into(), server_info.clone());
    if cacheable {
        result.insert("ttlMs".into(), Value::from(LIST_TTL_MS));
        result.insert("cacheScope".into(), Value::from("private"));
    }
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(version: &str) -> Value {
        json!({"_meta": {META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: {}}})
    }

    fn http(header: Option<&str>) -> Carrier<'_> {
        Carrier::Http {
            version_header: header,
        }
    }

    #[test]
    fn plain_requests_are_legacy_and_enveloped_ones_modern() {
        assert_eq!(
            classify("tools/list", None, Carrier::Stdio),
            Ok(Era::Legacy)
        );
        let with_token = json!({"_meta": {"progressToken": 1}});
        assert_eq!(
            classify("tools/call", Some(&with_token), http(Some("2025-11-25"))),
            Ok(Era::Legacy)
        );
        let Ok(Era::Modern(m)) = classify("tools/list", Some(&meta("2026-07-28")), Carrier::Stdio)
        else {
            panic!("modern")
        };
        assert_eq!(m.version, "2026-07-28");
        assert!(m.log_level.is_none());
    }

    #[test]
    fn a_modern_request_missing_a_field_is_invalid_params() {
        let e = classify("server/discover", Some(&json!({})), Carrier::Stdio).unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS);
        let no_caps = json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}});
        let e = classify("tools/list", Some(&no_caps), http(Some("2026-07-28"))).unwrap_err();
        assert_eq!((e.code, e.http_status()), (INVALID_PARAMS, 400));
        let e = classify("tools/list", None, http(Some("2026-07-28"))).unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS, "a modern header without _meta");
    }

    #[test]
    fn header_and_body_must_agree_before_the_version_is_judged() {
        let e = classify(
            "server/discover",
            Some(&meta("v999")),
            http(Some("2026-07-28")),
        )
        .unwrap_err();
        assert_eq!(e.code, HEADER_MISMATCH);
        let e = classify("server/discover", Some(&meta("2026-07-28")), http(None)).unwrap_err();
        assert_eq!(e.code, HEADER_MISMATCH);
        let e = classify("server/discover", Some(&meta("v999")), http(Some(" v999 "))).unwrap_err();
        assert_eq!(e.code, UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            e.data.unwrap().to_string(),
            r#"{"requested":"v999","supported":["2026-07-28"]}"#
        );
    }

    #[test]
    fn initialize_negotiates_a_legacy_revision() {
        assert_eq!(negotiate(Some("2025-03-26")), "2025-03-26");
        assert_eq!(negotiate(Some("2026-07-28")), "2025-11-25");
        assert_eq!(negotiate(None), "2025-11-25");
    }

    #[test]
    fn a_modern_result_is_complete_names_the_server_and_lists_carry_cache_hints() {
        let info = json!({"name": "mcp-sidecar", "version": "1"});
        let out = complete(json!({"tools": [], "_meta": {"k": 1}}), &info, true);
        assert_eq!(
            out.to_string(),
            r#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-sidecar","version":"1"},"k":1},"cacheScope":"private","resultType":"complete","tools":[],"ttlMs":0}"#
        );
        assert!(complete(json!({}), &info, false).get("ttlMs").is_none());
    }
}
