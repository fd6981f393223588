//! The commands for people as a person at a terminal meets them: progress lines on stderr only
//! when it is a terminal (a real pseudo-terminal here), never on stdout; and a signal that stops
//! every server before the command exits 130.

#![allow(clippy::disallowed_methods)] // the tests run the binary under test

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;

use serde_json::json;

use crate::cli::{config_file, fixture_with, run};
use crate::support::{read_pid_file, sidecar_bin, temp_dir, WAIT};

fn path(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `args` with stderr on a new pseudo-terminal; returns (status, stdout, what the terminal got).
fn run_on_a_terminal(args: &[&str]) -> (i32, String, String) {
    run_on_terminal(args, false)
}

/// [`run_on_a_terminal`], with stdout on the same terminal when `stdout_too` (stdout then
/// returns empty).
fn run_on_terminal(args: &[&str], stdout_too: bool) -> (i32, String, String) {
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors into the integers; nothing else is passed.
    let rc = unsafe {
        nix::libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            // Mutable on macOS, const on Linux: a null `*mut` is both.
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned by nothing else.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let stdout = if stdout_too {
        Stdio::from(slave.try_clone().unwrap())
    } else {
        Stdio::piped()
    };
    let child = Command::new(sidecar_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    // The slave's only copy is the child's now: the master reads EOF (EIO) once it exits.
    let reader = std::thread::spawn(move || {
        let mut terminal = std::fs::File::from(master);
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = terminal.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = rx.recv_timeout(WAIT * 2).expect("exits").unwrap();
    let terminal = reader.join().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        terminal,
    )
}

#[test]
fn progress_is_one_line_per_server_on_a_terminal_and_never_on_stdout() {
    let file = config_file(
        "cli-progress",
        json!({"alpha": fixture_with(&[]), "broken": fixture_with(&["--exit-on-start", "3"])}),
    );
    let (code, stdout, terminal) = run_on_a_terminal(&["list", "--config", path(&file)]);
    assert_eq!(code, 1, "{stdout}");
    let lines: Vec<&str> = terminal.lines().filter(|l| l.contains("/2]")).collect();
    assert_eq!(lines.len(), 2, "{terminal:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("alpha") && l.contains("ready") && l.contains("7 tools")),
        "{terminal:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("broken") && l.contains("failed")),
        "{terminal:?}"
    );
    assert!(!stdout.contains("/2]"), "{stdout}");
    // --quiet: nothing on the terminal.
    let (_, _, terminal) = run_on_a_terminal(&["list", "--quiet", "--config", path(&file)]);
    assert!(!terminal.contains("/2]"), "{terminal:?}");
    // Not a terminal: nothing either.
    let r = run(&["list", "--config", path(&file)]);
    assert!(
        !r.stderr.contains("/2]") && !r.stdout.contains("/2]"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_failure_shows_once_when_the_report_is_on_the_same_terminal() {
    let file = config_file(
        "cli-once",
        json!({"alpha": fixture_with(&[]), "broken": fixture_with(&["--exit-on-start", "3"])}),
    );
    let (code, _, terminal) = run_on_terminal(&["test", "--config", path(&file)], true);
    assert_eq!(code, 1, "{terminal:?}");
    // The progress line says that it failed; the report below says why, once.
    let progress: Vec<&str> = terminal.lines().filter(|l| l.contains("/2]")).collect();
    assert_eq!(progress.len(), 2, "{terminal:?}");
    let reason = terminal
        .lines()
        .find(|l| l.contains("FAIL") && l.contains("broken"))
        .and_then(|l| l.split("broken").nth(1))
        .map(str::trim)
        .unwrap_or_else(|| panic!("{terminal:?}"))
        .to_owned();
    assert!(!reason.is_empty(), "{terminal:?}");
    assert_eq!(
        terminal.matches(reason.as_str()).count(),
        1,
        "{reason:?} in {terminal:?}"
    );
}

#[test]
fn a_long_call_shows_the_servers_progress_on_a_terminal() {
    let file = config_file(
        "cli-call-progress",
        json!({"slow": fixture_with(&["--client-requests"])}),
    );
    let args = [
        "call",
        "--config",
        path(&file),
        "slow",
        "progress",
        "--arg",
        "steps=3",
        "--arg",
        "intervalMs=100",
    ];
    let (code, stdout, terminal) = run_on_a_terminal(&args);
    assert_eq!(code, 0, "{stdout}{terminal:?}");
    assert!(terminal.contains("slow/progress: 3/3"), "{terminal:?}");
    assert!(!stdout.contains("slow/progress:"), "{stdout}");
    // Not a terminal: no progress lines.
    let r = run(&args);
    assert!(!r.stderr.contains("progress:"), "{}", r.stderr);
}

#[test]
fn a_signal_stops_every_server_and_exits_130() {
    let dir = temp_dir("cli-signal");
    let pid_file = dir.join("server.pid");
    // The server never answers `initialize` (its gate is never opened): the command waits on it.
    let file = config_file(
        "cli-signal-config",
        json!({"stuck": fixture_with(&["--pid-file", path(&pid_file), "--start-gate", path(&dir.join("never"))])}),
    );
    let child = Command::new(sidecar_bin())
        .args(["list", "--config", path(&file)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let server = read_pid_file(&pid_file)["pid"].as_u64().unwrap() as u32;
    crate::support::signal(child.id(), nix::sys::signal::Signal::SIGINT);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = rx
        .recv_timeout(WAIT)
        .expect("exits after the signal")
        .unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert!(
        !crate::support::pid_alive(server),
        "the server {server} was stopped"
    );
}
