//! Which client the sidecar is at an authorization server, in the MCP specification's order: a
//! pre-registered client from the config (bound to its `issuer` when the config names one), a
//! Client ID Metadata Document URL where the server supports them, a client this sidecar registered
//! there before (kept per issuer), then Dynamic Client Registration (RFC 7591). None of them: a clear
//! error saying what to configure.

use serde::Deserialize;
use serde_json::{json, Value};

use super::discovery::ServerMetadata;
use super::error::AuthError;
use super::http::OAuthHttp;
use super::token::{AuthMethod, Client};
use crate::config::OAuthSpec;

/// What identifying the client needs.
pub(super) struct Identify<'a> {
    pub http: &'a OAuthHttp,
    pub spec: Option<&'a OAuthSpec>,
    pub server: &'a ServerMetadata,
    /// The redirect URI the login will use.
    pub redirect_uri: &'a str,
    /// A client registered with this issuer earlier.
    pub stored: Option<&'a Client>,
    /// The scopes the login asks for (sent with a registration).
    pub scope: Option<&'a str>,
}

/// How the client was found; only a registration is worth keeping.
pub(super) enum Identity {
    Configured(Client),
    Registered(Client),
}

impl Identity {
    pub(super) fn client(&self) -> &Client {
        match self {
            Self::Configured(c) | Self::Registered(c) => c,
        }
    }
}

/// The client the config names for `server`: a pre-registered one, or a Client ID Metadata
/// Document where the server supports them.
pub(super) fn configured_client(
    spec: Option<&OAuthSpec>,
    server: &ServerMetadata,
) -> Option<Client> {
    let spec = spec?;
    if let Some(client_id) = &spec.client_id {
        return Some(Client {
            client_id: client_id.clone(),
            client_secret: spec.client_secret.clone(),
            auth_method: AuthMethod::choose(spec.client_secret.is_some(), server),
            redirect_uri: None,
        });
    }
    let url = spec.client_metadata_url.as_ref()?;
    (server.client_id_metadata_document_supported == Some(true)).then(|| Client {
        client_id: url.to_string(),
        client_secret: None,
        auth_method: AuthMethod::None,
        redirect_uri: None,
    })
}

/// The client to log in as.
pub(super) async fn identify(i: Identify<'_>) -> Result<Identity, AuthError> {
    let issuer = &i.server.issuer;
    if let Some(bound) = i
        .spec
        .filter(|s| s.client_id.is_some())
        .and_then(|s| s.issuer.as_ref())
    {
        if bound != issuer {
            return Err(AuthError::failed(format!(
                "the configured client (oauth.clientId) belongs to {bound}, but the server now names authorization server {issuer}: its credentials are not sent there"
            )));
        }
    }
    if let Some(client) = configured_client(i.spec, i.server) {
        return Ok(Identity::Configured(client));
    }
    if let Some(stored) = i.stored {
        if stored
            .redirect_uri
            .as_deref()
            .is_none_or(|r| r == i.redirect_uri)
        {
            return Ok(Identity::Registered(stored.clone()));
        }
    }
    match i.server.registration_url()? {
        Some(url) => register(&i, &url).await.map(Identity::Registered),
        None => Err(AuthError::failed(format!(
            "authorization server {issuer} offers no way to identify this client (no dynamic registration{}); configure `oauth.clientId` with a client registered there",
            if i.spec.is_some_and(|s| s.client_metadata_url.is_some()) {
                ", no client ID metadata documents"
            } else {
                ""
            }
        ))),
    }
}

#[derive(Deserialize)]
struct Registration {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// RFC 7591 §3: registers a client for `redirect_uri`.
async fn register(i: &Identify<'_>, url: &reqwest::Url) -> Result<Client, AuthError> {
    let server = i.server;
    let method = if server.supports_auth_method("none") {
        "none"
    } else if server.supports_auth_method("client_secret_post")
        && !server.supports_auth_method("client_secret_basic")
    {
        "client_secret_post"
    } else {
        "client_secret_basic"
    };
    let native = i.redirect_uri.starts_with("http:");
    let mut body = json!({
        "client_name": "mcp-sidecar",
        "redirect_uris": [i.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": if native { "native" } else { "web" },
    });
    if let Some(scope) = i.scope {
        body["scope"] = Value::from(scope);
    }
    let answer = i
        .http
        .post_json(url, &body, "registering the client")
        .await?;
    if !answer.status.is_success() {
        let error = answer
            .json
            .as_ref()
            .and_then(|j| j.get("error"))
            .and_then(Value::as_str)
            .map(|e| format!(": {}", e.chars().take(100).collect::<String>()))
            .unwrap_or_default();
        return Err(AuthError::failed(format!(
            "authorization server {} refused to register the client (HTTP {}{error})",
            server.issuer,
            answer.status.as_u16()
        )));
    }
    let registration: Registration = answer
        .json
        .and_then(|j| serde_json::from_value(j).ok())
        .ok_or_else(|| {
            AuthError::failed(format!(
                "authorization server {}'s registration answer has no client_id",
                server.issuer
            ))
        })?;
    let auth_method = match registration.token_endpoint_auth_method.as_deref() {
        None => AuthMethod::choose(registration.client_secret.is_some(), server),
        Some(name) => AuthMethod::parse(name).ok_or_else(|| {
            AuthError::failed(format!(
                "authorization server {} registered the client for token endpoint authentication {:?}, which this sidecar does not do",
                server.issuer,
                name.chars().take(60).collect::<String>()
            ))
        })?,
    };
    Ok(Client {
        client_id: registration.client_id,
        client_secret: registration.client_secret,
        auth_method,
        redirect_uri: Some(i.redirect_uri.to_owned()),
    })
}
