//! The downstream MCP client, written once over a [`transport`] that moves lines of JSON.
//!
//! It knows nothing of the host protocol and nothing of processes: the supervisor builds a transport
//! (today: a child's pipes) and hands it to [`Client::connect`].
//!
//! Protocol eras: today the client speaks the stateful era (2024-11-05 … 2025-11-25: `initialize`,
//! `notifications/initialized`). The stateless era (2026-07-28: `server/discover`, `_meta` on every
//! request) slots in behind [`handshake`]: the negotiated [`Era`] decides how a session starts and
//! what each request carries, and nothing above this module changes.
//!
//! Besides tools (`client`, `tools`), the session speaks the rest of the client surface in
//! `surface` (resources, prompts, completion, the log level); the reader reports what the server
//! announces (list changes, resource updates, log messages) as [`ClientEvent`]s.

mod call;
pub mod client;
pub mod handshake;
pub mod log_level;
pub mod progress;
mod reader;
mod server_requests;
pub mod surface;
pub mod task_support;
mod tasks;
pub mod tools;
pub mod traffic;
pub mod transport;

pub use client::{Client, ClientOptions};
pub use handshake::{Capability, Era, Handshake, SUPPORTED_PROTOCOL_VERSIONS};
pub use log_level::LogLevel;
pub use progress::{Progress, ProgressPolicy};
pub use reader::ClientEvent;
pub use surface::{ListPage, SurfaceList};
pub use tools::{validate_tools, ToolDef, ToolKind};
pub use traffic::Traffic;
