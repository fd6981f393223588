//! The upstream side: host protocol v1 on the sidecar's own stdin and stdout.
//!
//! One reader task reads the host's lines through a bound, one writer task owns stdout, and every
//! request other than `initialize` and `shutdown` runs as its own task so calls proceed concurrently.
//! The protocol itself is specified in proto/PROTOCOL.md.

mod dispatch;
mod load;
mod params;
pub mod stdio;
mod writer;

pub use dispatch::{serve, ServeOptions};
pub use params::PROTOCOL_VERSION;
pub use writer::Outbox;
