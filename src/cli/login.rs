//! `mcp-sidecar login <server> --config FILE`: a login for people. Reads the server from the config
//! files (any dialect), prints the authorization URL on stdout, waits for the browser's redirect on
//! the loopback listener, and keeps the tokens in the token store under the cache directory, where
//! every sidecar using the same cache directory finds them.

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::expand::process_env;
use crate::config::load::{load_path, Sources};
use crate::config::{extras, ServerSpec};
use crate::error::{Error, ErrorCode, Result};
use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use crate::ask::{AskError, Asker, Capabilities, Question};
use crate::oauth::{ServerAuth, TokenStore};

/// Logs in to `server` of the `configs`, keeping the tokens under `cache_dir` (`None`: memory only,
/// which a login for later use cannot be).
pub async fn login(server: &str, configs: &[PathBuf], cache_dir: Option<PathBuf>) -> Result<()> {
    let Some(cache_dir) = cache_dir else {
        return Err(Error::new(
            ErrorCode::InvalidParams,
            "there is no cache directory to keep the tokens in (give --cache-dir)",
        ));
    };
    let config = find(server, configs)?;
    let (rest, _) = extras::split(&config)?;
    let spec = ServerSpec::from_json(&rest)?;
    let remote = spec
        .remote
        .as_ref()
        .filter(|r| r.uses_oauth())
        .ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidParams,
                format!("server `{server}` does not use OAuth (a stdio server, or its config sends its own Authorization header)"),
            )
        })?;
    let store = Arc::new(TokenStore::in_cache_dir(&cache_dir));
    let auth = ServerAuth::new(
        server,
        remote.url.clone(),
        remote.oauth.clone(),
        Arc::clone(&store),
        Some(Arc::new(PrintUrl::default())),
    )
    .map_err(|e| named(server, e.into()))?;
    auth.login(true)
        .await
        .map_err(|e| named(server, e.into()))?;
    tracing::info!(
        server,
        "logged in; the tokens are kept for every sidecar using this cache directory"
    );
    Ok(())
}

/// The config of `server` in the first file that has it.
fn find(server: &str, configs: &[PathBuf]) -> Result<serde_json::Value> {
    let inputs = Default::default();
    let sources = Sources {
        env: &process_env,
        inputs: &inputs,
    };
    let mut seen = Vec::new();
    for path in configs {
        let loaded = load_path(path, None, &sources);
        for d in loaded.diagnostics.iter().filter(|d| d.is_error()) {
            tracing::warn!(file = %path.display(), "{}", d.message);
        }
        for c in loaded.servers {
            if c.name == server {
                return Ok(c.config);
            }
            seen.push(c.name);
        }
    }
    Err(Error::new(
        ErrorCode::ServerNotFound,
        format!(
            "no server `{server}` in the config files (servers found: {})",
            if seen.is_empty() {
                "none".to_owned()
            } else {
                seen.join(", ")
            }
        ),
    )
    .with("server", server))
}

fn named(server: &str, mut e: Error) -> Error {
    e.message = format!("server `{server}`: {}", e.message);
    e
}

/// The browser step of a person at a terminal: the URL on stdout; the redirect comes to the
/// loopback listener. The one question this owner answers is `auth/authorize`.
struct PrintUrl {
    capabilities: Capabilities,
}

impl Default for PrintUrl {
    fn default() -> Self {
        Self {
            capabilities: Capabilities {
                auth: Some(Default::default()),
                ..Default::default()
            },
        }
    }
}

impl Asker for PrintUrl {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    fn ask(&self, question: Question) -> BoxFuture<'static, Result<Value, AskError>> {
        let admitted = self.capabilities.admit(&question.method, &question.params);
        Box::pin(async move {
            admitted?;
            let text = |k: &str| question.params.get(k).and_then(Value::as_str).unwrap_or("");
            print_url(&question.server, text("url"), text("redirectUri"));
            Ok(json!({"action": "opened"}))
        })
    }
}

// The one output of this command on stdout: the URL a person opens (a script may read it).
#[allow(clippy::print_stdout)]
fn print_url(server: &str, url: &str, redirect_uri: &str) {
    eprintln!(
        "Open this URL in a browser to log in to server `{server}` (the sidecar waits for the redirect to {redirect_uri}):"
    );
    println!("{url}");
}
