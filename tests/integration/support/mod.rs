//! What every test module shares, written once: the fixture server (built once per run), the
//! [`Sidecar`] harness that drives the real binary over pipes, bounded waits, temporary
//! directories, the process facts (/proc, ps, mcp-proclist), and the conversion tests' data and rules.

#![allow(dead_code, clippy::unwrap_used, clippy::disallowed_methods)] // the harness spawns the binaries under test

pub(crate) mod data;
pub(crate) mod proc;
#[cfg(windows)]
pub(crate) mod proclist;
pub(crate) mod provider_rules;
#[cfg(target_os = "macos")]
pub(crate) mod ps;
pub(crate) mod random;
mod sidecar;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub(crate) use data::{data_path, schema_files};
#[cfg(target_os = "linux")]
pub(crate) use proc::{cgroup2_writable, cgroup_of};
// The process facts the tree tests check, each OS from its own process table.
#[cfg(target_os = "linux")]
pub(crate) use proc::{guardian_of, parent_of, parentage, pid_alive};
#[cfg(windows)]
pub(crate) use proclist::{parent_of, pid_alive};
#[cfg(target_os = "macos")]
pub(crate) use ps::{command_of, guardian_of, parent_of, parentage, pid_alive};
pub(crate) use sidecar::Sidecar;

/// The longest any single wait in a test may take before the test fails.
pub(crate) const WAIT: Duration = Duration::from_secs(20);

/// The sidecar binary cargo built for these tests.
pub(crate) fn sidecar_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp-sidecar"))
}

/// The stdio fixture server, built once per test run.
pub(crate) fn fixture_bin() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| build_fixture("mcp-fixture")).clone()
}

/// The HTTP fixture server (Streamable HTTP and legacy SSE), built once per test run.
pub(crate) fn http_fixture_bin() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| build_fixture("mcp-http-fixture"))
        .clone()
}

/// The benchmark driver `mcp-bench`, built once per test run.
pub(crate) fn bench_bin() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| build_fixture("mcp-bench")).clone()
}

/// `mcp-hostile`, the server whose tools are what a sandbox must refuse, built once per test run.
pub(crate) fn hostile_bin() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| build_fixture("mcp-hostile")).clone()
}

/// Set (to anything) when the fixtures are built already and cargo cannot be run: the Windows-built
/// tests run under Wine, where Linux's cargo is not a program Windows can start.
const PREBUILT_ENV: &str = "MCP_SIDECAR_TEST_PREBUILT";

/// Builds binary `name` of the fixtures crate. `cargo test` does not build binaries of another
/// workspace member, so build it here (same profile, same target directory).
fn build_fixture(name: &str) -> PathBuf {
    if std::env::var_os(PREBUILT_ENV).is_some() {
        let bin_dir = sidecar_bin().parent().unwrap().to_path_buf();
        let path = bin_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        assert!(
            path.exists(),
            "{} missing ({PREBUILT_ENV} is set)",
            path.display()
        );
        return path;
    }
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "-p",
            "mcp-sidecar-fixtures",
            "--bin",
            name,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap_or_else(|e| panic!("run cargo build for {name}: {e}"));
    assert!(status.success(), "building {name} failed");
    let bin_dir = sidecar_bin().parent().unwrap().to_path_buf();
    let path = bin_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} missing after build", path.display());
    path
}

/// A server config that runs the fixture with `args`.
pub(crate) fn fixture(args: &[&str]) -> Value {
    json!({ "command": fixture_bin(), "args": args })
}

/// A server config that runs the fixture serving the saved schemas (`tests/data/schemas`),
/// cycled to `count` tools (repeats named `<name>_<k>`).
pub(crate) fn realistic_tools(count: usize) -> Value {
    let schemas = data_path("schemas");
    fixture(&[
        "--tools-file",
        schemas.to_str().unwrap(),
        "--tools-count",
        &count.to_string(),
    ])
}

/// `config` with the fields of `extra` added (or replaced).
pub(crate) fn with_fields(mut config: Value, extra: Value) -> Value {
    if let (Some(c), Some(e)) = (config.as_object_mut(), extra.as_object()) {
        c.extend(e.clone());
    }
    config
}

/// Waits until `pred` holds, polling every 10 ms, for at most [`WAIT`].
/// Only for conditions with no event to await (e.g. another process's death).
pub(crate) fn eventually(what: &str, pred: impl Fn() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !pred() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits (bounded by [`WAIT`]) for `child` to exit; its exit code. A child is no pid to watch for:
/// its exit is only seen by asking.
pub(crate) fn exit_code(child: &mut std::process::Child) -> Option<i32> {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        assert!(Instant::now() < deadline, "the process did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A fresh temporary directory for one test.
pub(crate) fn temp_dir(tag: &str) -> PathBuf {
    static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("mcp-sidecar-test-{}-{tag}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every pid a fixture `--pid-file` names: the server, its grandchildren and its escapees.
pub(crate) fn pids_in(record: &Value) -> Vec<u32> {
    let mut pids = vec![record["pid"].as_u64().unwrap() as u32];
    for key in ["grandchildren", "escapees", "daemons"] {
        pids.extend(
            record[key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| p.as_u64().unwrap() as u32),
        );
    }
    pids
}

/// Waits until none of `pids` is alive (they are not the test's children: there is no event).
pub(crate) fn all_dead(what: &str, pids: &[u32]) {
    eventually(what, || pids.iter().all(|p| !pid_alive(*p)));
}

/// Sends a signal to a process.
#[cfg(unix)]
pub(crate) fn signal(pid: u32, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), sig).unwrap();
}

/// Reads a fixture `--pid-file` once it exists.
pub(crate) fn read_pid_file(path: &Path) -> Value {
    eventually("pid file", || path.exists());
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}
