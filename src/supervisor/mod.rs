//! Supervision of downstream servers: the registry of configured servers (the host-facing API),
//! each server's state machine and generations, restarts, keepalive and idle stops, lazy start from
//! the schema cache, `servers/test` trials. The processes themselves (spawning, groups, trees, the
//! guardian) are [`crate::process`]'s; the stores it fills (catalog, schema cache, results) are in
//! [`crate::store`].
//!
//! Layering inside, top to bottom (a file imports only files below it):
//! - [`Registry`] (`registry.rs`): the public API; admits, looks up, hands over.
//! - `call.rs` (a tool call), `probe.rs` (the `servers/test` report), `admission.rs` (config and
//!   trust gate), `lazy.rs` (when the schema cache is read and written).
//! - `lifecycle.rs`: the state machine — starts, failures and restarts, the watch over a ready
//!   generation, acquiring a session for a call. Then `upkeep.rs` (a generation's timers, which
//!   report what is due instead of acting), `launch.rs` (transport, handshake, discovery) and
//!   `teardown.rs` (stop, park, reap, the restart policy's verdict).
//! - `roster.rs`: the table of servers, the catalog built from it, the events, the shutdown flag.
//! - `server.rs` (one server and its slot), `session.rs` (one generation), `restart.rs`, `stats.rs`,
//!   `status.rs`, `settings.rs`.
//!
//! Processes themselves (spawning, groups, trees, the guardian) are [`crate::process`]'s.

mod admission;
mod call;
mod launch;
mod lazy;
mod lifecycle;
mod probe;
mod registry;
pub mod restart;
mod roster;
mod server;
pub mod session;
mod settings;
pub mod stats;
pub mod status;
mod teardown;
mod upkeep;

pub use call::CallOutcome;
pub use registry::Registry;
pub use roster::Event;
pub use settings::{AddOptions, Settings};
pub use status::{ServerState, ServerStatus};
