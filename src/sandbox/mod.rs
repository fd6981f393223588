//! Sandboxed servers: what a config asks for ([`SandboxPolicy`], its [`presets`]) and, per
//! platform, what is enforced at spawn and reported ([`SandboxLevel`]). docs/sandbox.md is the
//! user's account of it.

pub mod policy;
pub mod presets;
// Generated and golden-tested on every OS, applied on macOS.
#[cfg(any(target_os = "macos", test))]
pub mod seatbelt;

pub use policy::{NetworkPolicy, SandboxPolicy};
