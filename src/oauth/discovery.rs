//! Discovery: the server's protected resource metadata (RFC 9728) — from the challenge's
//! `resource_metadata`, else the path-based then the root well-known URI — and its authorization
//! server's metadata (RFC 8414, then OpenID Connect Discovery, in the order the MCP specification
//! gives), each validated before anything in it is used: the resource must be the server (same
//! origin, a prefix of its path), the metadata's `issuer` must be the one its URL was built from,
//! PKCE S256 must be offered, endpoints must be https (or loopback http).

use reqwest::{StatusCode, Url};
use serde::Deserialize;
use serde_json::Value;

use super::challenge::Challenge;
use super::error::AuthError;
use super::http::OAuthHttp;
use crate::config::is_loopback_host;

/// RFC 9728 protected resource metadata, the fields used.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct ResourceMetadata {
    /// The resource identifier, sent verbatim as the `resource` parameter (RFC 8707).
    pub resource: String,
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// RFC 8414 / OpenID Connect Discovery metadata, the fields used.
#[derive(Clone, Debug, Deserialize)]
pub struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub response_types_supported: Option<Vec<String>>,
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    #[serde(default)]
    pub client_id_metadata_document_supported: Option<bool>,
}

impl ServerMetadata {
    pub fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_deref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }

    pub fn supports_auth_method(&self, method: &str) -> bool {
        self.token_endpoint_auth_methods_supported
            .as_deref()
            .is_some_and(|s| s.iter().any(|x| x == method))
    }

    pub fn authorization_url(&self) -> Result<Url, AuthError> {
        endpoint(&self.authorization_endpoint, "authorization_endpoint")
    }

    pub fn token_url(&self) -> Result<Url, AuthError> {
        endpoint(&self.token_endpoint, "token_endpoint")
    }

    pub fn registration_url(&self) -> Result<Option<Url>, AuthError> {
        self.registration_endpoint
            .as_deref()
            .map(|e| endpoint(e, "registration_endpoint"))
            .transpose()
    }
}

/// What discovery found for a server: its resource metadata and its authorization server's.
#[derive(Clone, Debug)]
pub(super) struct Discovered {
    pub resource: ResourceMetadata,
    pub server: ServerMetadata,
}

/// Discovers and validates the protected resource metadata of the MCP server at `server_url`.
pub(super) async fn discover_resource(
    http: &OAuthHttp,
    server_url: &Url,
    challenge: &Challenge,
) -> Result<ResourceMetadata, AuthError> {
    let candidates = match challenge.resource_metadata.as_deref() {
        Some(given) => vec![Url::parse(given).map_err(|e| {
            AuthError::failed(format!(
                "the server's challenge names resource_metadata {given:?}, which is not a URL: {e}"
            ))
        })?],
        None => resource_metadata_urls(server_url),
    };
    let mut tried = Vec::new();
    for url in &candidates {
        let answer = http
            .get(url, "fetching the protected resource metadata")
            .await?;
        if answer.status == StatusCode::NOT_FOUND || answer.status.is_client_error() {
            tried.push(format!("{url} (HTTP {})", answer.status.as_u16()));
            continue;
        }
        let doc = document(
            answer.status,
            answer.json,
            url,
            "protected resource metadata",
        )?;
        let meta: ResourceMetadata = serde_json::from_value(doc).map_err(|e| {
            AuthError::failed(format!(
                "the protected resource metadata at {url} is invalid: {e}"
            ))
        })?;
        check_resource(&meta, server_url)?;
        return Ok(meta);
    }
    Err(AuthError::NotProtected {
        why: format!(
            "the server asked for authorization but publishes no protected resource metadata (RFC 9728); tried {}",
            tried.join(", ")
        ),
    })
}

/// Discovers and validates the metadata of the authorization server `issuer`.
pub(super) async fn discover_server(
    http: &OAuthHttp,
    issuer: &str,
) -> Result<ServerMetadata, AuthError> {
    let issuer_url = Url::parse(issuer).map_err(|e| {
        AuthError::failed(format!("authorization server {issuer:?} is not a URL: {e}"))
    })?;
    let mut tried = Vec::new();
    for url in server_metadata_urls(&issuer_url) {
        let answer = http
            .get(&url, "fetching the authorization server metadata")
            .await?;
        if answer.status.is_client_error() {
            tried.push(format!("{url} (HTTP {})", answer.status.as_u16()));
            continue;
        }
        let doc = document(
            answer.status,
            answer.json,
            &url,
            "authorization server metadata",
        )?;
        let meta: ServerMetadata = serde_json::from_value(doc).map_err(|e| {
            AuthError::failed(format!(
                "the authorization server metadata at {url} is invalid: {e}"
            ))
        })?;
        check_server(&meta, issuer, &url)?;
        return Ok(meta);
    }
    Err(AuthError::failed(format!(
        "authorization server {issuer} publishes no metadata (RFC 8414 or OpenID Connect Discovery); tried {}",
        tried.join(", ")
    )))
}

/// Where the protected resource metadata may be, in order: path-based, then root (RFC 9728 §3.1).
pub(super) fn resource_metadata_urls(server_url: &Url) -> Vec<Url> {
    let mut out = Vec::new();
    let path = server_url.path().trim_end_matches('/');
    let at = |path: &str| {
        let mut u = server_url.clone();
        u.set_path(path);
        u.set_query(None);
        u.set_fragment(None);
        u
    };
    if !path.is_empty() {
        out.push(at(&format!("/.well-known/oauth-protected-resource{path}")));
    }
    out.push(at("/.well-known/oauth-protected-resource"));
    out
}

/// Where an authorization server's metadata may be, in the MCP specification's order: with a path
/// (`/tenant1`) the RFC 8414 path insertion, OIDC path insertion, OIDC path appending; without,
/// RFC 8414 then OIDC.
pub(super) fn server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let at = |p: String| {
        let mut u = issuer.clone();
        u.set_path(&p);
        u.set_query(None);
        u.set_fragment(None);
        u
    };
    if path.is_empty() {
        vec![
            at("/.well-known/oauth-authorization-server".to_owned()),
            at("/.well-known/openid-configuration".to_owned()),
        ]
    } else {
        vec![
            at(format!("/.well-known/oauth-authorization-server{path}")),
            at(format!("/.well-known/openid-configuration{path}")),
            at(format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

/// A successful answer's JSON object, or why it is not one.
fn document(
    status: StatusCode,
    json: Option<Value>,
    url: &Url,
    what: &str,
) -> Result<Value, AuthError> {
    if !status.is_success() {
        return Err(AuthError::failed(format!(
            "fetching the {what} at {url} failed with HTTP {}",
            status.as_u16()
        )));
    }
    match json {
        Some(v @ Value::Object(_)) => Ok(v),
        _ => Err(AuthError::failed(format!(
            "the {what} at {url} is not a JSON object"
        ))),
    }
}

/// The resource must be the server: same origin, and its path a prefix of the server's (so a
/// metadata document cannot obtain tokens for another resource). An authorization server must be
/// named.
fn check_resource(meta: &ResourceMetadata, server_url: &Url) -> Result<(), AuthError> {
    let resource = Url::parse(&meta.resource).map_err(|e| {
        AuthError::failed(format!(
            "the protected resource metadata names resource {:?}, which is not a URL: {e}",
            meta.resource
        ))
    })?;
    let with_slash = |p: &str| {
        if p.ends_with('/') {
            p.to_owned()
        } else {
            format!("{p}/")
        }
    };
    let matches = resource.origin() == server_url.origin()
        && resource.fragment().is_none()
        && with_slash(server_url.path()).starts_with(&with_slash(resource.path()));
    if !matches {
        return Err(AuthError::failed(format!(
            "the protected resource metadata is for {} but the server is {server_url}: refused (a token for another resource is never requested)",
            meta.resource
        )));
    }
    if meta.authorization_servers.is_empty() {
        return Err(AuthError::failed(
            "the protected resource metadata names no authorization server",
        ));
    }
    Ok(())
}

/// RFC 8414 §3.3: `issuer` identical to the one the URL was built from; PKCE S256 offered
/// (the MCP specification: refuse to go on without it); the `code` response type; usable endpoints.
fn check_server(meta: &ServerMetadata, issuer: &str, url: &Url) -> Result<(), AuthError> {
    if meta.issuer != issuer {
        return Err(AuthError::failed(format!(
            "the authorization server metadata at {url} names issuer {:?}, not {issuer:?}: refused (RFC 8414 §3.3)",
            meta.issuer
        )));
    }
    let s256 = meta
        .code_challenge_methods_supported
        .as_deref()
        .is_some_and(|m| m.iter().any(|m| m == "S256"));
    if !s256 {
        return Err(AuthError::failed(format!(
            "authorization server {issuer} does not offer PKCE with S256 (code_challenge_methods_supported); the MCP authorization flow requires it, so the sidecar will not log in there"
        )));
    }
    if let Some(types) = &meta.response_types_supported {
        if !types.iter().any(|t| t == "code") {
            return Err(AuthError::failed(format!(
                "authorization server {issuer} does not offer the authorization code flow (response_types_supported)"
            )));
        }
    }
    meta.authorization_url()?;
    meta.token_url()?;
    meta.registration_url()?;
    Ok(())
}

/// An endpoint URL: https, or http on a loopback host.
fn endpoint(text: &str, field: &str) -> Result<Url, AuthError> {
    let url = Url::parse(text).map_err(|e| {
        AuthError::failed(format!(
            "the authorization server's {field} {text:?} is not a URL: {e}"
        ))
    })?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback_host(&url) => Ok(url),
        _ => Err(AuthError::failed(format!(
            "the authorization server's {field} {url} is not https (only a loopback endpoint may be plain http)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn resource_metadata_order() {
        let u = Url::parse("https://h.example/public/mcp?x=1").unwrap();
        assert_eq!(
            strings(resource_metadata_urls(&u)),
            [
                "https://h.example/.well-known/oauth-protected-resource/public/mcp",
                "https://h.example/.well-known/oauth-protected-resource"
            ]
        );
        let root = Url::parse("https://h.example").unwrap();
        assert_eq!(
            strings(resource_metadata_urls(&root)),
            ["https://h.example/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn server_metadata_order() {
        let with_path = Url::parse("https://auth.example.com/tenant1").unwrap();
        assert_eq!(
            strings(server_metadata_urls(&with_path)),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        let root = Url::parse("https://auth.example.com").unwrap();
        assert_eq!(
            strings(server_metadata_urls(&root)),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
    }

    fn resource(r: &str) -> ResourceMetadata {
        serde_json::from_value(json!({"resource": r, "authorization_servers": ["https://as"]}))
            .unwrap()
    }

    #[test]
    fn the_resource_must_be_the_server() {
        let server = Url::parse("http://localhost:3000/mcp").unwrap();
        for ok in [
            "http://localhost:3000/mcp",
            "http://localhost:3000",
            "http://localhost:3000/",
        ] {
            assert!(check_resource(&resource(ok), &server).is_ok(), "{ok}");
        }
        for bad in [
            "https://evil.example.com/mcp",
            "http://localhost:3001/mcp",
            "http://localhost:3000/mc",
            "http://localhost:3000/mcp/deeper",
            "not a url",
        ] {
            assert!(check_resource(&resource(bad), &server).is_err(), "{bad}");
        }
        let none: ResourceMetadata =
            serde_json::from_value(json!({"resource": "http://localhost:3000/mcp"})).unwrap();
        assert!(check_resource(&none, &server).is_err());
    }

    fn server(extra: Value) -> ServerMetadata {
        let mut v = json!({
            "issuer": "https://as.example",
            "authorization_endpoint": "https://as.example/authorize",
            "token_endpoint": "https://as.example/token",
            "code_challenge_methods_supported": ["S256"],
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn server_metadata_is_validated() {
        let url = Url::parse("https://as.example/.well-known/oauth-authorization-server").unwrap();
        assert!(check_server(&server(json!({})), "https://as.example", &url).is_ok());
        let e = check_server(&server(json!({})), "https://as.example/", &url).unwrap_err();
        assert!(e.to_string().contains("names issuer"), "{e}");
        let e = check_server(
            &server(json!({"code_challenge_methods_supported": ["plain"]})),
            "https://as.example",
            &url,
        )
        .unwrap_err();
        assert!(e.to_string().contains("PKCE with S256"), "{e}");
        let mut no_pkce = server(json!({}));
        no_pkce.code_challenge_methods_supported = None;
        assert!(check_server(&no_pkce, "https://as.example", &url).is_err());
        let e = check_server(
            &server(json!({"token_endpoint": "http://as.example/token"})),
            "https://as.example",
            &url,
        )
        .unwrap_err();
        assert!(e.to_string().contains("not https"), "{e}");
        assert!(check_server(
            &server(json!({"token_endpoint": "http://127.0.0.1:9/token"})),
            "https://as.example",
            &url
        )
        .is_ok());
        assert!(check_server(
            &server(json!({"response_types_supported": ["token"]})),
            "https://as.example",
            &url
        )
        .is_err());
    }
}
