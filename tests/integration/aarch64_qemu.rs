//! Linux aarch64, emulated: aarch64 builds of the sidecar and the fixture server (musl, statically
//! linked, so `qemu-aarch64` runs them without an aarch64 sysroot), cross-linked by `cargo zigbuild`
//! into a target directory of their own (`target/aarch64-qemu`), then the host protocol round trip
//! under `qemu-aarch64`: initialize, servers/add the fixture (itself under `qemu-aarch64`),
//! tools/list, tools/call echo, shutdown. A missing tool (cargo-zigbuild and ziglang, the target's
//! rust-std, qemu-user, `file`) fails the test with what to install; `.ci/run` installs them all.

#![allow(clippy::disallowed_methods)] // the tests run the cross build and `file`, not a server

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::json;

use crate::support::{all_dead, read_pid_file, temp_dir, Sidecar};

const TARGET: &str = "aarch64-unknown-linux-musl";
const QEMU: &str = "qemu-aarch64";
const INSTALL_HINT: &str = "install: pip install ziglang cargo-zigbuild; rustup target add \
     aarch64-unknown-linux-musl; apt-get install qemu-user file (.ci/run pins them)";

/// The folder holding the aarch64 debug builds of `mcp-sidecar` and `mcp-fixture`, built once per
/// test run. Not the host build's target directory: that one is not touched, and the two builds
/// never wait for each other's lock.
fn aarch64_bins() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let target_dir = repo.join("target/aarch64-qemu");
        let status = Command::new(env!("CARGO"))
            .args(["zigbuild", "--locked", "--quiet", "--target", TARGET])
            .args(["-p", "mcp-sidecar", "--bin", "mcp-sidecar"])
            .args(["-p", "mcp-sidecar-fixtures", "--bin", "mcp-fixture"])
            .env("CARGO_TARGET_DIR", &target_dir)
            .current_dir(repo)
            .status()
            .unwrap_or_else(|e| panic!("run cargo zigbuild: {e}; {INSTALL_HINT}"));
        assert!(
            status.success(),
            "cargo zigbuild --target {TARGET} failed; {INSTALL_HINT}"
        );
        target_dir.join(TARGET).join("debug")
    })
}

/// What `file` says about `path`.
fn file_facts(path: &Path) -> String {
    let out = Command::new("file")
        .arg("-b")
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("run file: {e}; {INSTALL_HINT}"));
    assert!(out.status.success(), "file {} failed", path.display());
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn the_aarch64_builds_are_static_aarch64_elf_executables() {
    for name in ["mcp-sidecar", "mcp-fixture"] {
        let facts = file_facts(&aarch64_bins().join(name));
        assert!(
            facts.starts_with("ELF 64-bit LSB") && facts.contains("ARM aarch64"),
            "{name} is not an aarch64 ELF executable: {facts}"
        );
        assert!(
            facts.contains("statically linked") || facts.contains("static-pie linked"),
            "{name} is not statically linked: {facts}"
        );
    }
}

#[test]
fn host_protocol_round_trip_and_a_tool_call_under_qemu_aarch64() {
    let bins = aarch64_bins();
    let sidecar = bins.join("mcp-sidecar");
    let fixture = bins.join("mcp-fixture");
    let dir = temp_dir("aarch64");
    let pid_file = dir.join("fixture.json");
    let stderr = std::fs::File::create(dir.join("stderr.log")).unwrap();
    let mut s = Sidecar::spawn_program(
        Path::new(QEMU),
        &[sidecar.to_str().unwrap()],
        Stdio::from(stderr),
    );

    let init = s.call("initialize", json!({"protocolVersion": 1}));
    assert_eq!(init["protocolVersion"], 1, "{init}");
    assert_eq!(init["serverInfo"]["name"], "mcp-sidecar", "{init}");

    // No binfmt handler is needed: the emulated sidecar starts the host's qemu-aarch64, which runs
    // the aarch64 fixture.
    let status = s.add(
        "arm",
        json!({
            "command": QEMU,
            "args": [fixture, "--pid-file", pid_file],
        }),
    );
    assert_eq!(status["state"], "ready", "{status}");
    let server_pid = read_pid_file(&pid_file)["pid"].as_u64().unwrap() as u32;
    let exe = std::fs::read_link(format!("/proc/{server_pid}/exe")).unwrap();
    assert!(
        exe.ends_with(QEMU),
        "the server is not running under {QEMU}: {}",
        exe.display()
    );

    let listing = s.call("tools/list", json!({}));
    let names: Vec<&str> = listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"mcp__arm__echo"), "{listing}");

    let r = s.call(
        "tools/call",
        json!({"name": "mcp__arm__echo", "arguments": {"message": "héllo aarch64"}}),
    );
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["text"], "héllo aarch64", "{r}");

    assert_eq!(s.call("shutdown", json!({})), json!({}));
    assert_eq!(s.wait_exit(), Some(0));
    all_dead("the aarch64 fixture after shutdown", &[server_pid]);
    let _ = std::fs::remove_dir_all(&dir);
}
