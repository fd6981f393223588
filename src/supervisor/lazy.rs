//! Lazy servers (`autoStart: false`) and the schema cache: the lookup when such a server is added
//! (a hit lists its tools without starting it) and the write after each discovery. The cache's
//! file format and key live in [`crate::store::schema_cache`]; this file only decides when to use it.

use super::server::Server;
use super::session::Session;
use crate::config::{Extras, ServerSpec};
use crate::mcp::{ToolDef, ToolKind};
use crate::process;
use crate::store::SchemaCache;

/// A lazy server's cache key and, on a hit, its cached tools (after the tools policy). No key when
/// there is no cache or the server starts at once.
pub(super) async fn lookup(
    cache: Option<&SchemaCache>,
    name: &str,
    spec: &ServerSpec,
    extras: &Extras,
) -> (Option<String>, Option<Vec<ToolDef>>) {
    let Some(cache) = cache.filter(|_| !spec.auto_start) else {
        return (None, None);
    };
    let key = SchemaCache::key(spec, &search_path(spec)).await;
    let tools = cache
        .load(&key, name)
        .await
        .and_then(|tools| super::policy::apply(name, extras, tools).ok());
    (Some(key), tools)
}

/// Writes a lazy server's freshly discovered tools to the schema cache — unless the server said
/// its list is `cacheScope: "private"`: the cache is shared across runs (and whoever runs them),
/// which such a list must not be.
pub(super) async fn remember(cache: Option<&SchemaCache>, server: &Server, session: &Session) {
    let (Some(cache), Some(key)) = (cache, server.cache_key.as_deref()) else {
        return;
    };
    if session.freshness().hints().private {
        tracing::debug!(server = %server.name, "schema cache not written: the list is cacheScope private");
        return;
    }
    let tools = session.tools();
    // Only the server's own tools: the resource tools follow from its capabilities at each start.
    let own: Vec<ToolDef> = tools
        .iter()
        .filter(|t| t.kind == ToolKind::Server)
        .cloned()
        .collect();
    match cache.store(key, server.name.as_str(), &own).await {
        Ok(()) => tracing::debug!(server = %server.name, "schema cache updated"),
        Err(e) => tracing::warn!(server = %server.name, "cannot write the schema cache: {e}"),
    }
}

/// The `PATH` the server would be spawned with: where the cache key looks for its executable.
pub(super) fn search_path(spec: &ServerSpec) -> String {
    process::child_env(spec)
        .into_iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v)
        .unwrap_or_default()
}
