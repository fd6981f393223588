//! Subcommands of the `mcp-sidecar` binary that are not the sidecar itself (`inspect` and its
//! `report`, the conformance client with `host_peer`, the small host it drives the sidecar
//! through): tools built from the library's parts, kept apart from its core (nothing in the
//! library imports them).

pub mod conformance_client;
pub mod host_peer;
pub mod inspect;
pub mod report;
