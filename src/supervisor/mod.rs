//! Supervision of downstream servers: the registry of configured servers (the host-facing API),
//! each server's state machine and generations, restarts, keepalive and idle stops, lazy start from
//! the schema cache, `servers/test` trials. The processes themselves (spawning, groups, trees, the
//! guardian) are [`crate::process`]'s; the stores it fills (catalog, schema cache, results) are in
//! [`crate::store`].
//!
//! Layering inside: a file imports only files listed after it (no circles).
//! 0. `config_files.rs`: a set of config files kept in force (read, added, reloaded by difference);
//!    `config_watch.rs` (their edits seen; imports nothing here).
//! 1. `registry/`: [`Registry`], the public API; admits, looks up, hands over (its operations by
//!    concern: `servers`, `status`, `stop`, `tools`, `resources`).
//! 2. `call.rs` (one tool call, its turn in a serial queue, its result budget), `probe.rs` (the
//!    `servers/test` report), `awaiting.rs` (a call to a tool of a server still on its first
//!    start waits for it alone), `listing.rs` (the lists of many servers, the sidecar's cursor),
//!    `surface.rs` (resources, prompts, completion, log levels of one server), `accept.rs` (held
//!    tool definitions and `tools/accept`), `acquire.rs` (a session for a call, a dormant server
//!    started for it).
//! 3. `lifecycle.rs`: the state machine — starts, failures and restarts, the watch over a ready
//!    generation; `announce.rs`: the server's announcements it forwards to the host.
//! 4. `upkeep.rs`: a ready generation's timers; reports what is due instead of acting.
//!    `resume.rs`: what a server is told again at each start (log level, subscriptions).
//! 5. `login.rs` (the `needs_login` state: a login during a start or in the background, logout),
//!    then `launch.rs` (transport, handshake, discovery), `teardown.rs` (stop, park, reap, the
//!    restart policy's verdict), `lazy.rs` (when the schema cache is read and written),
//!    `resource_tools.rs` (`list_resources` / `read_resource` under `resourcesAsTools`).
//! 6. `admission.rs` (config and trust gate), `roster.rs` (the table of servers, the catalog built
//!    from it, the events, the shutdown flag, the session's log level), then `events.rs` (the
//!    coalescing event queue).
//! 7. `server.rs` (one server and its slot), then `session.rs` (one generation), `pins.rs` (the
//!    ledger of tool definitions, `pinTools`), `restart.rs`, `stats.rs` (over `latency.rs`, the
//!    histograms), `timings.rs` (where a start's time went), `overload.rs` (the `maxInflight`
//!    cap), `status.rs`, `settings.rs`; the process files below them.
//!
//! Processes themselves (spawning, groups, trees, the guardian) are [`crate::process`]'s.
//!
//! Its other files:
//! - `freshness`: When a modern server's listed tools are due to be listed again.
//! - `policy`: The tools policy, applied to a freshly discovered (or cached) tool list.

mod accept;
mod acquire;
mod admission;
mod announce;
mod awaiting;
mod call;
mod config_files;
mod config_watch;
mod events;
mod freshness;
mod latency;
mod launch;
mod lazy;
mod lifecycle;
mod listing;
mod login;
mod overload;
mod pins;
mod policy;
mod probe;
mod registry;
mod resource_tools;
pub(crate) mod restart;
mod resume;
mod roster;
mod server;
pub(crate) mod session;
mod settings;
pub(crate) mod stats;
pub(crate) mod status;
mod surface;
mod teardown;
pub(crate) mod timings;
mod upkeep;

/// The level of `logging/setLevel` and of servers' log messages: part of this API (settings,
/// events), so the host names it through the supervisor.
pub(crate) use crate::mcp::LogLevel;
/// The latest progress of a call (see [`CallOptions::progress`]).
pub(crate) use crate::mcp::Progress;
pub(crate) use accept::Acceptance;
pub(crate) use call::{CallOptions, CallOutcome};
pub(crate) use config_files::{ConfigFiles, Read as ConfigRead};
pub(crate) use config_watch::watch as watch_config_files;
pub(crate) use events::{
    queue as event_queue, Event, EventReceiver, EventSender, ServerLog, ToolsChange,
};
pub(crate) use registry::{LoadOutcome, Registry};
pub(crate) use settings::{AddOptions, AuthSettings, Settings};
pub(crate) use status::{ServerState, ServerStats, ServerStatus};
pub(crate) use surface::ResourceRead;
