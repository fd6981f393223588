//! The protocol eras as plain facts both directions share: which revisions are modern (2026-07-28:
//! no handshake, `_meta` on every request) and which legacy (2024-11-05 … 2025-11-25: the
//! `initialize` handshake), the `_meta` keys of the modern envelope, and the recognised modern
//! error codes. `aggregate` serves both eras; `mcp` speaks both to servers; `config` checks a pinned
//! revision. Pure: no I/O.

use serde_json::{Map, Value};

/// Modern revisions, newest first.
pub(crate) const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
/// Legacy revisions, newest first.
pub(crate) const LEGACY_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub(crate) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub(crate) const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub(crate) const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub(crate) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub(crate) const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// `HeaderMismatchError`: an HTTP header disagrees with the body, or a required one is missing.
pub(crate) const HEADER_MISMATCH: i64 = -32020;
/// `MissingRequiredClientCapabilityError`.
pub(crate) const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// `UnsupportedProtocolVersionError` (`data.supported`, `data.requested`).
pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Whether `version` is a modern revision (or a later one this build does not know): revisions are
/// dates, so text order is time order.
pub(crate) fn is_modern(version: &str) -> bool {
    version >= MODERN_VERSIONS[0]
}

/// Whether this build speaks `version` at all, in either era.
pub(crate) fn is_known(version: &str) -> bool {
    MODERN_VERSIONS.contains(&version) || LEGACY_VERSIONS.contains(&version)
}

/// The `_meta` object of a request, result or notification (made one if it is missing or not an
/// object), where both eras' envelopes and the sidecar's own keys go.
pub(crate) fn meta_of(object: &mut Map<String, Value>) -> &mut Map<String, Value> {
    let slot = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(map) => map,
        _ => unreachable!("made an object just above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eras_are_told_apart_by_date() {
        assert!(MODERN_VERSIONS.iter().all(|v| is_modern(v)));
        assert!(LEGACY_VERSIONS.iter().all(|v| !is_modern(v)));
        assert!(is_modern("2027-01-01") && !is_known("2027-01-01"));
        assert!(is_known("2025-06-18") && !is_known("2025-06-19"));
    }
}
