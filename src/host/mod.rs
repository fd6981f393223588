//! The host's front end: host protocol v1 on the sidecar's own stdin and stdout.
//!
//! One reader task reads the host's lines through a bound (`serve`), one writer task owns stdout
//! (`serving::writer`), and every request other than `initialize` and `shutdown` runs as its own
//! task (`requests`) so calls proceed concurrently, once it has a ticket of `serving::flow` (the
//! bound on requests in flight, which pushes back into reading stdin); `dispatch` routes it to its
//! handler (`servers`, `load`, `tools`, `surface` for resources, prompts, completion and log
//! levels; `search` for `tools/search` and the `search_tools` meta-tool), its answer a value or
//! JSON text held already (`reply`). `session` starts and stops the session, `events` forwards the
//! registry's events, `context` is the state they share. The protocol itself is specified in
//! proto/PROTOCOL.md.
//!
//! Its other files:
//! - `asks`: The sidecar's own requests to the host.
//! - `call_result`: The fields every `tools/call` result has (§10), whoever answered the call.
//! - `params`: Parameters of host protocol v1 requests.

mod asks;
mod call_result;
mod context;
mod dispatch;
mod events;
mod load;
mod params;
mod reply;
mod requests;
mod search;
mod serve;
mod servers;
mod session;
mod surface;
mod tools;

pub(crate) use serve::{serve, ServeOptions};
