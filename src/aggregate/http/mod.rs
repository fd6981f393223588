//! The aggregate over Streamable HTTP (`mcp-sidecar mcp --http ADDR`), both eras on one endpoint
//! (`/mcp`). `listener` binds, accepts, drains and closes; `route` guards and routes each request;
//! `post` admits messages, `job` runs an admitted request to its answer (JSON or SSE) in its
//! connection's task until it must go on as a task of its own (`inline`), `streams` a
//! legacy session's GET stream and DELETE, `health` the probes (`/healthz`, `/readyz`), `metrics`
//! the Prometheus scrape (`/metrics`). Below them: `state` (what requests share), `headers`
//! (2026-07-28 request headers), `sessions` (legacy sessions), `guard` (Host, Origin, bearer token),
//! `body` (bounded reads, JSON and SSE answers), `conns` (what each connection is doing: its time
//! bounds, and the slot a new client takes from a stalled one), `drain` (the requests in flight a
//! stop waits for, the refusal of new ones), `gate` (a client's rate limit, refused calls and audit
//! lines).

mod body;
mod conns;
mod drain;
mod gate;
mod guard;
mod headers;
mod health;
mod inline;
mod job;
mod listener;
mod metrics;
mod post;
mod route;
mod sessions;
mod state;
mod streams;

pub(crate) use listener::{serve, ListenError};
