//! `mcp-sidecar login SERVER --config FILE`: an OAuth login for people. Reads the server from the
//! config files (any dialect, as every command does), prints the authorization URL on stdout,
//! waits for the browser's redirect on the loopback listener, and keeps the tokens in the token
//! store under the cache directory, where every sidecar and command using that directory finds
//! them. Exit 0 once logged in; 1 when the login failed; 2 for a server that does not use OAuth
//! or no cache directory; 3 when the files do not define the server.

use std::sync::Arc;

use super::browser_step::PrintUrl;
use super::exit::Exit;
use super::output::{stderr_line, usage};
use super::run::Context;
use super::selection::select;

use crate::oauth::{ServerAuth, TokenStore};

pub(crate) struct LoginArgs {
    pub server: String,
}

pub(crate) async fn run(context: &Context, args: LoginArgs) -> Exit {
    let Some(cache) = &context.cache else {
        return usage("there is no cache directory to keep the tokens in (give --cache-dir)");
    };
    let selection = match select(&context.sources, std::slice::from_ref(&args.server)).await {
        Ok(s) => s,
        Err(e) => return usage(&e.to_string()),
    };
    for d in selection.diagnostics_of(&args.server) {
        stderr_line(&format!("mcp-sidecar: {}", d.message));
    }
    for why in &selection.unknown {
        stderr_line(&format!("mcp-sidecar: {why}"));
    }
    for w in &selection.withheld {
        stderr_line(&format!("mcp-sidecar: {}", w.sentence()));
    }
    let spec = match super::selection::first_spec(&selection.servers, &args.server) {
        Ok(spec) => spec,
        Err(exit) => return exit,
    };
    let Some(remote) = spec.remote.as_ref().filter(|r| r.uses_oauth()) else {
        return usage(&format!(
            "server `{}` does not use OAuth (a stdio server, or its config sends its own Authorization header)",
            args.server
        ));
    };
    let store = Arc::new(TokenStore::in_cache_dir(cache.dir()));
    let login = async {
        let auth = ServerAuth::new(
            &args.server,
            remote.url.clone(),
            remote.oauth.clone(),
            store,
            Some(Arc::new(PrintUrl::on_stdout())),
        )?;
        auth.login(true).await
    };
    match super::run::until_stopped(&context.stop, login).await {
        None => Exit::Interrupted,
        Some(Ok(())) => {
            stderr_line(&format!(
                "logged in to `{}`; the tokens are kept under {}",
                args.server,
                cache.dir().display()
            ));
            Exit::Ok
        }
        Some(Err(e)) => {
            stderr_line(&format!("mcp-sidecar: server `{}`: {e}", args.server));
            Exit::ServerFailed
        }
    }
}
