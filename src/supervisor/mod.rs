//! Supervision of downstream servers: the registry of configured servers, each server's state machine
//! and generations, the process trees behind them, and the exposed tool catalog.
//!
//! This is the only module that spawns processes ([`process::spawn`]).

pub mod catalog;
pub mod process;
mod registry;
pub mod session;
pub mod status;
pub mod stderr;

pub use catalog::{Catalog, Listing};
pub use registry::{CallOutcome, Event, Registry, Settings};
pub use status::{ServerState, ServerStatus};
