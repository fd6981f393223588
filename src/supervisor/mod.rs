//! Supervision of downstream servers: the registry of configured servers, each server's state machine
//! and generations, restarts, keepalive and idle stops, lazy start from the schema cache, the process
//! trees behind them (groups, escaped descendants, the guardian), and the exposed tool catalog.
//!
//! This is the only module that spawns processes ([`process::spawn`], [`process::spawn_guardian`]).

pub mod cache;
pub mod catalog;
pub mod guardian;
mod lifecycle;
pub mod process;
#[cfg(target_os = "linux")]
pub mod procfs;
mod registry;
pub mod restart;
mod server;
pub mod session;
pub mod stats;
pub mod status;
pub mod stderr;
pub mod tree;
mod upkeep;

pub use cache::SchemaCache;
pub use catalog::{Catalog, Listing};
pub use registry::{CallOutcome, Event, Registry, Settings};
pub use status::{ServerState, ServerStatus};
