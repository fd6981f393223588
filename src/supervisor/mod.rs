//! Supervision of downstream servers: the registry of configured servers (the host-facing API),
//! each server's state machine and generations, restarts, keepalive and idle stops, lazy start from
//! the schema cache, `servers/test` trials. The processes themselves (spawning, groups, trees, the
//! guardian) are [`crate::process`]'s; the stores it fills (catalog, schema cache, results) are in
//! [`crate::store`].
//!
//! Layering inside: a file imports only files listed after it (no circles).
//! 1. `registry.rs`: [`Registry`], the public API; admits, looks up, hands over.
//! 2. `call.rs` (one tool call and its result budget), `probe.rs` (the `servers/test` report),
//!    `awaiting.rs` (a call to a tool of a server still on its first start waits for it alone).
//! 3. `lifecycle.rs`: the state machine — starts, failures and restarts, the watch over a ready
//!    generation, acquiring a session for a call.
//! 4. `upkeep.rs`: a ready generation's timers; reports what is due instead of acting.
//! 5. `launch.rs` (transport, handshake, discovery), `teardown.rs` (stop, park, reap, the restart
//!    policy's verdict), `lazy.rs` (when the schema cache is read and written).
//! 6. `admission.rs` (config and trust gate), `roster.rs` (the table of servers, the catalog built
//!    from it, the events, the shutdown flag), then `events.rs` (the coalescing event queue).
//! 7. `server.rs` (one server and its slot), then `session.rs` (one generation), `restart.rs`,
//!    `stats.rs` (over `latency.rs`, the histograms), `timings.rs` (where a start's time went),
//!    `overload.rs` (the `maxInflight` cap), `status.rs`, `settings.rs`; the process files below
//!    them.
//!
//! Processes themselves (spawning, groups, trees, the guardian) are [`crate::process`]'s.

mod admission;
mod awaiting;
mod call;
mod events;
mod latency;
mod launch;
mod lazy;
mod lifecycle;
mod overload;
mod policy;
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
pub mod timings;
mod upkeep;

/// The latest progress of a call (see [`CallOptions::progress`]).
pub use crate::mcp::Progress;
pub use call::{CallOptions, CallOutcome};
pub use events::{queue as event_queue, Event, EventReceiver, EventSender};
pub use registry::Registry;
pub use settings::{AddOptions, Settings};
pub use status::{ServerState, ServerStats, ServerStatus};
pub use timings::{Phase, StartTimings};
