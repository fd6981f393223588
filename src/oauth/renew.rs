//! A refresh of the tokens in use (RFC 6749 §6): at the authorization server the record names, as
//! the client known there (the configured one, or the one registered with it), for the resource
//! the tokens were asked for. Nothing here keeps anything: the caller stores the result.

use reqwest::Url;

use super::discovery::discover_server;
use super::http::OAuthHttp;
use super::register::configured_client;
use super::store::Record;
use super::token::{RefreshError, TokenRequest, Tokens};
use crate::config::OAuthSpec;

/// New tokens for the authorization server in use in `record` (returned with its issuer), from
/// `refresh_token`. `server_url` is the resource when the record names none.
pub(super) async fn refresh(
    http: &OAuthHttp,
    spec: Option<&OAuthSpec>,
    record: &Record,
    server_url: &Url,
    refresh_token: &str,
) -> Result<(String, Tokens), RefreshError> {
    let Some((issuer, entry)) = record.current() else {
        return Err(RefreshError::Refused(
            "no authorization server is recorded".to_owned(),
        ));
    };
    let resource = entry
        .resource
        .clone()
        .unwrap_or_else(|| server_url.to_string());
    let server = discover_server(http, issuer)
        .await
        .map_err(RefreshError::Other)?;
    let Some(client) = configured_client(spec, &server).or_else(|| entry.client.clone()) else {
        return Err(RefreshError::Refused(format!(
            "no client is known at {issuer} to refresh with"
        )));
    };
    let fresh = TokenRequest {
        http,
        server: &server,
        client: &client,
        resource: &resource,
        assertion: None,
    }
    .refresh(refresh_token)
    .await?;
    Ok((issuer.to_owned(), fresh))
}
