//! The downstream MCP client, written once over a [`transport`] that moves lines of JSON.
//!
//! It knows nothing of the host protocol and nothing of processes: the supervisor builds a transport
//! (today: a child's pipes) and hands it to [`Client::connect`].
//!
//! Protocol eras: today the client speaks the stateful era (2024-11-05 … 2025-11-25: `initialize`,
//! `notifications/initialized`). The stateless era (2026-07-28: `server/discover`, `_meta` on every
//! request) slots in behind [`handshake`]: the negotiated [`Era`] decides how a session starts and
//! what each request carries, and nothing above this module changes.

mod call;
pub mod client;
pub mod handshake;
pub mod progress;
mod reader;
mod server_requests;
pub mod tools;
pub mod traffic;
pub mod transport;

pub use client::{Client, ClientOptions};
pub use handshake::{Era, Handshake, SUPPORTED_PROTOCOL_VERSIONS};
pub use progress::{Progress, ProgressPolicy};
pub use reader::ClientEvent;
pub use tools::{validate_tools, ToolDef};
pub use traffic::Traffic;
