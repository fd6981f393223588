//! What the sidecar keeps, below the supervisor that fills it: the exposed tool catalog (with its
//! rendered listings and search index), the on-disk schema cache behind lazy start, and the full
//! texts of truncated results for `results/read`.
//!
//! A store knows nothing of servers' processes or states: it never imports [`crate::supervisor`];
//! what it needs (a server's search path, a timestamp) is passed in or comes from a lower module.
//!
//! Its files:
//! - `catalog`: The exposed tool set.
//! - `entry`: `Entry`.
//! - `era_verdicts`: The era verdicts kept next to the schema cache.
//! - `listing`: A whole `tools/list` answer, spliced from the tools' rendered pieces.
//! - `pieces`: One exposed tool, rendered once per listing variant.
//! - `private_file`: The one way the on-disk stores (the schema cache and the era verdicts beside it) keep a JSON …
//! - `results`: The store behind `results/read`.
//! - `schema_cache`: The on-disk schema cache behind lazy start (`autoStart.

pub mod catalog;
pub mod entry;
pub mod era_verdicts;
pub mod listing;
pub mod pieces;
mod private_file;
pub mod results;
pub mod schema_cache;

pub use catalog::{Catalog, Found, Listing, ListingRequest, ServerTools};
pub use entry::Entry;
pub use era_verdicts::Verdict;
pub use listing::{DeferRule, Rendered, ServerInfo};
pub use results::{ReadOutcome, ResultStore, Truncation};
pub use schema_cache::SchemaCache;
