//! Supervision of downstream servers: the registry of configured servers, each server's state machine
//! and generations, the process trees behind them, the exposed tool catalog, and the store of
//! truncated results' full texts.
//!
//! This is the only module that spawns processes ([`process::spawn`]).

pub mod catalog;
pub mod process;
mod registry;
pub mod results;
pub mod session;
pub mod status;
pub mod stderr;

pub use catalog::{Catalog, Listing};
pub use registry::{CallOutcome, Event, ReadOutcome, Registry, Settings, Truncation};
pub use results::ResultStore;
pub use status::{ServerState, ServerStatus};
