//! Subcommands of the `mcp-sidecar` binary that are not the sidecar itself: tools built from the
//! library's parts, kept apart from its core (nothing in the library imports them).

pub mod conformance_client;
