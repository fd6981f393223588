//! The trust gate: what a host is shown before a stdio server is spawned (exact command line, cwd,
//! env names, source, warnings for risky patterns), the digest that binds its approval to exactly
//! that launch config, and secrets kept out of every output channel. (Plugin path containment is `config::paths`.)

pub mod digest;
pub mod request;
pub mod risk;
pub mod secrets;
