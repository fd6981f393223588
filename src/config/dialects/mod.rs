//! Config dialects: every host's file format, read into the canonical server config JSON (the one
//! `servers/add` takes) plus diagnostics, so everything downstream is the same whatever the file.
//!
//! The dialect is detected from the content (markers that only one format has), then from the file
//! name, and can be forced by the caller.
//!
//! Its files:
//! - `claude`: The `mcpServers` family.
//! - `codex`: Codex `config.toml`.
//! - `common`: What every dialect shares.
//! - `env_file`: An `envFile` (VS Code, Claude Code).
//! - `epoch`: The epoch-style `servers` file of seed 003.
//! - `fields`: The shared reader of one server entry.
//! - `manifest`: The YAML plugin manifest of seed 000.
//! - `parse`: `parse`.
//! - `plugin`: Claude Code plugins.
//! - `vscode`: VS Code `.vscode/mcp.json`.

mod claude;
mod codex;
mod common;
pub mod env_file;
mod epoch;
pub mod fields;
mod manifest;
mod parse;
mod plugin;
mod vscode;

pub use common::{Candidate, Context, Dialect, Parsed};
pub use parse::parse;
