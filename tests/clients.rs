//! The thin clients' own test suites (Python, Node, Go), run against the binaries this build made, so
//! `cargo test --workspace` is the one command that runs every test. Each suite includes the shared
//! scenarios of proto/scenarios/. A missing toolchain is a failure, not a skip: `.ci/run` installs
//! them, and a test that runs nothing must not pass.

#![allow(clippy::unwrap_used, clippy::disallowed_methods)] // the harness runs the suites under test

#[path = "integration/support.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `program args` in `dir` with the binaries in the environment; fails with its output.
fn run_suite(dir: &Path, program: &str, args: &[&str]) {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("MCP_SIDECAR_BIN", support::sidecar_bin())
        .env("MCP_FIXTURE_BIN", support::fixture_bin())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{program}` in {} ({e}); .ci/run installs it", dir.display()));
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "`{program} {}` failed in {}:\n{text}", args.join(" "), dir.display());
    eprintln!("{text}");
}

#[test]
fn go_client_suite() {
    let dir = repo().join("clients/go");
    run_suite(&dir, "go", &["vet", "./..."]);
    run_suite(&dir, "go", &["test", "-count=1", "./..."]);
}

#[test]
fn node_client_suite() {
    let dir = repo().join("clients/node");
    assert!(
        dir.join("node_modules").is_dir(),
        "clients/node/node_modules is missing: run `npm ci` in clients/node (.ci/run does)"
    );
    run_suite(&dir, "npm", &["test"]);
}
