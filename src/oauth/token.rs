//! The token endpoint: the authorization code exchanged for tokens (with the PKCE verifier and the
//! `resource`), a refresh, the client's authentication there (`client_secret_basic`,
//! `client_secret_post` or `none`), and the tokens as kept (`Tokens`, with the time they expire).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::discovery::ServerMetadata;
use super::error::AuthError;
use super::http::{Answer, OAuthHttp};
use crate::limits;

/// How the client authenticates at the token endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    /// HTTP Basic with the form-encoded id and secret (RFC 6749 §2.3.1).
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body.
    ClientSecretPost,
    /// A public client: `client_id` in the form body, no secret.
    None,
}

impl AuthMethod {
    /// The method named in registration metadata, if it is one of ours.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(Self::ClientSecretBasic),
            "client_secret_post" => Some(Self::ClientSecretPost),
            "none" => Some(Self::None),
            _ => None,
        }
    }

    /// For a client with (or without) a secret, given what the server supports: Basic by default
    /// (RFC 8414 §2), the form body when that is all it takes.
    pub fn choose(has_secret: bool, server: &ServerMetadata) -> Self {
        if !has_secret {
            Self::None
        } else if !server.supports_auth_method("client_secret_basic")
            && server.supports_auth_method("client_secret_post")
        {
            Self::ClientSecretPost
        } else {
            Self::ClientSecretBasic
        }
    }
}

/// A client as the token endpoint knows it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    pub auth_method: AuthMethod,
    /// The redirect URI registered for it (dynamic registration), reused when it is free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("auth_method", &self.auth_method)
            .finish()
    }
}

/// Tokens as kept: in memory and in the token store.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tokens {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Seconds since the Unix epoch when the access token was obtained and when it expires.
    pub obtained_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted, when the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("refresh_token", &self.refresh_token.is_some())
            .field("obtained_at", &self.obtained_at)
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

impl Tokens {
    /// Whether the access token is due for a refresh at `now`: within the skew of its expiry, the
    /// skew being [`limits::OAUTH_REFRESH_SKEW`] or half its lifetime, whichever is shorter. A
    /// token without an expiry is used until the server refuses it.
    pub fn due(&self, now: u64) -> bool {
        let Some(expires_at) = self.expires_at else {
            return false;
        };
        let lifetime = expires_at.saturating_sub(self.obtained_at);
        let skew = limits::OAUTH_REFRESH_SKEW.as_secs().min(lifetime / 2);
        now.saturating_add(skew) >= expires_at
    }

    /// Whether the access token has expired at `now`.
    pub fn expired(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|e| now >= e)
    }

    /// The values that must never be shown: the access and refresh tokens.
    pub fn secrets(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.access_token.as_str()).chain(self.refresh_token.as_deref())
    }
}

/// Seconds since the Unix epoch.
pub(super) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}

/// Why a refresh did not give tokens.
pub(super) enum RefreshError {
    /// The authorization server refused the refresh token (`invalid_grant` and the like): only a
    /// new login helps.
    Refused(String),
    /// Anything else (network, a server error): the refresh may work later.
    Other(AuthError),
}

/// The request parts every token request shares.
pub(super) struct TokenRequest<'a> {
    pub http: &'a OAuthHttp,
    pub server: &'a ServerMetadata,
    pub client: &'a Client,
    /// The `resource` parameter (RFC 8707): the protected resource metadata's identifier.
    pub resource: &'a str,
    /// A signed `private_key_jwt` assertion, sent instead of the client's secret.
    pub assertion: Option<&'a str>,
}

impl TokenRequest<'_> {
    /// `authorization_code` grant.
    pub(super) async fn exchange_code(
        &self,
        code: &str,
        redirect_uri: &str,
        verifier: &str,
    ) -> Result<Tokens, AuthError> {
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
            ("resource", self.resource),
        ];
        let answer = self
            .post(&form, "exchanging the authorization code")
            .await?;
        if !answer.status.is_success() {
            return Err(AuthError::failed(endpoint_refusal(
                &self.server.issuer,
                "the authorization code",
                &answer,
            )));
        }
        parse_tokens(answer.json, None)
    }

    /// `client_credentials` grant (OAuth 2.1 §4.2): the client's own credentials buy the token,
    /// for the `scope` asked (space-separated), bound to the `resource`.
    pub(super) async fn client_credentials(
        &self,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let mut form = vec![
            ("grant_type", "client_credentials"),
            ("resource", self.resource),
        ];
        if let Some(scope) = scope {
            form.push(("scope", scope));
        }
        let answer = self
            .post(&form, "asking for a token with the client's credentials")
            .await?;
        if !answer.status.is_success() {
            return Err(AuthError::failed(endpoint_refusal(
                &self.server.issuer,
                "the client's credentials",
                &answer,
            )));
        }
        parse_tokens(answer.json, None)
    }

    /// `refresh_token` grant. A new refresh token replaces the old one; without one the old stays.
    pub(super) async fn refresh(&self, refresh_token: &str) -> Result<Tokens, RefreshError> {
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("resource", self.resource),
        ];
        let answer = self
            .post(&form, "refreshing the access token")
            .await
            .map_err(RefreshError::Other)?;
        if answer.status.is_success() {
            return parse_tokens(answer.json, Some(refresh_token)).map_err(RefreshError::Other);
        }
        let why = endpoint_refusal(&self.server.issuer, "the refresh token", &answer);
        // RFC 6749 §5.2: 400 (or 401 for the client) with an error code means the grant or the
        // client was refused; a 5xx may pass.
        if answer.status.is_client_error() {
            Err(RefreshError::Refused(why))
        } else {
            Err(RefreshError::Other(AuthError::failed(why)))
        }
    }

    async fn post(&self, form: &[(&str, &str)], during: &str) -> Result<Answer, AuthError> {
        let url = self.server.token_url()?;
        let client = self.client;
        let mut fields: Vec<(&str, &str)> = form.to_vec();
        let encoded;
        if let Some(assertion) = self.assertion {
            fields.push(("client_id", &client.client_id));
            fields.push((
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            ));
            fields.push(("client_assertion", assertion));
            return self.http.post_form(&url, &fields, None, during).await;
        }
        let basic = match (client.auth_method, client.client_secret.as_deref()) {
            (AuthMethod::ClientSecretBasic, Some(secret)) => {
                encoded = (form_encode(&client.client_id), form_encode(secret));
                Some((encoded.0.as_str(), encoded.1.as_str()))
            }
            (AuthMethod::ClientSecretPost, Some(secret)) => {
                fields.push(("client_id", &client.client_id));
                fields.push(("client_secret", secret));
                None
            }
            _ => {
                fields.push(("client_id", &client.client_id));
                None
            }
        };
        self.http.post_form(&url, &fields, basic, during).await
    }
}

/// RFC 6749 §2.3.1: id and secret are form-encoded before they go into HTTP Basic.
fn form_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// "the authorization server refused …: invalid_grant (description)", never quoting a token.
fn endpoint_refusal(issuer: &str, what: &str, answer: &Answer) -> String {
    let field = |k: &str| {
        answer
            .json
            .as_ref()
            .and_then(|j| j.get(k))
            .and_then(Value::as_str)
            .map(|s| s.chars().take(200).collect::<String>())
    };
    let mut why = format!(
        "authorization server {issuer} refused {what} (HTTP {})",
        answer.status.as_u16()
    );
    if let Some(code) = field("error") {
        why.push_str(": ");
        why.push_str(&code);
        if let Some(description) = field("error_description") {
            why.push_str(&format!(" ({description})"));
        }
    }
    why
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    token_type: String,
    #[serde(default)]
    expires_in: Option<Value>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

/// A token response (RFC 6749 §5.1): a Bearer token of bounded size.
fn parse_tokens(json: Option<Value>, old_refresh: Option<&str>) -> Result<Tokens, AuthError> {
    let invalid = |why: &str| AuthError::failed(format!("the token endpoint's answer {why}"));
    let json = json.ok_or_else(|| invalid("is not JSON"))?;
    let r: TokenResponse =
        serde_json::from_value(json).map_err(|_| invalid("lacks access_token or token_type"))?;
    if !r.token_type.eq_ignore_ascii_case("bearer") {
        return Err(invalid(&format!(
            "has token_type {:?}; only Bearer tokens are supported",
            r.token_type.chars().take(40).collect::<String>()
        )));
    }
    let sane = |t: &str| {
        !t.is_empty()
            && t.len() <= limits::OAUTH_MAX_TOKEN_BYTES
            && t.bytes().all(|b| (0x21..=0x7e).contains(&b))
    };
    if !sane(&r.access_token) || r.refresh_token.as_deref().is_some_and(|t| !sane(t)) {
        return Err(invalid(&format!(
            "has a token that is empty, longer than {} bytes or not visible ASCII",
            limits::OAUTH_MAX_TOKEN_BYTES
        )));
    }
    let obtained_at = now();
    // Some servers send `expires_in` as a string.
    let expires_in = match &r.expires_in {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    };
    Ok(Tokens {
        access_token: r.access_token,
        refresh_token: r.refresh_token.or(old_refresh.map(str::to_owned)),
        obtained_at,
        expires_at: expires_in.map(|s| obtained_at.saturating_add(s)),
        scope: r.scope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tokens(obtained_at: u64, expires_at: Option<u64>) -> Tokens {
        Tokens {
            access_token: "a".into(),
            refresh_token: Some("r".into()),
            obtained_at,
            expires_at,
            scope: None,
        }
    }

    /// Refreshed within 60 s of expiry, or half the lifetime when that is shorter.
    #[test]
    fn due_with_skew() {
        let long = tokens(1000, Some(1000 + 3600));
        assert!(!long.due(1000));
        assert!(!long.due(1000 + 3600 - 61));
        assert!(long.due(1000 + 3600 - 60));
        assert!(long.due(1000 + 3600 + 5));
        let short = tokens(1000, Some(1010));
        assert!(!short.due(1000));
        assert!(!short.due(1004));
        assert!(short.due(1005));
        assert!(!tokens(1000, None).due(u64::MAX));
    }

    #[test]
    fn token_responses() {
        let t = parse_tokens(
            Some(json!({"access_token": "at", "token_type": "bearer", "expires_in": "120", "scope": "a b"})),
            Some("old-refresh"),
        )
        .unwrap();
        assert_eq!(t.refresh_token.as_deref(), Some("old-refresh"));
        assert_eq!(t.expires_at, Some(t.obtained_at + 120));
        assert!(parse_tokens(
            Some(json!({"access_token": "at", "token_type": "DPoP"})),
            None
        )
        .is_err());
        assert!(parse_tokens(Some(json!({"token_type": "Bearer"})), None).is_err());
        assert!(parse_tokens(
            Some(json!({"access_token": "a b", "token_type": "Bearer"})),
            None
        )
        .is_err());
        let huge = "x".repeat(limits::OAUTH_MAX_TOKEN_BYTES + 1);
        assert!(parse_tokens(
            Some(json!({"access_token": huge, "token_type": "Bearer"})),
            None
        )
        .is_err());
    }

    #[test]
    fn basic_credentials_are_form_encoded() {
        assert_eq!(form_encode("id:with space"), "id%3Awith+space");
    }

    #[test]
    fn debug_shows_no_token() {
        let t = tokens(1, None);
        let c = Client {
            client_id: "id".into(),
            client_secret: Some("the-secret".into()),
            auth_method: AuthMethod::ClientSecretBasic,
            redirect_uri: None,
        };
        let text = format!("{t:?} {c:?}");
        assert!(
            !text.contains("the-secret") && !text.contains("\"a\""),
            "{text}"
        );
    }
}
