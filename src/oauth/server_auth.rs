//! One remote server's OAuth: the token its requests carry, refreshed ahead of expiry once for
//! every request waiting on it; what a 401 or a `403 insufficient_scope` leads to; logins (one at a
//! time, bounded in a row) and logout; the status a host sees (a login waiting for the browser).
//!
//! What never happens here: asking a person when the session's owner did not declare `auth`, or a loop. A 401 is
//! answered by a token another request already renewed, one a `login` command stored meanwhile,
//! or a refresh; beyond that the request fails with `AUTH_REQUIRED` and the server waits for a
//! login. Two cases ask the browser step on the request's way, at most
//! [`limits::OAUTH_MAX_AUTHORIZATIONS`] times before a request succeeds: a scope step-up, and a
//! server that moved to another authorization server (its old tokens and client are no use there).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use reqwest::Url;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::assertion;
use super::browser;
use super::challenge::Challenge;
use super::discovery::{discover_resource, discover_server, Discovered};
use super::error::AuthError;
use super::http::OAuthHttp;
use super::kept_record::KeptRecord;
use super::login::{login, LoggedIn, Login};
use super::register::Identity;
use super::renew;
use super::scopes;
use super::store::{Record, TokenStore};
use super::token::{now, AuthMethod, Client, RefreshError, TokenRequest, Tokens};
use super::token_file::TokenFile;
use crate::ask::Asker;
use crate::config::{Grant, OAuthSpec};
use crate::limits;

/// What to do after a 401.
#[derive(Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Send the request again: the token changed, was renewed or refreshed.
    Retry,
    /// Nothing says OAuth applies (no Bearer challenge, no protected resource metadata): the 401
    /// is the server's answer.
    NotOAuth,
}

/// What a host sees of a server's authorization.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthStatus {
    /// The authorization URL while a login waits for the browser.
    pub pending_url: Option<String>,
    /// Logins completed since the sidecar started; moves with each.
    pub logins: u64,
}

/// One server's OAuth state; shared by its transports (every generation) and its supervisor.
pub struct ServerAuth {
    server: String,
    url: Url,
    spec: Option<OAuthSpec>,
    http: OAuthHttp,
    /// Who can show a person a login, when it declared it can (`auth`).
    asker: Option<Arc<dyn Asker>>,
    /// Its tokens and clients, in memory and in the token store.
    kept: KeptRecord,
    /// Authorizations since a request last succeeded with a token.
    authorizations: AtomicUsize,
    /// One refresh (or recovery after a 401) at a time: the requests that find the token due wait
    /// for it and take its result.
    refreshing: tokio::sync::Mutex<()>,
    /// One login at a time; whoever waited for a login that succeeded takes its tokens.
    logging_in: tokio::sync::Mutex<()>,
    /// Ends the login in progress (logout).
    cancel_login: Mutex<CancellationToken>,
    status: watch::Sender<AuthStatus>,
    /// `oauth.tokenFile`: the token comes from this file alone, read and never written; no login,
    /// no refresh (`token_file`).
    token_file: Option<TokenFile>,
}

impl ServerAuth {
    pub fn new(
        server: &str,
        url: Url,
        spec: Option<OAuthSpec>,
        store: Arc<TokenStore>,
        asker: Option<Arc<dyn Asker>>,
    ) -> Result<Self, AuthError> {
        let http = OAuthHttp::new(&url)?;
        let kept = KeptRecord::new(server, &url, store);
        let token_file = spec
            .as_ref()
            .and_then(|s| s.token_file.as_deref())
            .map(TokenFile::new);
        Ok(Self {
            server: server.to_owned(),
            url,
            spec,
            http,
            asker: asker.filter(|a| browser::can_ask(a.as_ref())),
            kept,
            authorizations: AtomicUsize::new(0),
            refreshing: tokio::sync::Mutex::new(()),
            logging_in: tokio::sync::Mutex::new(()),
            cancel_login: Mutex::new(CancellationToken::new()),
            status: watch::channel(AuthStatus::default()).0,
            token_file,
        })
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    /// Whether a person can be asked (the session's owner declared `auth`).
    pub fn can_ask(&self) -> bool {
        self.asker.is_some()
    }

    pub fn status(&self) -> watch::Receiver<AuthStatus> {
        self.status.subscribe()
    }

    pub fn pending_url(&self) -> Option<String> {
        self.status.borrow().pending_url.clone()
    }

    /// The values to mask wherever this server's output goes: its tokens and a registered client's
    /// secret.
    pub fn secret_values(&self) -> Vec<String> {
        let mut secrets: Vec<String> = self
            .kept
            .lock()
            .record
            .secrets()
            .map(str::to_owned)
            .collect();
        secrets.extend(self.token_file.as_ref().and_then(TokenFile::last));
        secrets
    }

    /// Whether tokens are kept for the server (its token file holds one).
    pub async fn has_tokens(&self) -> bool {
        if let Some(file) = &self.token_file {
            return file.token().await.is_ok();
        }
        self.kept.ensure_loaded().await;
        self.kept.tokens().is_some()
    }

    /// The access token for the next request: refreshed first when it is due (within the skew of
    /// its expiry), by one request while the others wait for its result. `None`: no token yet.
    pub async fn bearer(&self) -> Result<Option<String>, AuthError> {
        if let Some(file) = &self.token_file {
            return file.token().await.map(Some);
        }
        self.kept.ensure_loaded().await;
        match self.kept.tokens() {
            Some(t) if !t.due(now()) => return Ok(Some(t.access_token)),
            None => return Ok(None),
            Some(_) => {}
        }
        let _one = self.refreshing.lock().await;
        // Whoever held the lock before may have renewed it.
        let Some(tokens) = self.kept.tokens() else {
            return Ok(None);
        };
        if !tokens.due(now()) {
            return Ok(Some(tokens.access_token));
        }
        if self.client_credentials() && tokens.refresh_token.is_none() {
            // No refresh token in this grant: the client's credentials buy the next token.
            let challenge = self.kept.lock().challenge.clone();
            let discovered = self.discover(&challenge).await?;
            return self
                .grant_client_credentials(&discovered)
                .await
                .map(|t| Some(t.access_token));
        }
        match self.refresh(&tokens).await {
            Ok(fresh) => Ok(Some(fresh.access_token)),
            Err(RefreshError::Refused(why)) => Err(self.refresh_refused(why).await),
            // The refresh may work later: the old token serves until it expires.
            Err(RefreshError::Other(e)) if !tokens.expired(now()) => {
                tracing::warn!(server = %self.server, "refreshing the access token failed; using it until it expires: {e}");
                Ok(Some(tokens.access_token))
            }
            Err(RefreshError::Other(e)) => Err(e),
        }
    }

    /// The server answered 401 to a request that carried `sent`; see [`Recovery`].
    /// `Err(LoginRequired)`: only a login helps.
    pub async fn unauthorized(
        &self,
        challenge: Challenge,
        sent: Option<&str>,
    ) -> Result<Recovery, AuthError> {
        if let Some(file) = &self.token_file {
            return token_file_refused(file, sent).await;
        }
        self.kept.ensure_loaded().await;
        self.kept.remember(&challenge);
        let _one = self.refreshing.lock().await;
        if self.kept.access_token().as_deref() != sent {
            return Ok(Recovery::Retry);
        }
        // A `login` command (another process) may have stored tokens meanwhile.
        let stored = self.kept.stored().await;
        let stored_token = stored
            .current()
            .and_then(|(_, r)| r.tokens.as_ref())
            .map(|t| t.access_token.clone());
        if stored_token.is_some() && stored_token.as_deref() != sent {
            self.kept.adopt(stored);
            return Ok(Recovery::Retry);
        }
        let discovered = match self.discover(&challenge).await {
            Err(AuthError::NotProtected { .. }) if !challenge.bearer && sent.is_none() => {
                return Ok(Recovery::NotOAuth)
            }
            other => other?,
        };
        if let Some(old) = self.kept.current_issuer() {
            if old != discovered.server.issuer {
                let changed = self.issuer_changed(&old, &discovered.server.issuer).await;
                if self.asker.is_none() && !self.client_credentials() {
                    return Err(changed);
                }
                // The host can show a login: one with the new authorization server (registering
                // there anew), bounded like every authorization in a row, then the request again.
                // The lock stays held: the requests meeting a 401 meanwhile wait for this login
                // and take its token.
                self.login(false).await?;
                return Ok(Recovery::Retry);
            }
        }
        if self.client_credentials() {
            self.grant_client_credentials(&discovered).await?;
            return Ok(Recovery::Retry);
        }
        let why = match self.kept.tokens() {
            Some(tokens) if tokens.refresh_token.is_some() => match self.refresh(&tokens).await {
                Ok(_) => return Ok(Recovery::Retry),
                Err(RefreshError::Refused(why)) => return Err(self.refresh_refused(why).await),
                Err(RefreshError::Other(e)) => return Err(e),
            },
            Some(_) => "the server refused its access token (HTTP 401) and no refresh token was issued: a new login is needed".to_owned(),
            None => "the server requires authorization: a login is needed".to_owned(),
        };
        Err(self.login_required(why))
    }

    /// The server answered `403 insufficient_scope`: with a browser step, a login asking for every
    /// scope wanted so far plus the challenged ones (`Ok`: send the request again); without one, or
    /// after too many authorizations in a row, the request fails.
    pub async fn insufficient_scope(&self, challenge: Challenge) -> Result<(), AuthError> {
        let scopes = challenge.scope.clone().unwrap_or_default();
        if let Some(file) = &self.token_file {
            return Err(AuthError::failed(format!(
                "the request needs scope {scopes:?}, which the token of oauth.tokenFile {} lacks",
                file.path().display()
            )));
        }
        self.kept.ensure_loaded().await;
        self.kept.remember(&challenge);
        if self.authorizations.load(Ordering::SeqCst) >= limits::OAUTH_MAX_AUTHORIZATIONS {
            return Err(self.login_required(format!(
                "the server still refuses the request for lack of scope ({scopes}) after {} authorizations in a row; not asking again until a request succeeds or a login is asked for",
                limits::OAUTH_MAX_AUTHORIZATIONS
            )));
        }
        if self.asker.is_none() {
            return Err(self.login_required(format!(
                "the request needs scope {scopes:?}: a new login is needed to grant it"
            )));
        }
        self.login(false).await
    }

    /// A login: discovery, the client's identity, the browser step, the code exchanged, the tokens
    /// kept. `explicit`: asked for by the host or a person (not counted against the bound on
    /// authorizations in a row). Concurrent callers share one login.
    pub async fn login(&self, explicit: bool) -> Result<(), AuthError> {
        // Nobody logs in for a token file: its token is read again.
        if let Some(file) = &self.token_file {
            return file.reread().await.map(|_| ());
        }
        let seen = self.status.borrow().logins;
        let _one = self.logging_in.lock().await;
        if self.status.borrow().logins != seen {
            return Ok(());
        }
        self.kept.ensure_loaded().await;
        if explicit {
            self.authorizations.store(0, Ordering::SeqCst);
        }
        let attempts = self.authorizations.fetch_add(1, Ordering::SeqCst) + 1;
        if attempts > limits::OAUTH_MAX_AUTHORIZATIONS {
            return Err(self.login_required(format!(
                "the server was authorized {} times in a row without a request succeeding; not asking again until a login is asked for",
                limits::OAUTH_MAX_AUTHORIZATIONS
            )));
        }
        let mut challenge = self.kept.lock().challenge.clone();
        if !challenge.bearer {
            // No request met a challenge yet (a login asked for up front): ask the server for one,
            // it may name its metadata only there.
            challenge = self.http.challenge(&self.url).await.unwrap_or_default();
            self.kept.remember(&challenge);
        }
        let discovered = self.discover(&challenge).await?;
        if let Some(old) = self.kept.current_issuer() {
            if old != discovered.server.issuer {
                self.kept.forget_tokens(&old).await;
            }
        }
        if self.client_credentials() {
            self.grant_client_credentials(&discovered).await?;
            self.status.send_modify(|s| s.logins += 1);
            return Ok(());
        }
        self.login_through_browser(&discovered).await
    }

    /// A login's browser step (through the asker) and the code exchanged; the tokens kept.
    async fn login_through_browser(&self, discovered: &Discovered) -> Result<(), AuthError> {
        let issuer = discovered.server.issuer.clone();
        let scopes = self.scopes_for(discovered);
        let stored_client = self
            .kept
            .lock()
            .record
            .issuers
            .get(&issuer)
            .and_then(|r| r.client.clone());
        let cancel = {
            let mut c = self.cancel_login.lock().unwrap_or_else(|p| p.into_inner());
            *c = CancellationToken::new();
            c.clone()
        };
        let announce = |url: Option<&Url>| {
            self.status
                .send_modify(|s| s.pending_url = url.map(|u| u.to_string()));
        };
        let asker = self.asker.as_deref();
        let run = login(Login {
            server: &self.server,
            http: &self.http,
            spec: self.spec.as_ref(),
            discovered,
            scope: (!scopes.is_empty()).then(|| scopes.join(" ")),
            stored_client: stored_client.as_ref(),
            asker,
            announce: &announce,
        });
        let outcome = tokio::select! {
            outcome = run => outcome,
            () = cancel.cancelled() => Err(AuthError::login("the login was cancelled (logout)")),
        };
        announce(None);
        let LoggedIn { identity, tokens } = outcome?;
        let registered = match identity {
            Identity::Registered(c) => Some(c),
            Identity::Configured(_) => None,
        };
        self.kept.keep(discovered, tokens, registered, scopes).await;
        self.status.send_modify(|s| s.logins += 1);
        tracing::info!(server = %self.server, issuer = %issuer, "logged in");
        Ok(())
    }

    /// Ends a login in progress (its listener closes; it fails with "cancelled").
    pub fn cancel_login(&self) {
        self.cancel_login
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .cancel();
    }

    /// Forgets every token and registration kept for the server (in memory and in the store) and
    /// ends a login in progress.
    pub async fn logout(&self) {
        self.cancel_login();
        // A token file is never written: the next request reads it again.
        if self.token_file.is_some() {
            return;
        }
        self.kept.ensure_loaded().await;
        self.kept.lock().record = Record::default();
        self.authorizations.store(0, Ordering::SeqCst);
        self.kept.save().await;
        tracing::info!(server = %self.server, "logged out");
    }

    /// A request carrying a token succeeded: the bound on authorizations in a row starts over.
    pub fn note_success(&self) {
        if self.authorizations.load(Ordering::Relaxed) != 0 {
            self.authorizations.store(0, Ordering::SeqCst);
        }
    }

    // ----- internals -----

    /// Whether the config chose the client-credentials grant (no browser, no person).
    fn client_credentials(&self) -> bool {
        self.spec
            .as_ref()
            .is_some_and(|s| s.grant == Grant::ClientCredentials)
    }

    /// A token bought with the client's own credentials (`client_secret_basic`, or
    /// `client_secret_post` where that is all the server takes), kept like a login's.
    async fn grant_client_credentials(&self, discovered: &Discovered) -> Result<Tokens, AuthError> {
        let spec = self.spec.as_ref();
        let Some(client_id) = spec.and_then(|s| s.client_id.clone()) else {
            return Err(AuthError::failed(
                "the client-credentials grant needs oauth.clientId",
            ));
        };
        let assertion = match spec.and_then(|s| s.client_assertion_key_file.as_deref()) {
            Some(key) => Some(assertion::client_assertion(
                key,
                &client_id,
                &discovered.server.issuer,
            )?),
            None => None,
        };
        let secret = spec.and_then(|s| s.client_secret.clone());
        let client = Client {
            client_id,
            auth_method: AuthMethod::choose(secret.is_some(), &discovered.server),
            client_secret: secret,
            redirect_uri: None,
        };
        let scopes = self.scopes_for(discovered);
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        let tokens = TokenRequest {
            http: &self.http,
            server: &discovered.server,
            client: &client,
            resource: &discovered.resource.resource,
            assertion: assertion.as_deref(),
        }
        .client_credentials(scope.as_deref())
        .await?;
        crate::logging::register_secrets(tokens.secrets());
        self.kept
            .keep(discovered, tokens.clone(), None, scopes)
            .await;
        tracing::info!(server = %self.server, issuer = %discovered.server.issuer, "token obtained with the client's credentials");
        Ok(tokens)
    }

    /// The scopes a login asks for (see [`scopes::for_login`]).
    fn scopes_for(&self, discovered: &Discovered) -> Vec<String> {
        let wanted = self.kept.lock().wanted.clone();
        let configured = self.spec.as_ref().and_then(|s| s.scopes.as_deref());
        scopes::for_login(configured, &wanted, discovered)
    }

    /// Protected resource metadata, then its authorization server's (the one in use when it is
    /// still listed, else the first).
    async fn discover(&self, challenge: &Challenge) -> Result<Discovered, AuthError> {
        let resource = discover_resource(&self.http, &self.url, challenge).await?;
        let current = self.kept.current_issuer();
        let listed = &resource.authorization_servers;
        let Some(issuer) = current
            .filter(|c| listed.contains(c))
            .or_else(|| listed.first().cloned())
        else {
            return Err(AuthError::failed(
                "the protected resource metadata names no authorization server",
            ));
        };
        let server = discover_server(&self.http, &issuer).await?;
        Ok(Discovered { resource, server })
    }

    async fn refresh(&self, tokens: &Tokens) -> Result<Tokens, RefreshError> {
        let Some(refresh_token) = tokens.refresh_token.as_deref() else {
            return Err(RefreshError::Refused(
                "the access token expired and the authorization server issued no refresh token"
                    .to_owned(),
            ));
        };
        let record = self.kept.lock().record.clone();
        let (issuer, fresh) = renew::refresh(
            &self.http,
            self.spec.as_ref(),
            &record,
            &self.url,
            refresh_token,
        )
        .await?;
        crate::logging::register_secrets(fresh.secrets());
        if let Some(entry) = self.kept.lock().record.issuers.get_mut(&issuer) {
            entry.tokens = Some(fresh.clone());
        }
        self.kept.save().await;
        tracing::info!(server = %self.server, "access token refreshed");
        Ok(fresh)
    }

    /// The refresh token was refused: the tokens are dropped (a refused refresh token is never
    /// sent again) and a login is required.
    async fn refresh_refused(&self, why: String) -> AuthError {
        if let Some(issuer) = self.kept.current_issuer() {
            self.kept.forget_tokens(&issuer).await;
        }
        tracing::warn!(server = %self.server, "{why}; the server needs a login");
        self.login_required(format!("a new login is needed: {why}"))
    }

    /// The server names another authorization server: the old one's tokens are dropped and its
    /// client is never presented to the new one (SEP-2352).
    async fn issuer_changed(&self, old: &str, new: &str) -> AuthError {
        self.kept.forget_tokens(old).await;
        self.kept.lock().record.current = None;
        self.kept.save().await;
        self.login_required(format!(
            "the server now uses authorization server {new} instead of {old}: a new login is needed"
        ))
    }

    fn login_required(&self, why: String) -> AuthError {
        AuthError::LoginRequired {
            why,
            url: self.pending_url(),
        }
    }
}

/// A 401 to a request that carried `sent`, for a server whose token comes from a file: the file
/// read again (whatever its look); a token other than the refused one is tried, else the request
/// fails naming the file.
async fn token_file_refused(file: &TokenFile, sent: Option<&str>) -> Result<Recovery, AuthError> {
    let fresh = file.reread().await?;
    if Some(fresh.as_str()) != sent {
        return Ok(Recovery::Retry);
    }
    Err(AuthError::failed(format!(
        "the server refused the access token of oauth.tokenFile {} (HTTP 401); the sidecar never logs in or refreshes for a token file: put a valid token there (it is read again on the next request)",
        file.path().display()
    )))
}
