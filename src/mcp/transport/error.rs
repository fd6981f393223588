//! The one failure type of every transport (stdio, Streamable HTTP, legacy SSE, the SSE parser) and
//! its mapping to the host protocol's stable codes.
//!
//! Each variant is one kind of cause, kept typed (status, limit, the `reqwest` error as `source`) until
//! the session turns it into a [`crate::Error`]: an HTTP status → `HTTP_ERROR` (`data.status`), a
//! failure to reach the server or a connection that broke → `NETWORK_ERROR`, a server that broke the
//! transport's rules → `PROTOCOL_ERROR`, a server that went away → `SERVER_UNAVAILABLE`.
//! `UPSTREAM_ERROR` is never made here: it is reserved for a JSON-RPC error the server itself sent.

use crate::error::{Error, ErrorCode};
use crate::oauth::AuthError;

/// Why a transport could not move a message. `during` names the step (`"POST initialize"`,
/// `"GET event stream"`, …); messages never carry header values (they may be credentials).
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The server answered with a non-success HTTP status. `body_snippet` is the start of its body
    /// (at most [`crate::limits::HTTP_ERROR_EXCERPT_BYTES`], trimmed; secret values are masked by the
    /// owner of the server's config before anything reaches the host).
    #[error("{during}: HTTP {status}{}", suffix(body_snippet))]
    Http {
        during: &'static str,
        status: reqwest::StatusCode,
        body_snippet: String,
    },
    /// A redirect to another origin: refused, so configured headers never reach another site.
    #[error("{during}: HTTP {status}: a redirect to another origin was refused")]
    Redirect {
        during: &'static str,
        status: reqwest::StatusCode,
    },
    /// The server's MCP session expired (HTTP 404) while a request that must not run twice was in
    /// flight: a new session was started, the request was not sent again.
    #[error(
        "the server's MCP session expired (HTTP 404) while tools/call was sent; a new session was \
         started but the call was not retried because it may have run"
    )]
    SessionExpired,
    /// Connecting, sending or reading failed below HTTP: refused, DNS, TLS, reset, connect timeout.
    #[error("{during}: {}", chain(source))]
    Network {
        during: &'static str,
        #[source]
        source: reqwest::Error,
    },
    /// The server broke the transport's rules (a bad session id, content type, endpoint event…).
    #[error("{detail}")]
    Protocol { detail: String },
    /// The answer to one request is not a JSON-RPC message (not JSON, or JSON of another shape):
    /// that request fails, the session goes on. `excerpt` is the answer's start
    /// ([`super::unparsable::escaped_start`]); `reason` says what is wrong, never quoting it.
    #[error("{during}: the answer is {reason}; {bytes} bytes, the start in data.excerpt")]
    Unparsable {
        during: &'static str,
        reason: String,
        bytes: usize,
        excerpt: String,
    },
    /// The server ended the connection or stream the messages come on.
    #[error("{what}")]
    Closed { what: &'static str },
    /// A message over `maxMessageBytes`; the bound tripped before the message was buffered.
    #[error("message longer than the {limit}-byte limit (maxMessageBytes)")]
    TooLong { limit: usize },
    /// Reading a child's stdout failed.
    #[error("reading its output failed: {source}")]
    Io {
        #[from]
        source: std::io::Error,
    },
    /// A configured header cannot be sent (config validation normally refuses it first).
    #[error("header `{name}` has an invalid {part}")]
    Header { name: String, part: &'static str },
    /// OAuth: a login is needed (`AUTH_REQUIRED`), the authorization cannot work as the server set
    /// it up (`AUTH_FAILED`), or an OAuth endpoint was unreachable. `request_only`: only this
    /// request failed (a scope it lacks); otherwise the session cannot go on without a login.
    #[error("{error}")]
    Auth {
        #[source]
        error: AuthError,
        request_only: bool,
    },
    /// The HTTP client could not be built (TLS backend, system configuration).
    #[error("cannot build the HTTP client: {}", chain(source))]
    Client {
        #[source]
        source: reqwest::Error,
    },
}

impl TransportError {
    pub fn protocol(detail: impl Into<String>) -> Self {
        Self::Protocol {
            detail: detail.into(),
        }
    }

    /// The stable code this failure is reported with.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Http { .. } | Self::Redirect { .. } | Self::SessionExpired => {
                ErrorCode::HttpError
            }
            Self::Network { .. } => ErrorCode::NetworkError,
            Self::Protocol { .. } | Self::TooLong { .. } | Self::Unparsable { .. } => {
                ErrorCode::ProtocolError
            }
            Self::Closed { .. } | Self::Io { .. } => ErrorCode::ServerUnavailable,
            Self::Header { .. } => ErrorCode::ConfigInvalid,
            Self::Client { .. } => ErrorCode::Internal,
            Self::Auth { error, .. } => error.code(),
        }
    }

    /// Whether only the request it came with failed (the session goes on).
    pub fn is_request_only(&self) -> bool {
        matches!(
            self,
            Self::Auth {
                request_only: true,
                ..
            }
        )
    }

    /// As a host error about `server`: its message names the server, `data.server` is set.
    pub fn for_server(self, server: &str) -> Error {
        let mut e = Error::from(self);
        e.message = format!("server `{server}`: {}", e.message);
        e.with("server", server)
    }
}

impl From<TransportError> for Error {
    fn from(e: TransportError) -> Self {
        let code = e.code();
        let error = Error::new(code, e.to_string());
        match e {
            TransportError::Http {
                status,
                body_snippet,
                ..
            } => {
                let error = error.with("status", status.as_u16());
                if body_snippet.is_empty() {
                    error
                } else {
                    error.with("body", body_snippet)
                }
            }
            TransportError::Redirect { status, .. } => error.with("status", status.as_u16()),
            TransportError::SessionExpired => error.with("status", 404),
            TransportError::TooLong { limit } => error
                .with("setting", "maxMessageBytes")
                .with("limit", limit as u64),
            TransportError::Header { name, .. } => error.with("field", format!("headers.{name}")),
            TransportError::Unparsable { excerpt, .. } => error.with("excerpt", excerpt),
            TransportError::Auth {
                error: AuthError::LoginRequired { url: Some(url), .. },
                ..
            } => error.with("authorizationUrl", url),
            _ => error,
        }
    }
}

fn suffix(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

/// An error and its causes as one line. reqwest's message carries the URL, which never holds
/// credentials (config validation refuses userinfo in a URL).
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::StatusCode;

    fn wire(e: TransportError) -> String {
        serde_json::to_string(&e.for_server("web").to_rpc_error()).unwrap()
    }

    #[test]
    fn http_status_is_http_error_with_status_and_body() {
        let e = TransportError::Http {
            during: "POST",
            status: StatusCode::SERVICE_UNAVAILABLE,
            body_snippet: "try later".to_owned(),
        };
        assert_eq!(
            wire(e),
            r#"{"code":-32033,"data":{"body":"try later","code":"HTTP_ERROR","server":"web","status":503},"message":"server `web`: POST: HTTP 503 Service Unavailable: try later"}"#
        );
    }

    #[test]
    fn every_status_failure_is_http_error() {
        for status in [400, 401, 403, 404, 429, 500, 502, 503] {
            let e = TransportError::Http {
                during: "POST",
                status: StatusCode::from_u16(status).unwrap(),
                body_snippet: String::new(),
            };
            let e = e.for_server("web");
            assert_eq!(e.code, ErrorCode::HttpError, "{status}");
            assert_eq!(e.details["status"], status, "{status}");
            assert!(!e.details.contains_key("body"));
        }
        let redirect = TransportError::Redirect {
            during: "GET event stream",
            status: StatusCode::TEMPORARY_REDIRECT,
        };
        let e = redirect.for_server("web");
        assert_eq!(
            (e.code, &e.details["status"]),
            (ErrorCode::HttpError, &307.into())
        );
        let e = TransportError::SessionExpired.for_server("web");
        assert_eq!(
            (e.code, &e.details["status"]),
            (ErrorCode::HttpError, &404.into())
        );
    }

    #[tokio::test]
    async fn refused_connection_is_network_error_and_keeps_its_cause() {
        // A port that was just free: nothing listens on it, so connecting is refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // No proxy: an `HTTP_PROXY` in the environment would otherwise answer for 127.0.0.1.
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let source = client
            .get(format!("http://127.0.0.1:{port}/mcp"))
            .send()
            .await
            .unwrap_err();
        assert!(source.is_connect());
        let e = TransportError::Network {
            during: "POST initialize",
            source,
        };
        assert!(std::error::Error::source(&e).is_some(), "the cause is kept");
        let e = e.for_server("web");
        assert_eq!(e.code, ErrorCode::NetworkError);
        assert_eq!(e.code.rpc_code(), -32034);
        assert!(
            e.message.starts_with("server `web`: POST initialize: "),
            "{}",
            e.message
        );
        assert!(
            e.message.contains(&format!("127.0.0.1:{port}")),
            "{}",
            e.message
        );
    }

    #[test]
    fn other_failures_keep_their_codes() {
        let too_long = TransportError::TooLong { limit: 10 }.for_server("s");
        assert_eq!(too_long.code, ErrorCode::ProtocolError);
        assert_eq!(too_long.details["setting"], "maxMessageBytes");
        assert_eq!(too_long.details["limit"], 10);
        let cases = [
            (TransportError::protocol("bad id"), ErrorCode::ProtocolError),
            (
                TransportError::Closed { what: "gone" },
                ErrorCode::ServerUnavailable,
            ),
            (
                TransportError::from(std::io::Error::other("eof")),
                ErrorCode::ServerUnavailable,
            ),
            (
                TransportError::Header {
                    name: "X".to_owned(),
                    part: "value",
                },
                ErrorCode::ConfigInvalid,
            ),
        ];
        for (e, code) in cases {
            assert_eq!(e.for_server("s").code, code);
        }
    }

    #[test]
    fn transport_failures_are_never_upstream_errors() {
        let e = TransportError::Http {
            during: "POST",
            status: StatusCode::INTERNAL_SERVER_ERROR,
            body_snippet: String::new(),
        };
        assert_ne!(e.code(), ErrorCode::UpstreamError);
        assert_ne!(e.code().rpc_code(), -32000);
    }
}
