//! The host session: reading requests, running each method, answering, and forwarding registry events
//! as notifications.
//!
//! Cancellation: every spawned request has a token in `inflight`. `notifications/cancelled` from the
//! host fires it; the request's future is dropped, which (for `tools/call`) removes the downstream
//! request and sends the server its own `notifications/cancelled`; the host gets CANCELLED at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::params::{self, parse, PROTOCOL_VERSION};
use super::writer::{self, Outbox};
use crate::convert::{self, NameTemplate, ToolFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::{
    encode_notification, encode_response, Incoming, LineError, LineReader, RequestId,
};
use crate::limits;
use crate::store::SchemaCache;
use crate::supervisor::{Event, Registry, Settings};

pub struct ServeOptions {
    /// Longest line accepted from the host.
    pub max_line_bytes: usize,
    /// The schema cache for lazy servers (`None`: no cache).
    pub cache: Option<SchemaCache>,
    /// Cancelled to stop gracefully as if stdin had ended (the first SIGTERM/SIGINT/SIGHUP).
    pub stop: CancellationToken,
    /// `--config` files, loaded (source `user`) once the host has initialized.
    pub configs: Vec<std::path::PathBuf>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            max_line_bytes: limits::DEFAULT_HOST_LINE_BYTES,
            cache: None,
            stop: CancellationToken::new(),
            configs: Vec::new(),
        }
    }
}

struct Host {
    outbox: Outbox,
    cache: Option<SchemaCache>,
    configs: Vec<std::path::PathBuf>,
    /// A sender into the registry's event channel, to queue a barrier behind pending events.
    events: OnceLock<mpsc::UnboundedSender<Event>>,
    registry: OnceLock<Arc<Registry>>,
    inflight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Every spawned request, so a stop can wait until each one has been answered.
    requests: TaskTracker,
    shutting_down: AtomicBool,
}

/// Serves host protocol v1 until `shutdown` or end of input, then stops every server.
pub async fn serve<R, W>(input: R, output: W, options: ServeOptions)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (outbox, writer) = writer::spawn(output);
    let host = Arc::new(Host {
        outbox,
        cache: options.cache,
        configs: options.configs,
        events: OnceLock::new(),
        registry: OnceLock::new(),
        inflight: Mutex::new(HashMap::new()),
        requests: TaskTracker::new(),
        shutting_down: AtomicBool::new(false),
    });
    let mut lines = LineReader::new(
        BufReader::with_capacity(limits::HOST_READ_BUFFER_BYTES, input),
        options.max_line_bytes,
    );
    loop {
        let next = tokio::select! {
            // A signal asked for a graceful stop. Reading is abandoned for good, so losing a
            // half-read line by dropping `next_line` loses nothing that would have been served.
            _ = options.stop.cancelled() => {
                tracing::info!("stop requested by a signal; stopping every server");
                break;
            }
            next = lines.next_line() => next,
        };
        let line = match next {
            Ok(Some(line)) => line,
            Ok(None) => {
                tracing::info!("host closed stdin; stopping every server");
                break;
            }
            Err(LineError::TooLong { limit }) => {
                let e = Error::new(
                    ErrorCode::MessageTooLarge,
                    format!("request line longer than the {limit}-byte limit (--max-line-bytes); it was skipped"),
                )
                .with("setting", "--max-line-bytes")
                .with("limit", limit as u64);
                host.answer(None, Err(e)).await;
                continue;
            }
            Err(LineError::Io(e)) => {
                tracing::warn!("reading stdin failed: {e}; stopping every server");
                break;
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match Incoming::parse(line) {
            Err(e) => {
                host.answer(
                    None,
                    Err(Error::new(
                        ErrorCode::ParseError,
                        format!("invalid JSON: {e}"),
                    )),
                )
                .await;
            }
            Ok(Err(not_rpc)) => {
                let e = Error::new(
                    ErrorCode::InvalidRequest,
                    format!("not a JSON-RPC 2.0 message: {}", not_rpc.reason),
                );
                host.answer(not_rpc.id.as_ref(), Err(e)).await;
            }
            Ok(Ok(Incoming::Notification { method, params })) => host.notification(&method, params),
            Ok(Ok(Incoming::Response { id, .. })) => {
                tracing::debug!(%id, "ignored a response from the host: the sidecar sends no requests");
            }
            Ok(Ok(Incoming::Request { id, method, params })) => match method.as_str() {
                // Handled in order, on the reader: the host may pipeline requests right behind them.
                "initialize" => {
                    let outcome = host.initialize(params);
                    host.answer(Some(&id), outcome).await;
                }
                "shutdown" => {
                    if let Err(e) = parse::<params::Empty>("shutdown", params) {
                        host.answer(Some(&id), Err(e)).await;
                        continue;
                    }
                    host.stop_all().await;
                    host.answer(Some(&id), Ok(json!({}))).await;
                    host.outbox.flush().await;
                    drop(writer);
                    return;
                }
                _ => Arc::clone(&host).spawn_request(id, method, params),
            },
        }
    }
    host.stop_all().await;
    host.outbox.flush().await;
}

impl Host {
    fn registry(&self) -> Result<&Arc<Registry>> {
        self.registry.get().ok_or_else(|| {
            Error::new(
                ErrorCode::NotInitialized,
                "the first request must be `initialize`",
            )
        })
    }

    async fn answer(&self, id: Option<&RequestId>, outcome: Result<Value>) {
        let line = match &outcome {
            Ok(result) => encode_response(id, Ok(result)),
            Err(e) => encode_response::<Value>(id, Err(&e.to_rpc_error())),
        };
        self.outbox.send(line).await;
    }

    /// Answers every request in flight with SHUTTING_DOWN, stops every server, and returns once
    /// every resulting notification is queued for the host.
    async fn stop_all(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
        for (_, token) in self
            .inflight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
        {
            token.cancel();
        }
        self.requests.close();
        self.requests.wait().await;
        if let Some(registry) = self.registry.get() {
            registry.shutdown().await;
        }
        self.events_flushed().await;
    }

    /// Returns once every registry event queued so far has been queued for the host, so an answer
    /// sent next comes after the notifications its request caused.
    async fn events_flushed(&self) {
        if let Some(events) = self.events.get() {
            let (tx, rx) = tokio::sync::oneshot::channel();
            if events.send(Event::Barrier(tx)).is_ok() {
                let _ = rx.await;
            }
        }
    }

    fn notification(&self, method: &str, params: Option<Value>) {
        match method {
            "notifications/cancelled" => match parse::<params::Cancelled>(method, params) {
                Ok(c) => {
                    let token = self
                        .inflight
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&c.request_id);
                    match token {
                        Some(token) => {
                            tracing::debug!(id = %c.request_id, reason = c.reason.as_deref().unwrap_or(""), "host cancelled a request");
                            token.cancel();
                        }
                        None => {
                            tracing::debug!(id = %c.request_id, "cancel for a request that is not in flight")
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!("ignored malformed notifications/cancelled: {}", e.message)
                }
            },
            _ => tracing::debug!(method, "ignored notification from the host"),
        }
    }

    fn initialize(self: &Arc<Self>, params: Option<Value>) -> Result<Value> {
        if self.registry.get().is_some() {
            return Err(Error::new(
                ErrorCode::AlreadyInitialized,
                "`initialize` was already called",
            ));
        }
        let p: params::Initialize = parse("initialize", params)?;
        if p.protocol_version != json!(PROTOCOL_VERSION) {
            return Err(Error::new(
                ErrorCode::VersionUnsupported,
                format!("host protocol version {} is not supported; this sidecar speaks {PROTOCOL_VERSION}", p.protocol_version),
            )
            .with("supported", vec![PROTOCOL_VERSION]));
        }
        let template = p
            .name_template
            .as_deref()
            .unwrap_or(convert::DEFAULT_NAME_TEMPLATE);
        let max_len = p
            .max_name_length
            .unwrap_or(convert::DEFAULT_MAX_NAME_LENGTH);
        let names = NameTemplate::new(template, max_len).map_err(|why| {
            let field = if (convert::MIN_MAX_NAME_LENGTH..=convert::MAX_MAX_NAME_LENGTH)
                .contains(&max_len)
            {
                "nameTemplate"
            } else {
                "maxNameLength"
            };
            Error::invalid_params(format!("invalid {field}: {why}")).with("field", field)
        })?;
        let format = p.tool_format.unwrap_or_default();
        let strict = p.strict.unwrap_or(false);
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let registry = Registry::new(
            Settings {
                names,
                format,
                strict,
                cache: self.cache.clone(),
                require_trust: p.require_trust,
            },
            events_tx.clone(),
        );
        let _ = self.events.set(events_tx);
        if self.registry.set(registry).is_err() {
            return Err(Error::new(
                ErrorCode::AlreadyInitialized,
                "`initialize` was already called",
            ));
        }
        if let Some(client) = p
            .client_info
            .as_ref()
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
        {
            tracing::info!(client, "host initialized");
        }
        tokio::spawn(forward_events(events_rx, self.outbox.clone()));
        if let Some(registry) = self.registry.get() {
            for path in self.configs.clone() {
                let registry = Arc::clone(registry);
                // Outcomes reach the host as `notifications/servers/changed`; problems go to the log.
                tokio::spawn(async move {
                    let p = params::LoadServers {
                        path: Some(path.clone()),
                        json: None,
                        text: None,
                        dialect: None,
                        inputs: Default::default(),
                        trust: Default::default(),
                        wait: false,
                    };
                    match super::load::run(&registry, p).await {
                        Ok(result) => {
                            for d in result["diagnostics"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .chain(result["trustRequired"].as_array().into_iter().flatten())
                            {
                                tracing::warn!(file = %path.display(), "--config: {d}");
                            }
                        }
                        Err(e) => tracing::warn!(file = %path.display(), "--config: {}", e.message),
                    }
                });
            }
        }
        Ok(json!({
            "protocolVersion": PROTOCOL_VERSION,
            "serverInfo": {"name": "mcp-sidecar", "version": env!("CARGO_PKG_VERSION")},
            "capabilities": {
                "toolFormats": ToolFormat::ALL.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
                "strict": true,
                "resultPolicies": ["error", "truncate"],
                "resultsRead": true,
                "transports": ["stdio", "http", "sse"],
                "cancellation": true,
                "configDialects": ["claude-desktop", "claude-code", "claude-plugin", "vscode", "cursor", "codex", "epoch", "plugin-manifest"],
                "trust": true,
            },
        }))
    }

    fn spawn_request(self: Arc<Self>, id: RequestId, method: String, params: Option<Value>) {
        let token = CancellationToken::new();
        self.inflight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), token.clone());
        let host = Arc::clone(&self);
        self.requests.spawn(async move {
            let outcome = tokio::select! {
                // Dropping the method's future is what cancels it downstream (see module doc).
                _ = token.cancelled() => Err(host.cancelled_error(&id)),
                outcome = host.run(&method, params) => outcome,
            };
            host.inflight
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            if method.starts_with("servers/") {
                host.events_flushed().await;
            }
            host.answer(Some(&id), outcome).await;
        });
    }

    fn cancelled_error(&self, id: &RequestId) -> Error {
        if self.shutting_down.load(Ordering::SeqCst) {
            Error::new(
                ErrorCode::ShuttingDown,
                format!("request {id} was abandoned: the sidecar is shutting down"),
            )
        } else {
            Error::new(
                ErrorCode::Cancelled,
                format!("request {id} was cancelled by the host"),
            )
        }
    }

    async fn run(&self, method: &str, params: Option<Value>) -> Result<Value> {
        let registry = self.registry()?;
        match method {
            "ping" => {
                parse::<params::Empty>(method, params)?;
                Ok(json!({}))
            }
            "servers/add" => {
                let p: params::AddServer = parse(method, params)?;
                let options = crate::supervisor::AddOptions {
                    trust: p.trust,
                    ..Default::default()
                };
                let status = registry
                    .add_with(&p.name, &p.config, p.wait, options)
                    .await?;
                Ok(serde_json::to_value(status).unwrap_or(Value::Null))
            }
            "servers/test" => {
                let p: params::TestServer = parse(method, params)?;
                registry.test(&p.name, &p.config, p.trust).await
            }
            "servers/load" => {
                let p: params::LoadServers = parse(method, params)?;
                super::load::run(registry, p).await
            }
            "servers/remove" => {
                let p: params::ServerName = parse(method, params)?;
                registry.remove(&p.name).await?;
                Ok(json!({}))
            }
            "servers/restart" => {
                let p: params::ServerName = parse(method, params)?;
                let status = registry.restart(&p.name).await?;
                Ok(serde_json::to_value(status).unwrap_or(Value::Null))
            }
            "servers/list" => {
                parse::<params::Empty>(method, params)?;
                Ok(json!({ "servers": registry.list() }))
            }
            "tools/list" => {
                let p: params::ListTools = parse(method, params)?;
                let listing = registry.tools(p.format, p.strict, p.servers.as_deref())?;
                Ok(json!({ "tools": *listing.tools, "fingerprint": listing.fingerprint }))
            }
            "tools/call" => {
                let p: params::CallTool = parse(method, params)?;
                let timeout = match p.timeout_ms {
                    Some(0) => {
                        return Err(Error::invalid_params("timeoutMs must be positive")
                            .with("field", "timeoutMs"))
                    }
                    Some(ms) => Some(Duration::from_millis(ms)),
                    None => None,
                };
                let outcome = registry.call_tool(&p.name, p.arguments, timeout).await?;
                let converted = convert::convert_result(
                    p.format.unwrap_or(registry.settings().format),
                    &outcome.result,
                );
                let mut result = json!({
                    "isError": converted.is_error,
                    "content": converted.content,
                    "text": converted.text,
                    "output": converted.output,
                    "server": outcome.server,
                    "tool": outcome.tool,
                    "durationMs": outcome.duration.as_secs_f64() * 1000.0,
                });
                if let Some(structured) = converted.structured_content {
                    result["structuredContent"] = structured;
                }
                if let Some(truncated) = &outcome.truncated {
                    result["truncated"] = truncated.to_json();
                }
                Ok(result)
            }
            "results/read" => {
                let p: params::ReadResult = parse(method, params)?;
                if p.length == Some(0) {
                    return Err(
                        Error::invalid_params("length must be positive").with("field", "length")
                    );
                }
                let read = registry.read_result(&p.handle, p.offset, p.length)?;
                Ok(json!({
                    "text": read.text,
                    "offset": read.offset,
                    "length": read.length,
                    "totalBytes": read.total_bytes,
                    "eof": read.eof,
                }))
            }
            _ => Err(Error::new(
                ErrorCode::MethodNotFound,
                format!("unknown method `{method}`"),
            )
            .with("method", method)),
        }
    }
}

async fn forward_events(mut events: mpsc::UnboundedReceiver<Event>, outbox: Outbox) {
    while let Some(event) = events.recv().await {
        let line = match event {
            Event::Barrier(ack) => {
                let _ = ack.send(());
                continue;
            }
            Event::ServerChanged(status) => encode_notification(
                "notifications/servers/changed",
                Some(&json!({ "status": status })),
            ),
            Event::ToolsChanged {
                fingerprint,
                added,
                removed,
            } => encode_notification(
                "notifications/tools/changed",
                Some(&json!({ "fingerprint": fingerprint, "added": added, "removed": removed })),
            ),
        };
        outbox.send(line).await;
    }
}
