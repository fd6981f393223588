//! The one failure type of OAuth, and the stable code each kind is reported with: a person must
//! log in (`AUTH_REQUIRED`), the authorization cannot work as the server, its authorization server
//! or the config set it up (`AUTH_FAILED`), or an endpoint could not be reached (`NETWORK_ERROR`).
//! Messages name the server, the endpoint and the cause, never a token, a code or a secret.

use crate::error::{Error, ErrorCode};

/// Why authorizing a request did not work.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Only a person can go on: no token yet, a refresh the authorization server refused, a scope
    /// the token lacks, a login declined or timed out, a logout. `url`: the authorization URL of a
    /// login waiting for the browser, when there is one.
    #[error("{why}")]
    LoginRequired { why: String, url: Option<String> },
    /// The authorization cannot work as things are set up: metadata that does not validate, no
    /// PKCE S256, no way to identify the client, an authorization response that fails its checks
    /// (state, issuer), an endpoint that refused the client.
    #[error("{why}")]
    Failed { why: String },
    /// The server refused the request (401) but publishes no protected resource metadata: nothing
    /// says OAuth would help.
    #[error("{why}")]
    NotProtected { why: String },
    /// An authorization or metadata endpoint could not be reached, or its answer broke off.
    #[error("{during}: {}", chain(source))]
    Network {
        during: String,
        #[source]
        source: reqwest::Error,
    },
}

impl AuthError {
    pub fn login(why: impl Into<String>) -> Self {
        Self::LoginRequired {
            why: why.into(),
            url: None,
        }
    }

    pub fn failed(why: impl Into<String>) -> Self {
        Self::Failed { why: why.into() }
    }

    /// The stable code this failure is reported with.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::LoginRequired { .. } => ErrorCode::AuthRequired,
            Self::Failed { .. } | Self::NotProtected { .. } => ErrorCode::AuthFailed,
            Self::Network { .. } => ErrorCode::NetworkError,
        }
    }

    /// Whether a login by a person is the way on (the server waits in `needs_login`).
    pub fn needs_login(&self) -> bool {
        matches!(self, Self::LoginRequired { .. })
    }
}

impl From<AuthError> for Error {
    fn from(e: AuthError) -> Self {
        let error = Error::new(e.code(), e.to_string());
        match e {
            AuthError::LoginRequired { url: Some(url), .. } => error.with("authorizationUrl", url),
            _ => error,
        }
    }
}

/// An error and its causes as one line.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}
