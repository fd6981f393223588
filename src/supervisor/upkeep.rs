//! Timers of one ready generation: keepalive pings (`keepaliveSeconds`), idle stop
//! (`idleTimeoutSeconds`) and recycling (`maxLifetimeSeconds`, applied when the server is next idle).
//!
//! One task per ready generation, only when one of the three is configured. It sleeps until the
//! earliest deadline, or until the last call in flight finishes, or until the generation ends —
//! whichever comes first — then re-reads the session's activity and acts. It never acts on a
//! generation that is no longer current: [`Registry::park`] and [`Registry::fail_session`] check.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::lifecycle::ParkReason;
use super::registry::Registry;
use super::server::Server;
use super::session::Session;
use crate::error::{Error, ErrorCode};
use crate::limits;

pub(super) async fn run(registry: Arc<Registry>, server: Arc<Server>, session: Arc<Session>) {
    let spec = &server.spec;
    let generation = session.generation;
    let lifetime_end = spec
        .max_lifetime
        .map(|d| Instant::from_std(session.started) + d);
    let mut last_ping = Instant::now();
    // Each turn either returns or waits for a deadline, the end of a call, or the end of the session.
    loop {
        let (in_flight, last_used) = session.usage();
        let last_used = Instant::from_std(last_used);
        let now = Instant::now();
        let idle_at = spec.idle_timeout.map(|t| last_used + t);
        let ping_at = spec.keepalive.map(|k| last_used.max(last_ping) + k);
        if in_flight == 0 {
            if lifetime_end.is_some_and(|t| t <= now) {
                if registry
                    .park(&server, generation, ParkReason::Lifetime)
                    .await
                {
                    return;
                }
            } else if idle_at.is_some_and(|t| t <= now) {
                if registry.park(&server, generation, ParkReason::Idle).await {
                    return;
                }
            } else if let (Some(at), Some(interval)) = (ping_at, spec.keepalive) {
                if at <= now {
                    let timeout = interval.clamp(
                        limits::KEEPALIVE_PING_TIMEOUT_MIN,
                        limits::KEEPALIVE_PING_TIMEOUT,
                    );
                    tokio::select! {
                        // The generation ended while the ping was out: nothing left to check.
                        _ = session.ended.cancelled() => return,
                        answered = session.client.ping(timeout) => {
                            if let Err(e) = answered {
                                let error = missed_ping(&server.name, timeout, e);
                                registry.fail_session(&server, generation, error).await;
                                return;
                            }
                        }
                    }
                    last_ping = Instant::now();
                    continue;
                }
            }
        }
        // Deadlines that apply only while idle wait for the last call to finish instead.
        let next = if in_flight == 0 {
            [lifetime_end, idle_at, ping_at].into_iter().flatten().min()
        } else {
            None
        };
        if session.ended.is_cancelled() {
            return;
        }
        tokio::select! {
            // Stopped, parked, failed or replaced: this generation needs no more upkeep.
            _ = session.ended.cancelled() => return,
            // A call finished; if it was the last one, idle deadlines (and a due recycle) apply now.
            _ = session.idle.notified(), if in_flight > 0 => {}
            _ = sleep_until(next) => {}
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

fn missed_ping(server: &str, timeout: Duration, cause: Error) -> Error {
    Error::new(
        ErrorCode::ServerUnavailable,
        format!(
            "server `{server}` did not answer a keepalive ping within {} ms: {}",
            timeout.as_millis(),
            cause.message
        ),
    )
    .with("server", server)
    .with("setting", "keepaliveSeconds")
    .with("limit", timeout.as_secs_f64())
}
