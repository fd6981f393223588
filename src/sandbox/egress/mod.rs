//! The egress proxy: how a sandboxed server with `sandbox.network.allow` reaches the hosts it names
//! and nothing else. The sidecar runs one proxy per server on 127.0.0.1; the server's own network
//! is confined to that one port and its environment points `HTTP_PROXY`, `HTTPS_PROXY` and
//! `ALL_PROXY` at it. `start` binds it, dropping the [`EgressProxy`] stops it.
//!
//! Files: `proxy` (start, the accept loop, the connection cap), `service` (one request routed),
//! `connect` (`CONNECT host:port` tunnels), `forward` (plain `GET http://host/…`), `gate` (the
//! allow list, then the address check, as one answer), `patterns` (the allow list), `target` (the
//! host a request names), `resolve` (DNS in the proxy and the address check after it), `address`
//! (which addresses are internal), `tunnel` (bytes both ways), `activity` (the idle bound),
//! `answers` (the proxy's own answers: 403, 400, 502, 503), `stats` (counts per host), `shared`
//! (what every connection of one proxy shares), `options` (bounds and the test resolver).

mod activity;
mod address;
mod answers;
mod connect;
mod forward;
mod gate;
mod options;
mod patterns;
mod proxy;
mod resolve;
mod service;
mod shared;
mod stats;
mod target;
mod tunnel;

pub use options::EgressOptions;
pub use patterns::AllowList;
pub use proxy::{start, start_in_runtime, start_with, EgressProxy};
pub use stats::HostCounts;
