//! One login, once discovery is done: the loopback listener (unless the redirect goes elsewhere),
//! the client's identity, the authorization request with PKCE, the browser step — the host's answer
//! or the listener's redirect, whichever comes first, within [`limits::OAUTH_LOGIN_TIMEOUT`] — the
//! checks of the answer, and the code exchanged for tokens.

use reqwest::Url;

use super::authorize::{self, Pending, Request};
use super::browser::{self, BrowserOutcome};
use super::callback::Callback;
use super::discovery::Discovered;
use super::error::AuthError;
use super::http::OAuthHttp;
use super::register::{identify, Identify, Identity};
use super::token::{Client, TokenRequest, Tokens};
use crate::ask::Asker;
use crate::config::OAuthSpec;
use crate::limits;

/// What one login needs.
pub(super) struct Login<'a> {
    /// The server's name, for messages and the browser step.
    pub server: &'a str,
    pub http: &'a OAuthHttp,
    pub spec: Option<&'a OAuthSpec>,
    pub discovered: &'a Discovered,
    /// The scopes to ask for, space-separated (`None`: the parameter is left out).
    pub scope: Option<String>,
    /// A client registered with this issuer before.
    pub stored_client: Option<&'a Client>,
    /// Who can show a person the login (it declared `auth`); `None`: the loopback listener only.
    pub asker: Option<&'a dyn Asker>,
    /// Told the authorization URL once the request is ready (`Some`) and when it is over (`None`).
    pub announce: &'a (dyn Fn(Option<&Url>) + Send + Sync),
}

/// What a login obtained.
pub(super) struct LoggedIn {
    pub identity: Identity,
    pub tokens: Tokens,
}

/// Runs the login; see the module doc.
pub(super) async fn login(l: Login<'_>) -> Result<LoggedIn, AuthError> {
    let configured = l.spec.and_then(|s| s.redirect_uri.as_ref());
    let preferred = l.stored_client.and_then(|c| c.redirect_uri.as_deref());
    let callback = Callback::bind(configured, preferred).await?;
    let redirect_uri = match (&callback, configured) {
        (Some(cb), _) => cb.redirect_uri().clone(),
        (None, Some(url)) => url.clone(),
        (None, None) => {
            return Err(AuthError::failed(
                "no redirect URI: the loopback listener could not be set up",
            ))
        }
    };
    if callback.is_none() && l.asker.is_none() {
        return Err(AuthError::login(format!(
            "a login is needed whose redirect ({redirect_uri}) only the host can receive, and the host did not declare the browser step"
        )));
    }
    let server = &l.discovered.server;
    let identity = identify(Identify {
        http: l.http,
        spec: l.spec,
        server,
        redirect_uri: redirect_uri.as_str(),
        stored: l.stored_client,
        scope: l.scope.as_deref(),
    })
    .await?;
    let pending = authorize::start(&Request {
        server,
        client_id: &identity.client().client_id,
        redirect_uri: redirect_uri.as_str(),
        scope: l.scope.as_deref(),
        resource: &l.discovered.resource.resource,
    })?;
    (l.announce)(Some(&pending.url));
    let redirect = tokio::time::timeout(
        limits::OAUTH_LOGIN_TIMEOUT,
        browser_step(&l, &pending, &redirect_uri, callback),
    )
    .await;
    (l.announce)(None);
    let redirect = redirect.map_err(|_| {
        AuthError::login(format!(
            "the login was not completed within {} s",
            limits::OAUTH_LOGIN_TIMEOUT.as_secs()
        ))
    })??;
    let code = authorize::code_from(&pending, &redirect)?;
    let tokens = TokenRequest {
        http: l.http,
        server,
        client: identity.client(),
        resource: &l.discovered.resource.resource,
        assertion: None,
    }
    .exchange_code(&code, &pending.redirect_uri, &pending.verifier)
    .await?;
    Ok(LoggedIn { identity, tokens })
}

/// The redirect the browser was sent to: the host's answer, or the loopback listener's catch,
/// whichever comes first (a host that only opened the URL leaves it to the listener).
async fn browser_step(
    l: &Login<'_>,
    pending: &Pending,
    redirect_uri: &Url,
    callback: Option<Callback>,
) -> Result<Url, AuthError> {
    let listening = callback.is_some();
    let listen = async {
        match callback {
            Some(cb) => cb.wait(&pending.state).await,
            // Nothing listens: only the host's answer can end the step.
            None => std::future::pending().await,
        }
    };
    let Some(asker) = l.asker else {
        return Ok(listen.await);
    };
    tokio::pin!(listen);
    // Either end may finish first; the listener keeps running while the host has only opened the
    // URL, and stops (dropped) as soon as the host hands the redirect back itself.
    tokio::select! {
        caught = &mut listen => Ok(caught),
        outcome = browser::ask(asker, l.server, &pending.url, redirect_uri) => match outcome {
            BrowserOutcome::Redirected(url) => Ok(url),
            BrowserOutcome::Opened if listening => Ok(listen.await),
            BrowserOutcome::Opened => Err(AuthError::login(format!(
                "the host opened the login but did not hand back the redirect to {redirect_uri}, which only the host receives"
            ))),
            BrowserOutcome::Declined(why) => Err(AuthError::login(format!(
                "the login was declined: {why}"
            ))),
        },
    }
}
