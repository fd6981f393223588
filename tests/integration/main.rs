//! Integration tests: the real `mcp-sidecar` binary driven over pipes against the real fixture servers.
//! This file only lists the modules; `support` holds the harness.

mod dormant;
mod restarts;
mod support;
mod trees;
