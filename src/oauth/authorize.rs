//! One authorization request (RFC 6749 §4.1 with PKCE, RFC 8707 `resource`) and the checks its
//! answer must pass before its code is used: `state` is the request's, then `iss` (RFC 9207 §2.4,
//! as the MCP specification tabulates it: compared by plain string equality whenever present,
//! required when the server advertises it), then an `error` the server sent, then the code.

use reqwest::Url;

use super::discovery::ServerMetadata;
use super::error::AuthError;
use super::pkce::{random_token, Pkce};

/// An authorization request sent to the browser, and what its answer is checked against.
pub(super) struct Pending {
    /// The URL the person opens.
    pub url: Url,
    pub state: String,
    pub verifier: String,
    pub redirect_uri: String,
    /// The issuer of the validated metadata the request was built from.
    pub issuer: String,
    /// `authorization_response_iss_parameter_supported`.
    pub iss_required: bool,
}

/// What goes into one authorization request.
pub(super) struct Request<'a> {
    pub server: &'a ServerMetadata,
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    /// Space-separated; `None` omits the parameter.
    pub scope: Option<&'a str>,
    /// The `resource` parameter: the protected resource metadata's identifier, verbatim.
    pub resource: &'a str,
}

/// Builds the authorization URL with a fresh PKCE pair (S256) and `state`.
pub(super) fn start(request: &Request<'_>) -> Result<Pending, AuthError> {
    let pkce = Pkce::new()?;
    let state = random_token()?;
    let mut url = request.server.authorization_url()?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("client_id", request.client_id)
            .append_pair("redirect_uri", request.redirect_uri)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &state)
            .append_pair("resource", request.resource);
        if let Some(scope) = request.scope {
            q.append_pair("scope", scope);
        }
    }
    Ok(Pending {
        url,
        state,
        verifier: pkce.verifier,
        redirect_uri: request.redirect_uri.to_owned(),
        issuer: request.server.issuer.clone(),
        iss_required: request
            .server
            .authorization_response_iss_parameter_supported
            == Some(true),
    })
}

/// The authorization code in the redirect the browser was sent to, once the redirect passed every
/// check. A redirect that fails one is refused and its code is never used.
pub(super) fn code_from(pending: &Pending, redirect: &Url) -> Result<String, AuthError> {
    let param = |name: &str| {
        redirect
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    if param("state").as_deref() != Some(pending.state.as_str()) {
        return Err(AuthError::failed(
            "the authorization response's state does not match the request's: refused (the code was not used)",
        ));
    }
    match param("iss") {
        // RFC 9207 §2.4: simple string comparison, no normalisation (no trailing-slash or case
        // folding: a look-alike issuer is a mix-up).
        Some(iss) if iss != pending.issuer => {
            return Err(AuthError::failed(format!(
                "the authorization response names issuer {:?}, not {:?} whose login was started: refused (RFC 9207; the code was not used)",
                iss.chars().take(200).collect::<String>(),
                pending.issuer
            )));
        }
        None if pending.iss_required => {
            return Err(AuthError::failed(format!(
                "authorization server {} advertises the iss parameter but its response has none: refused (RFC 9207; the code was not used)",
                pending.issuer
            )));
        }
        _ => {}
    }
    if let Some(error) = param("error") {
        let description = param("error_description")
            .map(|d| format!(" ({})", d.chars().take(200).collect::<String>()))
            .unwrap_or_default();
        return Err(AuthError::login(format!(
            "authorization server {} did not authorize: {}{description}",
            pending.issuer,
            error.chars().take(100).collect::<String>()
        )));
    }
    match param("code") {
        Some(code) if !code.is_empty() => Ok(code),
        _ => Err(AuthError::failed(
            "the authorization response carries no code",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(iss_supported: Option<bool>) -> ServerMetadata {
        serde_json::from_value(json!({
            "issuer": "http://127.0.0.1:9",
            "authorization_endpoint": "http://127.0.0.1:9/authorize?tenant=t",
            "token_endpoint": "http://127.0.0.1:9/token",
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": iss_supported,
        }))
        .unwrap()
    }

    fn pending(iss_supported: Option<bool>) -> Pending {
        start(&Request {
            server: &server(iss_supported),
            client_id: "cid",
            redirect_uri: "http://127.0.0.1:5/callback",
            scope: Some("a b"),
            resource: "http://127.0.0.1:7",
        })
        .unwrap()
    }

    fn redirect(p: &Pending, extra: &str) -> Url {
        Url::parse(&format!(
            "http://127.0.0.1:5/callback?code=the-code&state={}{extra}",
            p.state
        ))
        .unwrap()
    }

    #[test]
    fn the_request_carries_pkce_state_resource_and_scope() {
        let p = pending(None);
        let q: std::collections::HashMap<_, _> = p.url.query_pairs().into_owned().collect();
        assert_eq!(q["tenant"], "t", "the endpoint's own query is kept");
        assert_eq!(q["response_type"], "code");
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(q["code_challenge"], crate::oauth::pkce::s256(&p.verifier));
        assert_eq!(q["state"], p.state);
        assert_eq!(
            q["resource"], "http://127.0.0.1:7",
            "verbatim, no slash added"
        );
        assert_eq!(q["scope"], "a b");
    }

    /// The MCP specification's table of RFC 9207 cases, and the state check before it.
    #[test]
    fn iss_and_state_checks() {
        let p = pending(Some(true));
        assert_eq!(
            code_from(&p, &redirect(&p, "&iss=http%3A%2F%2F127.0.0.1%3A9")).unwrap(),
            "the-code"
        );
        assert!(
            code_from(&p, &redirect(&p, "")).is_err(),
            "advertised, absent"
        );
        assert!(
            code_from(&p, &redirect(&p, "&iss=http%3A%2F%2F127.0.0.1%3A9%2F")).is_err(),
            "trailing slash"
        );
        assert!(code_from(&p, &redirect(&p, "&iss=https%3A%2F%2Fevil.example.com")).is_err());
        let q = pending(None);
        assert_eq!(
            code_from(&q, &redirect(&q, "")).unwrap(),
            "the-code",
            "not advertised, absent"
        );
        assert!(
            code_from(&q, &redirect(&q, "&iss=https%3A%2F%2Fevil.example.com")).is_err(),
            "not advertised, wrong"
        );
        let wrong_state = Url::parse("http://127.0.0.1:5/callback?code=c&state=other").unwrap();
        let e = code_from(&q, &wrong_state).unwrap_err();
        assert!(e.to_string().contains("state"), "{e}");
        // An error response with a wrong iss is refused without acting on its error.
        let e = code_from(
            &p,
            &Url::parse(&format!(
                "http://x/?state={}&error=access_denied&iss=https%3A%2F%2Fevil",
                p.state
            ))
            .unwrap(),
        )
        .unwrap_err();
        assert!(!e.to_string().contains("access_denied"), "{e}");
        let e = code_from(
            &q,
            &Url::parse(&format!("http://x/?state={}&error=access_denied", q.state)).unwrap(),
        )
        .unwrap_err();
        assert!(
            e.needs_login() && e.to_string().contains("access_denied"),
            "{e}"
        );
    }
}
