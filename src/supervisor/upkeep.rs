//! Timers of one ready generation: keepalive pings (`keepaliveSeconds`), idle stop
//! (`idleTimeoutSeconds`) and recycling (`maxLifetimeSeconds`, applied when the server is next idle).
//!
//! [`Upkeep::next`] sleeps until the earliest deadline, or until the last call in flight finishes,
//! or until the generation ends — whichever comes first — then re-reads the session's activity and
//! either sends a due ping itself or returns what is due. It never acts on the server: the lifecycle
//! parks or fails the generation (both re-check that it is still current) and, when a park was
//! refused because a call slipped in, asks again.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::server::Server;
use super::session::Session;
use super::teardown::ParkReason;
use crate::error::{Error, ErrorCode};
use crate::limits;

/// What is due for the generation.
pub(super) enum Due {
    /// Idle past a deadline: stop it, keeping its tools listed.
    Park(ParkReason),
    /// A keepalive ping was not answered.
    Fail(Error),
    /// The generation ended (stopped, parked, failed, replaced): nothing more to watch.
    Ended,
}

/// The timers of one generation (only when one of the three settings is configured).
pub(super) struct Upkeep {
    server: Arc<Server>,
    session: Arc<Session>,
    lifetime_end: Option<Instant>,
    last_ping: Instant,
}

impl Upkeep {
    /// `None` when the server configures none of keepalive, idle timeout and lifetime.
    pub(super) fn new(server: Arc<Server>, session: Arc<Session>) -> Option<Self> {
        let spec = &server.spec;
        if spec.keepalive.is_none() && spec.idle_timeout.is_none() && spec.max_lifetime.is_none() {
            return None;
        }
        let lifetime_end = spec
            .max_lifetime
            .map(|d| Instant::from_std(session.started) + d);
        Some(Self {
            server,
            session,
            lifetime_end,
            last_ping: Instant::now(),
        })
    }

    pub(super) fn generation(&self) -> u64 {
        self.session.generation
    }

    /// Waits for the next thing due. Answered pings are handled here and do not return.
    pub(super) async fn next(&mut self) -> Due {
        let server = Arc::clone(&self.server);
        let spec = &server.spec;
        // Each turn either returns or waits for a deadline, the end of a call, or the end of the session.
        loop {
            let (in_flight, last_used) = self.session.usage();
            let last_used = Instant::from_std(last_used);
            let now = Instant::now();
            let idle_at = spec.idle_timeout.map(|t| last_used + t);
            let ping_at = spec.keepalive.map(|k| last_used.max(self.last_ping) + k);
            if in_flight == 0 {
                if self.lifetime_end.is_some_and(|t| t <= now) {
                    return Due::Park(ParkReason::Lifetime);
                }
                if idle_at.is_some_and(|t| t <= now) {
                    return Due::Park(ParkReason::Idle);
                }
                if let (Some(at), Some(interval)) = (ping_at, spec.keepalive) {
                    if at <= now {
                        if let Some(due) = self.ping(interval).await {
                            return due;
                        }
                        continue;
                    }
                }
            }
            // Deadlines that apply only while idle wait for the last call to finish instead.
            let next = if in_flight == 0 {
                [self.lifetime_end, idle_at, ping_at]
                    .into_iter()
                    .flatten()
                    .min()
            } else {
                None
            };
            if self.session.ended.is_cancelled() {
                return Due::Ended;
            }
            tokio::select! {
                // Stopped, parked, failed or replaced: this generation needs no more upkeep.
                _ = self.session.ended.cancelled() => return Due::Ended,
                // A call finished; if it was the last one, idle deadlines (and a due recycle) apply now.
                _ = self.session.idle.notified(), if in_flight > 0 => {}
                _ = sleep_until(next) => {}
            }
        }
    }

    /// One keepalive ping; `None` when it was answered.
    async fn ping(&mut self, interval: Duration) -> Option<Due> {
        let timeout = interval.clamp(
            limits::KEEPALIVE_PING_TIMEOUT_MIN,
            limits::KEEPALIVE_PING_TIMEOUT,
        );
        tokio::select! {
            // The generation ended while the ping was out: nothing left to check.
            _ = self.session.ended.cancelled() => return Some(Due::Ended),
            answered = self.session.client.ping(timeout) => {
                if let Err(e) = answered {
                    return Some(Due::Fail(missed_ping(self.server.name.as_str(), timeout, e)));
                }
            }
        }
        self.last_ping = Instant::now();
        None
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
