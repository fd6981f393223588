//! The proxy itself: [`start`] binds 127.0.0.1 on a free port and serves HTTP/1.1 (hyper) under the
//! bounds of [`EgressOptions`]; the accept loop holds at most `max_connections` connections, one
//! more is answered 503 naming the limit and closed. Dropping the [`EgressProxy`] stops the loop,
//! every connection and every tunnel.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::StatusCode;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, ErrorCode, Result};
use crate::limits::{EGRESS_HEAD_MAX_BYTES, EGRESS_MAX_HEADERS};

use super::answers::text;
use super::options::EgressOptions;
use super::patterns::AllowList;
use super::service::route;
use super::shared::{Connection, Shared};
use super::stats::{HostCounts, Stats};

/// A running proxy for one server. Dropping it stops it.
pub struct EgressProxy {
    port: u16,
    shared: Arc<Shared>,
}

impl EgressProxy {
    /// The port on 127.0.0.1 the server's `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY` point at.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`, the value of those variables.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Requests allowed, refused and failed so far, per `host:port`.
    pub fn stats(&self) -> BTreeMap<String, HostCounts> {
        self.shared.stats.snapshot()
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.shared.stop.cancel();
    }
}

/// Starts the proxy of `server`, allowing the hosts of its `sandbox.network.allow`.
pub async fn start(server: &str, hosts: Vec<String>) -> Result<EgressProxy> {
    start_with(server, hosts, EgressOptions::default()).await
}

/// [`start`] under other bounds (tests shorten the timeouts and fix names' addresses).
pub async fn start_with(
    server: &str,
    hosts: Vec<String>,
    options: EgressOptions,
) -> Result<EgressProxy> {
    start_in_runtime(server, hosts, options)
}

/// [`start_with`] for a caller that is not async but runs inside the runtime: the spawn site,
/// which starts a server's proxy right before the server (the bind is immediate either way).
pub fn start_in_runtime(
    server: &str,
    hosts: Vec<String>,
    options: EgressOptions,
) -> Result<EgressProxy> {
    let allow = AllowList::parse(server, &hosts)?;
    let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| {
            l.set_nonblocking(true)?;
            Ok((l.local_addr()?.port(), TcpListener::from_std(l)?))
        })
        .map_err(|e| {
            Error::new(
                ErrorCode::Internal,
                format!("server `{server}`: the egress proxy cannot listen on 127.0.0.1: {e}"),
            )
            .with("server", server)
        });
    let (port, listener) = listener?;
    let shared = Arc::new(Shared {
        server: server.to_owned(),
        allow,
        options,
        stats: Stats::default(),
        stop: CancellationToken::new(),
    });
    tokio::spawn(accept_loop(listener, shared.clone()));
    tracing::debug!(server, port, "egress proxy listening");
    Ok(EgressProxy { port, shared })
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let slots = Arc::new(Semaphore::new(shared.options.max_connections));
    // Connections answered 503 are bounded too, by the same number.
    let refusals = Arc::new(Semaphore::new(shared.options.max_connections));
    loop {
        let accepted = tokio::select! {
            () = shared.stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors or the like: pause rather than spin on the failing accept.
                tracing::warn!(server = %shared.server, "egress proxy cannot accept: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if let Ok(slot) = slots.clone().try_acquire_owned() {
            let connection = Connection {
                shared: shared.clone(),
                slot: Arc::new(slot),
            };
            tokio::spawn(serve(stream, connection));
        } else if let Ok(refusal) = refusals.clone().try_acquire_owned() {
            let shared = shared.clone();
            tokio::spawn(async move {
                refuse_full(stream, &shared).await;
                drop(refusal);
            });
        }
        // Else the stream is dropped: closed without an answer.
    }
}

fn builder(options: &EgressOptions) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.head_timeout)
        .max_buf_size(EGRESS_HEAD_MAX_BYTES)
        .max_header_size(EGRESS_HEAD_MAX_BYTES)
        .max_headers(EGRESS_MAX_HEADERS);
    builder
}

async fn serve(stream: TcpStream, connection: Connection) {
    let shared = connection.shared.clone();
    let service = service_fn(move |request| route(connection.clone(), request));
    let served = builder(&shared.options)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::select! {
        result = served => {
            if let Err(e) = result {
                tracing::debug!(server = %shared.server, "egress proxy connection ended: {e}");
            }
        }
        () = shared.stop.cancelled() => {}
    }
}

async fn refuse_full(stream: TcpStream, shared: &Shared) {
    let limit = shared.options.max_connections;
    tracing::warn!(
        server = %shared.server,
        "egress proxy refused a connection: {limit} already open (limit EGRESS_MAX_CONNECTIONS)"
    );
    let message = format!(
        "egress proxy of server `{}`: {limit} connections already open (limit EGRESS_MAX_CONNECTIONS); try again when one closes",
        shared.server
    );
    let service = service_fn(move |_request| {
        let answer = text(StatusCode::SERVICE_UNAVAILABLE, message.clone());
        async move { Ok::<_, std::convert::Infallible>(answer) }
    });
    let mut builder = builder(&shared.options);
    builder.keep_alive(false);
    tokio::select! {
        _ = builder.serve_connection(TokioIo::new(stream), service) => {}
        () = shared.stop.cancelled() => {}
    }
}
