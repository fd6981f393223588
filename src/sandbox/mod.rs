//! Sandboxed servers: what a config asks for ([`SandboxPolicy`], its [`presets`]) and, per
//! platform (`linux`, `macos`, `windows`), what is enforced at spawn and reported
//! ([`SandboxLevel`]): [`prepare`] before the
//! fork, [`ChildSteps::apply_in_child`] between fork and exec, [`Running`] until the tree ends;
//! [`denial`] reads a failed server's stderr for what the sandbox refused; [`egress`] is the proxy
//! through which `network.allow` reaches its named hosts only. docs/sandbox.md is the
//! user's account of it.
//!
//! Its other files:
//! - `level`: What a platform enforced of a server's sandbox.
//! - `policy`: What a server's sandbox asks for, as the config gives it once its preset's defaults are filled in …
//! - `seatbelt`: macOS.
//! - `spawn_env`: The variables a confined server gets on top of its own, on every OS.

pub mod denial;
pub mod egress;
pub mod level;
#[cfg(target_os = "linux")]
pub mod linux;
// The level is a pure function, tested on every OS; the spawn part is macOS's own.
#[cfg(any(target_os = "macos", test))]
pub mod macos;
pub mod policy;
pub mod prepare;
pub mod presets;
// Generated and golden-tested on every OS, applied on macOS.
#[cfg(any(target_os = "macos", test))]
pub mod seatbelt;
mod spawn_env;
// The level is a pure function, tested on every OS.
#[cfg(any(windows, test))]
pub mod windows;

pub use level::SandboxLevel;
pub use policy::{NetworkPolicy, SandboxPolicy};
pub use prepare::{denied, prepare, probe, ChildSteps, Prepared, Running, SpawnContext};
