//! The HTTP endpoint's life: bind (a non-loopback address only with a bearer token), accept
//! connections — at most [`limits::AGGREGATE_HTTP_MAX_CONNECTIONS`] at once, a new one taking the
//! slot of one that stalls (`conns`), each with a bound on its request head, the time to send it,
//! its body's time and its idle time — and serve HTTP/1.1 on each (hyper). On `stop`
//! (a signal, or the end of the pipe that started it) it drains first (`drain`: `/readyz` 503, no
//! new request, those in flight answered within `--drain-timeout-ms`); then no new connection;
//! every session and stream ends, what is left is answered `SHUTTING_DOWN`; connections finish
//! their answers for a short grace, then are dropped.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::conns::{Phase, Timeouts, Tracked};
use super::drain::Drain;
use super::guard::Guard;
use super::route;
use super::sessions::Sessions;
use super::state::State;
use crate::aggregate::options::HttpOptions;
use crate::aggregate::shared::Aggregate;
use crate::aggregate::stdio::Bounds;
use crate::limits;
use crate::serving::Flow;

/// How long open connections may take to finish their answers once the endpoint stops.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Why the endpoint could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ListenError {
    #[error("refusing to listen on {addr} without a bearer token: it is not a loopback address (give one with --token-file FILE or MCP_SIDECAR_TOKEN)")]
    TokenRequired { addr: SocketAddr },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Serves the aggregate over Streamable HTTP until `stop` fires.
pub(crate) async fn serve(
    aggregate: Arc<Aggregate>,
    options: HttpOptions,
    bounds: Bounds,
    stop: CancellationToken,
) -> Result<(), ListenError> {
    let loopback = options.addr.ip().is_loopback();
    if !loopback && options.keys.is_none() {
        return Err(ListenError::TokenRequired { addr: options.addr });
    }
    let listener = TcpListener::bind(options.addr)
        .await
        .map_err(|source| ListenError::Bind {
            addr: options.addr,
            source,
        })?;
    let bound = listener.local_addr().unwrap_or(options.addr);
    tracing::info!(url = %format!("http://{bound}{}", route::PATH), "serving the aggregate over Streamable HTTP");
    if options.stop_on_stdin_eof {
        tokio::spawn(stop_at_stdin_eof(stop.clone()));
    }
    let state = Arc::new(State {
        aggregate,
        guard: Guard::new(loopback, options.keys, &options.allowed_origins),
        audit: options.audit,
        metrics_token: options.metrics_token,
        sessions: Sessions::of_replica(options.replica.as_deref()),
        flow: Flow::new(bounds.max_inflight, limits::HOST_INFLIGHT_LINE_BYTES),
        max_body: bounds.max_line_bytes,
        reading: Arc::new(Semaphore::new(limits::AGGREGATE_HTTP_READING_BYTES)),
        streams: Arc::new(Semaphore::new(limits::AGGREGATE_HTTP_MAX_STREAMS)),
        conns: Default::default(),
        timeouts: Timeouts {
            idle: options.idle_timeout,
            body: options.body_timeout,
        },
        drain: Drain::default(),
        closing: CancellationToken::new(),
        tasks: TaskTracker::new(),
    });
    // The listener stays open while the endpoint drains (the probes see it, the calls in flight
    // still get their clients' answers); accepting ends when it closes.
    let (connections, ()) = tokio::join!(
        accept(&listener, &state, &state.closing),
        drain_on(&state, &stop, options.drain_timeout)
    );
    drop(listener);
    close(&state, connections).await;
    Ok(())
}

/// Accepts until `stop`; returns the connections still open.
async fn accept(
    listener: &TcpListener,
    state: &Arc<State>,
    stop: &CancellationToken,
) -> JoinSet<()> {
    let slots = Arc::new(Semaphore::new(limits::AGGREGATE_HTTP_MAX_CONNECTIONS));
    let mut connections = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.cancelled() => break,
            // Reap finished connections so the set holds only open ones.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!("accepting a connection failed: {e}");
                continue;
            }
        };
        // A free slot, else the slot of the connection that has waited or read longest without
        // serving (closed now); when every connection serves, this one waits for a slot (and
        // later ones in the kernel's listen queue).
        let slot = match Arc::clone(&slots).try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                if state.conns.evict_one() {
                    tracing::debug!(%peer, "closed the longest stalled connection to make room");
                }
                let slot = tokio::select! {
                    slot = Arc::clone(&slots).acquire_owned() => slot,
                    _ = stop.cancelled() => break,
                };
                let Ok(slot) = slot else { break };
                slot
            }
        };
        let state = Arc::clone(state);
        connections.spawn(async move {
            connection(state, stream, peer).await;
            drop(slot);
        });
    }
    connections
}

/// Serves one connection until it closes, or until the endpoint closes (then gracefully); closes
/// it when it stays too long in a phase (`conns::Timeouts`) or is evicted to make room.
async fn connection(state: Arc<State>, stream: tokio::net::TcpStream, peer: SocketAddr) {
    let closing = state.closing.clone();
    let timeouts = state.timeouts;
    let registered = state.conns.register();
    let activity = Arc::clone(&registered.activity);
    let shared = Arc::clone(&state);
    let service = service_fn(move |mut request: Request<Incoming>| {
        let state = Arc::clone(&shared);
        let activity = Arc::clone(&activity);
        async move {
            // A POST's body comes next (`post` marks the end of it); anything else is served now.
            let phase = if request.method() == Method::POST {
                Phase::Reading
            } else {
                Phase::Serving
            };
            activity.enter(phase);
            request.extensions_mut().insert(Arc::clone(&activity));
            let response = route::route(state, request).await;
            Ok::<_, Infallible>(response.map(|body| Tracked { body, activity }))
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits::AGGREGATE_HTTP_HEADER_TIMEOUT)
        .max_buf_size(limits::AGGREGATE_HTTP_MAX_HEAD_BYTES);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    let outcome = tokio::select! {
        outcome = conn.as_mut() => outcome,
        _ = closing.cancelled() => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
        () = registered.evicted.cancelled() => {
            tracing::debug!(%peer, "connection closed to make room for a new one");
            return;
        }
        () = registered.activity.expired(timeouts) => {
            tracing::debug!(%peer, "connection closed: idle, or its body too slow");
            return;
        }
    };
    if let Err(e) = outcome {
        tracing::debug!(%peer, "connection ended: {e}");
    }
}

/// Once `stop` fires: drains for at most `bound`, then closes the endpoint (`closing`).
async fn drain_on(state: &State, stop: &CancellationToken, bound: Duration) {
    stop.cancelled().await;
    tracing::info!(
        bound_ms = bound.as_millis() as u64,
        "draining: /readyz answers 503, new requests are refused, the requests in flight finish"
    );
    match state.drain.run(bound).await {
        0 => tracing::info!("drained: every request in flight was answered"),
        left => tracing::warn!(
            left,
            "the drain bound passed (--drain-timeout-ms): the requests still in flight are answered SHUTTING_DOWN"
        ),
    }
    state.closing.cancel();
}

/// Ends every session and stream, lets connections finish for [`SHUTDOWN_GRACE`], drops the rest.
async fn close(state: &State, mut connections: JoinSet<()>) {
    state.closing.cancel();
    let sessions = state.sessions.drain();
    futures_util::future::join_all(sessions.iter().map(|s| s.end())).await;
    state.tasks.close();
    let drained = async {
        state.tasks.wait().await;
        while connections.join_next().await.is_some() {}
    };
    if tokio::time::timeout(SHUTDOWN_GRACE, drained).await.is_err() {
        tracing::debug!("connections still open after the grace period were dropped");
    }
    connections.abort_all();
}

/// Cancels `stop` once the sidecar's stdin ends: the process that started it (and holds the
/// pipe) is gone. What it writes there is read and dropped.
async fn stop_at_stdin_eof(stop: CancellationToken) {
    use tokio::io::AsyncReadExt;
    let mut input = crate::serving::stdio::input();
    let mut buffer = [0u8; 1024];
    loop {
        match input.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    tracing::info!("stdin ended; stopping every server");
    stop.cancel();
}
