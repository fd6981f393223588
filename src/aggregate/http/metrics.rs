//! `GET /metrics`: the Prometheus scrape ([`crate::metrics::exposition`]) with this endpoint's
//! legacy sessions. Past the Host and Origin checks every request passes; then the bearer token
//! of `--metrics-token-file` when one is given (a scraper's own, which opens nothing else), else
//! the endpoint's token as `/mcp` asks it (none on a loopback address without `--token-file`), of a
//! client allowed everything: the labels name every server and tool.

use hyper::header::{HeaderValue, ALLOW, AUTHORIZATION, CACHE_CONTROL, WWW_AUTHENTICATE};
use hyper::{HeaderMap, Method, Response, StatusCode};

use super::body::{whole, Out, Refusal};
use super::guard::bearer_credentials;
use super::state::State;
use crate::metrics;
use crate::supervisor::ServerState;

pub(crate) const PATH: &str = "/metrics";

/// The scrape's answer, or the refusal of a caller without the right token.
pub(crate) fn answer(state: &State, method: &Method, headers: &HeaderMap) -> Response<Out> {
    let allowed = match &state.metrics_token {
        Some(token) => state.guard.check_place(headers).and_then(|()| {
            let presented = headers
                .get(AUTHORIZATION)
                .and_then(|v| bearer_credentials(v.as_bytes()));
            if presented.is_some_and(|p| token.matches(p)) {
                Ok(())
            } else {
                Err(Refusal::new(
                    StatusCode::UNAUTHORIZED,
                    "Unauthorized: /metrics takes the bearer token of --metrics-token-file",
                )
                .with_header(WWW_AUTHENTICATE, "Bearer"))
            }
        }),
        // A client the access file limits to some servers or tools would learn the others'
        // names from the labels: only a client allowed everything may scrape.
        None => state.guard.check(headers).and_then(|caller| {
            if caller.rules.allows_everything() {
                Ok(())
            } else {
                Err(Refusal::new(
                    StatusCode::FORBIDDEN,
                    "Forbidden: this client is limited to some servers or tools, and /metrics names them all; give Prometheus a token of its own (--metrics-token-file)",
                ))
            }
        }),
    };
    if let Err(refused) = allowed {
        return refused.response();
    }
    if method != Method::GET && method != Method::HEAD {
        let mut response = whole(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            b"method not allowed: GET or HEAD\n".to_vec(),
        );
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let states = ServerState::ALL.map(ServerState::as_str);
    let sessions = [("legacy", state.sessions.count() as u64)];
    let text = metrics::exposition(
        &state.aggregate.registry().metric_samples(),
        &states,
        &sessions,
    );
    let mut response = whole(StatusCode::OK, metrics::CONTENT_TYPE, text.into_bytes());
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
