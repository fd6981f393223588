//! Sandboxed servers: what a config asks for ([`SandboxPolicy`], its [`presets`]) and, per
//! platform, what is enforced at spawn and reported ([`SandboxLevel`]): [`prepare`] before the
//! fork, [`ChildSteps::apply_in_child`] between fork and exec, [`Running`] until the tree ends;
//! [`denial`] reads a failed server's stderr for what the sandbox refused; [`egress`] is the proxy
//! through which `network.allow` reaches its named hosts only. docs/sandbox.md is the
//! user's account of it.

pub mod denial;
pub mod egress;
pub mod level;
#[cfg(target_os = "linux")]
pub mod linux;
pub mod policy;
pub mod prepare;
pub mod presets;
// Generated and golden-tested on every OS, applied on macOS.
#[cfg(any(target_os = "macos", test))]
pub mod seatbelt;

pub use level::SandboxLevel;
pub use policy::{NetworkPolicy, SandboxPolicy};
pub use prepare::{denied, prepare, probe, ChildSteps, Prepared, Running, SpawnContext};
