//! One HTTP request to its handler: the guard first (every request; the probes `/healthz` and
//! `/readyz` pass its Host and Origin checks, not the token; `/metrics` its own token when it has
//! one), then the endpoint's path (`/mcp`)
//! and method (`POST` messages, `GET` a session's stream, `DELETE` a session).

use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW};
use hyper::{Method, Request, Response, StatusCode};

use super::body::{refusal, Out};
use super::state::State;
use super::{health, metrics, post, streams};
use crate::aggregate::requests::wire::INVALID_REQUEST;

/// The endpoint's path.
pub(crate) const PATH: &str = "/mcp";

pub(crate) async fn route(state: Arc<State>, request: Request<Incoming>) -> Response<Out> {
    if health::is_probe(request.uri().path()) {
        // Probes carry no token (a kubelet's cannot): where they come from is still checked.
        return match state.guard.check_place(request.headers()) {
            Ok(()) => health::answer(&state, request.method(), request.uri().path()),
            Err(refused) => refused.response(),
        };
    }
    if request.uri().path() == metrics::PATH {
        return metrics::answer(&state, request.method(), request.headers());
    }
    let mut request = request;
    match state.guard.check(request.headers()) {
        // The client goes with the request: what it may do, its rate limit, its audit lines.
        Ok(caller) => {
            request.extensions_mut().insert(caller);
        }
        Err(refused) => return refused.response(),
    }
    if request.uri().path() != PATH {
        return refusal(
            StatusCode::NOT_FOUND,
            INVALID_REQUEST,
            &format!("Not Found: the MCP endpoint is {PATH}"),
        );
    }
    match *request.method() {
        Method::POST => post::handle(state, request).await,
        Method::GET => streams::get(&state, request.headers()),
        Method::DELETE => streams::delete(&state, request.headers()).await,
        _ => {
            let mut response = refusal(
                StatusCode::METHOD_NOT_ALLOWED,
                INVALID_REQUEST,
                "Method Not Allowed: POST, GET or DELETE",
            );
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            response
        }
    }
}
