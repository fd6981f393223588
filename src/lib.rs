//! mcp-sidecar: one process that a host (Python, Node, Go…) spawns to reach many MCP servers.
//!
//! The map — the words, the floors, one call end to end, and the rules with the test that keeps
//! each — is ARCHITECTURE.md; each folder's `mod.rs` lists its files. The binary's body is
//! [`main`] (`cli::entry`).
//!
//! The public surface is deliberate: the pure and reusable parts a program or a test may call
//! directly — reading server configs ([`config`]), converting MCP shapes for a provider
//! ([`convert`]), the MCP client session ([`mcp`]), wire types and bounded lines ([`jsonrpc`]),
//! server and tool names ([`names`]), the trust digest and secret masking ([`trust`]), the tool
//! catalog ([`store`]), sandbox policy and the egress proxy ([`sandbox`]), the named bounds
//! ([`limits`]) and the error codes ([`error`]).
//! Everything else is `pub(crate)` (the `unreachable_pub` lint keeps it so), so the compiler
//! reports what nothing uses.
// A function is one idea: past 80 lines of code (clippy.toml) it is split into named steps.
#![warn(clippy::too_many_lines)]

mod aggregate;
mod ask;
mod canonical;
mod cli;
pub mod config;
pub mod convert;
mod era;
pub mod error;
mod host;
pub mod jsonrpc;
pub mod limits;
mod logging;
pub mod mcp;
mod metrics;
pub mod names;
mod oauth;
mod package;
mod process;
pub mod sandbox;
mod search;
mod serving;
mod signals;
pub mod store;
mod supervisor;
mod telemetry;
mod time;
pub mod trust;

pub use cli::entry::main;
pub use error::{Error, ErrorCode};
