//! Requests to OAuth endpoints (metadata documents, registration, the token endpoint): JSON in,
//! bounded reads, no redirects followed (an endpoint that redirects is refused: a token request must
//! not land elsewhere), no proxy for loopback hosts (the environment's proxies otherwise), each
//! request bounded in time. Every URL but the server's own passes [`Reach`] first, and every name
//! is resolved through its [`GuardedResolver`].

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{RequestBuilder, StatusCode, Url};
use serde_json::Value;

use super::error::AuthError;
use super::reach::{GuardedResolver, Reach};
use crate::config::is_loopback_host;
use crate::limits;

/// An endpoint's answer: its status and, when the body is JSON, the document.
pub(super) struct Answer {
    pub status: StatusCode,
    pub json: Option<Value>,
}

/// The HTTP clients of OAuth: one that never uses a proxy (loopback hosts), one that honours the
/// environment's proxies and `NO_PROXY`.
pub(super) struct OAuthHttp {
    direct: reqwest::Client,
    proxied: reqwest::Client,
    /// Which URLs the server's documents may send these clients to.
    reach: Arc<Reach>,
}

impl OAuthHttp {
    /// The clients of the server at `server`.
    pub(super) fn new(server: &Url) -> Result<Self, AuthError> {
        let reach = Arc::new(Reach::new(server));
        let build = |direct: bool| {
            let mut b = reqwest::Client::builder()
                .use_rustls_tls()
                .dns_resolver(Arc::new(GuardedResolver(Arc::clone(&reach))))
                .redirect(reqwest::redirect::Policy::none())
                .timeout(limits::OAUTH_HTTP_TIMEOUT)
                .connect_timeout(Duration::from_secs(10))
                .http1_only();
            if direct {
                b = b.no_proxy();
            }
            b.build().map_err(|source| AuthError::Network {
                during: "building the OAuth HTTP client".to_owned(),
                source,
            })
        };
        Ok(Self {
            direct: build(true)?,
            proxied: build(false)?,
            reach,
        })
    }

    fn client(&self, url: &Url) -> &reqwest::Client {
        if is_loopback_host(url) {
            &self.direct
        } else {
            &self.proxied
        }
    }

    /// `GET url` for a JSON document.
    pub(super) async fn get(&self, url: &Url, during: &str) -> Result<Answer, AuthError> {
        self.reach.admit(url, during).await?;
        let req = self
            .client(url)
            .get(url.clone())
            .header(ACCEPT, "application/json");
        send(req, during).await
    }

    /// The server's challenge to an unauthenticated MCP request (`initialize`), if it answers 401.
    /// The server's own URL is the config's word: it is not checked.
    pub(super) async fn challenge(&self, mcp_url: &Url) -> Option<super::challenge::Challenge> {
        let body = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-sidecar","version":"0"}}}"#;
        let resp = self
            .client(mcp_url)
            .post(mcp_url.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .ok()?;
        (resp.status() == StatusCode::UNAUTHORIZED)
            .then(|| super::challenge::Challenge::from_headers(resp.headers()))
    }

    /// `POST url` with a form body; `basic`: HTTP Basic credentials (already form-encoded parts).
    pub(super) async fn post_form(
        &self,
        url: &Url,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
        during: &str,
    ) -> Result<Answer, AuthError> {
        self.reach.admit(url, during).await?;
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let mut req = self
            .client(url)
            .post(url.clone())
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        if let Some((user, password)) = basic {
            req = req.basic_auth(user, Some(password));
        }
        send(req, during).await
    }

    /// `POST url` with a JSON body.
    pub(super) async fn post_json(
        &self,
        url: &Url,
        body: &Value,
        during: &str,
    ) -> Result<Answer, AuthError> {
        self.reach.admit(url, during).await?;
        let req = self
            .client(url)
            .post(url.clone())
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        send(req, during).await
    }
}

async fn send(req: RequestBuilder, during: &str) -> Result<Answer, AuthError> {
    let network = |source| AuthError::Network {
        during: during.to_owned(),
        source,
    };
    let mut resp = req.send().await.map_err(network)?;
    let status = resp.status();
    if status.is_redirection() {
        return Err(AuthError::failed(format!(
            "{during}: the endpoint answered with a redirect (HTTP {status}); OAuth endpoints are not followed elsewhere"
        )));
    }
    let is_json = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.starts_with("application/json") || v.contains("+json")
        });
    let limit = limits::OAUTH_MAX_RESPONSE_BYTES;
    if resp.content_length().is_some_and(|n| n > limit as u64) {
        return Err(too_long(during));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(network)? {
        if body.len() + chunk.len() > limit {
            return Err(too_long(during));
        }
        body.extend_from_slice(&chunk);
    }
    // Some servers send JSON as text/plain; a body that parses as an object is taken either way.
    let json = serde_json::from_slice::<Value>(&body)
        .ok()
        .filter(|v| is_json || v.is_object());
    Ok(Answer { status, json })
}

fn too_long(during: &str) -> AuthError {
    AuthError::failed(format!(
        "{during}: the answer is longer than {} bytes",
        limits::OAUTH_MAX_RESPONSE_BYTES
    ))
}
