//! mcp-sidecar: one process that a host (Python, Node, Go…) spawns to reach many MCP servers.
//!
//! Layout, upstream to downstream:
//! - [`host`]: host protocol v1 on our stdin/stdout (reader, the single stdout writer, dispatch).
//! - [`supervisor`]: the registry of servers, their states and generations, restarts, lazy start and
//!   `servers/test`.
//! - [`process`]: the OS processes below it: the one spawn site, process groups and environment, the
//!   stop sequence of a server's tree, the subreaper, the guardian, the drained stderr ring. Event
//!   driven (pidfds, SIGCHLD), never importing `supervisor`, `host`, `mcp` or `convert`.
//! - [`store`]: what the supervisor keeps: the catalog of exposed tools, the on-disk schema cache,
//!   the full texts of truncated results. Never imports the supervisor.
//! - [`mcp`]: the MCP client session, written once over a transport that moves lines.
//! - [`jsonrpc`]: wire types, the bounded line reader, the pending-request table.
//! - [`ask`]: the seam through which lower layers ask whoever owns the session (the host answers a
//!   server's sampling, elicitation and roots requests through it).
//! - [`convert`]: pure functions from MCP shapes to provider shapes (names, definitions and their
//!   schema transforms, results and their budgets).
//! - [`search`]: ranked tool search (BM25 over names, titles, descriptions and parameter names;
//!   exact names first), pure.
//! - [`sandbox`]: what a server's sandbox asks for (policy, presets) and what each platform enforces
//!   at spawn.
//! - [`config`]: raw server configs to validated [`config::ServerSpec`]s.
//! - [`oauth`]: OAuth 2.1 for remote servers (discovery, client identity, PKCE, the browser step,
//!   tokens kept, refreshed and masked).
//! - [`trust`]: the trust gate (launch digests, risk warnings, secrets, plugin containment).
//! - [`era`]: the protocol eras' revisions, envelope keys and error codes, shared by both directions.
//! - [`logging`]: the stderr log set-up (text for people, JSON lines for pipelines).
//! - [`metrics`]: Prometheus metrics (`/metrics`); [`telemetry`]: OpenTelemetry traces and the W3C
//!   trace context carried to servers.
//! - [`signals`]: termination signals (graceful stop, then immediate kill).
//! - [`cli`]: subcommands of the binary that are not the sidecar itself (the commands for people:
//!   `list`, `call`, `test`, `doctor`, `inspect`; the conformance client).
//!
//! Architecture invariants (see also ARCHITECTURE.md):
//! 1. `jsonrpc` knows nothing of MCP or of the host protocol; `mcp` and `host` never import each other.
//! 2. An MCP session does not know whether its transport is a child process.
//! 3. Only `process::spawn` spawns processes (clippy `disallowed-methods`).
//! 4. Only `serving::writer` writes stdout (clippy `print_stdout` is denied everywhere else).
//! 5. Every pending request ends exactly once: response, timeout, host cancel, or peer death.
//! 6. Every byte read from a peer passes through a named bound in [`limits`].
//! 7. No process outlives the sidecar: every server runs in its own process group with the sidecar's
//!    death signal; escaped descendants are re-parented to the sidecar (subreaper) and attributed by
//!    their origin marker; the guardian kills what is left if the sidecar is SIGKILLed
//!    (see [`process`] and `process::guardian`).

mod ask;
mod canonical;
mod cli;
pub mod config;
pub mod convert;
mod era;
pub mod error;
mod host;
pub mod jsonrpc;
pub mod limits;
mod logging;
pub mod mcp;
mod metrics;
mod oauth;
mod package;
mod process;
pub mod sandbox;
mod search;
mod serving;
mod signals;
pub mod store;
mod supervisor;
mod telemetry;
mod time;
pub mod trust;
mod upstream;

pub use cli::entry::main;
pub use error::{Error, ErrorCode};
