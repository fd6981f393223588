//! The trust gate: what a host is shown before a stdio server is spawned (exact command line, cwd,
//! env names, source, warnings for risky patterns), the digest that binds its approval to exactly
//! that launch config, secrets kept out of every output channel, and plugin path containment.

pub mod digest;
pub mod paths;
pub mod request;
pub mod risk;
pub mod secrets;
