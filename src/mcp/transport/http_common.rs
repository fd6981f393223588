//! What both HTTP transports share: the HTTP client (TLS, redirects, proxies), the configured
//! headers, bounded body and event-stream reads, and the inbound queue the session reads.
//!
//! Safety rules live here so neither transport can forget them: a redirect to another origin is
//! refused (configured headers, often credentials, must never reach another site; reqwest would keep
//! custom headers), proxies never apply to loopback (reqwest would apply `HTTP_PROXY` to 127.0.0.1)
//! and otherwise honour `NO_PROXY`, and every read from a peer stops at `maxMessageBytes`.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Response, Url};
use tokio::sync::mpsc;

use super::sse_parser::{SseEvent, SseParser};
use super::{BoxFuture, MessageSource, TransportError};
use crate::config::HeaderSpec;
use crate::limits;

pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";
pub const EVENT_STREAM: &str = "text/event-stream";
pub const SESSION_HEADER: &str = "mcp-session-id";
pub const VERSION_HEADER: &str = "mcp-protocol-version";
pub const LAST_EVENT_ID: &str = "last-event-id";

/// What one remote server's transport needs from its config.
pub struct RemoteOptions {
    pub server: String,
    pub url: Url,
    pub headers: Vec<HeaderSpec>,
    pub max_message_bytes: usize,
    /// Bounds connecting (the handshake as a whole is bounded by the session).
    pub connect_timeout: Duration,
}

/// The HTTP client and configured headers of one server.
pub struct Http {
    pub server: String,
    pub client: reqwest::Client,
    pub headers: HeaderMap,
    pub max_message_bytes: usize,
}

impl Http {
    pub fn new(options: &RemoteOptions) -> Result<Self, String> {
        let origin = options.url.origin();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.url().origin() != origin {
                // `stop` hands the 3xx back; the transport reports it as an error naming no header.
                attempt.stop()
            } else if attempt.previous().len() > limits::HTTP_MAX_REDIRECTS {
                attempt.error("too many redirects")
            } else {
                attempt.follow()
            }
        });
        let mut builder = reqwest::Client::builder()
            .use_rustls_tls()
            .redirect(redirects)
            .connect_timeout(options.connect_timeout)
            // This build carries no HTTP/2; say so rather than negotiate it.
            .http1_only();
        if is_loopback(&options.url) {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Self {
            server: options.server.clone(),
            client,
            headers: header_map(&options.headers)?,
            max_message_bytes: options.max_message_bytes,
        })
    }
}

/// Loopback hosts: never proxied.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => {
            d.eq_ignore_ascii_case("localhost") || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn header_map(headers: &[HeaderSpec]) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for h in headers {
        let name = HeaderName::from_bytes(h.name.as_bytes())
            .map_err(|_| format!("header name `{}` is invalid", h.name))?;
        // The value is never part of a message: it may be a credential.
        let mut value = HeaderValue::from_str(&h.value)
            .map_err(|_| format!("header `{}` has an invalid value", h.name))?;
        value.set_sensitive(h.secret);
        map.append(name, value);
    }
    Ok(map)
}

pub fn io(message: impl Into<String>) -> TransportError {
    TransportError::Io(std::io::Error::other(message.into()))
}

/// A request error as text. reqwest's message carries the URL, which never holds credentials.
pub fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

pub fn content_type(resp: &Response) -> String {
    resp.headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The whole body, refused as soon as it passes `limit` (before buffering the excess).
pub async fn read_body(mut resp: Response, limit: usize) -> Result<Vec<u8>, TransportError> {
    if resp.content_length().is_some_and(|n| n > limit as u64) {
        return Err(TransportError::TooLong { limit });
    }
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > limit {
                    return Err(TransportError::TooLong { limit });
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(e) => return Err(io(format!("reading the response failed: {}", describe(&e)))),
        }
    }
}

/// The start of an error body for a message, or the status alone.
pub async fn error_excerpt(resp: Response) -> String {
    let status = resp.status();
    let body = read_body(resp, limits::HTTP_ERROR_EXCERPT_BYTES * 8)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&body[..body.len().min(limits::HTTP_ERROR_EXCERPT_BYTES)]);
    let text = text.trim();
    if text.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {text}")
    }
}

/// Events of one response body, through the bounded parser.
pub struct EventReader {
    resp: Response,
    pub parser: SseParser,
    ready: std::collections::VecDeque<SseEvent>,
}

impl EventReader {
    pub fn new(resp: Response, parser: SseParser) -> Self {
        Self {
            resp,
            parser,
            ready: Default::default(),
        }
    }

    /// The next event; `None` when the body ended (an unfinished event is dropped, as specified).
    pub async fn next(&mut self) -> Result<Option<SseEvent>, TransportError> {
        let mut out = Vec::new();
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            match self.resp.chunk().await {
                Ok(Some(chunk)) => {
                    self.parser
                        .feed(&chunk, &mut out)
                        .map_err(|e| TransportError::TooLong { limit: e.limit })?;
                    self.ready.extend(out.drain(..));
                }
                Ok(None) => return Ok(None),
                Err(e) => return Err(io(format!("the event stream failed: {}", describe(&e)))),
            }
        }
    }

    /// Hands the parser on (its last event id and retry survive a reconnect).
    pub fn into_parser(self) -> SseParser {
        self.parser
    }
}

/// The wait before reconnecting a stream, honouring the server's `retry:` within bounds.
pub fn retry_delay(parser: &SseParser) -> Duration {
    parser
        .retry_ms()
        .map(Duration::from_millis)
        .unwrap_or(limits::SSE_DEFAULT_RETRY)
        .min(limits::SSE_MAX_RETRY)
}

pub type InboundTx = mpsc::Sender<Result<Vec<u8>, TransportError>>;

/// The session's inbound half: whatever the transport's tasks queued, in order.
pub struct InboundSource(pub mpsc::Receiver<Result<Vec<u8>, TransportError>>);

impl MessageSource for InboundSource {
    fn recv(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, TransportError>> {
        Box::pin(async move { self.0.recv().await.transpose() })
    }
}

/// What a queued outbound message is, read once so routing does not re-parse it.
pub struct Outgoing {
    pub line: Vec<u8>,
    pub method: Option<String>,
    /// Set for requests.
    pub id: Option<serde_json::Value>,
    /// For `notifications/cancelled`: the request it cancels.
    pub cancels: Option<serde_json::Value>,
}

impl Outgoing {
    pub fn parse(line: Vec<u8>) -> Self {
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap_or_default();
        let method = value
            .get("method")
            .and_then(|m| m.as_str())
            .map(str::to_owned);
        let id = method.as_ref().and(value.get("id")).cloned();
        let cancels = (method.as_deref() == Some("notifications/cancelled"))
            .then(|| value.pointer("/params/requestId").cloned())
            .flatten();
        Self {
            line,
            method,
            id,
            cancels,
        }
    }

    pub fn is_request(&self) -> bool {
        self.id.is_some()
    }
}

/// A JSON-RPC error reply to our own request `id`, for HTTP failures the session must see as the
/// answer to that request (the session logic is shared with stdio and knows no HTTP).
pub fn error_reply(id: &serde_json::Value, message: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32000, "message": message},
    }))
    .unwrap_or_default()
}

/// The `id` of a JSON-RPC response in `data`, if it is one.
pub fn response_id(data: &[u8]) -> Option<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(data).ok()?;
    if v.get("method").is_some() {
        return None;
    }
    (v.get("result").is_some() || v.get("error").is_some())
        .then(|| v.get("id").cloned())
        .flatten()
}
