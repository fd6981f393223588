//! Why a trial start failed, one diagnosis per cause, each drawn from the error's code and data
//! (and, for a spawn, from where the program was looked for): the command, the offending stdout
//! bytes, the protocol revision, the tool schema, the exit, the timeout, credentials, HTTP and
//! network failures.

use std::path::Path;

use serde_json::Value;

use super::command::Resolution;
use super::finding::{
    finding, last_lines, launcher, phases, CommandFacts, Evidence, Finding, Severity,
};
use crate::mcp::SUPPORTED_PROTOCOL_VERSIONS;

/// Why the trial start failed, from its error's code and data.
pub(super) fn failed_start(e: &Evidence<'_>, report: &Value) -> Finding {
    let error = &report["error"];
    let data = &error["data"];
    let message = error["message"].as_str().unwrap_or("the start failed");
    let code = data["code"].as_str().unwrap_or("");
    let timed_out = code == "SERVER_UNAVAILABLE" && data["setting"] == "startupTimeoutSeconds";
    // The sidecar ended the start itself, unless the server exited (or never spawned): what the
    // server wrote once its pipe was closed is the closing's echo, not the cause.
    let closed_by_us = timed_out
        || !matches!(
            code,
            "SERVER_UNAVAILABLE" | "HTTP_ERROR" | "NETWORK_ERROR" | "AUTH_REQUIRED" | "AUTH_FAILED"
        );
    let mut f = match code {
        "SERVER_UNAVAILABLE" if spawn_failed(report) => spawn(e, message),
        "SERVER_UNAVAILABLE" if data["setting"] == "startupTimeoutSeconds" => timeout(e, report),
        "SERVER_UNAVAILABLE" => exited(e, report, message),
        "VERSION_UNSUPPORTED" => version(data),
        "PROTOCOL_ERROR" if data.get("excerpt").is_some() => not_json(e, data),
        "PROTOCOL_ERROR" if data.get("tool").is_some() => bad_schema(data, message),
        "HTTP_ERROR" if matches!(data["status"].as_u64(), Some(401 | 403)) => needs_login(data),
        "AUTH_REQUIRED" => needs_login(data),
        "AUTH_FAILED" => auth_failed(message),
        "HTTP_ERROR" => http(data, message),
        "NETWORK_ERROR" => unreachable(message),
        "UPSTREAM_ERROR" => upstream(data, message),
        "SANDBOX_DENIED" => super::sandbox::denied(data, message),
        _ => {
            let mut f = finding("start-failed", Severity::Error, message.to_owned());
            f.fix.push(format!(
                "run the command by hand to see what it does: {}",
                e.command_line
            ));
            f
        }
    };
    if timed_out {
        f.evidence.push(timeout_phases(e, &report["timings"]));
    } else {
        f.evidence.push(phases(&report["timings"]));
    }
    if let Some(tail) = report["stderrTail"]
        .as_str()
        .filter(|t| !t.trim().is_empty())
    {
        let (tail, cut) = if closed_by_us {
            before_the_close(tail)
        } else {
            (tail, false)
        };
        f.evidence
            .extend(last_lines(tail, 8).map(|l| format!("stderr | {l}")));
        if cut {
            f.evidence.push(
                "stderr | (what it wrote once the sidecar closed its pipe, a broken-pipe error, left out)"
                    .into(),
            );
        }
    }
    f
}

/// The timings of a start that timed out: the limit as configured, then the stop that followed
/// apart (closing stdin, then SIGTERM, then SIGKILL each after a grace), so that a 1 s timeout
/// does not read as a 2.2 s one.
fn timeout_phases(e: &Evidence<'_>, timings: &Value) -> String {
    let limit = e.startup_timeout.as_secs_f64();
    let mut line = format!("timings: stopped at startupTimeoutSeconds ({limit} s)");
    if let Some(spawn) = timings["spawnMs"].as_f64() {
        line.push_str(&format!(" (spawn {})", crate::cli::table::millis(spawn)));
    }
    if let Some(total) = timings["startupMs"].as_f64() {
        let stop = total - limit * 1000.0;
        if stop > 0.0 {
            line.push_str(&format!(
                "; stopping it took {} more (the stop grace)",
                crate::cli::table::millis(stop)
            ));
        }
    }
    line
}

/// A stderr tail up to the broken-pipe error a server writes when the sidecar closes its pipes
/// (Node's `EPIPE`, Python's `BrokenPipeError`, Rust's and C's "Broken pipe"), the trace's own
/// heading included (`node:events:…`, `Traceback …`, a few lines above it); whether anything was
/// cut.
fn before_the_close(tail: &str) -> (&str, bool) {
    const MARKERS: &[&str] = &[
        "EPIPE",
        "BrokenPipeError",
        "Broken pipe",
        "broken pipe",
        "ERR_STREAM_DESTROYED",
    ];
    const HEADINGS: &[&str] = &["node:", "Traceback (most recent call last)", "Exception "];
    // Lines with the byte offset each starts at.
    let mut lines = Vec::new();
    let mut offset = 0;
    for line in tail.split_inclusive('\n') {
        lines.push((offset, line));
        offset += line.len();
    }
    let Some(at) = lines
        .iter()
        .position(|(_, l)| MARKERS.iter().any(|m| l.contains(m)))
    else {
        return (tail, false);
    };
    let heading = (at.saturating_sub(6)..at)
        .find(|&i| HEADINGS.iter().any(|h| lines[i].1.starts_with(h)))
        .unwrap_or(at);
    (&tail[..lines[heading].0], true)
}

/// The start never got a process: the spawn itself failed.
fn spawn_failed(report: &Value) -> bool {
    report["error"]["data"].get("command").is_some() && report["timings"].get("spawnMs").is_none()
}

fn spawn(e: &Evidence<'_>, message: &str) -> Finding {
    let cannot_spawn = || {
        let mut f = finding("spawn-failed", Severity::Error, message.to_owned());
        f.fix.push(format!(
            "run the command by hand to see why it cannot start: {}",
            e.command_line
        ));
        f
    };
    let Some(c) = &e.command else {
        return cannot_spawn();
    };
    if let Some(cwd) = c.cwd.filter(|d| !d.is_dir()) {
        let mut f = finding(
            "cwd-not-found",
            Severity::Error,
            format!("the working directory {} does not exist", cwd.display()),
        );
        f.fix
            .push("create it, or correct `cwd` in the configuration".into());
        return f;
    }
    match &c.resolution {
        Resolution::Missing { searched, nearest } => not_found(c, searched, nearest.as_deref()),
        Resolution::NotExecutable(path) => {
            let mut f = finding(
                "command-not-executable",
                Severity::Error,
                format!("{} is not executable", path.display()),
            );
            f.fix.push(format!("chmod +x {}", path.display()));
            f
        }
        Resolution::Found {
            path,
            missing_interpreter: Some(interpreter),
        } => {
            let mut f = finding(
                "interpreter-not-found",
                Severity::Error,
                format!(
                    "{} is a script whose interpreter `{interpreter}` (its #! line) is not on the server's PATH",
                    path.display()
                ),
            );
            f.evidence
                .push(format!("the server's PATH: {}", c.path_var));
            f.fix.push(format!(
                "install `{interpreter}`, or correct the script's #! line"
            ));
            f
        }
        Resolution::Found { .. } => cannot_spawn(),
    }
}

fn not_found(
    c: &CommandFacts<'_>,
    searched: &[std::path::PathBuf],
    nearest: Option<&Path>,
) -> Finding {
    let mut f = finding(
        "command-not-found",
        Severity::Error,
        format!("command `{}` not found", c.program),
    );
    let dirs: Vec<String> = searched.iter().map(|d| d.display().to_string()).collect();
    if crate::config::paths::has_directory(c.program) {
        f.evidence
            .push(format!("no such file in {}", dirs.join(", ")));
    } else {
        let whose = if c.path_from_config {
            "the server's PATH (from its `env.PATH`)"
        } else {
            "the server's PATH"
        };
        f.evidence.push(format!(
            "{whose}, {} directories searched: {}",
            dirs.len(),
            c.path_var
        ));
    }
    let on_path = !crate::config::paths::has_directory(c.program);
    match nearest {
        Some(near) => {
            // A name looked up on PATH is corrected by a name (what resolves to a shim or a
            // symlink stays one); a path by a path.
            let fixed = match near.file_name() {
                Some(name) if on_path => name.to_string_lossy().into_owned(),
                _ => near.display().to_string(),
            };
            f.evidence
                .push(format!("nearest match: {fixed} ({})", near.display()));
            f.fix
                .push(format!("if you meant it, set \"command\": \"{fixed}\""));
        }
        None => f
            .evidence
            .push("no program with a similar name there".into()),
    }
    if on_path {
        f.fix.push(format!(
            "install `{}`, or give its full path in `command`",
            c.program
        ));
    } else if nearest.is_none() {
        f.fix
            .push("correct the path in `command`, or install the program there".to_owned());
    }
    f
}

fn timeout(e: &Evidence<'_>, report: &Value) -> Finding {
    let timings = &report["timings"];
    let stage = if timings.get("spawnMs").is_none() {
        "to spawn"
    } else if timings.get("initializeMs").is_none() {
        "to answer `initialize`"
    } else {
        "to list its tools (`tools/list`)"
    };
    let limit = e.startup_timeout.as_secs_f64();
    let mut f = finding(
        "start-timeout",
        Severity::Error,
        format!("the server took longer than startupTimeoutSeconds ({limit} s) {stage}"),
    );
    f.fix.push(format!(
        "if it is only slow, raise `startupTimeoutSeconds` (now {limit} s)"
    ));
    if let Some(l) = launcher(e) {
        f.fix.push(format!("`{l}` may fetch the package on each start: install it once and run its own command instead"));
    }
    f.fix.push(format!(
        "if it waits for something (input, a login, a network), run it by hand to see: {}",
        e.command_line
    ));
    f
}

fn exited(e: &Evidence<'_>, report: &Value, message: &str) -> Finding {
    let exit = &report["error"]["data"]["exit"];
    let how = match (exit["code"].as_i64(), exit["signal"].as_i64()) {
        (Some(code), _) => format!("exited with status {code}"),
        (_, Some(signal)) => format!("was killed by signal {signal}"),
        _ => "closed its output".to_owned(),
    };
    let stage = if report["timings"].get("initializeMs").is_none() {
        "before answering `initialize`"
    } else {
        "before listing its tools"
    };
    let mut f = finding(
        "exited-on-start",
        Severity::Error,
        format!("the server {how} {stage}"),
    );
    f.evidence.push(message.to_owned());
    f.fix.push(
        "its stderr (above) usually says why (a missing package, a missing variable, a bad argument)"
            .into(),
    );
    f.fix
        .push(format!("run it by hand to see more: {}", e.command_line));
    f
}

fn version(data: &Value) -> Finding {
    let answered = data["protocolVersion"].as_str().unwrap_or("?");
    let newest = SUPPORTED_PROTOCOL_VERSIONS[0];
    let oldest = SUPPORTED_PROTOCOL_VERSIONS[SUPPORTED_PROTOCOL_VERSIONS.len() - 1];
    let mut f = finding(
        "protocol-version",
        Severity::Error,
        format!("the server answered MCP revision {answered:?}, which this sidecar does not speak"),
    );
    f.evidence.push(format!(
        "this sidecar offers {newest} and accepts {}",
        SUPPORTED_PROTOCOL_VERSIONS.join(", ")
    ));
    // Revisions are dates: their text sorts as they do.
    if answered > newest {
        f.fix.push("the server speaks a newer revision: use a newer mcp-sidecar, or a server version that still speaks one of these".into());
    } else if answered < oldest {
        f.fix
            .push("the server speaks an older revision: upgrade it (or its MCP SDK)".into());
    } else {
        f.fix.push(
            "the server answered a revision that does not exist: upgrade it (or its MCP SDK)"
                .into(),
        );
    }
    f
}

fn not_json(e: &Evidence<'_>, data: &Value) -> Finding {
    let excerpt = data["excerpt"].as_str().unwrap_or("");
    let mut f = finding(
        "stdout-not-json",
        Severity::Error,
        "the server wrote something that is not a JSON-RPC message to stdout".into(),
    );
    f.evidence.push(format!("offending bytes: {excerpt}"));
    if excerpt.starts_with("\\xef\\xbb\\xbf") {
        f.evidence
            .push("it starts with a UTF-8 byte-order mark (\\xef\\xbb\\xbf)".into());
        f.fix.push("make the server write UTF-8 without a byte-order mark (a console encoding setting, common on Windows)".into());
    }
    f.fix.push(
        "MCP over stdio reserves stdout for JSON-RPC: banners, logs and warnings must go to stderr"
            .into(),
    );
    match launcher(e) {
        Some(l) => f.fix.push(format!(
            "`{l}` or the package it runs printed this: silence it (a --quiet or log-level option), or run the server's own command"
        )),
        None => f.fix.push(
            "if a wrapper script prints it, send that output to stderr (>&2); if the server does, look for its log-to-stderr option"
                .into(),
        ),
    }
    f
}

fn bad_schema(data: &Value, message: &str) -> Finding {
    let tool = data["tool"].as_str().unwrap_or("?");
    let mut f = finding(
        "invalid-tool-schema",
        Severity::Error,
        format!(
            "tool `{tool}` has an invalid definition, so none of the server's tools can be used"
        ),
    );
    f.evidence.push(message.to_owned());
    f.fix.push(format!(
        "fix `{tool}`'s inputSchema in the server (or upgrade it): a server's tool list is accepted whole or not at all"
    ));
    f
}

/// A server that wants credentials: HTTP 401/403 at connect (OAuth does not apply: the config
/// sends its own `Authorization` header, or nothing says the server speaks OAuth), or
/// `AUTH_REQUIRED` (it speaks OAuth and waits for a login; `authorizationUrl` when one is waiting).
fn needs_login(data: &Value) -> Finding {
    let summary = match data["status"].as_u64() {
        Some(status) => {
            format!("the server refused the connection with HTTP {status}: it needs credentials")
        }
        None => "the server needs an OAuth login before it can be used".to_owned(),
    };
    let oauth = data["code"] == "AUTH_REQUIRED";
    let mut f = finding("needs-login", Severity::Error, summary);
    if let Some(body) = data["body"].as_str() {
        f.evidence.push(format!("its answer: {body}"));
    }
    if let Some(url) = data["authorizationUrl"].as_str() {
        f.evidence.push(format!("sign-in page: {url}"));
    }
    if oauth {
        f.fix.push("log in with `mcp-sidecar login SERVER` and the same --config and --cache-dir (a host: servers/login), then try again".into());
        f.fix.push("or give a credential as a header, e.g. \"headers\": {\"Authorization\": \"Bearer …\"} (the sidecar then does no OAuth)".into());
    } else {
        f.fix.push("give the credential it expects as a header, e.g. \"headers\": {\"Authorization\": \"Bearer …\"} (marked secret automatically)".into());
    }
    f
}

/// The server speaks OAuth, but its authorization cannot work as set up: metadata that does not
/// validate, no PKCE S256, no way to identify the client, a client the authorization server refused.
fn auth_failed(message: &str) -> Finding {
    let mut f = finding(
        "auth-failed",
        Severity::Error,
        "the server's OAuth authorization cannot work as set up".to_owned(),
    );
    f.evidence.push(message.to_owned());
    f.fix.push("check the entry's `oauth` block (clientId, clientMetadataUrl, issuer, scopes) against what the authorization server accepts".into());
    f.fix.push("or give a credential as a header, e.g. \"headers\": {\"Authorization\": \"Bearer …\"} (the sidecar then does no OAuth)".into());
    f
}

fn http(data: &Value, message: &str) -> Finding {
    let status = data["status"].as_u64().unwrap_or(0);
    let mut f = finding(
        "http-error",
        Severity::Error,
        format!("the server answered HTTP {status}"),
    );
    f.evidence.push(message.to_owned());
    if status == 404 {
        f.fix.push("check the URL's path: many servers answer MCP at /mcp (Streamable HTTP) or /sse (legacy)".into());
    } else {
        f.fix.push("check the URL and the server's own logs".into());
    }
    f
}

fn unreachable(message: &str) -> Finding {
    let mut f = finding(
        "unreachable",
        Severity::Error,
        "the server could not be reached".into(),
    );
    f.evidence.push(message.to_owned());
    f.fix.push("check that it runs and listens at the configured URL, and that nothing (a proxy, a firewall, TLS) stands between".into());
    f
}

fn upstream(data: &Value, message: &str) -> Finding {
    let mut f = finding(
        "server-error",
        Severity::Error,
        format!(
            "the server answered the handshake or its tool list with an error of its own (code {})",
            data["upstreamCode"]
        ),
    );
    f.evidence.push(message.to_owned());
    f.fix.push("its stderr and its own documentation say more; this is the server's error, not the sidecar's".into());
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_broken_pipe_trace_of_a_closed_server_is_left_out() {
        let node = "starting\nwaiting for the database\nnode:events:497\n      throw er; // Unhandled 'error' event\n      ^\n\nError: write EPIPE\n    at afterWriteDispatched (node:internal/stream_base_commons:161:15)\n";
        assert_eq!(
            before_the_close(node),
            ("starting\nwaiting for the database\n", true)
        );
        let python = "ready?\nTraceback (most recent call last):\n  File \"s.py\", line 3\nBrokenPipeError: [Errno 32] Broken pipe\n";
        assert_eq!(before_the_close(python), ("ready?\n", true));
        assert_eq!(before_the_close("just slow\n"), ("just slow\n", false));
    }
}
