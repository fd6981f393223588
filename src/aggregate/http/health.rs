//! `GET /healthz` and `GET /readyz`, for a load balancer's and Kubernetes' probes: past the Host
//! and Origin checks every request passes, but not behind the bearer token, and saying nothing
//! but server names and states.
//!
//! - `/healthz`: 200 while the process serves (draining included: it is alive, just leaving).
//! - `/readyz`: 200 once the config files are read and every *required* server is ready. A server
//!   is required unless it has `autoStart: false` (lazy: it starts on its first call, so it never
//!   holds readiness back); a required server counts as ready when it is `ready`, or `stopped` by
//!   its own `idleTimeoutSeconds`/`maxLifetimeSeconds` (its tools are listed and the next call
//!   starts it). `starting`, `unhealthy` (a restart is due), `error` and `needs_login` are not
//!   ready. Otherwise 503, with the servers not ready and their states (at most
//!   [`limits::AGGREGATE_READYZ_MAX_NAMES`] named, the rest counted); 503 while the config files
//!   load, and from the first moment of a drain.

use hyper::header::{HeaderValue, ALLOW, CACHE_CONTROL};
use hyper::{Method, Response, StatusCode};
use serde_json::{json, Map, Value};

use super::body::{whole, Out};
use super::state::State;
use crate::limits;
use crate::supervisor::ServerState;

pub(crate) const HEALTHZ: &str = "/healthz";
pub(crate) const READYZ: &str = "/readyz";

/// Whether `path` is one of the probes.
pub(crate) fn is_probe(path: &str) -> bool {
    path == HEALTHZ || path == READYZ
}

/// The probe's answer (`path` is one of them).
pub(crate) fn answer(state: &State, method: &Method, path: &str) -> Response<Out> {
    if method != Method::GET && method != Method::HEAD {
        let mut response = respond(
            StatusCode::METHOD_NOT_ALLOWED,
            &json!({"status": "method not allowed: GET or HEAD"}),
        );
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    if path == HEALTHZ {
        return respond(StatusCode::OK, &json!({"status": "alive"}));
    }
    let (status, body) = readiness(
        state.drain.is_draining(),
        state.aggregate.is_registered(),
        state.aggregate.registry().states(),
    );
    respond(status, &body)
}

/// The rule of the module doc, pure.
fn readiness(
    draining: bool,
    registered: bool,
    servers: Vec<(String, ServerState, bool)>,
) -> (StatusCode, Value) {
    if draining {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "draining"}),
        );
    }
    if !registered {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "loading"}),
        );
    }
    let mut waiting: Vec<(String, ServerState)> = servers
        .into_iter()
        .filter(|(_, state, required)| *required && !counts_as_ready(*state))
        .map(|(name, state, _)| (name, state))
        .collect();
    if waiting.is_empty() {
        return (StatusCode::OK, json!({"status": "ready"}));
    }
    waiting.sort_by(|a, b| a.0.cmp(&b.0));
    let more = waiting
        .len()
        .saturating_sub(limits::AGGREGATE_READYZ_MAX_NAMES);
    let named: Map<String, Value> = waiting
        .into_iter()
        .take(limits::AGGREGATE_READYZ_MAX_NAMES)
        .map(|(name, state)| (name, json!(state)))
        .collect();
    let mut body = json!({"status": "not ready", "servers": named});
    if more > 0 {
        body["more"] = json!(more);
    }
    (StatusCode::SERVICE_UNAVAILABLE, body)
}

fn counts_as_ready(state: ServerState) -> bool {
    matches!(state, ServerState::Ready | ServerState::Stopped)
}

fn respond(status: StatusCode, body: &Value) -> Response<Out> {
    let mut response = whole(status, "application/json", body.to_string().into_bytes());
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, state: ServerState, required: bool) -> (String, ServerState, bool) {
        (name.to_owned(), state, required)
    }

    #[test]
    fn ready_when_every_required_server_is_ready_or_stopped_by_its_own_policy() {
        let servers = vec![
            server("a", ServerState::Ready, true),
            server("idle", ServerState::Stopped, true),
            server("lazy", ServerState::Error, false),
        ];
        assert_eq!(
            readiness(false, true, servers),
            (StatusCode::OK, json!({"status": "ready"}))
        );
    }

    #[test]
    fn not_ready_names_each_required_server_waited_for_with_its_state() {
        let servers = vec![
            server("b", ServerState::Starting, true),
            server("a", ServerState::Ready, true),
            server("c", ServerState::NeedsLogin, true),
            server("d", ServerState::Unhealthy, true),
            server("e", ServerState::Error, true),
        ];
        assert_eq!(
            readiness(false, true, servers),
            (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": "not ready", "servers": {"b": "starting", "c": "needs_login", "d": "unhealthy", "e": "error"}})
            )
        );
    }

    #[test]
    fn loading_and_draining_are_not_ready_and_the_names_are_bounded() {
        let ready = vec![server("a", ServerState::Ready, true)];
        assert_eq!(
            readiness(false, false, ready.clone()).1["status"],
            "loading"
        );
        assert_eq!(readiness(true, true, ready).1["status"], "draining");
        let many = (0..100)
            .map(|i| server(&format!("s{i:03}"), ServerState::Starting, true))
            .collect();
        let (status, body) = readiness(false, true, many);
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            body["servers"].as_object().map(Map::len),
            Some(limits::AGGREGATE_READYZ_MAX_NAMES)
        );
        assert_eq!(body["more"], 100 - limits::AGGREGATE_READYZ_MAX_NAMES);
    }
}
