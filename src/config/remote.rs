//! The remote half of a server config: which HTTP transport, the URL, and the headers to send.
//!
//! Validation here is about safety as much as shape: a URL may not carry credentials (they would show
//! in status and logs) or a fragment, and a header may not be one the MCP transports own, because
//! overriding those would silently break the protocol.

use reqwest::Url;
use serde_json::{Map, Value};

use super::invalid::invalid;
use super::oauth::OAuthSpec;
use crate::error::Result;

/// How a remote server is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteKind {
    /// Streamable HTTP (2025-03-26 and later), never downgraded.
    Http,
    /// Legacy HTTP+SSE (2024-11-05), never upgraded.
    Sse,
    /// No type given: Streamable HTTP, falling back to legacy SSE on 400/404/405 to `initialize`.
    Auto,
}

impl RemoteKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http | Self::Auto => "http",
            Self::Sse => "sse",
        }
    }
}

/// One configured header. `secret` values never appear in status, logs or errors.
#[derive(Clone, PartialEq, Eq)]
pub struct HeaderSpec {
    pub name: String,
    pub value: String,
    pub secret: bool,
}

impl std::fmt::Debug for HeaderSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Every header value is redacted in debug output: logs print specs.
        write!(f, "{}: <redacted>", self.name)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RemoteSpec {
    pub kind: RemoteKind,
    pub url: Url,
    pub headers: Vec<HeaderSpec>,
    /// The `oauth` object as configured (`None`: the client registers itself when the server asks
    /// for authorization).
    pub oauth: Option<OAuthSpec>,
}

impl RemoteSpec {
    /// Whether the sidecar runs OAuth for this server: unless the config sends an `Authorization`
    /// header of its own (then the credentials are the config's business).
    pub fn uses_oauth(&self) -> bool {
        !self
            .headers
            .iter()
            .any(|h| h.name.eq_ignore_ascii_case("authorization"))
    }
}

/// Headers that the transports set themselves.
const RESERVED_HEADERS: &[&str] = &[
    "host",
    "content-type",
    "content-length",
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    // Hop-by-hop framing: owned by the HTTP client.
    "transfer-encoding",
    "connection",
];

/// Name fragments that make a header secret even when not marked.
const SECRET_HINTS: &[&str] = &[
    "authorization",
    "cookie",
    "token",
    "key",
    "secret",
    "password",
    "auth",
];

/// `transport` / `type` values: `None` is stdio.
pub(super) fn parse_kind(field: &str, value: &str) -> Result<Option<RemoteKind>> {
    match value {
        "stdio" => Ok(None),
        "http" | "streamable-http" | "streamableHttp" | "streamable_http" => {
            Ok(Some(RemoteKind::Http))
        }
        "sse" => Ok(Some(RemoteKind::Sse)),
        other => Err(invalid(
            field,
            format!("transport {other:?} is not one of \"stdio\", \"http\", \"sse\""),
        )),
    }
}

pub(super) fn parse_url(text: &str) -> Result<Url> {
    let url = Url::parse(text).map_err(|e| invalid("url", format!("is not a valid URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(
            "url",
            format!("scheme {:?} is not http or https", url.scheme()),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // Not echoed back: the message would carry the credentials.
        return Err(invalid(
            "url",
            "must not embed credentials (user:password@); use `headers` marked secret",
        ));
    }
    if url.fragment().is_some() {
        return Err(invalid("url", "must not have a fragment (#…)"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("url", "has no host"));
    }
    Ok(url)
}

/// The `headers` object (its type is checked by the caller).
pub(super) fn parse_headers(map: &Map<String, Value>) -> Result<Vec<HeaderSpec>> {
    let mut out = Vec::with_capacity(map.len());
    for (name, v) in map {
        let field = format!("headers.{name}");
        let valid_name = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !valid_name {
            return Err(invalid(&field, "is not a valid header name"));
        }
        let lower = name.to_ascii_lowercase();
        if RESERVED_HEADERS.contains(&lower.as_str()) {
            return Err(invalid(
                &field,
                format!("`{name}` is set by the MCP transport and cannot be configured"),
            ));
        }
        let (value, marked) = match v {
            Value::String(s) => (s.clone(), false),
            Value::Object(o) => {
                let value = match o.get("value") {
                    Some(Value::String(s)) => s.clone(),
                    _ => return Err(invalid(&format!("{field}.value"), "must be a string")),
                };
                let secret = match o.get("secret") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => {
                        return Err(invalid(&format!("{field}.secret"), "must be true or false"))
                    }
                };
                if let Some(k) = o.keys().find(|k| *k != "value" && *k != "secret") {
                    return Err(invalid(
                        &format!("{field}.{k}"),
                        "unknown field (expected `value`, `secret`)",
                    ));
                }
                (value, secret)
            }
            _ => {
                return Err(invalid(
                    &field,
                    "must be a string or {\"value\": string, \"secret\": bool}",
                ))
            }
        };
        // Control characters would split or smuggle headers; the value is never echoed.
        if value.bytes().any(|b| (b < 0x20 && b != b'\t') || b == 0x7f) {
            return Err(invalid(&field, "value contains control characters"));
        }
        let secret = marked || SECRET_HINTS.iter().any(|h| lower.contains(h));
        out.push(HeaderSpec {
            name: name.clone(),
            value,
            secret,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn urls() {
        assert!(parse_url("http://127.0.0.1:8080/mcp").is_ok());
        for bad in [
            "ftp://x/",
            "http://u:p@x/",
            "http://u@x/",
            "https://x/#frag",
            "file:///etc",
            "nope",
        ] {
            let e = parse_url(bad).unwrap_err();
            assert_eq!(e.details["field"], "url", "{bad}");
            assert!(!e.message.contains("u:p"), "{}", e.message);
        }
    }

    #[test]
    fn headers() {
        let headers = |v: Value| parse_headers(v.as_object().unwrap());
        let h = headers(json!({
            "X-Plain": "a", "X-Api-Key": "k", "Authorization": {"value": "Bearer t"},
            "X-Custom": {"value": "s", "secret": true}
        }))
        .unwrap();
        let secret: Vec<_> = h.iter().map(|h| (h.name.as_str(), h.secret)).collect();
        assert_eq!(
            secret,
            vec![
                ("Authorization", true),
                ("X-Api-Key", true),
                ("X-Custom", true),
                ("X-Plain", false)
            ]
        );
        assert!(!format!("{h:?}").contains("Bearer"));
        for reserved in [
            "Host",
            "content-type",
            "Content-Length",
            "Accept",
            "Mcp-Session-Id",
            "MCP-Protocol-Version",
            "Last-Event-ID",
        ] {
            let e = headers(json!({ reserved: "x" })).unwrap_err();
            assert_eq!(e.details["field"], format!("headers.{reserved}"));
        }
        assert!(headers(json!({"X-A": "a\r\nX-B: b"})).is_err());
        assert!(headers(json!({"bad name": "a"})).is_err());
    }
}
