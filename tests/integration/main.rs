//! The one integration-test binary: the real `mcp-sidecar` binary driven over pipes against the
//! real fixture servers, the conversion and config tests over the library, and the thin clients'
//! and remote servers' suites. This file only lists the modules; `support` holds what they share.
//! Run one module with `cargo test --test integration <module>::`. Every OS compiles it: the modules
//! that need Unix (or Linux) are marked; `trees::` and `shutdown::` are what the macOS and Windows
//! runners run (`.github/scripts/process-tests`).

// A test may unwrap: a panic is its failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(target_os = "linux")] // cross-builds and runs another OS's binaries
mod aarch64_qemu;
#[cfg(unix)] // Unix-only APIs
mod aggregate;
mod architecture;
#[cfg(unix)] // Unix-only APIs
mod backpressure;
mod cache_hints;
mod calls;
mod cancel;
mod catalog_props;
mod cli;
mod cli_doctor;
mod cli_project_gate;
#[cfg(unix)] // Unix-only APIs
mod cli_terminal;
mod cli_usability;
mod clients;
mod codegen;
mod concurrency;
mod config_dialects;
mod config_watch;
mod convert;
mod convert_golden;
mod convert_props;
#[cfg(unix)] // Unix-only APIs
mod dormant;
mod env;
mod era;
mod failures;
#[cfg(unix)] // Unix-only APIs
mod faults;
mod handshake;
mod leaks;
mod logs;
mod map;
mod oauth;
mod oauth_host;
#[cfg(unix)] // the Secret's symlinks
mod oauth_token_file;
#[cfg(unix)] // the `mcp --http` harness (`aggregate`)
mod observability;
mod packages;
mod packages_pinned;
mod pins;
mod probe;
mod procfs;
mod progress;
mod progressive;
mod remote;
mod remote_answers;
mod remote_requests;
mod remote_servers;
mod resources;
mod restarts;
mod sandbox;
mod sandbox_egress;
#[cfg(target_os = "linux")] // the sandbox is enforced on Linux
mod sandbox_hostile;
#[cfg(target_os = "macos")] // Seatbelt, on the macOS runners
mod sandbox_macos;
#[cfg(target_os = "linux")] // the sandbox is enforced on Linux
mod sandbox_real;
#[cfg(windows)] // the Job Object's limits, on the Windows runner
mod sandbox_windows;
mod secrets;
mod server_requests;
mod servers;
mod shutdown;
mod stats;
mod support;
mod surface;
mod tasks;
mod tool_search;
mod tool_sets;
mod transcripts;
mod trees;
mod trust;
mod versions;
#[cfg(target_os = "linux")] // cross-builds and runs another OS's binaries
mod windows_wine;
