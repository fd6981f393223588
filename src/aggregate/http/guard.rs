//! Who may talk to the HTTP endpoint, checked on every request before anything else is read.
//!
//! - DNS rebinding: on a loopback address the `Host` header must name a loopback host
//!   (`localhost`, `127.0.0.1`, `[::1]`, any port): a page whose name resolves to 127.0.0.1 is
//!   refused (403).
//! - Browsers: a request that carries `Origin` (every cross-site browser request does) is served
//!   only when that origin is a loopback one on a loopback address, or is listed with
//!   `--allow-origin` (403 otherwise).
//! - The bearer token, when one is set (required to listen on any other address): `Authorization:
//!   Bearer <token>` on every request, compared in constant time (401 otherwise). There is no
//!   default token. Which token it is names the client (`access`): what it may do, its rate limit.

use hyper::header::{HeaderValue, AUTHORIZATION, HOST, ORIGIN, WWW_AUTHENTICATE};
use hyper::{HeaderMap, StatusCode};

use super::body::Refusal;
use crate::aggregate::access::{Caller, Keys};

pub(crate) struct Guard {
    /// The endpoint listens on a loopback address.
    loopback: bool,
    keys: Option<Keys>,
    /// `--allow-origin` values, lowercase, without a trailing `/`.
    origins: Vec<String>,
    /// The caller of every request without tokens, made once (each request shares it).
    anonymous: Caller,
}

impl Guard {
    pub(crate) fn new(loopback: bool, keys: Option<Keys>, origins: &[String]) -> Guard {
        Guard {
            loopback,
            keys,
            origins: origins.iter().map(|o| normal_origin(o)).collect(),
            anonymous: Caller::anonymous(),
        }
    }

    /// Who presents `headers`: the client's name, `None` without tokens. A legacy session
    /// belongs to the client that opened it.
    pub(crate) fn caller(&self, headers: &HeaderMap) -> Option<std::sync::Arc<str>> {
        let keys = self.keys.as_ref()?;
        headers
            .get(AUTHORIZATION)
            .and_then(|v| bearer_credentials(v.as_bytes()))
            .and_then(|p| keys.caller(p))
            .map(|c| c.name)
    }

    /// Whether the endpoint takes no token (loopback only): its sessions have no owner.
    pub(crate) fn is_open(&self) -> bool {
        self.keys.is_none()
    }

    /// The client when the request may be served ([`Caller::anonymous`] without tokens); else the
    /// refusal to send.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<Caller, Refusal> {
        self.check_place(headers)?;
        self.check_token(headers)
    }

    /// The checks of where a request comes from (Host, Origin), without the token: what the
    /// health endpoints pass. A kubelet's probe sends `Host: <pod IP>:<port>` and no `Origin`;
    /// the gateway then listens on a non-loopback address, where `Host` is not checked (the
    /// token guards `/mcp` there instead).
    pub(crate) fn check_place(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        if self.loopback && !headers.get(HOST).is_some_and(loopback_host) {
            return Err(forbidden(
                "the Host header must name a loopback host (localhost, 127.0.0.1, [::1])",
            ));
        }
        if let Some(origin) = headers.get(ORIGIN) {
            if !self.origin_allowed(origin) {
                return Err(forbidden("this Origin is not allowed (see --allow-origin)"));
            }
        }
        Ok(())
    }

    fn check_token(&self, headers: &HeaderMap) -> Result<Caller, Refusal> {
        let Some(keys) = &self.keys else {
            return Ok(self.anonymous.clone());
        };
        headers
            .get(AUTHORIZATION)
            .and_then(|v| bearer_credentials(v.as_bytes()))
            .and_then(|p| keys.caller(p))
            .ok_or_else(|| {
                let why = "Unauthorized: a valid `Authorization: Bearer` token is required";
                Refusal::new(StatusCode::UNAUTHORIZED, why).with_header(WWW_AUTHENTICATE, "Bearer")
            })
    }

    fn origin_allowed(&self, origin: &HeaderValue) -> bool {
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        let origin = normal_origin(origin);
        if self.origins.contains(&origin) {
            return true;
        }
        self.loopback
            && ["http://", "https://"]
                .iter()
                .find_map(|scheme| origin.strip_prefix(scheme))
                .is_some_and(is_loopback_authority)
    }
}

/// The credentials of `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 7235
/// §2.1), one or more spaces follow it.
pub(crate) fn bearer_credentials(value: &[u8]) -> Option<&[u8]> {
    let space = value.iter().position(|b| *b == b' ')?;
    let (scheme, rest) = value.split_at(space);
    scheme
        .eq_ignore_ascii_case(b"bearer")
        .then(|| rest.trim_ascii_start())
}

fn forbidden(why: &str) -> Refusal {
    Refusal::new(StatusCode::FORBIDDEN, format!("Forbidden: {why}"))
}

fn normal_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// Checked on every request, so without a lowercased copy: the host is compared ignoring case.
fn loopback_host(host: &HeaderValue) -> bool {
    host.to_str().is_ok_and(|h| is_loopback_authority(h.trim()))
}

/// `host[:port]` with a loopback host (in any case).
fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((v6, port)) if port.is_empty() || is_port(port) => return v6 == "::1",
            _ => return false,
        },
        None => match authority.split_once(':') {
            Some((host, port)) if is_port(port) => host,
            Some(_) => return false,
            None => authority,
        },
    };
    host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1"
}

fn is_port(colon_port: &str) -> bool {
    colon_port
        .strip_prefix(':')
        .unwrap_or(colon_port)
        .parse::<u16>()
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::aggregate::access::Token;
    use crate::aggregate::http::state::header_map as headers;

    fn status(guard: &Guard, pairs: &[(&'static str, &str)]) -> u16 {
        match guard.check(&headers(pairs)) {
            Ok(_) => 200,
            Err(r) => r.response().status().as_u16(),
        }
    }

    #[test]
    fn loopback_refuses_a_rebound_host_and_a_foreign_origin() {
        let g = Guard::new(true, None, &[]);
        assert_eq!(status(&g, &[("host", "127.0.0.1:3000")]), 200);
        assert_eq!(status(&g, &[("host", "localhost")]), 200);
        assert_eq!(status(&g, &[("host", " LocalHost:3000 ")]), 200, "any case");
        assert_eq!(status(&g, &[("host", "[::1]:8080")]), 200);
        assert_eq!(status(&g, &[("host", "evil.example.com")]), 403);
        assert_eq!(status(&g, &[("host", "localhost.evil.com")]), 403);
        assert_eq!(status(&g, &[("host", "127.0.0.1:x")]), 403);
        assert_eq!(status(&g, &[]), 403, "no Host");
        assert_eq!(
            status(
                &g,
                &[("host", "localhost:1"), ("origin", "http://localhost:5173")]
            ),
            200
        );
        assert_eq!(
            status(
                &g,
                &[
                    ("host", "localhost:1"),
                    ("origin", "http://evil.example.com")
                ]
            ),
            403
        );
        assert_eq!(
            status(&g, &[("host", "localhost:1"), ("origin", "null")]),
            403
        );
    }

    #[test]
    fn a_probe_passes_the_place_checks_without_the_token() {
        let public = Guard::new(false, Token::new("t0ken").map(Keys::Lines), &[]);
        let probe = headers(&[("host", "10.1.2.3:8080"), ("user-agent", "kube-probe/1.31")]);
        assert!(public.check_place(&probe).is_ok(), "a pod IP as Host");
        assert!(public.check(&probe).is_err(), "/mcp still needs the token");
        let browser = headers(&[
            ("host", "10.1.2.3:8080"),
            ("origin", "https://evil.example"),
        ]);
        assert!(public.check_place(&browser).is_err(), "a foreign Origin");
        let local = Guard::new(true, Token::new("t0ken").map(Keys::Lines), &[]);
        assert!(local
            .check_place(&headers(&[("host", "127.0.0.1:1")]))
            .is_ok());
        assert!(
            local
                .check_place(&headers(&[("host", "rebound.example:1")]))
                .is_err(),
            "the DNS-rebinding check holds for probes too"
        );
    }

    #[test]
    fn the_token_is_required_on_every_request_when_set() {
        let g = Guard::new(
            false,
            Token::new("t0ken").map(Keys::Lines),
            &["https://app.example.com/".into()],
        );
        assert_eq!(status(&g, &[("host", "anything")]), 401);
        assert_eq!(status(&g, &[("authorization", "Bearer t0ken")]), 200);
        assert_eq!(status(&g, &[("authorization", "Bearer t0kem")]), 401);
        assert_eq!(status(&g, &[("authorization", "t0ken")]), 401);
        for scheme in ["bearer", "BEARER", "bEaReR", "Bearer  "] {
            let value = format!("{scheme} t0ken");
            assert_eq!(
                status(&g, &[("authorization", &value)]),
                200,
                "the scheme is case-insensitive: {value:?}"
            );
        }
        assert_eq!(status(&g, &[("authorization", "Bearert0ken")]), 401);
        assert_eq!(status(&g, &[("authorization", "Basic t0ken")]), 401);
        assert_eq!(
            status(
                &g,
                &[
                    ("authorization", "Bearer t0ken"),
                    ("origin", "https://app.example.com")
                ]
            ),
            200
        );
        assert_eq!(
            status(
                &g,
                &[
                    ("authorization", "Bearer t0ken"),
                    ("origin", "http://localhost")
                ]
            ),
            403,
            "a loopback origin means nothing on a public address"
        );
    }
}
