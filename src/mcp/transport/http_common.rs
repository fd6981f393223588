//! What both HTTP transports share: the HTTP client (TLS, redirects, proxies), the configured
//! headers, sending and the typed failure of a request, bounded body and event-stream reads, and the
//! [`Link`] to the inbound queue the session reads. Below [`super::sse`] and [`super::http`]: both
//! import it, it imports neither.
//!
//! Safety rules live here so neither transport can forget them: a redirect to another origin is
//! refused (configured headers, often credentials, must never reach another site; reqwest would keep
//! custom headers), proxies never apply to loopback (reqwest would apply `HTTP_PROXY` to 127.0.0.1)
//! and otherwise honour `NO_PROXY`, and every read from a peer stops at `maxMessageBytes`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION};
use reqwest::{RequestBuilder, Response, StatusCode, Url};
use tokio::sync::mpsc;

use super::sse_parser::{SseEvent, SseParser};
use super::{BoxFuture, Inbound, MessageSource, TransportError};
use crate::config::HeaderSpec;
use crate::limits;
use crate::oauth::{AuthError, Challenge, Recovery, ServerAuth};

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
    /// The server's OAuth (every request carries its token); `None`: no OAuth for this server.
    pub auth: Option<Arc<ServerAuth>>,
}

/// The HTTP client and configured headers of one server.
pub struct Http {
    pub server: String,
    pub client: reqwest::Client,
    pub headers: HeaderMap,
    pub max_message_bytes: usize,
}

impl Http {
    pub fn new(options: &RemoteOptions) -> Result<Self, TransportError> {
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
            .map_err(|source| TransportError::Client { source })?;
        Ok(Self {
            server: options.server.clone(),
            client,
            headers: header_map(&options.headers)?,
            max_message_bytes: options.max_message_bytes,
        })
    }
}

/// What every task of one remote transport shares, whatever the protocol: the client, the
/// configured URL, the server's OAuth, and the session's inbound queue.
pub struct Link {
    pub http: Http,
    /// The configured URL: the MCP endpoint, or the legacy SSE URL.
    pub url: Url,
    auth: Option<Arc<ServerAuth>>,
    inbound: InboundTx,
    /// Set once the transport closed: nothing is queued after that.
    closed: AtomicBool,
}

impl Link {
    pub fn new(http: Http, url: Url, auth: Option<Arc<ServerAuth>>, inbound: InboundTx) -> Self {
        Self {
            http,
            url,
            auth,
            inbound,
            closed: AtomicBool::new(false),
        }
    }

    /// Sends a request, with the server's access token when it uses OAuth. A 401 is recovered from
    /// once (a token renewed meanwhile, or refreshed) and a `403 insufficient_scope` up to
    /// [`limits::OAUTH_STEP_UPS_PER_REQUEST`] times (a step-up login, when the host can show one);
    /// otherwise the request fails with the reason (`AUTH_REQUIRED`, `AUTH_FAILED`). Every other
    /// answer is the caller's.
    pub async fn send(
        &self,
        req: RequestBuilder,
        during: &'static str,
    ) -> Result<Response, TransportError> {
        let Some(auth) = &self.auth else {
            return send(req, during).await;
        };
        let fatal = |error| TransportError::Auth {
            error,
            request_only: false,
        };
        let mut recovered = false;
        let mut step_ups = 0;
        loop {
            let token = auth.bearer().await.map_err(fatal)?;
            // Bodies here are bytes, never streams: a request can always be repeated.
            let Some(mut attempt) = req.try_clone() else {
                return send(req, during).await;
            };
            if let Some(token) = &token {
                attempt = attempt.header(AUTHORIZATION, bearer(token)?);
            }
            let resp = send(attempt, during).await?;
            match resp.status() {
                StatusCode::UNAUTHORIZED if !recovered => {
                    recovered = true;
                    let challenge = Challenge::from_headers(resp.headers());
                    match auth.unauthorized(challenge, token.as_deref()).await {
                        Ok(Recovery::Retry) => {}
                        Ok(Recovery::NotOAuth) => return Ok(resp),
                        Err(e) => return Err(fatal(e)),
                    }
                }
                StatusCode::UNAUTHORIZED => {
                    return Err(fatal(AuthError::login(
                        "the server refused the renewed access token too (HTTP 401): a new login is needed",
                    )));
                }
                StatusCode::FORBIDDEN => {
                    let challenge = Challenge::from_headers(resp.headers());
                    if !challenge.is_insufficient_scope() {
                        return Ok(resp);
                    }
                    drop(resp);
                    let request_only = |error| TransportError::Auth {
                        error,
                        request_only: true,
                    };
                    if step_ups >= limits::OAUTH_STEP_UPS_PER_REQUEST {
                        return Err(request_only(AuthError::login(format!(
                            "the server still refuses the request for lack of scope ({}) after {step_ups} step-up logins",
                            challenge.scope.as_deref().unwrap_or("none named")
                        ))));
                    }
                    step_ups += 1;
                    auth.insufficient_scope(challenge)
                        .await
                        .map_err(request_only)?;
                }
                status => {
                    if status.is_success() && token.is_some() {
                        auth.note_success();
                    }
                    return Ok(resp);
                }
            }
        }
    }

    /// Queues a message or a request failure for the session; false once it stopped reading.
    pub async fn deliver(&self, item: Inbound) -> bool {
        self.inbound.send(Ok(item)).await.is_ok()
    }

    /// Ends the session with `error`, unless the transport was closed (then nobody needs a reason).
    pub async fn fail(&self, error: TransportError) {
        if !self.is_closed() {
            let _ = self.inbound.send(Err(error)).await;
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    pub fn set_closed(&self) {
        self.closed.store(true, Ordering::SeqCst);
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

fn header_map(headers: &[HeaderSpec]) -> Result<HeaderMap, TransportError> {
    let invalid = |name: &str, part| TransportError::Header {
        name: name.to_owned(),
        part,
    };
    let mut map = HeaderMap::new();
    for h in headers {
        let name =
            HeaderName::from_bytes(h.name.as_bytes()).map_err(|_| invalid(&h.name, "name"))?;
        // The value is never part of a message: it may be a credential.
        let mut value = HeaderValue::from_str(&h.value).map_err(|_| invalid(&h.name, "value"))?;
        value.set_sensitive(h.secret);
        map.append(name, value);
    }
    Ok(map)
}

/// `Bearer <token>`, marked sensitive (never printed by the HTTP client's own logs).
fn bearer(token: &str) -> Result<HeaderValue, TransportError> {
    let mut value =
        HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| TransportError::Auth {
            error: AuthError::failed("the access token cannot be sent in a header"),
            request_only: false,
        })?;
    value.set_sensitive(true);
    Ok(value)
}

/// Sends a request; a failure below HTTP (refused, DNS, TLS, reset) is [`TransportError::Network`].
pub async fn send(req: RequestBuilder, during: &'static str) -> Result<Response, TransportError> {
    req.send()
        .await
        .map_err(|source| TransportError::Network { during, source })
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
            Err(source) => {
                return Err(TransportError::Network {
                    during: "reading the response",
                    source,
                })
            }
        }
    }
}

/// The failure a non-success answer to `during` stands for: a refused cross-origin redirect, or
/// the status with the start of the body (read within a bound; unreadable or empty is no snippet).
pub async fn status_error(resp: Response, during: &'static str) -> TransportError {
    let status = resp.status();
    if status.is_redirection() {
        return TransportError::Redirect { during, status };
    }
    let body = read_body(resp, limits::HTTP_ERROR_EXCERPT_BYTES * 8)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&body[..body.len().min(limits::HTTP_ERROR_EXCERPT_BYTES)]);
    TransportError::Http {
        during,
        status,
        body_snippet: text.trim().to_owned(),
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
                    self.parser.feed(&chunk, &mut out)?;
                    self.ready.extend(out.drain(..));
                }
                Ok(None) => return Ok(None),
                Err(source) => {
                    return Err(TransportError::Network {
                        during: "reading the event stream",
                        source,
                    })
                }
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

pub type InboundTx = mpsc::Sender<Result<Inbound, TransportError>>;

/// The session's inbound half: whatever the transport's tasks queued, in order.
pub struct InboundSource(pub mpsc::Receiver<Result<Inbound, TransportError>>);

impl MessageSource for InboundSource {
    fn recv(&mut self) -> BoxFuture<'_, Result<Option<Inbound>, TransportError>> {
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
    /// A 2026-07-28 message: the revision its `_meta` names, and its params (for the headers
    /// derived from the body).
    pub modern: Option<(String, serde_json::Value)>,
    /// The W3C trace context in the params' `_meta`, repeated in the POST's headers.
    pub trace: Option<crate::telemetry::Carried>,
}

impl Outgoing {
    pub fn parse(line: Vec<u8>) -> Self {
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap_or_default();
        let modern = value
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .and_then(|v| v.as_str())
            .map(str::to_owned)
            .map(|version| (version, value["params"].clone()));
        let method = value
            .get("method")
            .and_then(|m| m.as_str())
            .map(str::to_owned);
        let id = method.as_ref().and(value.get("id")).cloned();
        let cancels = (method.as_deref() == Some("notifications/cancelled"))
            .then(|| value.pointer("/params/requestId").cloned())
            .flatten();
        let trace = crate::telemetry::Carried::from_meta(value.get("params"));
        Self {
            line,
            method,
            id,
            cancels,
            modern,
            trace,
        }
    }

    pub fn is_request(&self) -> bool {
        self.id.is_some()
    }
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
