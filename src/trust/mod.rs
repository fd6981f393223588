//! The trust gate: what a host is shown before a server is started (exact command line, cwd, env
//! names, inherited variables, env files, URL, headers, tools policy, source, warnings for risky
//! patterns), the digest that binds its approval to exactly that launch config (and `bound`, the
//! fields it leaves out and why), and secrets kept out of every output channel. (Plugin path
//! containment is `config::paths`.)
//!
//! Its other files:
//! - `digest`: The launch digest.
//! - `request`: A trust request.
//! - `risk`: Warnings for risky launch patterns, shown with a trust request.
//! - `secrets`: Secrets.

pub mod bound;
pub mod digest;
pub mod request;
pub mod risk;
pub mod secrets;
