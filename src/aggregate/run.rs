//! `mcp-sidecar mcp`: its config files are read (nothing to serve is an error before anything
//! starts), the aggregate is made, the servers start, and it is served over stdio or HTTP until the
//! client goes or a signal comes — an edit of a config file or SIGHUP reloads them meanwhile; then
//! every server is stopped, its whole process tree with it, before this returns (the caller sweeps
//! what is left, as in serve mode).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::http;
use super::options::Options;
use super::shared::Aggregate;
use super::stdio::{self, Bounds};
use crate::serving;
use crate::supervisor::{watch_config_files, AuthSettings, ConfigFiles, Settings};

/// Why `mcp` mode could not start (its message is what the person sees).
#[derive(Debug, thiserror::Error)]
pub(crate) enum StartError {
    #[error("{0}")]
    Http(#[from] http::ListenError),
    /// No config file defines a server that could be read: the file and the cause.
    #[error("nothing to serve: {0}")]
    NothingToServe(String),
}

/// Serves until the client goes (stdio) or `options.stop` fires; every server is stopped on return.
pub(crate) async fn run(options: Options) -> Result<(), StartError> {
    let files = Arc::new(ConfigFiles::new(options.configs, BTreeMap::new()));
    let read = files.read().await;
    if let Some(why) = read.nothing_to_serve() {
        return Err(StartError::NothingToServe(why));
    }
    // The tokens `mcp-sidecar login` kept under the cache directory are used; an MCP client cannot
    // be asked to show a login, so a server without them waits in `needs_login`.
    let auth = AuthSettings::for_cache(options.cache.as_ref());
    let settings = Settings {
        names: options.names,
        format: options.format,
        strict: options.strict,
        packages: Settings::packages_in(options.cache.as_ref()),
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
        let (aggregate, files) = (Arc::clone(&aggregate), Arc::clone(&files));
        tokio::spawn(async move { aggregate.load(&files, read).await })
    };
    let _watching = watch_config_files(files.paths(), Arc::clone(&options.reload));
    let reloading = {
        let (aggregate, wake) = (Arc::clone(&aggregate), options.reload);
        tokio::spawn(async move {
            // A reload compares with the servers the first load registered.
            aggregate.registered().await;
            let registry = Arc::downgrade(aggregate.registry());
            files
                .keep_in_force(registry, wake, |done| {
                    if done.touched_any() {
                        aggregate.surface_changed();
                    }
                })
                .await;
        })
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
    reloading.abort();
    // A load still running sees the registry closed and gives up on the servers it had left.
    aggregate.shutdown().await;
    let _ = loading.await;
    served.map_err(StartError::from)
}
