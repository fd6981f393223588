//! The second front end: the aggregate of every configured server served as one MCP server
//! (`mcp-sidecar mcp`), over stdio or Streamable HTTP, in both protocol eras, for any MCP host
//! (Claude Desktop, Cursor, VS Code, an agent framework). It stands beside `host` on the
//! supervisor's `Registry` and never imports `host`; what both need is in `serving`.
//!
//! Files and folders, entry first (a file imports only files listed after it, or below it in its
//! folder):
//! - `run`: the mode's entry (config files read, servers started, reloads, the stop).
//! - `stdio`: the aggregate over stdin and stdout, one session.
//! - `http/`: the aggregate over Streamable HTTP (listener, guards, sessions, streams, probes).
//! - `requests/`: a client's request routed in its era and answered (tools, resources, prompts,
//!   completion, progress, logs, a server's questions to the client), MCP's error codes.
//! - `session/`: a client's session and its lifecycle (`initialize`, `server/discover`,
//!   `logging/setLevel`), what it is told of changes (`listen`), the eras, session ids.
//! - `access/`: who may call over HTTP and what each caller may do; the audit log.
//! - `shared`: the [`Aggregate`](shared::Aggregate) every client shares (the registry, its tools as
//!   MCP tools, instructions, change notices and servers' logs, the asker, the parked calls).
//! - `options`: the mode's set-up from its command line.

pub(crate) mod access;
mod http;
pub(crate) mod options;
mod requests;
mod run;
mod session;
mod shared;
mod stdio;

pub(crate) use access::Token;
pub(crate) use options::{replica_name, HttpOptions, Options, DEFAULT_NAME_TEMPLATE};
pub(crate) use run::{run, StartError};
