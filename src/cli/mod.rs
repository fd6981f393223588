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

pub mod ad_hoc;
pub mod arguments;
pub mod browser_step;
pub mod call;
pub mod command;
pub mod conformance_client;
pub mod discovery;
pub mod doctor;
pub mod exit;
pub mod host_peer;
pub mod inspect;
pub mod list;
pub mod login;
pub mod mcp;
pub mod output;
pub mod pin;
pub mod progress;
pub mod report;
pub mod run;
pub mod selection;
pub mod signature;
pub mod surface;
pub mod table;
pub mod trial;
