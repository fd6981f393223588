//! Windows, run under Wine: the sidecar, the fixture server and `mcp-proclist` cross-built for
//! `x86_64-pc-windows-gnu` (debug, in a target directory of their own) and run by Wine in a prefix
//! of their own beside them. Checked: the host protocol round trip; a server started through a `.cmd` launcher
//! (`cmd.exe /c`, the shape of `npx` on Windows) whose fixture starts a grandchild; and that this
//! whole tree is gone after `servers/remove`, after `shutdown` and after the sidecar is killed — as
//! the Windows-built process lister (a ToolHelp snapshot) sees it. The launcher is the middle layer
//! on purpose: `cmd.exe` forwards nothing when it is killed, so only the Job Object takes the
//! fixture and its grandchild with it.
//!
//! Needs `x86_64-w64-mingw32-gcc`, Wine and the Rust target (`.ci/run` installs them); a missing
//! one fails the test. What Wine cannot show, and what a Windows runner adds: docs/platforms.md.

#![allow(clippy::disallowed_methods)] // the tests build and run the binaries under test

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

use serde_json::{json, Value};

use crate::support::*;

const TARGET: &str = "x86_64-pc-windows-gnu";

/// Current Rust's standard library imports `ProcessPrng` from `bcryptprimitives.dll`, which Wine 8
/// lacks: this stub, next to the executables, gives it (over `RtlGenRandom`).
const PROCESS_PRNG_STUB: &str = r#"#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    for (; length > 0x40000000; data += 0x40000000, length -= 0x40000000)
        if (!SystemFunction036(data, 0x40000000)) return FALSE;
    return SystemFunction036(data, (ULONG)length);
}
"#;

/// The Windows binaries and the Wine prefix they run in, made once per test run.
struct Wine {
    wine: PathBuf,
    prefix: PathBuf,
    bin: PathBuf,
}

/// One test at a time: they share one prefix (one wineserver) and its process list.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn wine() -> &'static Wine {
    static WINE: OnceLock<Wine> = OnceLock::new();
    WINE.get_or_init(|| {
        let bin = build_windows_binaries();
        let wine = find_wine();
        // Kept between runs beside the Windows build (a prefix is some 700 MB and takes seconds
        // to create); whatever an earlier, failed run left running in it is killed first.
        let prefix = bin.join("wine-prefix");
        let w = Wine { wine, prefix, bin };
        let server = w.wine.with_file_name("wineserver");
        std::fs::create_dir_all(&w.prefix).unwrap();
        // `-k` kills an earlier wineserver of this prefix and its processes; `-w` waits for it.
        for flag in ["-k", "-w"] {
            let _ = w
                .env(&mut Command::new(&server))
                .arg(flag)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        // A wineserver started here, with no pipe of ours, serves every later run: one started by
        // the sidecar's run would hold the sidecar's stdout open after the sidecar exits. It stays
        // up for 60 s after its last client, past the last test.
        let status = w
            .env(&mut Command::new(&server))
            .arg("-p60")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|e| panic!("run {}: {e}", server.display()));
        assert!(status.success(), "wineserver -p failed: {status}");
        let booted = w
            .env(&mut Command::new(&w.wine))
            .args(["wineboot", "-i"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(booted.success(), "wineboot failed: {booted}");
        w
    })
}

/// Wine's loader: `wine` or `wine64` on PATH, else Debian's `/usr/lib/wine/wine64`.
fn find_wine() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| [dir.join("wine"), dir.join("wine64")])
        .chain([PathBuf::from("/usr/lib/wine/wine64")])
        .find(|p| p.is_file())
        .expect("Wine is not installed (Debian: apt-get install wine64; see .ci/run)")
}

/// Cross-builds the sidecar, the fixture and the lister, and the `ProcessPrng` stub next to them.
fn build_windows_binaries() -> PathBuf {
    let host_target = sidecar_bin()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();
    let target_dir = host_target.join("windows");
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "--locked",
            "--workspace",
            "--target",
            TARGET,
        ])
        .args([
            "--bin",
            "mcp-sidecar",
            "--bin",
            "mcp-fixture",
            "--bin",
            "mcp-proclist",
        ])
        .arg("--target-dir")
        .arg(&target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap_or_else(|e| panic!("run cargo build --target {TARGET}: {e}"));
    assert!(
        status.success(),
        "cross-building for {TARGET} failed (rustup target add {TARGET}; mingw-w64)"
    );
    let bin = target_dir.join(TARGET).join("debug");
    let source = bin.join("process-prng-stub.c");
    std::fs::write(&source, PROCESS_PRNG_STUB).unwrap();
    let status = Command::new("x86_64-w64-mingw32-gcc")
        .args(["-shared", "-O2", "-o"])
        .arg(bin.join("bcryptprimitives.dll"))
        .arg(&source)
        .arg("-ladvapi32")
        .status()
        .unwrap_or_else(|e| panic!("run x86_64-w64-mingw32-gcc (gcc-mingw-w64-x86-64): {e}"));
    assert!(status.success(), "building the ProcessPrng stub failed");
    bin
}

/// A Windows path for a Unix one: Wine maps `/` to drive `Z:`.
fn win_path(path: &Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

/// A process as `mcp-proclist` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Process {
    pid: u32,
    parent: u32,
    exe: String,
}

impl Wine {
    fn env<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        command
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            // No Mono or Gecko installer prompts at the prefix's creation.
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
    }

    /// A command running the Windows binary `exe` (without `.exe`) under Wine.
    fn run(&self, exe: &str) -> Command {
        let mut command = Command::new(&self.wine);
        self.env(&mut command)
            .arg(self.bin.join(format!("{exe}.exe")));
        command
    }

    fn exe(&self, name: &str) -> String {
        win_path(&self.bin.join(format!("{name}.exe")))
    }

    /// Every process the wineserver runs, from the Windows-built lister.
    fn processes(&self) -> Vec<Process> {
        let out = self
            .run("mcp-proclist")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "mcp-proclist failed: {out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|line| {
                let mut fields = line.splitn(3, ' ');
                let mut number = || fields.next().unwrap().parse::<u32>().unwrap();
                let (pid, parent) = (number(), number());
                Process {
                    pid,
                    parent,
                    exe: fields.next().unwrap_or_default().to_owned(),
                }
            })
            .collect()
    }

    /// The sidecar under Wine, initialized.
    fn sidecar(&self) -> Sidecar {
        let mut sc = Sidecar::spawn_command(
            self.run("mcp-sidecar")
                .stdin(Stdio::piped())
                .stderr(Stdio::null()),
        );
        sc.initialize(json!({}));
        sc
    }

    /// A `.cmd` launcher in `dir` that runs the fixture with a grandchild and a pid file, and
    /// the server config running it through `cmd.exe /c`. Returns the config and the pid file.
    fn launched_fixture(&self, dir: &Path) -> (Value, PathBuf) {
        let pid_file = dir.join("pids.json");
        let launcher = dir.join("launch.cmd");
        std::fs::write(
            &launcher,
            format!(
                "@echo off\r\n\"{}\" --grandchild --pid-file \"{}\"\r\n",
                self.exe("mcp-fixture"),
                win_path(&pid_file)
            ),
        )
        .unwrap();
        let config = json!({ "command": "cmd.exe", "args": ["/c", win_path(&launcher)] });
        (config, pid_file)
    }
}

/// The launcher's tree, once its server is ready: `cmd.exe`, the fixture, its grandchild. Asserts
/// the lister sees all three alive (so that their absence later means something).
fn launched_tree(wine: &Wine, pid_file: &Path) -> Vec<Process> {
    let record = read_pid_file(pid_file);
    let fixture_pid = record["pid"].as_u64().unwrap() as u32;
    let grandchild = record["grandchildren"][0].as_u64().unwrap() as u32;
    let listed = wine.processes();
    let find = |pid: u32| {
        listed
            .iter()
            .find(|p| p.pid == pid)
            .cloned()
            .unwrap_or_else(|| panic!("pid {pid} not listed: {listed:?}"))
    };
    let fixture = find(fixture_pid);
    let launcher = find(fixture.parent);
    let grandchild = find(grandchild);
    assert_eq!(launcher.exe.to_lowercase(), "cmd.exe", "{listed:?}");
    assert_eq!(fixture.exe, "mcp-fixture.exe");
    assert_eq!(
        (grandchild.exe.as_str(), grandchild.parent),
        ("mcp-fixture.exe", fixture.pid)
    );
    vec![launcher, fixture, grandchild]
}

/// The processes of `tree` still listed (same pid and executable).
fn survivors(wine: &Wine, tree: &[Process]) -> Vec<Process> {
    let listed = wine.processes();
    tree.iter()
        .filter(|p| listed.iter().any(|l| l.pid == p.pid && l.exe == p.exe))
        .cloned()
        .collect()
}

#[test]
fn host_protocol_round_trip_and_servers_remove_leave_no_process() {
    let _serial = serial();
    let wine = wine();
    let dir = temp_dir("wine-remove");
    let mut sc = wine.sidecar();
    let direct = json!({ "command": wine.exe("mcp-fixture"), "args": [] });
    assert_eq!(sc.add("fx", direct)["state"], "ready");
    let r = sc.call(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": "héllo"}}),
    );
    assert_eq!(r["content"][0]["text"], "héllo", "{r}");

    let (config, pid_file) = wine.launched_fixture(&dir);
    assert_eq!(sc.add("launched", config)["state"], "ready");
    let tree = launched_tree(wine, &pid_file);
    sc.call("servers/remove", json!({"name": "launched"}));
    // The answer comes once the stop is over: the job is empty by then.
    assert_eq!(survivors(wine, &tree), [], "left after servers/remove");

    sc.call("shutdown", json!({}));
    assert_eq!(sc.wait_exit(), Some(0));
}

#[test]
fn shutdown_leaves_no_process() {
    let _serial = serial();
    let wine = wine();
    let dir = temp_dir("wine-shutdown");
    let mut sc = wine.sidecar();
    let (config, pid_file) = wine.launched_fixture(&dir);
    assert_eq!(sc.add("launched", config)["state"], "ready");
    let tree = launched_tree(wine, &pid_file);
    sc.call("shutdown", json!({}));
    assert_eq!(sc.wait_exit(), Some(0));
    assert_eq!(survivors(wine, &tree), [], "left after shutdown");
}

#[test]
fn a_killed_sidecar_leaves_no_process() {
    let _serial = serial();
    let wine = wine();
    let dir = temp_dir("wine-kill");
    let mut sc = wine.sidecar();
    let (config, pid_file) = wine.launched_fixture(&dir);
    assert_eq!(sc.add("launched", config)["state"], "ready");
    let tree = launched_tree(wine, &pid_file);
    // The Wine process running the sidecar dies at once, as from TerminateProcess: no code of the
    // sidecar runs; the kernel (here the wineserver) closes its handles, the job's last among them.
    sc.child.kill().unwrap();
    sc.child.wait().unwrap();
    eventually("the job's members to be killed", || {
        survivors(wine, &tree).is_empty()
    });
}

#[test]
fn a_server_that_exits_on_its_own_leaves_no_process() {
    let _serial = serial();
    let wine = wine();
    let dir = temp_dir("wine-exit");
    let mut sc = wine.sidecar();
    let (mut config, pid_file) = wine.launched_fixture(&dir);
    config["restart"] = json!("never");
    assert_eq!(sc.add("launched", config)["state"], "ready");
    let tree = launched_tree(wine, &pid_file);
    // The fixture exits, so does `cmd.exe`: its grandchild is all that is left of the job.
    sc.request(
        "tools/call",
        json!({"name": "mcp__launched__exit", "arguments": {}}),
    );
    // The exit status is reported once the leader's tree is finished.
    let status = sc.server_changed("launched", |st| st.get("lastExit").is_some());
    assert_eq!(survivors(wine, &tree), [], "left after the exit: {status}");
    sc.call("shutdown", json!({}));
    assert_eq!(sc.wait_exit(), Some(0));
}
