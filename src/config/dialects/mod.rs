//! Config dialects: every host's file format, read into the canonical server config JSON (the one
//! `servers/add` takes) plus diagnostics, so everything downstream is the same whatever the file.
//!
//! The dialect is detected from the content (markers that only one format has), then from the file
//! name, and can be forced by the caller.

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
