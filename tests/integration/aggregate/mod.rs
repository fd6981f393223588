//! `mcp-sidecar mcp`: the aggregate as one MCP server. `stdio` and `http` drive it on the wire,
//! `asks` its servers' questions to the client, `relay` what it passes on besides answers
//! (progress, logs, roots changes, cancels),
//! `start` what a person meets first (names, a config that gives nothing, flags, a closed stderr),
//! `reload` config edits and SIGHUP, `clients` through the official SDK clients, `conformance`
//! through the official conformance suite's server scenarios (`conformance_bridge` with a
//! both-eras reference server downstream, in each era), `gateway` what runs it behind a load
//! balancer (the probes, the drain on SIGTERM), `balancer` replicas of it behind HAProxy and nginx,
//! `access` its clients (what each token may see and call, rotation, rate limits, the audit log);
//! `harness` is what they share.

mod access;
mod asks;
mod balancer;
mod clients;
mod conformance;
mod conformance_bridge;
mod gateway;
pub(crate) mod harness;
mod http;
mod relay;
mod reload;
mod start;
mod stdio;
mod surface;
