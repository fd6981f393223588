//! The client surface beyond tools, one server at a time: `resources/read` (held to
//! `maxResultBytes` like a tool result), resource subscriptions (kept per server; made again after
//! every restart by [`super::resume`]), `prompts/get`, `completion/complete`, and server log levels
//! (kept per server and for the session; sent again by `resume`). The lists of many servers are
//! [`super::listing`]'s.
//!
//! A request that needs a capability the server did not declare is not sent: NOT_SUPPORTED
//! names the server and the capability (a completion is empty instead: it is a nicety of a UI).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::acquire::{acquire, ready_session};
use super::roster::Roster;
use super::server::Server;
use super::session::Session;
use crate::config::ResultPolicy;
use crate::convert;
use crate::error::{Error, ErrorCode, Result};
use crate::limits;
use crate::mcp::client::surface::no_completion;
use crate::mcp::{Capability, LogLevel};
use crate::store::{ResultStore, Truncation};

/// A resource read, ready for the host.
pub(crate) struct ResourceRead {
    pub server: String,
    pub uri: String,
    /// The server's contents (secret values masked); with `truncated`, the reduced contents.
    pub contents: Value,
    /// The contents as a tool result (`{content: [...]}`, reduced with `truncated`), for the
    /// per-format conversion.
    pub result: Value,
    pub truncated: Option<Truncation>,
}

/// A prompt, ready for the host.
pub(crate) struct PromptGot {
    pub server: String,
    pub name: String,
    pub description: Option<String>,
    /// The server's messages (secret values masked).
    pub messages: Vec<Value>,
}

/// `resources/read {server, uri}`.
pub(super) async fn read_resource(
    roster: &Arc<Roster>,
    results: &ResultStore,
    name: &str,
    uri: &str,
) -> Result<ResourceRead> {
    check_uri(uri)?;
    let server = roster.find(name)?;
    let run = async {
        let (session, _busy) = acquire(roster, &server).await?;
        require(&server, &session, Capability::Resources, "resources/read")?;
        let reply = session
            .client
            .read_resource(uri, server.spec.tool_timeout)
            .await
            .map_err(|e| e.with("uri", uri).with_stderr_tail(&session.stderr.text()))?;
        let (original_bytes, limits) = (reply.bytes, session.limits);
        let over = original_bytes > limits.max_result_bytes;
        if over && limits.result_policy == ResultPolicy::Error {
            return Err(too_large(
                &server,
                "resources/read",
                original_bytes,
                limits.max_result_bytes,
            )
            .with("uri", uri));
        }
        let mut value = session
            .client
            .reply_outcome(reply)
            .map_err(|e| e.with("uri", uri))?;
        let Some(Value::Array(mut contents)) = value.get_mut("contents").map(Value::take) else {
            return Err(
                protocol(&server, "its resources/read result has no `contents` array")
                    .with("uri", uri),
            );
        };
        for item in &mut contents {
            server.mask_result(item);
        }
        let result = convert::resources::contents_result(&contents);
        if !over {
            return Ok((Value::Array(contents), result, None));
        }
        let (reduced, truncation) = results.fit(&result, original_bytes, limits.max_result_bytes);
        Ok((reduced_contents(uri, &reduced), reduced, Some(truncation)))
    };
    let (contents, result, truncated) = run.await.map_err(|e| server.secrets.mask_error(e))?;
    Ok(ResourceRead {
        server: server.name.to_string(),
        uri: uri.to_owned(),
        contents,
        result,
        truncated,
    })
}

/// `resources/subscribe`: the server is asked (a stopped server with tools listed is started; one
/// that did not declare subscriptions is NOT_SUPPORTED) and the URI is kept for its restarts.
pub(super) async fn subscribe(roster: &Arc<Roster>, name: &str, uri: &str) -> Result<()> {
    check_uri(uri)?;
    let server = roster.find(name)?;
    {
        let slot = server.slot();
        if slot.subscriptions.len() >= limits::RESOURCE_SUBSCRIPTIONS_MAX
            && !slot.subscriptions.contains(uri)
        {
            return Err(Error::invalid_params(format!(
                "server `{name}` already has {} resource subscriptions (the most kept per server)",
                limits::RESOURCE_SUBSCRIPTIONS_MAX
            ))
            .with("field", "uri")
            .with("server", name)
            .with("limit", limits::RESOURCE_SUBSCRIPTIONS_MAX as u64));
        }
    }
    let run = async {
        let (session, _busy) = acquire(roster, &server).await?;
        require(
            &server,
            &session,
            Capability::ResourceSubscriptions,
            "resources/subscribe",
        )?;
        send_subscription(&server, &session, uri, true).await
    };
    run.await.map_err(|e| server.secrets.mask_error(e))?;
    server.slot().subscriptions.insert(uri.to_owned());
    Ok(())
}

/// `resources/unsubscribe`: the URI is forgotten at once (no restart subscribes to it again); a
/// ready server that supports subscriptions is told. A server that is not running is not started
/// for it: a new process has no subscription to end.
pub(super) async fn unsubscribe(roster: &Arc<Roster>, name: &str, uri: &str) -> Result<()> {
    check_uri(uri)?;
    let server = roster.find(name)?;
    server.slot().subscriptions.remove(uri);
    let Some((session, _busy)) = ready_session(&server) else {
        return Ok(());
    };
    if !session
        .client
        .handshake()
        .declares(Capability::ResourceSubscriptions)
    {
        return Ok(());
    }
    send_subscription(&server, &session, uri, false)
        .await
        .map_err(|e| server.secrets.mask_error(e))
}

async fn send_subscription(server: &Server, session: &Session, uri: &str, on: bool) -> Result<()> {
    session
        .client
        .subscribe(uri, on, server.spec.tool_timeout)
        .await
        .map_err(|e| e.with("uri", uri).with_stderr_tail(&session.stderr.text()))
}

/// `prompts/get {server, name, arguments}`. A prompt over `maxResultBytes` is RESULT_TOO_LARGE
/// whatever `resultPolicy` says (messages are not cut).
pub(super) async fn get_prompt(
    roster: &Arc<Roster>,
    name: &str,
    prompt: &str,
    arguments: &Map<String, Value>,
) -> Result<PromptGot> {
    let server = roster.find(name)?;
    let run = async {
        let (session, _busy) = acquire(roster, &server).await?;
        require(&server, &session, Capability::Prompts, "prompts/get")?;
        let reply = session
            .client
            .get_prompt(prompt, arguments, server.spec.tool_timeout)
            .await
            .map_err(|e| {
                e.with("prompt", prompt)
                    .with_stderr_tail(&session.stderr.text())
            })?;
        let max = session.limits.max_result_bytes;
        if reply.bytes > max {
            return Err(too_large(&server, "prompts/get", reply.bytes, max).with("prompt", prompt));
        }
        let mut value = session
            .client
            .reply_outcome(reply)
            .map_err(|e| e.with("prompt", prompt))?;
        server.mask_result(&mut value);
        let Some(Value::Array(messages)) = value.get_mut("messages").map(Value::take) else {
            return Err(
                protocol(&server, "its prompts/get result has no `messages` array")
                    .with("prompt", prompt),
            );
        };
        let description = value
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok((messages, description))
    };
    let (messages, description) = run.await.map_err(|e| server.secrets.mask_error(e))?;
    Ok(PromptGot {
        server: server.name.to_string(),
        name: prompt.to_owned(),
        description,
        messages,
    })
}

/// `completion/complete`: the server's `completion` (`{values: []}` when it has none to offer).
pub(super) async fn complete(roster: &Arc<Roster>, name: &str, params: &Value) -> Result<Value> {
    let server = roster.find(name)?;
    let run = async {
        let (session, _busy) = acquire(roster, &server).await?;
        if !session.client.handshake().declares(Capability::Completions) {
            return Ok(no_completion());
        }
        session
            .client
            .complete(params, server.spec.tool_timeout)
            .await
            .map_err(|e| e.with_stderr_tail(&session.stderr.text()))
    };
    run.await.map_err(|e| server.secrets.mask_error(e))
}

/// `logging/setLevel {server?, level}`: the level is kept (for that server, or for the session,
/// replacing every server's own) and sent to the ready servers that declared `logging`. Returns
/// `{servers: [sent to], errors?}`.
pub(super) async fn set_log_level(
    roster: &Arc<Roster>,
    only: Option<&str>,
    level: LogLevel,
) -> Result<Value> {
    let targets = match only {
        Some(name) => {
            let server = roster.find(name)?;
            if let Some((session, _)) = ready_session(&server) {
                require(&server, &session, Capability::Logging, "logging/setLevel")?;
            }
            server.slot().log_level = Some(level);
            vec![server]
        }
        None => {
            *roster.session_log_level() = Some(level);
            let servers = roster.all();
            for server in &servers {
                server.slot().log_level = None;
            }
            servers
        }
    };
    let sends = targets.iter().filter_map(|server| {
        let (session, busy) = ready_session(server)?;
        if !session.client.handshake().declares(Capability::Logging) {
            return None;
        }
        Some(async move {
            let _busy = busy;
            let sent = session
                .client
                .set_log_level(level, server.spec.tool_timeout)
                .await;
            (server, sent)
        })
    });
    let mut sent = Vec::new();
    let mut errors = Vec::new();
    for (server, outcome) in futures_util::future::join_all(sends).await {
        match outcome {
            Ok(()) => sent.push(Value::from(server.name.as_str())),
            Err(e) => {
                let e = server
                    .secrets
                    .mask_error(e.with("server", server.name.as_str()));
                errors.push(json!({ "server": server.name, "error": e.to_rpc_error() }));
            }
        }
    }
    let mut out = json!({ "servers": sent });
    if !errors.is_empty() {
        out["errors"] = Value::Array(errors);
    }
    Ok(out)
}

/// NOT_SUPPORTED unless the server declared `capability`.
fn require(server: &Server, session: &Session, capability: Capability, method: &str) -> Result<()> {
    if session.client.handshake().declares(capability) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::NotSupported,
        format!(
            "server `{}` did not declare the `{}` capability, so {method} is not sent to it",
            server.name,
            capability.as_str()
        ),
    )
    .with("server", server.name.as_str())
    .with("capability", capability.as_str()))
}

/// INVALID_PARAMS for a URI over [`limits::RESOURCE_URI_MAX_BYTES`] (or empty).
fn check_uri(uri: &str) -> Result<()> {
    if !uri.is_empty() && uri.len() <= limits::RESOURCE_URI_MAX_BYTES {
        return Ok(());
    }
    Err(Error::invalid_params(format!(
        "uri must be 1 to {} bytes",
        limits::RESOURCE_URI_MAX_BYTES
    ))
    .with("field", "uri")
    .with("limit", limits::RESOURCE_URI_MAX_BYTES as u64))
}

fn too_large(server: &Server, method: &str, size: usize, max: usize) -> Error {
    Error::new(
        ErrorCode::ResultTooLarge,
        format!(
            "the answer of server `{}` to {method} is {size} bytes, over maxResultBytes ({max} bytes)",
            server.name
        ),
    )
    .with("server", server.name.as_str())
    .with("setting", "maxResultBytes")
    .with("limit", max as u64)
    .with("size", size as u64)
}

fn protocol(server: &Server, why: &str) -> Error {
    Error::new(
        ErrorCode::ProtocolError,
        format!("server `{}`: {why}", server.name),
    )
    .with("server", server.name.as_str())
}

/// The contents of a reduced (cut) result: its text as one text item of `uri`, then each image or
/// audio block it kept as a blob item.
fn reduced_contents(uri: &str, reduced: &Value) -> Value {
    let blocks = reduced
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let items = blocks.iter().filter_map(|b| {
        let field = |k: &str| b.get(k).and_then(Value::as_str);
        match field("type") {
            Some("text") => {
                Some(json!({"uri": uri, "mimeType": "text/plain", "text": field("text")?}))
            }
            Some("image" | "audio") => {
                Some(json!({"uri": uri, "mimeType": field("mimeType")?, "blob": field("data")?}))
            }
            _ => None,
        }
    });
    Value::Array(items.collect())
}
