//! Integration tests: the real `mcp-sidecar` binary driven over pipes against the real fixture servers.
//! This file only lists the modules; `support` holds the harness.

// A test may unwrap: a panic is its failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod architecture;
mod calls;
mod cancel;
mod codegen;
mod concurrency;
mod dormant;
mod env;
mod failures;
mod handshake;
mod logs;
mod probe;
mod procfs;
mod remote;
mod restarts;
mod secrets;
mod servers;
mod shutdown;
mod support;
mod transcripts;
mod trees;
mod trust;
mod versions;
