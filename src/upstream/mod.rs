//! The second front end: the aggregate of every configured server served as one MCP server
//! (`mcp-sidecar mcp`), over stdio or Streamable HTTP, in both protocol eras, for any MCP host
//! (Claude Desktop, Cursor, VS Code, an agent framework). It stands beside `host` on the
//! supervisor's `Registry` and never imports `host`; what both need is in `serving`.
//!
//! Layering inside (a file imports only files listed after it):
//! 1. `run` (the mode's entry), then the two carriers: `stdio`, `http/` (listener, guards,
//!    sessions, streams).
//! 2. `dispatch`: a request in its era → its handler; notifications → the session.
//! 3. The handlers: `lifecycle` (`initialize`, `server/discover`, `logging/setLevel`), `tools`
//!    (its list in `pages`), `surface` (resources, prompts, completion; who owns what in
//!    `owners`),
//!    `listen` (list changes to legacy sessions and `subscriptions/listen`).
//! 4. What they stand on: `aggregate` (the shared registry, its tools as MCP tools, its
//!    instructions, its change notices and servers' logs), `progress` and `logs` (a call's
//!    progress, the servers' log messages, as a client gets them), `session` (a legacy session's state), `era` (versions,
//!    envelopes, modern results), `wire` (MCP's error codes), `options`.

pub(crate) mod access;
mod aggregate;
mod answering;
mod asks;
mod dispatch;
mod era;
mod http;
mod ids;
mod input;
mod lifecycle;
mod listen;
mod logs;
pub(crate) mod options;
mod owners;
mod pages;
mod progress;
mod request;
mod run;
mod session;
mod stdio;
mod surface;
mod tools;
mod wire;

pub(crate) use access::Token;
pub(crate) use options::{replica_name, HttpOptions, Options, DEFAULT_NAME_TEMPLATE};
pub(crate) use run::{run, StartError};
