//! Sandboxed servers: what a config asks for ([`SandboxPolicy`], its [`presets`]) and, per
//! platform, what is enforced at spawn and reported ([`SandboxLevel`]). docs/sandbox.md is the
//! user's account of it.

pub mod policy;
pub mod presets;

pub use policy::{NetworkPolicy, SandboxPolicy};
