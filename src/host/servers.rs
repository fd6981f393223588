//! `servers/*` handlers (`servers/load` has a file of its own, `load`): each turns its parameters
//! into one registry operation and the registry's answer into the result.

use std::sync::Arc;

use serde_json::{json, Value};

use super::params::{AddServer, LoginServer, ServerName, ServerStats, TestServer};
use crate::error::Result;
use crate::supervisor::{AddOptions, Registry};

/// `servers/add`: the server's status.
pub(super) async fn add(registry: &Arc<Registry>, p: AddServer) -> Result<Value> {
    let options = AddOptions {
        trust: p.trust,
        ..Default::default()
    };
    let status = registry
        .add_with(&p.name, &p.config, p.wait, options)
        .await?;
    Ok(serde_json::to_value(status).unwrap_or(Value::Null))
}

/// `servers/test`: the probe's report; nothing is added.
pub(super) async fn test(registry: &Arc<Registry>, p: TestServer) -> Result<Value> {
    registry.test(&p.name, &p.config, p.trust).await
}

/// `servers/remove`: `{}` once the server is stopped and gone.
pub(super) async fn remove(registry: &Arc<Registry>, p: ServerName) -> Result<Value> {
    registry.remove(&p.name).await?;
    Ok(json!({}))
}

/// `servers/restart`: the server's status after the restart.
pub(super) async fn restart(registry: &Arc<Registry>, p: ServerName) -> Result<Value> {
    let status = registry.restart(&p.name).await?;
    Ok(serde_json::to_value(status).unwrap_or(Value::Null))
}

/// `servers/login`: the server's status after the login (and the start after it), or as soon as the
/// login waits for the browser (`wait: false`).
pub(super) async fn login(registry: &Arc<Registry>, p: LoginServer) -> Result<Value> {
    let status = registry.login(&p.name, p.wait).await?;
    Ok(serde_json::to_value(status).unwrap_or(Value::Null))
}

/// `servers/logout`: the server's status, `needs_login`, its tokens gone.
pub(super) async fn logout(registry: &Arc<Registry>, p: ServerName) -> Result<Value> {
    let status = registry.logout(&p.name).await?;
    Ok(serde_json::to_value(status).unwrap_or(Value::Null))
}

/// `servers/list`: every server's status.
pub(super) fn list(registry: &Arc<Registry>) -> Value {
    json!({ "servers": registry.list() })
}

/// `servers/stats`: each server's statistics (calls, errors, latency percentiles over two
/// windows, bytes in and out, restarts, uptime, where its last start's time went).
pub(super) fn stats(registry: &Arc<Registry>, p: ServerStats) -> Result<Value> {
    let stats = registry.stats(p.servers.as_deref())?;
    Ok(json!({ "servers": stats }))
}
