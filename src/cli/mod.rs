//! Subcommands of the `mcp-sidecar` binary that are not the sidecar itself: the commands for
//! people (`list`, `call`, `test`, `doctor`, `inspect`, `login`), `mcp`'s command line, and the
//! conformance client (a host that drives the sidecar through `host_peer`) — tools built from the
//! library's parts, kept apart from its core (nothing in the library imports them).
//!
//! Files, lowest first (each imports only files listed before it): `exit` (the exit statuses),
//! `output` (the one stdout writer of these commands, colours), `browser_step` (a login's URL
//! printed for a person), `table`, `arguments` (`call`'s
//! `--arg` typing), `discovery` (the configs people already have), `ad_hoc` (`--stdio`/`--url`
//! servers), `selection` (config files and the servers asked for), `progress`, `run`
//! (what the commands share: the registry, concurrent starts, signals), `signature` (a tool's
//! parameters in one line), then the commands —
//! `list`, `call`, `trial` (`test`), `doctor/`, `report`, `inspect`, `surface` (`resources`, `read`,
//! `prompts`, `prompt`) and `login` — and `command`
//! (the command line's spelling of them, and the one entry that runs them); `mcp` stands apart.
//!
//! Its other files:
//! - `conformance_client`: `mcp-sidecar conformance-client <url>`.
//! - `entry`: The `mcp-sidecar` binary's whole body (`src/main.rs` only calls `main`).
//! - `pin`: `mcp-sidecar pin SERVER`.

pub(crate) mod ad_hoc;
pub(crate) mod arguments;
pub(crate) mod browser_step;
pub(crate) mod call;
pub(crate) mod command;
pub(crate) mod conformance_client;
pub(crate) mod discovery;
pub(crate) mod doctor;
pub(crate) mod entry;
pub(crate) mod exit;
pub(crate) mod host_peer;
pub(crate) mod inspect;
pub(crate) mod list;
pub(crate) mod login;
pub(crate) mod mcp;
pub(crate) mod output;
pub(crate) mod pin;
pub(crate) mod progress;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod selection;
pub(crate) mod signature;
pub(crate) mod surface;
pub(crate) mod table;
pub(crate) mod trial;
