//! What `doctor` concludes about one server, from evidence only: the files' diagnostics, the
//! report of a trial start (`servers/test`: the error with its code and data, the stderr tail, the
//! time each phase took) and, for a stdio server, where its program is ([`super::command`]).
//! Each finding names what is wrong, shows the evidence it rests on, and says how to fix it.
//! Pure: nothing here starts, reads or prints anything.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::command::Resolution;
use crate::config::diagnostics::Diagnostic;
use crate::mcp::SUPPORTED_PROTOCOL_VERSIONS;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The server cannot serve.
    Error,
    /// It serves, but something is worth fixing.
    Warning,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// A stable name for scripts: `command-not-found`, `stdout-not-json`, `slow-start`, …
    pub kind: &'static str,
    pub severity: Severity,
    /// One sentence: what is wrong.
    pub summary: String,
    /// What the conclusion rests on (paths searched, offending bytes, timings, stderr).
    pub evidence: Vec<String>,
    /// What to do about it.
    pub fix: Vec<String>,
}

/// A stdio server's program and where it was looked for.
pub struct CommandFacts<'a> {
    pub program: &'a str,
    /// The `PATH` the server is spawned with.
    pub path_var: &'a str,
    /// Whether that `PATH` is the config's own (`env.PATH`) rather than the sidecar's.
    pub path_from_config: bool,
    pub cwd: Option<&'a Path>,
    pub resolution: Resolution,
}

/// Everything known about one server.
pub struct Evidence<'a> {
    /// The trial start's report (`servers/test`), absent when the entry was rejected.
    pub report: Option<&'a Value>,
    /// Why the entry was rejected before any start, when it was.
    pub rejected: Option<&'a str>,
    pub diagnostics: Vec<&'a Diagnostic>,
    pub command: Option<CommandFacts<'a>>,
    /// The server's display command line, for "run it by hand".
    pub command_line: &'a str,
    pub startup_timeout: Duration,
    /// A start slower than this is reported.
    pub slow: Duration,
}

/// Every finding about the server, the most important first; empty when all is well.
pub fn diagnose(e: &Evidence<'_>) -> Vec<Finding> {
    let mut out: Vec<Finding> = e
        .diagnostics
        .iter()
        .filter_map(|d| from_diagnostic(d))
        .collect();
    if let Some(why) = e.rejected {
        out.push(finding("config-invalid", Severity::Error, why.to_owned()));
    }
    let Some(report) = e.report else {
        return out;
    };
    if report["state"] == "ready" {
        out.extend(slow_start(e, report));
    } else {
        out.insert(0, failed_start(e, report));
    }
    out
}

fn finding(kind: &'static str, severity: Severity, summary: String) -> Finding {
    Finding {
        kind,
        severity,
        summary,
        evidence: Vec::new(),
        fix: Vec::new(),
    }
}

/// A file's diagnostic about the server. A command the loader did not find on `PATH` is left to
/// the start's own evidence (which says where it looked and what is near).
fn from_diagnostic(d: &Diagnostic) -> Option<Finding> {
    use crate::config::diagnostics::{Kind, Severity as Level};
    if d.kind == Kind::CommandNotFound {
        return None;
    }
    let (kind, severity) = match d.severity {
        Level::Error => ("config-invalid", Severity::Error),
        Level::Warning => ("config-warning", Severity::Warning),
    };
    let mut f = finding(kind, severity, d.message.clone());
    let mut place = d.file.clone().unwrap_or_default();
    if let (Some(line), Some(column)) = (d.line, d.column) {
        place.push_str(&format!(":{line}:{column}"));
    }
    f.evidence
        .push(format!("at {place} {}", d.path).trim_end().to_owned());
    f.fix
        .push(format!("correct `{}` in the configuration file", d.path));
    Some(f)
}

/// Why the trial start failed, from its error's code and data.
fn failed_start(e: &Evidence<'_>, report: &Value) -> Finding {
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

/// A start that worked but took longer than `--slow`: where the time went.
fn slow_start(e: &Evidence<'_>, report: &Value) -> Option<Finding> {
    let timings = &report["timings"];
    let total = Duration::from_secs_f64(timings["startupMs"].as_f64()? / 1000.0);
    if total < e.slow {
        return None;
    }
    let (phase, ms) = [
        ("spawn", "spawnMs"),
        ("initialize", "initializeMs"),
        ("tools/list", "listMs"),
    ]
    .into_iter()
    .filter_map(|(phase, key)| Some((phase, timings[key].as_f64()?)))
    .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let mut f = finding(
        "slow-start",
        Severity::Warning,
        format!(
            "slow start: {} ({} of it in {phase})",
            crate::cli::table::duration(total),
            crate::cli::table::millis(ms)
        ),
    );
    f.evidence.push(phases(timings));
    let near = total.as_secs_f64() >= e.startup_timeout.as_secs_f64() / 2.0;
    if near {
        f.evidence.push(format!(
            "that is over half of startupTimeoutSeconds ({} s)",
            e.startup_timeout.as_secs_f64()
        ));
    }
    match phase {
        "initialize" => {
            f.fix.push("the time is the server's own start-up, before it answers `initialize` (a launcher fetching a package, a runtime loading)".into());
            if let Some(l) = launcher(e) {
                f.fix.push(format!(
                    "install the package once instead of letting `{l}` resolve it on every start"
                ));
            }
        }
        "tools/list" => f
            .fix
            .push("the server is slow to list its tools; a newer version may cache them".into()),
        _ => f.fix.push(
            "spawning itself was slow: a slow disk, or a scanner inspecting each new process"
                .into(),
        ),
    }
    f.fix.push("`autoStart: false` starts it on first use instead (its tools come from the schema cache); hosts then never wait for it at start-up".into());
    if near {
        f.fix
            .push("raise `startupTimeoutSeconds` so a slower start does not fail".into());
    }
    Some(f)
}

/// `spawn 1.2 ms, initialize 4.20 s, tools/list 8.0 ms (total 4.21 s)`.
fn phases(timings: &Value) -> String {
    format!("timings: {}", crate::cli::trial::phases(timings))
}

/// The launcher a command runs through, when it is one that fetches packages.
fn launcher<'a>(e: &Evidence<'a>) -> Option<&'a str> {
    let program = e.command.as_ref()?.program;
    let base = Path::new(program).file_name()?.to_str()?;
    let base = base.strip_suffix(".cmd").unwrap_or(base);
    [
        "npx", "pnpx", "pnpm", "bunx", "uvx", "pipx", "yarn", "npm", "deno", "docker",
    ]
    .contains(&base)
    .then_some(base)
}

fn last_lines(text: &str, n: usize) -> impl Iterator<Item = &str> {
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(n);
    lines.into_iter().skip(from)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;
    use serde_json::json;

    fn evidence(report: &Value) -> Evidence<'_> {
        Evidence {
            report: Some(report),
            rejected: None,
            diagnostics: Vec::new(),
            command: None,
            command_line: "srv --flag",
            startup_timeout: Duration::from_secs(30),
            slow: Duration::from_secs(5),
        }
    }

    fn failed(data: Value, timings: Value) -> Value {
        json!({"state": "error", "error": {"code": -32030, "message": "it failed", "data": data},
               "timings": timings, "stderrTail": "line one\nline two"})
    }

    #[test]
    fn a_ready_fast_server_has_no_finding() {
        let report = json!({"state": "ready", "timings": {"startupMs": 20.0, "spawnMs": 1.0, "initializeMs": 15.0, "listMs": 4.0}});
        assert!(diagnose(&evidence(&report)).is_empty());
    }

    #[test]
    fn a_slow_start_names_the_phase_that_took_the_time() {
        let report = json!({"state": "ready", "timings": {"startupMs": 6000.0, "spawnMs": 1.0, "initializeMs": 5900.0, "listMs": 99.0}});
        let f = diagnose(&evidence(&report));
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].kind, f[0].severity),
            ("slow-start", Severity::Warning)
        );
        assert!(f[0].summary.contains("in initialize"), "{}", f[0].summary);
    }

    #[test]
    fn each_error_code_has_its_diagnosis() {
        let cases = [
            (
                json!({"code": "PROTOCOL_ERROR", "excerpt": "\\xef\\xbb\\xbf{"}),
                json!({"spawnMs": 1.0}),
                "stdout-not-json",
            ),
            (
                json!({"code": "PROTOCOL_ERROR", "tool": "echo"}),
                json!({"spawnMs": 1.0, "initializeMs": 2.0, "listMs": 1.0}),
                "invalid-tool-schema",
            ),
            (
                json!({"code": "VERSION_UNSUPPORTED", "protocolVersion": "1999-01-01"}),
                json!({"spawnMs": 1.0}),
                "protocol-version",
            ),
            (
                json!({"code": "SERVER_UNAVAILABLE", "setting": "startupTimeoutSeconds"}),
                json!({"spawnMs": 1.0}),
                "start-timeout",
            ),
            (
                json!({"code": "SERVER_UNAVAILABLE", "exit": {"code": 7, "signal": null}}),
                json!({"spawnMs": 1.0}),
                "exited-on-start",
            ),
            (
                json!({"code": "HTTP_ERROR", "status": 401}),
                json!({"spawnMs": 1.0}),
                "needs-login",
            ),
            (
                json!({"code": "HTTP_ERROR", "status": 404}),
                json!({"spawnMs": 1.0}),
                "http-error",
            ),
            (
                json!({"code": "NETWORK_ERROR"}),
                json!({"spawnMs": 1.0}),
                "unreachable",
            ),
            (
                json!({"code": "UPSTREAM_ERROR", "upstreamCode": -32000}),
                json!({"spawnMs": 1.0}),
                "server-error",
            ),
            (
                json!({"code": "SERVER_UNAVAILABLE", "command": "x"}),
                json!({}),
                "spawn-failed",
            ),
        ];
        for (data, timings, kind) in cases {
            let report = failed(data, timings);
            let f = diagnose(&evidence(&report));
            assert_eq!(f[0].kind, kind, "{report}");
            assert_eq!(f[0].severity, Severity::Error);
            assert!(
                f[0].evidence.iter().any(|l| l == "stderr | line two"),
                "{:?}",
                f[0]
            );
            assert!(!f[0].fix.is_empty(), "{kind} says how to fix it");
        }
    }

    #[test]
    fn a_missing_command_shows_the_path_and_the_nearest_match() {
        let report = failed(
            json!({"code": "SERVER_UNAVAILABLE", "command": "mcp-fixtur"}),
            json!({"startupMs": 0.1}),
        );
        let mut e = evidence(&report);
        e.command = Some(CommandFacts {
            program: "mcp-fixtur",
            path_var: "/a:/b",
            path_from_config: false,
            cwd: None,
            resolution: Resolution::Missing {
                searched: vec!["/a".into(), "/b".into()],
                nearest: Some("/b/mcp-fixture".into()),
            },
        });
        let f = &diagnose(&e)[0];
        assert_eq!(f.kind, "command-not-found");
        assert!(
            f.evidence
                .contains(&"the server's PATH, 2 directories searched: /a:/b".to_owned()),
            "{f:?}"
        );
        assert!(
            f.evidence
                .contains(&"nearest match: /b/mcp-fixture".to_owned()),
            "{f:?}"
        );
    }

    #[test]
    fn a_rejected_entry_is_a_config_finding() {
        let d = Diagnostic::error(
            crate::config::diagnostics::Kind::UnknownField,
            "mcpServers.x.comand",
            "unknown field `comand` (did you mean `command`?)",
        );
        let e = Evidence {
            report: None,
            rejected: None,
            diagnostics: vec![&d],
            command: None,
            command_line: "",
            startup_timeout: Duration::from_secs(30),
            slow: Duration::from_secs(5),
        };
        let f = diagnose(&e);
        assert_eq!(f[0].kind, "config-invalid");
        assert!(f[0].summary.contains("did you mean"));
    }
}
