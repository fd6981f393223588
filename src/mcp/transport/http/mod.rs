//! The HTTP transports behind one [`Transport`](super::Transport): Streamable HTTP (2025-11-25), legacy HTTP+SSE
//! (2024-11-05, in [`super::sse`]), and the automatic choice between them.
//!
//! Shape: `send` queues a message; one dispatcher task POSTs them in order. A request's POST runs in
//! its own task (a slow tool must not hold up the others) and whatever answers it — a JSON body or
//! an event stream, resumed with `Last-Event-ID` if it drops — lands in the inbound queue that the
//! session reads. HTTP failures of a request are queued as [`Inbound::Failed`](super::Inbound::Failed) for that request (a
//! typed [`TransportError`](super::TransportError), never a made-up JSON-RPC error), so the session fails that request
//! alone; failures that end the connection (refused, oversize, a legacy stream that ended) are
//! fatal transport errors and the supervisor's restart policy takes over. A request's POST ends
//! when its answer arrived, or when the session cancels it (`notifications/cancelled`, sent on
//! timeout and on host cancellation), or when the transport closes.
//!
//! Files, lowest first, each importing only files listed before it: `shared` (the connection's
//! state, headers, step names), `answer` (reading a request's answer, resuming its stream),
//! `listen` (the GET stream), `modern` (the 2026-07-28 headers, answers in 4xx bodies), `reinit` (a new session after 404), `request` (POSTs after the
//! handshake), `connect` (the first message picks the transport), `sink` (the queue and its
//! dispatcher, [`transport`]).

mod answer;
mod connect;
mod listen;
mod modern;
mod reinit;
mod request;
mod shared;
mod sink;

pub use sink::transport;
