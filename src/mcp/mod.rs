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
//! Besides tools (`client`, `tools`), the session speaks the rest of the client surface in
//! `surface` (resources, prompts, completion, the log level); the reader reports what the server
//! announces (list changes, resource updates, log messages) as [`ClientEvent`]s.

pub mod cache_hints;
mod call;
pub mod client;
pub mod handshake;
mod input_required;
mod listen;
pub mod log_level;
pub mod modern;
mod negotiate;
pub mod progress;
mod reader;
mod server_requests;
pub mod surface;
pub mod task_support;
mod tasks;
pub mod tool_headers;
pub mod tools;
pub mod traffic;
pub mod transport;
mod watched;

pub use cache_hints::CacheHints;
pub use client::{Client, ClientOptions, ListedTools};
pub use handshake::{Capability, Era, Handshake, Negotiation, SUPPORTED_PROTOCOL_VERSIONS};
pub use log_level::LogLevel;
pub use progress::{Progress, ProgressPolicy};
pub use reader::ClientEvent;
pub use surface::{ListPage, SurfaceList};
pub use tools::{validate_tools, ToolDef, ToolKind};
pub use traffic::Traffic;
