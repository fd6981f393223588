//! The downstream MCP client, written once over a [`transport`] that moves lines of JSON.
//!
//! It knows nothing of the host protocol and nothing of processes: the supervisor builds a transport
//! (today: a child's pipes) and hands it to [`Client::connect`].
//!
//! Protocol eras: the client speaks both — the stateful era (2024-11-05 … 2025-11-25: `initialize`,
//! `notifications/initialized`) and the stateless one (2026-07-28: `server/discover`, `_meta` on
//! every request, `input_required` results, `subscriptions/listen`). [`negotiate`] starts a session
//! in the era the supervisor chose ([`Negotiation`]); the negotiated [`Era`] decides what each
//! request carries ([`modern`]), and nothing above this module changes.
//!
//! The session is [`Client`] (`client/`, one file per concern: its `mod.rs` says which holds which
//! methods); besides tools (`client/call`, `tools`), it speaks the rest of the client surface in
//! `client/surface` (resources, prompts, completion, the log level); the reader reports what the server
//! announces (list changes, resource updates, log messages) as [`ClientEvent`]s.
//!
//! Its other files:
//! - `cache_hints`: The 2026-07-28 cache hints of a `tools/list` answer (`ttlMs`, `cacheScope`), read from each page …
//! - `handshake`: Protocol-version negotiation and what a session learned from it.
//! - `log_level`: MCP log levels.
//! - `progress`: Progress of a request in flight.
//! - `reader`: The session's only reader.
//! - `server_requests`: Requests a server sends to its client.
//! - `task_support`: What a session knows of MCP tasks before any call (see `super::tasks` for running one).
//! - `tool_headers`: `x-mcp-header` (2026-07-28, SEP-2243).
//! - `traffic`: Bytes exchanged with one server.
//! - `watched`: The resources a 2026-07-28 session watches (that era's `resources/subscribe`), and the …

pub mod cache_hints;
pub mod client;
pub mod handshake;
pub mod log_level;
pub mod modern;
pub mod progress;
mod reader;
mod server_requests;
pub mod task_support;
pub mod tool_headers;
pub mod tools;
pub mod traffic;
pub mod transport;
mod watched;

pub use cache_hints::CacheHints;
pub use client::surface::{ListPage, SurfaceList};
pub use client::{Client, ClientOptions, ListedTools};
pub use handshake::{Capability, Era, Handshake, Negotiation, SUPPORTED_PROTOCOL_VERSIONS};
pub use log_level::LogLevel;
pub use progress::{Progress, ProgressPolicy};
pub use reader::ClientEvent;
pub use tools::{validate_tools, ToolDef, ToolKind};
pub use traffic::Traffic;
