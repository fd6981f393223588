//! Bringing one generation up to a session: the transport (a spawned process tree behind stdio, or
//! a remote server's HTTP transport), then the MCP handshake and tool discovery within
//! `startupTimeoutSeconds`. Knows nothing of states or generations: the lifecycle decides what a
//! result means.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::mpsc;

use super::server::Server;
use super::session::{CallLimits, ProcessControl, Session};
use super::timings::StartTimings;
use crate::ask::Asker;
use crate::config::{ProtocolChoice, RemoteKind, ServerSpec};
use crate::era;
use crate::error::{Error, ErrorCode, Result};
use crate::mcp::transport::http_common::RemoteOptions;
use crate::mcp::transport::{self, Transport};
use crate::mcp::{
    self, CacheHints, Capability, Client, ClientEvent, ClientOptions, Negotiation, ToolDef,
};
use crate::process;
use crate::process::stderr_ring::{self as stderr, StderrTail};
use crate::store::{SchemaCache, Verdict};

/// A handshaken client with its validated tools and how long their discovery took.
pub(super) struct Connected {
    pub client: Client,
    pub tools: Vec<ToolDef>,
    /// The list's `ttlMs`/`cacheScope` (2026-07-28; defaults for a legacy server).
    pub hints: CacheHints,
    pub discovery: Duration,
}

/// The transport to `server` and, for a stdio server, control over its process tree (whose stderr
/// is drained into `stderr_tail`). `prepared`: a `package` server's launch with its program from
/// the cache (`package::prepare`); the config's own launch otherwise.
pub(super) fn open(
    server: &Server,
    prepared: Option<&ServerSpec>,
    stderr_tail: &Arc<StderrTail>,
) -> Result<(Transport, Option<Arc<ProcessControl>>)> {
    let spec = prepared.unwrap_or(&server.spec);
    // A remote server has no process: its transport is the whole of it.
    if let Some(remote) = &spec.remote {
        let options = RemoteOptions {
            server: server.name.to_string(),
            url: remote.url.clone(),
            headers: remote.headers.clone(),
            max_message_bytes: spec.max_message_bytes,
            connect_timeout: spec.startup_timeout,
            auth: server.auth.clone(),
        };
        return match transport::http::transport(options, remote.kind) {
            Ok(t) => Ok((t, None)),
            Err(why) => Err(why.for_server(server.name.as_str())),
        };
    }
    let spawned = process::spawn(server.name.as_str(), spec)?;
    let transport =
        transport::stdio::transport(spawned.stdin, spawned.stdout, spec.max_message_bytes);
    tokio::spawn(stderr::drain(
        spawned.stderr,
        Arc::clone(stderr_tail),
        server.name.to_string(),
        server.secrets.clone(),
    ));
    let control = Arc::new(ProcessControl::start(
        spawned.child,
        spawned.pid,
        spawned.origin,
        Arc::clone(&transport.sink),
        spawned.sandbox,
    ));
    Ok((transport, Some(control)))
}

/// The handshake and the first tool discovery, all within `deadline`. The session's later events
/// (closed, tools changed) go to `events`. Each phase that finishes is recorded in `timings`, so
/// a start that fails or runs out of time still says how far it got.
#[allow(clippy::too_many_arguments)] // each is one thing a start needs; a struct would only rename them
pub(super) async fn connect(
    server: &Server,
    asker: &Arc<dyn Asker>,
    cache: Option<&SchemaCache>,
    transport: Transport,
    deadline: tokio::time::Instant,
    events: mpsc::UnboundedSender<ClientEvent>,
    timings: &mut StartTimings,
) -> Result<Connected> {
    let startup_timeout = server.spec.startup_timeout;
    let verdicts = EraVerdicts::look_up(cache, &server.spec).await;
    let connected = tokio::time::timeout_at(deadline, async {
        let options = ClientOptions {
            server: server.name.to_string(),
            secrets: server.secrets.clone(),
            asker: Arc::clone(asker),
            traffic: Arc::clone(&server.traffic),
            negotiation: verdicts.negotiation(&server.spec),
        };
        let handshake = Instant::now();
        let client = Client::connect(transport, options, deadline, events).await?;
        timings.initialize = Some(handshake.elapsed());
        let listing = Instant::now();
        let listed = client.list_tools(deadline).await?;
        let discovery = listing.elapsed();
        timings.list = Some(discovery);
        let tools = accepted_tools(server, &client, listed.tools)?;
        Ok::<_, Error>(Connected {
            client,
            tools,
            hints: listed.hints,
            discovery,
        })
    })
    .await
    .unwrap_or_else(|_| {
        Err(Error::new(
            ErrorCode::ServerUnavailable,
            format!(
                "server `{}` did not finish its handshake and tool discovery within startupTimeoutSeconds ({} s)",
                server.name,
                startup_timeout.as_secs_f64()
            ),
        )
        .with("server", server.name.as_str())
        .with("setting", "startupTimeoutSeconds"))
    });
    verdicts
        .record(connected.as_ref().ok().map(|c| c.client.handshake()))
        .await;
    // Whichever request ran out of the startup deadline, report the bound's value too.
    connected.map_err(|e| {
        if e.details.get("setting").and_then(Value::as_str) == Some("startupTimeoutSeconds") {
            e.with("limit", startup_timeout.as_secs_f64())
        } else {
            e
        }
    })
}

/// How a session with `spec`'s server starts, from its `protocolVersion`: a pinned revision is
/// spoken as it is; `auto` puts `initialize` first on stdio (a legacy stdio server may exit on any
/// request before it, so it never sees a probe; a modern-only one refuses `initialize` naming its
/// revisions, and `server/discover` follows on the same process) and `server/discover` first over
/// Streamable HTTP (nothing dies of a probe there); legacy HTTP+SSE has no modern twin.
pub(super) fn negotiation(spec: &ServerSpec) -> Negotiation {
    let legacy = || Negotiation::Legacy(mcp::handshake::OFFERED_PROTOCOL_VERSION.to_owned());
    match &spec.protocol {
        ProtocolChoice::Pinned(v) if era::is_modern(v) => Negotiation::Modern(v.clone()),
        ProtocolChoice::Pinned(v) => Negotiation::Legacy(v.clone()),
        ProtocolChoice::Legacy => legacy(),
        ProtocolChoice::Auto => match &spec.remote {
            None => Negotiation::LegacyFirst,
            Some(remote) if remote.kind == RemoteKind::Sse => legacy(),
            Some(_) => Negotiation::DiscoverFirst,
        },
    }
}

/// An `auto` server's era verdict (`store::era_verdicts`): looked up before a start, so a known
/// era skips the negotiation, kept after a start that found a new one, dropped after a start that
/// failed with it (the next start negotiates afresh).
struct EraVerdicts<'a> {
    cache: Option<(&'a SchemaCache, String)>,
    known: Option<Verdict>,
}

impl<'a> EraVerdicts<'a> {
    async fn look_up(cache: Option<&'a SchemaCache>, spec: &ServerSpec) -> Self {
        let Some(cache) = cache.filter(|_| spec.protocol == ProtocolChoice::Auto) else {
            return Self {
                cache: None,
                known: None,
            };
        };
        let key = SchemaCache::key(spec, &super::lazy::search_path(spec)).await;
        let known = cache.load_verdict(&key).await;
        Self {
            cache: Some((cache, key)),
            known,
        }
    }

    /// A kept verdict orders the two handshakes, it does not pin one: the era it names is tried
    /// first (so a server that did not change costs one round trip), and a server that changed
    /// era since (another server now at the same URL, an upgrade) is still found in this start.
    fn negotiation(&self, spec: &ServerSpec) -> Negotiation {
        match &self.known {
            Some(Verdict::Modern(_)) => Negotiation::DiscoverFirst,
            Some(Verdict::Legacy) => Negotiation::LegacyFirst,
            None => negotiation(spec),
        }
    }

    /// After the start: `handshake` when it succeeded.
    async fn record(&self, handshake: Option<&mcp::Handshake>) {
        let Some((cache, key)) = &self.cache else {
            return;
        };
        let Some(handshake) = handshake else {
            if self.known.is_some() {
                cache.forget_verdict(key).await;
            }
            return;
        };
        let found = match handshake.era {
            mcp::Era::Modern => Verdict::Modern(handshake.protocol_version.clone()),
            mcp::Era::Stateful => Verdict::Legacy,
        };
        if self.known.as_ref() != Some(&found) {
            // Written off the start's path: the server is ready whether or not the disk is fast.
            let (cache, key) = ((*cache).clone(), key.clone());
            tokio::spawn(async move {
                if let Err(e) = cache.store_verdict(&key, &found).await {
                    tracing::debug!("cannot keep the era verdict: {e}");
                }
            });
        }
    }
}

/// The tools after `notifications/tools/list_changed` or once their `ttlMs` ran out, with the new
/// list's cache hints: listed again within `startupTimeoutSeconds`.
pub(super) async fn relist(server: &Server, client: &Client) -> Result<(Vec<ToolDef>, CacheHints)> {
    let deadline = tokio::time::Instant::now() + server.spec.startup_timeout;
    let listed = client.list_tools(deadline).await?;
    Ok((accepted_tools(server, client, listed.tools)?, listed.hints))
}

/// A `tools/list` answer validated and put through the tools policy (an `expectTools` mismatch
/// or an undeclared permission is an error), then — under `resourcesAsTools`, for a server that
/// declared `resources` — the two resource tools that `includeTools`/`excludeTools` let through.
fn accepted_tools(server: &Server, client: &Client, raw: Vec<Value>) -> Result<Vec<ToolDef>> {
    let tools = mcp::validate_tools(server.name.as_str(), raw)?;
    let mut tools = super::policy::apply(server.name.as_str(), &server.extras, tools)?;
    if server.resources_as_tools && client.handshake().declares(Capability::Resources) {
        let extra: Vec<ToolDef> = super::resource_tools::definitions()
            .iter()
            .filter(|t| super::policy::listed(&server.extras, t.name.as_str()))
            .map(|t| super::resource_tools::named_apart(t, &tools))
            .collect();
        tools.extend(extra);
    }
    Ok(tools)
}

/// The session of a generation that connected, its calls bounded by the server's config.
pub(super) fn new_session(
    server: &Server,
    generation: u64,
    connected: Connected,
    stderr_tail: Arc<StderrTail>,
) -> Arc<Session> {
    let spec = &server.spec;
    let limits = CallLimits {
        tool_timeout: spec.tool_timeout,
        reset_on_progress: spec.reset_timeout_on_progress,
        max_total: spec.max_total_timeout,
        max_result_bytes: spec.max_result_bytes,
        result_policy: spec.result_policy,
    };
    Arc::new(Session::new(
        generation,
        connected.client,
        connected.tools,
        limits,
        stderr_tail,
        connected.discovery,
        connected.hints,
    ))
}
