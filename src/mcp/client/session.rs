//! One MCP session: the handshake and requests with timeouts and cancellation. The reader task that
//! routes everything the server sends is [`crate::mcp::reader`]; this file starts it.
//!
//! Request lifecycle (invariant: each ends exactly once): [`Client::request_until`] registers an id in the
//! pending table, then sends. The reply arrives through the reader task (`Pending::complete`), or the
//! timeout fires, or the caller's future is dropped (host cancellation), or the server goes away
//! (`Pending::close`). In the two middle cases the [`InFlight`] guard removes the id and tells the server
//! with `notifications/cancelled`, so a late answer is dropped and the server can stop working.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use tokio_util::sync::CancellationToken;

use super::kind::{Ended, RequestKind, Wait};
use crate::ask::Asker;
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::{encode_notification, encode_request, Pending, Reply, RequestId};
use crate::limits;
use crate::mcp::cache_hints::CacheHints;
use crate::mcp::handshake::{self, Handshake, Negotiation};
use crate::mcp::modern;
use crate::mcp::progress::{Bound, ProgressTable};
use crate::mcp::reader::{read_loop, ClientEvent, Reader};
use crate::mcp::server_requests::ServerRequests;
use crate::mcp::task_support::{self, TaskWakers};
use crate::mcp::traffic::{CountingSink, Traffic};
use crate::mcp::transport::{MessageSink, Transport};
use crate::mcp::watched::ListenAcks;
use crate::trust::secrets::Secrets;

/// Every page of a `tools/list`: the tools as the server listed them, and the cache hints of the
/// whole list (see [`CacheHints::and`]).
#[derive(Debug, Default)]
pub struct ListedTools {
    pub tools: Vec<Value>,
    pub hints: CacheHints,
}

#[derive(Clone)]
pub struct ClientOptions {
    /// The server's name, used in every error message.
    pub server: String,
    /// Secret values of the server's config, masked in what the client logs and asks.
    pub secrets: Secrets,
    /// Who answers the server's requests (sampling, elicitation, roots); its capabilities are the
    /// ones the client declares in `initialize`.
    pub asker: Arc<dyn Asker>,
    /// Where the bytes of every message read and written are counted.
    pub traffic: Arc<Traffic>,
    /// How the session starts: which era, which order (see [`Negotiation`]).
    pub negotiation: Negotiation,
}

impl ClientOptions {
    /// Options for a session whose server's requests nobody answers (every one is -32601).
    pub fn new(server: impl Into<String>, secrets: Secrets) -> Self {
        Self {
            server: server.into(),
            secrets,
            asker: crate::ask::nobody(),
            traffic: Arc::default(),
            negotiation: Negotiation::default(),
        }
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self::new(String::new(), Secrets::default())
    }
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("server", &self.server)
            .field("secrets", &self.secrets)
            .field("declared", &self.asker.capabilities())
            .finish_non_exhaustive()
    }
}

pub struct Client {
    pub(super) server: Arc<str>,
    pub(super) sink: Arc<dyn MessageSink>,
    pub(super) pending: Arc<Pending<Error>>,
    pub(super) handshake: Handshake,
    /// The modern revision every request's `_meta` names; `None` on the legacy wire.
    pub(super) modern: Option<String>,
    /// What the session's owner declared, sent in every modern request's `_meta`.
    pub(super) declared: Value,
    /// Who answers a modern server's `inputRequests` (and a legacy one's requests).
    pub(super) asker: Arc<dyn Asker>,
    pub(super) secrets: Secrets,
    /// 2026-07-28 has no `logging/setLevel`: the level set rides in each request's `_meta`.
    pub(super) log_level: std::sync::Mutex<Option<&'static str>>,
    /// 2026-07-28: the resources subscribed to, watched through `subscriptions/listen`.
    pub(super) watched: std::sync::Mutex<crate::mcp::watched::WatchedResources>,
    /// Their listen streams waiting for the server's acknowledgement.
    pub(super) acks: Arc<ListenAcks>,
    reader: JoinHandle<()>,
    /// Cancelled when the session ends: the server's requests still open are dropped.
    ended: CancellationToken,
    /// Routes of the server's `notifications/progress` to the requests that gave a token.
    pub(super) progress: Arc<ProgressTable>,
    /// Wake-ups of the tasks being polled, by the server's `notifications/tasks/status`.
    pub(super) tasks: Arc<TaskWakers>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.reader.abort();
        self.ended.cancel();
        self.pending
            .close(self.unavailable("the session was closed"));
    }
}

impl Client {
    /// Starts the reader task and performs the handshake. `deadline` bounds the whole handshake.
    /// Events arrive on `events` until the session ends.
    pub async fn connect(
        transport: Transport,
        options: ClientOptions,
        deadline: tokio::time::Instant,
        events: mpsc::UnboundedSender<ClientEvent>,
    ) -> Result<Client> {
        let server: Arc<str> = Arc::from(options.server.as_str());
        let pending = Arc::new(Pending::new());
        let ended = CancellationToken::new();
        let progress = Arc::new(ProgressTable::default());
        let mut capabilities = options.asker.capabilities().to_mcp();
        task_support::declare_client_capability(&mut capabilities);
        let task_wakers = Arc::new(TaskWakers::default());
        // Everything the session writes goes through this sink, the answers to the server's own
        // requests included.
        let sink: Arc<dyn MessageSink> = Arc::new(CountingSink {
            inner: transport.sink,
            traffic: Arc::clone(&options.traffic),
        });
        let asker = Arc::clone(&options.asker);
        let requests = ServerRequests::new(
            Arc::clone(&server),
            options.secrets.clone(),
            options.asker,
            Arc::clone(&sink),
            ended.clone(),
        );
        let acks = Arc::new(ListenAcks::default());
        let reader = tokio::spawn(read_loop(Reader {
            server: Arc::clone(&server),
            secrets: options.secrets.clone(),
            source: transport.source,
            pending: Arc::clone(&pending),
            requests,
            progress: Arc::clone(&progress),
            tasks: Arc::clone(&task_wakers),
            acks: Arc::clone(&acks),
            events,
            traffic: options.traffic,
        }));
        let mut client = Client {
            server,
            sink,
            pending,
            // Replaced below once the server answered; nothing can use the client before that.
            handshake: Handshake {
                era: handshake::Era::Stateful,
                protocol_version: String::new(),
                server_info: Value::Null,
                capabilities: Value::Null,
                instructions: None,
            },
            modern: None,
            declared: capabilities.clone(),
            asker,
            secrets: options.secrets,
            log_level: std::sync::Mutex::new(None),
            watched: std::sync::Mutex::default(),
            acks,
            reader,
            ended,
            progress,
            tasks: task_wakers,
        };
        client
            .negotiate(&options.negotiation, &capabilities, deadline)
            .await?;
        Ok(client)
    }

    pub fn handshake(&self) -> &Handshake {
        &self.handshake
    }

    /// The server's name, as used in every error message.
    pub fn server_name(&self) -> &str {
        &self.server
    }

    /// Every tool, following `nextCursor` up to [`limits::TOOLS_LIST_MAX_PAGES`] pages.
    pub async fn list_tools(&self, deadline: tokio::time::Instant) -> Result<ListedTools> {
        if !self.handshake.has_tools() {
            return Ok(ListedTools::default());
        }
        let mut tools = Vec::new();
        let mut hints: Option<CacheHints> = None;
        let mut cursor: Option<String> = None;
        for _ in 0..limits::TOOLS_LIST_MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let reply = self
                .request_until(RequestKind::ListTools, &params, deadline)
                .await?;
            let mut page = self.outcome(reply)?;
            // Legacy results carry no hints: their default (stale at once, public) is right.
            let page_hints = CacheHints::of_page(&page);
            hints = Some(hints.map_or(page_hints, |h| h.and(page_hints)));
            match page.get_mut("tools").map(Value::take) {
                // A modern server's tool whose `x-mcp-header` annotations are invalid cannot be
                // called correctly over HTTP: it is left out (2026-07-28, SEP-2243).
                Some(Value::Array(items)) if self.modern.is_some() => {
                    tools.extend(items.into_iter().filter(|tool| {
                        match crate::mcp::tool_headers::param_headers(tool) {
                            Ok(_) => true,
                            Err(why) => {
                                tracing::warn!(server = &*self.server, tool = %tool["name"], "tool left out: {why}");
                                false
                            }
                        }
                    }))
                }
                Some(Value::Array(items)) => tools.extend(items),
                _ => return Err(self.protocol_error("tools/list result has no `tools` array")),
            }
            if tools.len() > limits::MAX_TOOLS_PER_SERVER {
                return Err(self
                    .protocol_error(&format!("more than {} tools", limits::MAX_TOOLS_PER_SERVER)));
            }
            match page.get("nextCursor") {
                Some(Value::String(next)) => cursor = Some(next.clone()),
                None | Some(Value::Null) => {
                    return Ok(ListedTools {
                        tools,
                        hints: hints.unwrap_or_default(),
                    })
                }
                Some(_) => return Err(self.protocol_error("tools/list nextCursor is not a string")),
            }
        }
        Err(self.protocol_error(&format!(
            "tools/list did not end within {} pages",
            limits::TOOLS_LIST_MAX_PAGES
        )))
    }

    /// `ping`, for keepalive checks.
    pub async fn ping(&self, timeout: Duration) -> Result<()> {
        let deadline = tokio::time::Instant::now() + timeout;
        // 2026-07-28 has no `ping`; `server/discover` is the cheapest request every server answers.
        let kind = match self.modern {
            Some(_) => RequestKind::Discover,
            None => RequestKind::Ping,
        };
        self.request_until(kind, &json!({}), deadline)
            .await
            .map(|_| ())
    }

    /// `notifications/roots/list_changed`: the client's roots changed (a failed write is logged:
    /// the session is ending anyway).
    pub async fn roots_list_changed(&self) {
        // 2026-07-28 removed the notification: a server asks for roots when it needs them.
        if self.modern.is_some() {
            return;
        }
        if let Err(e) = self.notify("notifications/roots/list_changed", None).await {
            tracing::debug!(
                server = &*self.server,
                "roots change not sent: {}",
                e.message
            );
        }
    }

    /// Closes the outbound direction; the server is expected to exit when its stdin closes.
    pub async fn close(&self) {
        self.pending
            .close(self.unavailable("the server is stopping"));
        self.sink.close().await;
    }

    /// Sends a request and waits for its reply until `deadline`. A timeout or a dropped future sends
    /// `notifications/cancelled`. The timeout error names the setting that bounded it.
    pub(super) async fn request_until<P: Serialize>(
        &self,
        kind: RequestKind,
        params: &P,
        deadline: tokio::time::Instant,
    ) -> Result<Reply> {
        self.send_and_wait(kind, params, Wait::Until(deadline))
            .await
            .map_err(|ended| match ended {
                Ended::Failed(e) => e,
                Ended::TimedOut(_) => {
                    let (method, setting) = (kind.method(), kind.setting());
                    Error::new(
                        kind.timeout_code(),
                        format!(
                            "server `{}` did not answer `{method}` in time ({setting})",
                            self.server
                        ),
                    )
                    .with("server", &*self.server)
                    .with("setting", setting)
                }
            })
    }

    /// Sends a request and waits for its reply as `wait` says. Invariant: the request ends exactly
    /// once; a timeout or a dropped future removes it and sends `notifications/cancelled`.
    pub(super) async fn send_and_wait<P: Serialize>(
        &self,
        kind: RequestKind,
        params: &P,
        mut wait: Wait<'_>,
    ) -> std::result::Result<Reply, Ended> {
        let Some(version) = &self.modern else {
            return self.send_once(kind, params, &mut wait).await;
        };
        // Boxed: the rounds' state stays out of the legacy path's future, which every call in
        // flight carries.
        Box::pin(self.send_modern(kind, params, wait, version)).await
    }

    /// [`Client::send_and_wait`] on the modern wire: the envelope on every request, and a result
    /// that asks for input answered and asked again (see `input_required`).
    async fn send_modern<P: Serialize>(
        &self,
        kind: RequestKind,
        params: &P,
        mut wait: Wait<'_>,
        version: &str,
    ) -> std::result::Result<Reply, Ended> {
        let params = serde_json::to_value(params)
            .map_err(|e| Ended::Failed(self.protocol_error(&format!("params: {e}"))))?;
        let level = *self.log_level.lock().unwrap_or_else(|p| p.into_inner());
        let declared = modern::declared_for_request(&self.declared);
        let mut params = modern::enveloped(params, version, &declared, level);
        let mut rounds = 0;
        loop {
            let reply = self.send_once(kind, &params, &mut wait).await?;
            let result = match &reply.outcome {
                Ok(result) => result,
                Err(_) => return Ok(reply),
            };
            match modern::result_type(result) {
                modern::ResultType::Complete => return Ok(reply),
                modern::ResultType::Unknown(t) => {
                    return Err(Ended::Failed(self.protocol_error(&format!(
                        "`{}` answered with unknown resultType {t}",
                        kind.method()
                    ))))
                }
                modern::ResultType::InputRequired => {
                    rounds += 1;
                    params = self
                        .answer_input_required(kind, params, result, rounds)
                        .await
                        .map_err(Ended::Failed)?;
                }
            }
        }
    }

    /// One request on the wire and its answer. Invariant: the request ends exactly once; a
    /// timeout or a dropped future removes it and sends `notifications/cancelled`.
    async fn send_once<P: Serialize>(
        &self,
        kind: RequestKind,
        params: &P,
        wait: &mut Wait<'_>,
    ) -> std::result::Result<Reply, Ended> {
        let (id, rx) = self.pending.register().map_err(Ended::Failed)?;
        let mut guard = InFlight {
            client: self,
            id,
            reason: "cancelled by the host",
            finished: false,
        };
        let line = encode_request(&RequestId::Number(id), kind.method(), Some(params));
        if let Err(e) = self.sink.send(line).await {
            guard.finished = true;
            self.pending.forget(id);
            let why = format!("cannot write to the server: {e}");
            return Err(Ended::Failed(self.unavailable(&why)));
        }
        let waited = match wait {
            Wait::Until(deadline) => tokio::time::timeout_at(*deadline, rx)
                .await
                .map_err(|_| Bound::Timeout),
            Wait::Progress {
                watching,
                started,
                policy,
            } => watching.wait(rx, *started, policy).await,
        };
        match waited {
            Ok(answer) => {
                guard.finished = true;
                match answer {
                    Ok(Ok(reply)) => Ok(reply),
                    Ok(Err(error)) => Err(Ended::Failed(error)),
                    // The sender vanished without an answer: only if the table was dropped.
                    Err(_) => Err(Ended::Failed(self.unavailable("the session ended"))),
                }
            }
            Err(bound) => {
                guard.reason = "timed out";
                Err(Ended::TimedOut(bound))
            }
        }
    }

    pub(super) async fn notify(&self, method: &str, params: Option<Value>) -> Result<()> {
        let line = encode_notification(method, params.as_ref());
        self.sink
            .send(line)
            .await
            .map_err(|e| self.unavailable(&format!("cannot write to the server: {e}")))
    }

    /// A reply's result, or its JSON-RPC error as UPSTREAM_ERROR: the server's own error, the only
    /// source of that code (transport failures have theirs, see `TransportError`).
    pub(super) fn outcome(&self, reply: Reply) -> Result<Value> {
        reply.outcome.map_err(|e| self.upstream_error(e))
    }

    /// The server's own JSON-RPC error as UPSTREAM_ERROR, naming the server.
    pub(super) fn upstream_error(&self, e: crate::jsonrpc::ErrorObject) -> Error {
        Error::new(
            ErrorCode::UpstreamError,
            format!(
                "server `{}` answered with error {}: {}",
                self.server, e.code, e.message
            ),
        )
        .with("server", &*self.server)
        .with("upstreamCode", e.code)
        .with("upstreamData", e.data.unwrap_or(Value::Null))
    }

    /// Turns an upstream error reply into an error, for callers holding a raw [`Reply`].
    pub fn reply_outcome(&self, reply: Reply) -> Result<Value> {
        self.outcome(reply)
    }

    fn unavailable(&self, why: &str) -> Error {
        Error::new(
            ErrorCode::ServerUnavailable,
            format!("server `{}` is unavailable: {why}", self.server),
        )
        .with("server", &*self.server)
    }

    pub(super) fn protocol_error(&self, why: &str) -> Error {
        Error::new(
            ErrorCode::ProtocolError,
            format!("server `{}`: {why}", self.server),
        )
        .with("server", &*self.server)
    }
}

/// Ends a request that stopped being waited for: removes its id and tells the server.
struct InFlight<'a> {
    client: &'a Client,
    id: i64,
    reason: &'static str,
    finished: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.finished || !self.client.pending.forget(self.id) {
            return;
        }
        let mut params = json!({ "requestId": self.id, "reason": self.reason });
        // On the modern wire the cancellation carries the envelope too: over HTTP that is what
        // tells it from a legacy session's message.
        if let Some(version) = &self.client.modern {
            params = modern::enveloped(params, version, &self.client.declared, None);
        }
        let line = encode_notification("notifications/cancelled", Some(&params));
        let sink = Arc::clone(&self.client.sink);
        // Drop cannot await; the notification is best-effort by nature (the server may be gone).
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let _ = sink.send(line).await;
            });
        }
    }
}
