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
    let mut f = match data["code"].as_str().unwrap_or("") {
        "SERVER_UNAVAILABLE" if spawn_failed(report) => spawn(e, message),
        "SERVER_UNAVAILABLE" if data["setting"] == "startupTimeoutSeconds" => timeout(e, report),
        "SERVER_UNAVAILABLE" => exited(e, report, message),
        "VERSION_UNSUPPORTED" => version(data),
        "PROTOCOL_ERROR" if data.get("excerpt").is_some() => not_json(e, data),
        "PROTOCOL_ERROR" if data.get("tool").is_some() => bad_schema(data, message),
        "HTTP_ERROR" if matches!(data["status"].as_u64(), Some(401 | 403)) => needs_login(data),
        // The code of a server that wants an OAuth sign-in, in builds that have OAuth.
        "AUTH_REQUIRED" => needs_login(data),
        "HTTP_ERROR" => http(data, message),
        "NETWORK_ERROR" => unreachable(message),
        "UPSTREAM_ERROR" => upstream(data, message),
        _ => {
            let mut f = finding("start-failed", Severity::Error, message.to_owned());
            f.fix.push(format!(
                "run the command by hand to see what it does: {}",
                e.command_line
            ));
            f
        }
    };
    f.evidence.push(phases(&report["timings"]));
    if let Some(tail) = report["stderrTail"]
        .as_str()
        .filter(|t| !t.trim().is_empty())
    {
        f.evidence
            .extend(last_lines(tail, 8).map(|l| format!("stderr | {l}")));
    }
    f
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
    match nearest {
        Some(near) => {
            f.evidence
                .push(format!("nearest match: {}", near.display()));
            f.fix.push(format!(
                "if you meant it, set \"command\": \"{}\"",
                near.display()
            ));
        }
        None => f
            .evidence
            .push("no program with a similar name there".into()),
    }
    f.fix.push(format!(
        "install `{}`, or give its full path in `command`",
        c.program
    ));
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

/// A server that wants credentials: HTTP 401/403 at connect, or `AUTH_REQUIRED` (the code of a
/// server left waiting for an OAuth sign-in, with its `authorizationUrl`, in builds with OAuth).
fn needs_login(data: &Value) -> Finding {
    let summary = match data["status"].as_u64() {
        Some(status) => {
            format!("the server refused the connection with HTTP {status}: it needs credentials")
        }
        None => "the server needs a sign-in before it can be used".to_owned(),
    };
    let mut f = finding("needs-login", Severity::Error, summary);
    if let Some(body) = data["body"].as_str() {
        f.evidence.push(format!("its answer: {body}"));
    }
    if let Some(url) = data["authorizationUrl"].as_str() {
        f.evidence.push(format!("sign-in page: {url}"));
        f.fix
            .push("sign in (a host does it with servers/login), then try again".into());
    }
    f.fix.push("give the credential it expects as a header, e.g. \"headers\": {\"Authorization\": \"Bearer …\"} (marked secret automatically)".into());
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
