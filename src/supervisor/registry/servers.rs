//! Registry operations on the set of servers: add (and lazy start from the schema cache), add
//! every server of a loaded configuration or config file, remove, restart, OAuth login and logout.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::config::diagnostics::{Diagnostic, Kind};
use crate::config::expand::process_env;
use crate::config::load::{load, Loaded, Request};
use crate::config::ServerSpec;
use crate::error::{Error, ErrorCode, Result};
use crate::oauth::ServerAuth;
use crate::supervisor::admission::{self, Admitted};
use crate::supervisor::lazy;
use crate::supervisor::lifecycle::{self, StartKind};
use crate::supervisor::login;
use crate::supervisor::roster::{not_found, shutting_down};
use crate::supervisor::server::Server;
use crate::supervisor::settings::{AddOptions, Settings};
use crate::supervisor::status::{ServerState, ServerStatus};
use crate::supervisor::teardown;

use super::{LoadOutcome, Registry};

impl Registry {
    /// Registers a server and starts it — or, when lazy, serves its tools from the schema cache (a
    /// miss starts it once to discover them); with `wait`, returns once that is done. The source
    /// and, when trust is required, the approved digest come in `options`.
    pub(crate) async fn add_with(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        wait: bool,
        options: AddOptions,
    ) -> Result<ServerStatus> {
        let admitted = admission::admit(name, config, &options, self.settings().require_trust)?;
        // Read before the server is registered: nothing can race a half-added server.
        let (cache_key, cached) = lazy::lookup(
            self.settings().cache.as_ref(),
            name,
            &admitted.spec,
            &admitted.extras,
        )
        .await;
        let server = self.register(name, admitted, cache_key, options)?;
        let kind = if server.spec.auto_start {
            StartKind::Requested
        } else if let Some(tools) = cached {
            tracing::info!(server = %server.name, tools = tools.len(), "lazy server: tools served from the schema cache");
            let mut slot = server.slot();
            slot.pins.observe(&tools);
            slot.dormant_tools = Some(Arc::new(tools));
            drop(slot);
            self.roster.transitioned(&server);
            return Ok(server.status());
        } else {
            StartKind::Discover
        };
        // `starting` is set before answering, so a `wait: false` caller sees it; the rest runs as a
        // tracked operation that a host cancelling its wait cannot interrupt.
        if let Some(begun) = lifecycle::begin_start(&self.roster, &server, kind) {
            let (roster, s) = (Arc::clone(&self.roster), Arc::clone(&server));
            let started = self
                .operations
                .spawn(async move { lifecycle::finish_start(&roster, &s, begun, kind).await });
            if wait {
                let _ = started.await;
            }
        }
        Ok(server.status())
    }

    /// Adds every server of a loaded configuration, all at once and each on its own: a slow one
    /// never holds up the others; a server that cannot be added becomes a diagnostic, one the trust
    /// gate holds back a trust request (`trust` holds the approved digests by name), so one bad
    /// server never stops the others. With `wait`, returns once the last has ended. Results keep
    /// the file's order.
    pub(crate) async fn add_loaded(
        self: &Arc<Self>,
        loaded: Loaded,
        trust: &BTreeMap<String, String>,
        wait: bool,
    ) -> LoadOutcome {
        let mut outcome = LoadOutcome {
            diagnostics: loaded.diagnostics,
            ..Default::default()
        };
        let adds = loaded.servers.iter().map(|c| {
            let options = AddOptions {
                source: c.source,
                trust: trust.get(&c.name).cloned(),
                plugin_root: c.plugin_root.clone(),
            };
            self.add_with(&c.name, &c.config, wait, options)
        });
        let added = futures_util::future::join_all(adds).await;
        for (c, added) in loaded.servers.iter().zip(added) {
            match added {
                Ok(status) => outcome.added.push(status),
                Err(e) if e.code == ErrorCode::TrustRequired => {
                    let mut request = Value::Object(e.details.clone());
                    request["name"] = Value::from(c.name.as_str());
                    outcome.trust_required.push(request);
                }
                Err(e) => {
                    let kind = if e.code == ErrorCode::ServerExists {
                        Kind::Duplicate
                    } else {
                        Kind::Invalid
                    };
                    let d = Diagnostic::error(kind, c.path.clone(), e.message).for_server(&c.name);
                    outcome.diagnostics.push(d);
                }
            }
        }
        outcome
    }

    /// Reads each config file or directory (any dialect, `${VAR}` from the process environment)
    /// and adds its servers (source `user`), all files at once; with `wait`, returns once every
    /// server is ready or has failed. Problems (and trust requests) go to the log.
    pub(crate) async fn load_files(self: &Arc<Self>, paths: Vec<PathBuf>, wait: bool) {
        let loads = paths.into_iter().map(|path| async move {
            let loaded = load(
                Request::Path(path.clone()),
                None,
                BTreeMap::new(),
                process_env,
            )
            .await;
            let outcome = self.add_loaded(loaded, &BTreeMap::new(), wait).await;
            let problems = outcome
                .diagnostics
                .iter()
                .map(|d| serde_json::to_value(d).unwrap_or_default());
            for problem in problems.chain(outcome.trust_required) {
                tracing::warn!(file = %path.display(), "--config: {problem}");
            }
        });
        futures_util::future::join_all(loads).await;
    }

    /// Puts an admitted server in the table (SERVER_EXISTS if the name is taken).
    fn register(
        &self,
        name: &str,
        admitted: Admitted,
        cache_key: Option<String>,
        options: AddOptions,
    ) -> Result<Arc<Server>> {
        if self.roster.is_shutting_down() {
            return Err(shutting_down());
        }
        let mut servers = self.roster.servers();
        if servers.contains_key(name) {
            return Err(Error::new(
                ErrorCode::ServerExists,
                format!("a server named `{name}` already exists"),
            )
            .with("server", name));
        }
        let Admitted {
            spec,
            extras,
            secrets,
        } = admitted;
        let auth = oauth_of(name, &spec, self.settings())?;
        let exposure = self.settings().exposure(&extras);
        let server = Arc::new(Server::new(
            name,
            spec,
            cache_key,
            options.source,
            (extras, exposure),
            secrets,
            auth,
        ));
        servers.insert(server.name.clone(), Arc::clone(&server));
        login::forward_status(&self.roster, &server);
        Ok(server)
    }

    /// Stops a server (tools leave first) and forgets it; returns once its process tree is gone.
    /// Its tokens stay in the store (`servers/logout` removes them).
    pub(crate) async fn remove(self: &Arc<Self>, name: &str) -> Result<()> {
        let server = self
            .roster
            .servers()
            .remove(name)
            .ok_or_else(|| not_found(name))?;
        if let Some(auth) = &server.auth {
            auth.cancel_login();
        }
        let roster = Arc::clone(&self.roster);
        let _ = self
            .operations
            .spawn(async move { teardown::stop(&roster, &server).await })
            .await;
        Ok(())
    }

    /// Stops and starts a server again: a full new handshake and discovery. Clears the failure
    /// history, so a server in `error` after a crash loop gets a fresh start.
    pub(crate) async fn restart(self: &Arc<Self>, name: &str) -> Result<ServerStatus> {
        let server = self.roster.find(name)?;
        if self.roster.is_shutting_down() {
            return Err(shutting_down());
        }
        server.slot().restart.reset();
        let (roster, s) = (Arc::clone(&self.roster), Arc::clone(&server));
        let _ = self
            .operations
            .spawn(async move { lifecycle::start(&roster, &s, StartKind::Requested).await })
            .await;
        Ok(server.status())
    }

    /// A login for a server that uses OAuth (its browser step: the host's, or the loopback
    /// listener with the URL in the status), then a start unless it is ready. With `wait`, returns
    /// once that is done; without, as soon as the login waits for the browser (the status carries
    /// `authorizationUrl`) or has ended.
    pub(crate) async fn login(self: &Arc<Self>, name: &str, wait: bool) -> Result<ServerStatus> {
        let server = self.roster.find(name)?;
        let auth = server.auth.clone().ok_or_else(|| {
            Error::invalid_params(format!(
                "server `{name}` does not use OAuth (a stdio server, or its config sends its own Authorization header)"
            ))
            .with("field", "name")
            .with("server", name)
        })?;
        if self.roster.is_shutting_down() {
            return Err(shutting_down());
        }
        let mut pending = auth.status();
        pending.mark_unchanged();
        let (roster, s) = (Arc::clone(&self.roster), Arc::clone(&server));
        let mut run = self.operations.spawn(async move {
            if let Err(e) = auth.login(true).await {
                let e = login::auth_error(&s, e);
                let mut slot = s.slot();
                if slot.state == ServerState::NeedsLogin {
                    slot.last_error = Some(e.clone());
                }
                drop(slot);
                roster.emit_status(&s);
                return Err(e);
            }
            if s.slot().state != ServerState::Ready {
                lifecycle::start(&roster, &s, StartKind::Requested).await;
            }
            Ok(())
        });
        let finished = |joined: std::result::Result<Result<()>, tokio::task::JoinError>| {
            joined
                .unwrap_or_else(|e| Err(Error::internal(format!("the login did not finish: {e}"))))
        };
        if wait {
            finished((&mut run).await)?;
        } else {
            tokio::select! {
                joined = &mut run => finished(joined)?,
                _ = pending.wait_for(|s| s.pending_url.is_some()) => {}
            }
        }
        Ok(server.status())
    }

    /// Forgets the server's tokens (memory and store), ends a login in progress, stops its session
    /// and leaves it in `needs_login` until the next login.
    pub(crate) async fn logout(self: &Arc<Self>, name: &str) -> Result<ServerStatus> {
        let server = self.roster.find(name)?;
        let Some(auth) = server.auth.clone() else {
            return Err(Error::invalid_params(format!(
                "server `{name}` does not use OAuth; there is nothing to log out of"
            ))
            .with("field", "name")
            .with("server", name));
        };
        let (roster, s) = (Arc::clone(&self.roster), Arc::clone(&server));
        let _ = self
            .operations
            .spawn(async move {
                auth.logout().await;
                let why = Error::new(
                    ErrorCode::AuthRequired,
                    format!("server `{}`: logged out; a login is needed", s.name),
                );
                login::require(&roster, &s, why).await;
            })
            .await;
        Ok(server.status())
    }
}

/// The OAuth of a remote server that uses it (see [`crate::config::RemoteSpec::uses_oauth`]).
fn oauth_of(name: &str, spec: &ServerSpec, settings: &Settings) -> Result<Option<Arc<ServerAuth>>> {
    let Some(remote) = spec.remote.as_ref().filter(|r| r.uses_oauth()) else {
        return Ok(None);
    };
    let auth = ServerAuth::new(
        name,
        remote.url.clone(),
        remote.oauth.clone(),
        Arc::clone(&settings.auth.store),
        settings
            .auth
            .interactive
            .then(|| Arc::clone(&settings.asker)),
    )
    .map_err(|e| Error::from(e).with("server", name))?;
    Ok(Some(Arc::new(auth)))
}
