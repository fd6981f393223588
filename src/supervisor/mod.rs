//! Supervision of downstream servers: the registry of configured servers, each server's state machine
//! and generations, restarts, keepalive and idle stops, lazy start from the schema cache, the exposed
//! tool catalog, and the store of truncated results' full texts.
//!
//! Processes themselves (spawning, groups, trees, the guardian) are [`crate::process`]'s.

pub mod cache;
pub mod catalog;
mod lifecycle;
mod probe;
mod registry;
pub mod restart;
pub mod results;
mod server;
pub mod session;
pub mod stats;
pub mod status;
mod upkeep;

pub use cache::SchemaCache;
pub use catalog::{Catalog, Listing};
pub use registry::{AddOptions, CallOutcome, Event, ReadOutcome, Registry, Settings, Truncation};
pub use results::ResultStore;
pub use status::{ServerState, ServerStatus};
