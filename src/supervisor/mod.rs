//! Supervision of downstream servers: the registry of configured servers, each server's state machine
//! and generations, restarts, keepalive and idle stops, lazy start from the schema cache, the process
//! trees behind them (groups, escaped descendants, the guardian), the exposed tool catalog, and the
//! store of truncated results' full texts.
//!
//! This is the only module that spawns processes ([`process::spawn`], [`process::spawn_guardian`]).

pub mod cache;
pub mod catalog;
pub mod guardian;
mod lifecycle;
mod probe;
pub mod process;
#[cfg(target_os = "linux")]
pub mod procfs;
mod registry;
pub mod restart;
pub mod results;
mod server;
pub mod session;
pub mod stats;
pub mod status;
pub mod stderr;
pub mod tree;
mod upkeep;

pub use cache::SchemaCache;
pub use catalog::{Catalog, Listing};
pub use registry::{AddOptions, CallOutcome, Event, ReadOutcome, Registry, Settings, Truncation};
pub use results::ResultStore;
pub use status::{ServerState, ServerStatus};
