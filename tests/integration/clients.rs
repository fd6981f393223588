//! The thin clients' own test suites (Python, Node, Go), run against the binaries this build made, so
//! `cargo test --workspace` is the one command that runs every test. Each suite includes the shared
//! scenarios of proto/scenarios/. A missing toolchain is a failure, not a skip: `.ci/run` installs
//! them, and a test that runs nothing must not pass. One suite alone:
//! `cargo test --test integration clients::python_client_suite`.

#![allow(clippy::disallowed_methods)] // the harness runs the suites under test

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support;

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
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `{program}` in {} ({e}); .ci/run installs it",
                dir.display()
            )
        });
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "`{program} {}` failed in {}:\n{text}",
        args.join(" "),
        dir.display()
    );
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
    // Without `npm ci` (which .ci/run does) only the TypeScript definition check is skipped: the
    // client itself has no dependencies.
    run_suite(&repo().join("clients/node"), "npm", &["test"]);
}

#[test]
fn python_client_suite() {
    run_suite(
        &repo().join("clients/python"),
        "python3",
        &["-m", "pytest", "-q", "-p", "no:cacheprovider"],
    );
}

/// The Node client's framework adapters (`mcp-sidecar/ai-sdk`, `/openai-agents`, `/langchain`) in
/// real agent loops of the pinned frameworks with their own offline fake models. The frameworks
/// are the package's devDependencies, installed by `npm ci` in .ci/run; the core suite above
/// never needs them.
#[test]
fn node_adapters_suite() {
    run_suite(
        &repo().join("clients/node"),
        "npm",
        &["run", "test:adapters"],
    );
}

/// The Python framework adapters (clients/python/tests_adapters: OpenAI Agents, LangChain,
/// Pydantic AI) in real agent loops, run by the venv `.ci/run` makes with the frameworks at
/// pinned versions (they pin their own `mcp`, so not the global one); the client comes from
/// `src/` on the path, no wheel is built.
#[test]
fn python_adapters_suite() {
    let dir = repo().join("clients/python");
    let python = dir.join(".venv-adapters/bin/python");
    run_suite(
        &dir,
        python.to_str().unwrap(),
        &[
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests_adapters",
        ],
    );
}

/// The Go framework adapters (clients/go/adapters: openai-go, anthropic-sdk-go, LangChainGo), each a
/// module of its own pinned in its go.mod/go.sum (`.ci/run` downloads them): agent loops through
/// the frameworks' own clients and agents against the fixture server.
#[test]
fn go_adapters_suite() {
    for adapter in ["openaigo", "anthropicgo", "langchaingo"] {
        let dir = repo().join("clients/go/adapters").join(adapter);
        run_suite(&dir, "go", &["vet", "./..."]);
        run_suite(&dir, "go", &["test", "-count=1", "./..."]);
    }
}
