//! The session's two ends, both handled in order on the reader: `initialize` (settings, the
//! registry, event forwarding, `--config` files) and the stop that `shutdown`, end of input and a
//! signal share.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::Notify;

use super::asks::HostAsks;
use super::context::Host;
use super::events;
use super::params::{self, parse, PROTOCOL_VERSION};
use crate::ask;
use crate::convert::{self, NameTemplate, ToolFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::Params;
use crate::limits;
use crate::store::DeferRule;
use crate::supervisor::{
    event_queue, watch_config_files, AuthSettings, ConfigFiles, Registry, Settings,
};

/// `initialize`: creates the registry with the host's settings and starts the session.
pub(super) fn initialize(host: &Host, params: Option<Params>) -> Result<Value> {
    if host.registry.get().is_some() {
        return Err(already_initialized());
    }
    let p: params::Initialize = parse("initialize", params)?;
    check_version(&p.protocol_version)?;
    let asks = Arc::new(HostAsks::new(
        p.capabilities.clone(),
        answer_timeout(p.answer_timeout_ms)?,
        host.outbox.clone(),
    ));
    let settings = settings(&p, host, Arc::clone(&asks) as Arc<dyn ask::Asker>)?;
    let (events_tx, events_rx) = event_queue();
    let registry = Registry::new(settings, events_tx.clone());
    let _ = host.events.set(events_tx);
    let _ = host.asks.set(asks);
    if host.registry.set(registry).is_err() {
        return Err(already_initialized());
    }
    if let Some(client) = p
        .client_info
        .as_ref()
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
    {
        tracing::info!(client, "host initialized");
    }
    tokio::spawn(events::forward(events_rx, host.outbox.clone()));
    if let Some(registry) = host.registry.get() {
        load_configs(registry, host.configs.clone(), p.watch_config);
    }
    Ok(capabilities())
}

fn already_initialized() -> Error {
    Error::new(
        ErrorCode::AlreadyInitialized,
        "`initialize` was already called",
    )
}

fn check_version(version: &Value) -> Result<()> {
    if *version == json!(PROTOCOL_VERSION) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::VersionUnsupported,
        format!("host protocol version {version} is not supported; this sidecar speaks {PROTOCOL_VERSION}"),
    )
    .with("supported", vec![PROTOCOL_VERSION]))
}

/// `answerTimeoutMs`: 1 ms up to [`limits::MAX_HOST_ANSWER_TIMEOUT`]; the default when absent.
fn answer_timeout(ms: Option<u64>) -> Result<Duration> {
    let max = limits::MAX_HOST_ANSWER_TIMEOUT.as_millis() as u64;
    match ms {
        None => Ok(limits::DEFAULT_HOST_ANSWER_TIMEOUT),
        Some(ms) if (1..=max).contains(&ms) => Ok(Duration::from_millis(ms)),
        Some(ms) => Err(Error::invalid_params(format!(
            "answerTimeoutMs must be between 1 and {max}, not {ms}"
        ))
        .with("field", "answerTimeoutMs")
        .with("limit", max)),
    }
}

/// The registry's settings from `initialize`'s parameters; a bad name setting is INVALID_PARAMS
/// naming the field at fault.
fn settings(p: &params::Initialize, host: &Host, asker: Arc<dyn ask::Asker>) -> Result<Settings> {
    let template = p
        .name_template
        .as_deref()
        .unwrap_or(convert::DEFAULT_NAME_TEMPLATE);
    let max_len = p
        .max_name_length
        .unwrap_or(convert::DEFAULT_MAX_NAME_LENGTH);
    let names = NameTemplate::new(template, max_len).map_err(|why| {
        let field = why.field();
        Error::invalid_params(format!("invalid {field}: {why}")).with("field", field)
    })?;
    Ok(Settings {
        names,
        format: p.tool_format.unwrap_or_default(),
        strict: p.strict.unwrap_or(false),
        cache: host.cache.clone(),
        packages: Settings::packages_in(host.cache.as_ref()),
        require_trust: p.require_trust,
        asker,
        auth: AuthSettings {
            interactive: true,
            loopback_logins: true,
            ..AuthSettings::for_cache(match p.token_storage {
                Some(params::TokenStorage::Memory) => None,
                _ => host.cache.as_ref(),
            })
        },
        defer: DeferRule {
            all: p.defer.unwrap_or(false),
            above_tokens: p.defer_above_tokens,
        },
        resources_as_tools: p.resources_as_tools,
        pin_tools: p.pin_tools,
        server_logs: p.server_logs,
    })
}

/// Loads each `--config` file in the background (source `user`). Outcomes reach the host as
/// `notifications/servers/changed`; problems go to the log. With `watch` (`initialize
/// {watchConfig: true}`), the files are kept in force afterwards: each edit reloads them.
fn load_configs(registry: &Arc<Registry>, configs: Vec<PathBuf>, watch: bool) {
    if configs.is_empty() {
        return;
    }
    if !watch {
        let registry = Arc::clone(registry);
        tokio::spawn(async move { registry.load_files(configs, false).await });
        return;
    }
    let files = ConfigFiles::new(configs, Default::default());
    let wake = Arc::new(Notify::new());
    let watching = watch_config_files(files.paths(), Arc::clone(&wake));
    let registry = Arc::clone(registry);
    tokio::spawn(async move {
        let _watching = watching;
        let read = files.read().await;
        files.add(&registry, read, false).await;
        let registry = Arc::downgrade(&registry);
        files.keep_in_force(registry, wake, |_| {}).await;
    });
}

fn capabilities() -> Value {
    json!({
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
            "hostCapabilities": ask::DECLARABLE,
            "oauth": {"login": true, "logout": true, "tokenStorage": ["file", "memory"]},
            "tokenEstimates": true,
            "toolSearch": true,
            "defer": true,
            "stats": true,
            "progressiveLoad": true,
            "resources": true,
            "prompts": true,
            "completion": true,
            "serverLogs": true,
            "serverInstructions": true,
            "toolPins": true,
            "resourcesAsTools": true,
            "progress": true,
        },
    })
}

/// Answers every request in flight with SHUTTING_DOWN, stops every server, and returns once
/// every resulting notification is queued for the host.
pub(super) async fn stop_all(host: &Host) {
    host.shutting_down.store(true, Ordering::SeqCst);
    // Servers waiting for the host's answers get an error now, and nothing more is asked.
    if let Some(asks) = host.asks.get() {
        asks.close("the sidecar is shutting down");
    }
    host.requests.stop_all().await;
    if let Some(registry) = host.registry.get() {
        registry.shutdown().await;
    }
    host.events_flushed().await;
}
