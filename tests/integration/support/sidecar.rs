//! The one harness for driving the sidecar: spawns the real binary with piped stdio, talks host
//! protocol v1 to it, and keeps every message it has read but not yet consumed, with every wait
//! bounded by [`WAIT`].

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{sidecar_bin, WAIT};

/// A running sidecar with a reader thread collecting every line it writes to stdout.
pub(crate) struct Sidecar {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Messages read but not yet consumed by `response`/`notification`.
    backlog: VecDeque<Value>,
    next_id: i64,
}

impl Sidecar {
    pub(crate) fn spawn() -> Self {
        Self::spawn_with(&[], &[])
    }

    /// Spawns with extra CLI args and environment variables.
    pub(crate) fn spawn_with(args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::spawn_from(Stdio::piped(), args, env)
    }

    /// Spawns with `stdin` as the sidecar's standard input (e.g. a pipe another process holds).
    pub(crate) fn spawn_from(stdin: Stdio, args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::spawn_piped(stdin, Stdio::null(), args, env)
    }

    /// Spawns `program` with `args` in place of the binary cargo built (another build of the
    /// sidecar, or an emulator running one: `qemu-aarch64 path/to/mcp-sidecar`), stderr to `stderr`.
    pub(crate) fn spawn_program(program: &std::path::Path, args: &[&str], stderr: Stdio) -> Self {
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::piped()).stderr(stderr);
        Self::spawn_command(&mut command)
    }

    /// Spawns with the given stdin and stderr; stdout is piped to a reader thread.
    fn spawn_piped(stdin: Stdio, stderr: Stdio, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(sidecar_bin());
        command.args(args).envs(env.iter().copied()).stderr(stderr);
        Self::spawn_command(command.stdin(stdin))
    }

    /// Spawns `command` (a sidecar, however it is started: e.g. under Wine) with stdout piped to a
    /// reader thread and `MCP_SIDECAR_LOG=debug`; the caller sets its stdin (piped, to talk to it)
    /// and stderr.
    pub(crate) fn spawn_command(command: &mut Command) -> Self {
        let mut child = command
            .env("MCP_SIDECAR_LOG", "debug")
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn mcp-sidecar");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            lines,
            backlog: VecDeque::new(),
            next_id: 1,
        }
    }

    /// Spawns and performs `initialize` with `params` merged over `{protocolVersion: 1}`.
    pub(crate) fn initialized(extra: Value) -> Self {
        Self::initialized_with(&[], extra)
    }

    /// [`Sidecar::initialized`] with extra CLI args.
    pub(crate) fn initialized_with(args: &[&str], extra: Value) -> Self {
        let mut s = Self::spawn_with(args, &[]);
        s.initialize(extra);
        s
    }

    /// Performs `initialize` with `params` merged over `{protocolVersion: 1}`.
    pub(crate) fn initialize(&mut self, extra: Value) {
        let mut params = json!({ "protocolVersion": 1 });
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        let r = self.request("initialize", params);
        assert!(r.get("result").is_some(), "initialize failed: {r}");
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes raw bytes to the sidecar's stdin.
    pub(crate) fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns its id without waiting.
    pub(crate) fn send(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let line =
            json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string();
        self.write_raw(format!("{line}\n").as_bytes());
        id
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        let line = json!({ "jsonrpc": "2.0", "method": method, "params": params }).to_string();
        self.write_raw(format!("{line}\n").as_bytes());
    }

    /// Sends a request and waits for its response (the whole message, `result` or `error`).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(id)
    }

    /// Sends a request and returns its `result`, failing the test on an error response.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        match r.get("result") {
            Some(result) => result.clone(),
            None => panic!("{method} failed: {r}"),
        }
    }

    /// Sends a request that must fail and returns `error.data.code`, with the whole error.
    pub(crate) fn error_of(&mut self, method: &str, params: Value) -> (String, Value) {
        let r = self.request(method, params);
        let error = r
            .get("error")
            .cloned()
            .unwrap_or_else(|| panic!("{method} should fail: {r}"));
        (
            error["data"]["code"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            error,
        )
    }

    /// Waits for the response with `id`, keeping other messages in the backlog.
    pub(crate) fn response(&mut self, id: i64) -> Value {
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// Waits for a notification `method` whose params satisfy `pred`.
    pub(crate) fn notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_for(|m| {
            m.get("method") == Some(&json!(method)) && m.get("id").is_none() && pred(&m["params"])
        })
    }

    /// Waits for the first message (from the backlog or new) matching `pred`, removing it.
    pub(crate) fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).unwrap();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let msg: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                    if pred(&msg) {
                        return msg;
                    }
                    self.backlog.push_back(msg);
                }
                Err(RecvTimeoutError::Timeout) => panic!("timed out; backlog: {:?}", self.backlog),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("sidecar stdout closed; backlog: {:?}", self.backlog)
                }
            }
        }
    }

    /// Adds a server and returns its status (`wait: true`).
    pub(crate) fn add(&mut self, name: &str, config: Value) -> Value {
        self.call("servers/add", json!({ "name": name, "config": config }))
    }

    /// Closes stdin (EOF), as a host that goes away would.
    pub(crate) fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// The status of server `name` from `servers/list`.
    pub(crate) fn server_status(&mut self, name: &str) -> Value {
        let list = self.call("servers/list", json!({}));
        list["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no server {name}: {list}"))
    }

    /// Waits for a `notifications/servers/changed` about `name` whose status satisfies `pred`.
    pub(crate) fn server_changed(&mut self, name: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.notification("notifications/servers/changed", |p| {
            p["status"]["name"] == name && pred(&p["status"])
        })["params"]["status"]
            .clone()
    }

    /// Waits for the process to exit and returns its exit code.
    pub(crate) fn wait_exit(&mut self) -> Option<i32> {
        super::exit_code(&mut self.child)
    }

    /// Every stdout line still unread, after the process exited (the reader thread ends at EOF).
    pub(crate) fn drain_after_exit(&mut self) -> Vec<Value> {
        let mut out: Vec<Value> = self.backlog.drain(..).collect();
        while let Ok(line) = self.lines.recv_timeout(WAIT) {
            out.push(serde_json::from_str(&line).unwrap());
        }
        out
    }

    /// Messages read but not consumed yet (held by `wait_for`), oldest first.
    pub(crate) fn held(&self) -> Vec<Value> {
        self.backlog.iter().cloned().collect()
    }

    /// Spawns with `MCP_SIDECAR_LOG=debug` and the sidecar's stderr going to `stderr` (say, a pipe
    /// whose reader is gone).
    pub(crate) fn spawn_with_stderr(stderr: Stdio, args: &[&str]) -> Self {
        Self::spawn_piped(Stdio::piped(), stderr, args, &[])
    }

    /// Spawns with `MCP_SIDECAR_LOG=debug` and the sidecar's stderr written to `stderr_file`.
    pub(crate) fn spawn_logging_to(
        stderr_file: &std::path::Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let log = std::fs::File::create(stderr_file).expect("create the stderr file");
        Self::spawn_piped(Stdio::piped(), Stdio::from(log), args, env)
    }
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        self.stdin.take();
        if self.child.try_wait().ok().flatten().is_none() {
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if self.child.try_wait().ok().flatten().is_some() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
