//! The `oauth` object of a remote server's config: how the sidecar identifies itself to the
//! server's authorization server. Every field is optional — without any, the client registers
//! itself dynamically — and each is read in camelCase and snake_case alike.
//!
//! - `clientId`, `clientSecret?`: a client registered beforehand (the secret is masked everywhere);
//! - `clientMetadataUrl`: a Client ID Metadata Document (an https URL with a path) used as the
//!   client id where the authorization server supports it;
//! - `scopes`: the scopes asked for at the first login, instead of the server's challenge;
//! - `redirectUri`: where the authorization server sends the browser back (default: a loopback
//!   listener on 127.0.0.1 with a random port); loopback `http` or `https` only;
//! - `issuer`: the authorization server a pre-registered client belongs to (a server that names
//!   another one is refused instead of being sent the client's credentials);
//! - `grant`: `authorization_code` (the default: a login in a browser) or `client_credentials`
//!   (OAuth 2.1 §4.2, the MCP client-credentials extension: the client's own id and secret buy the
//!   token, no person and no browser; needs `clientId` and `clientSecret` or
//!   `clientAssertionKeyFile`);
//! - `clientAssertionKeyFile`: a PEM private key (EC P-256 or RSA) the client signs its
//!   `private_key_jwt` assertion with (RFC 7523), instead of a secret;
//! - `tokenFile`: a file the access token is read from, kept fresh by something else (a mounted
//!   Secret, a shared volume): the sidecar never logs in, refreshes or writes for the server
//!   (`oauth/token_file.rs`); not with the client-credentials grant.

use reqwest::Url;
use serde::Deserialize;
use serde_json::Value;

use super::invalid::invalid;
use super::strict::{self, Problem};
use crate::error::Result;

/// A validated `oauth` object.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct OAuthSpec {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub scopes: Option<Vec<String>>,
    pub client_metadata_url: Option<Url>,
    pub redirect_uri: Option<Url>,
    pub issuer: Option<String>,
    pub grant: Grant,
    pub client_assertion_key_file: Option<std::path::PathBuf>,
    pub token_file: Option<std::path::PathBuf>,
}

/// How tokens are obtained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Grant {
    /// A login: the browser step, then the code exchanged.
    #[default]
    AuthorizationCode,
    /// The client's credentials alone, no browser.
    ClientCredentials,
}

impl std::fmt::Debug for OAuthSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Specs are logged: the secret is never printed, only whether there is one.
        f.debug_struct("OAuthSpec")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("scopes", &self.scopes)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("redirect_uri", &self.redirect_uri)
            .field("issuer", &self.issuer)
            .field("grant", &self.grant)
            .field("client_assertion_key_file", &self.client_assertion_key_file)
            .field("token_file", &self.token_file)
            .finish()
    }
}

#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawOAuth {
    #[serde(default, alias = "client_id", deserialize_with = "strict::present")]
    client_id: Option<String>,
    #[serde(default, alias = "client_secret", deserialize_with = "strict::present")]
    client_secret: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    scopes: Option<Vec<String>>,
    #[serde(
        default,
        alias = "client_metadata_url",
        deserialize_with = "strict::present"
    )]
    client_metadata_url: Option<String>,
    #[serde(default, alias = "redirect_uri", deserialize_with = "strict::present")]
    redirect_uri: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    issuer: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    grant: Option<String>,
    #[serde(
        default,
        alias = "client_assertion_key_file",
        deserialize_with = "strict::present"
    )]
    client_assertion_key_file: Option<String>,
    #[serde(default, alias = "token_file", deserialize_with = "strict::present")]
    token_file: Option<String>,
}

/// The canonical (camelCase) names of the `oauth` object's fields.
pub fn oauth_field_names() -> Vec<&'static str> {
    strict::canonical_names::<RawOAuth>()
}

/// Parses and validates the `oauth` object; errors name `oauth.<field>`.
pub(super) fn parse_oauth(value: &Value) -> Result<OAuthSpec> {
    let raw = strict::read_at::<RawOAuth>(value, Some("oauth"))
        .map_err(|p| match p {
            Problem::Invalid(e) => e,
            Problem::WrongType { top, at } => invalid(&format!("oauth.{at}"), expects(top)),
        })?
        .value;
    let non_empty = |field: &str, v: Option<String>| match v {
        Some(s) if s.trim().is_empty() => {
            Err(invalid(&format!("oauth.{field}"), "must not be empty"))
        }
        other => Ok(other),
    };
    let client_id = non_empty("clientId", raw.client_id)?;
    let client_secret = non_empty("clientSecret", raw.client_secret)?;
    if client_secret.is_some() && client_id.is_none() {
        return Err(invalid(
            "oauth.clientSecret",
            "needs `clientId` (a secret belongs to a pre-registered client)",
        ));
    }
    let client_metadata_url = raw
        .client_metadata_url
        .map(|u| client_metadata_url(&u))
        .transpose()?;
    if client_id.is_some() && client_metadata_url.is_some() {
        return Err(invalid(
            "oauth.clientMetadataUrl",
            "give either `clientId` (a pre-registered client) or `clientMetadataUrl`, not both",
        ));
    }
    let scopes = raw.scopes.map(checked_scopes).transpose()?;
    let redirect_uri = raw.redirect_uri.map(|u| redirect_uri(&u)).transpose()?;
    let issuer = non_empty("issuer", raw.issuer)?;
    let grant = match raw.grant.as_deref() {
        None | Some("authorization_code") => Grant::AuthorizationCode,
        Some("client_credentials") => Grant::ClientCredentials,
        Some(_) => {
            return Err(invalid(
                "oauth.grant",
                "must be \"authorization_code\" or \"client_credentials\"",
            ))
        }
    };
    let client_assertion_key_file =
        non_empty("clientAssertionKeyFile", raw.client_assertion_key_file)?
            .map(std::path::PathBuf::from);
    if client_assertion_key_file.is_some() && client_id.is_none() {
        return Err(invalid(
            "oauth.clientAssertionKeyFile",
            "needs `clientId` (the assertion names the client)",
        ));
    }
    if grant == Grant::ClientCredentials
        && client_secret.is_none()
        && client_assertion_key_file.is_none()
    {
        return Err(invalid(
            "oauth.grant",
            "\"client_credentials\" needs `clientId` with `clientSecret` or `clientAssertionKeyFile` (the client's own credentials buy its tokens)",
        ));
    }
    let token_file = non_empty("tokenFile", raw.token_file)?.map(std::path::PathBuf::from);
    if token_file.is_some() && grant == Grant::ClientCredentials {
        return Err(invalid(
            "oauth.tokenFile",
            "give either `tokenFile` (a token kept fresh elsewhere) or `grant: \"client_credentials\"` (each replica buys its own), not both",
        ));
    }
    Ok(OAuthSpec {
        client_id,
        client_secret,
        scopes,
        client_metadata_url,
        redirect_uri,
        issuer,
        grant,
        client_assertion_key_file,
        token_file,
    })
}

fn expects(field: &str) -> &'static str {
    match field {
        "scopes" => "must be an array of scope names",
        _ => "must be a string",
    }
}

fn checked_scopes(scopes: Vec<String>) -> Result<Vec<String>> {
    for (i, s) in scopes.iter().enumerate() {
        // RFC 6749 §3.3: printable ASCII except space, `"` and `\`.
        let valid = !s.is_empty()
            && s.bytes()
                .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\');
        if !valid {
            return Err(invalid(
                &format!("oauth.scopes[{i}]"),
                "is not a scope name (printable ASCII without spaces, quotes or backslashes)",
            ));
        }
    }
    Ok(scopes)
}

/// A Client ID Metadata Document's URL: https with a path (the document's `client_id` is this URL).
fn client_metadata_url(text: &str) -> Result<Url> {
    let field = "oauth.clientMetadataUrl";
    let url = Url::parse(text).map_err(|e| invalid(field, format!("is not a valid URL: {e}")))?;
    if url.scheme() != "https" || url.path().is_empty() || url.path() == "/" {
        return Err(invalid(field, "must be an https URL with a path"));
    }
    if url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(field, "must not carry credentials or a fragment"));
    }
    Ok(url)
}

/// Where the browser comes back: https, or http on a loopback address (the sidecar listens there).
fn redirect_uri(text: &str) -> Result<Url> {
    let field = "oauth.redirectUri";
    let url = Url::parse(text).map_err(|e| invalid(field, format!("is not a valid URL: {e}")))?;
    if url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(field, "must not carry credentials or a fragment"));
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback_host(&url) => Ok(url),
        "http" => Err(invalid(
            field,
            "an http redirect must go to a loopback address (127.0.0.1, [::1] or localhost)",
        )),
        other => Err(invalid(
            field,
            format!("scheme {other:?} is not http or https"),
        )),
    }
}

/// `127.0.0.1`, `[::1]` or `localhost`: where an `http` redirect may go.
pub fn is_loopback_host(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field_of(v: Value) -> String {
        parse_oauth(&v).unwrap_err().details["field"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Every field in both spellings reads the same value.
    #[test]
    fn every_field_in_both_spellings() {
        let table = [
            ("clientId", json!("cid")),
            ("clientSecret", json!("csecret")),
            ("scopes", json!(["a", "b:c"])),
            (
                "clientMetadataUrl",
                json!("https://app.example/client.json"),
            ),
            ("redirectUri", json!("http://127.0.0.1:33418/callback")),
            ("issuer", json!("https://as.example")),
            ("grant", json!("client_credentials")),
            ("clientAssertionKeyFile", json!("/run/secrets/client.pem")),
            ("tokenFile", json!("/var/run/secrets/mcp/token")),
        ];
        let listed: std::collections::BTreeSet<&str> = table.iter().map(|(f, _)| *f).collect();
        assert_eq!(listed, oauth_field_names().into_iter().collect());
        for (field, value) in table {
            let read = |key: &str| {
                let mut v = json!({});
                v[key] = value.clone();
                if field == "clientAssertionKeyFile" {
                    v["clientId"] = json!("cid");
                }
                if field == "clientSecret" {
                    v["clientId"] = json!("cid");
                }
                if field == "grant" {
                    v["clientId"] = json!("cid");
                    v["clientSecret"] = json!("csecret");
                }
                parse_oauth(&v).unwrap_or_else(|e| panic!("{key}: {e}"))
            };
            let camel = read(field);
            assert_eq!(camel, read(&strict::snake(field)), "{field}");
            assert_ne!(camel, OAuthSpec::default(), "{field}");
        }
    }

    #[test]
    fn errors_name_the_nested_field() {
        assert_eq!(field_of(json!({"clientID": "x"})), "oauth.clientID");
        let e = parse_oauth(&json!({"clientIdd": "x"})).unwrap_err();
        assert!(
            e.message.contains("did you mean `clientId`"),
            "{}",
            e.message
        );
        assert_eq!(field_of(json!({"scopes": ["a", 1]})), "oauth.scopes[1]");
        assert_eq!(field_of(json!({"scopes": ["a b"]})), "oauth.scopes[0]");
        assert_eq!(field_of(json!({"clientSecret": "s"})), "oauth.clientSecret");
        assert_eq!(field_of(json!({"clientId": ""})), "oauth.clientId");
        assert_eq!(field_of(json!({"clientId": null})), "oauth.clientId");
        assert_eq!(field_of(json!("x")), "oauth");
        assert_eq!(
            field_of(json!({"clientMetadataUrl": "http://app.example/c.json"})),
            "oauth.clientMetadataUrl"
        );
        assert_eq!(
            field_of(json!({"clientMetadataUrl": "https://app.example/"})),
            "oauth.clientMetadataUrl"
        );
        assert_eq!(
            field_of(json!({"clientId": "a", "clientMetadataUrl": "https://app.example/c.json"})),
            "oauth.clientMetadataUrl"
        );
        assert_eq!(
            field_of(json!({"redirectUri": "http://evil.example/cb"})),
            "oauth.redirectUri"
        );
        assert!(parse_oauth(&json!({"redirectUri": "http://localhost:8080/cb"})).is_ok());
        assert!(parse_oauth(&json!({"redirectUri": "https://app.example/cb"})).is_ok());
        assert_eq!(field_of(json!({"grant": "implicit"})), "oauth.grant");
        assert_eq!(
            field_of(json!({"grant": "client_credentials", "clientId": "a"})),
            "oauth.grant"
        );
        assert_eq!(field_of(json!({"tokenFile": ""})), "oauth.tokenFile");
        assert_eq!(
            field_of(
                json!({"tokenFile": "/t", "grant": "client_credentials", "clientId": "a", "clientSecret": "s"})
            ),
            "oauth.tokenFile"
        );
    }

    #[test]
    fn debug_hides_the_secret() {
        let spec =
            parse_oauth(&json!({"clientId": "cid", "clientSecret": "very-secret-value"})).unwrap();
        assert!(!format!("{spec:?}").contains("very-secret-value"));
    }
}
