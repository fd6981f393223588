//! `mcp-sidecar mcp`: the aggregate is made, its config files start loading, and it is served over
//! stdio or HTTP until the client goes or a signal comes; then every server is stopped, its whole
//! process tree with it, before this returns (the caller sweeps what is left, as in serve mode).

use std::sync::Arc;

use super::aggregate::Aggregate;
use super::http;
use super::options::Options;
use super::stdio::{self, Bounds};
use crate::serving;
use crate::supervisor::{AuthSettings, Settings};

/// Why `mcp` mode could not start (its message is what the person sees).
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    Http(#[from] http::ListenError),
}

/// Serves until the client goes (stdio) or `options.stop` fires; every server is stopped on return.
pub async fn run(options: Options) -> Result<(), StartError> {
    // The tokens `mcp-sidecar login` kept under the cache directory are used; an MCP client cannot
    // be asked to show a login, so a server without them waits in `needs_login`.
    let auth = AuthSettings::for_cache(options.cache.as_ref());
    let settings = Settings {
        names: options.names,
        format: options.format,
        strict: options.strict,
        cache: options.cache,
        require_trust: false,
        asker: crate::ask::nobody(),
        auth,
        // Deferral shapes provider listings; an MCP client gets every tool in full.
        defer: Default::default(),
        resources_as_tools: false,
        pin_tools: false,
        server_logs: None,
    };
    let aggregate = Aggregate::new(settings, options.wait_for_servers, options.page_size);
    let loading = {
        let (aggregate, configs) = (Arc::clone(&aggregate), options.configs);
        tokio::spawn(async move { aggregate.load(configs).await })
    };
    let bounds = Bounds {
        max_line_bytes: options.max_message_bytes,
        max_inflight: options.max_inflight,
    };
    let served = match options.http {
        None => {
            let (input, output) = (serving::stdio::input(), serving::stdio::output());
            stdio::serve(Arc::clone(&aggregate), input, output, bounds, options.stop).await;
            Ok(())
        }
        Some(http) => http::serve(Arc::clone(&aggregate), http, bounds, options.stop).await,
    };
    // A load still running sees the registry closed and gives up on the servers it had left.
    aggregate.shutdown().await;
    let _ = loading.await;
    served.map_err(StartError::from)
}
