//! What `doctor` concludes about one server, from evidence only: the files' diagnostics, the
//! report of a trial start (`servers/test`: the error with its code and data, the stderr tail, the
//! time each phase took) and, for a stdio server, where its program is ([`super::command`]).
//! Pure: nothing here starts, reads or prints anything.

use std::time::Duration;

use serde_json::Value;

use super::failures::failed_start;
use super::finding::{finding, launcher, phases, Evidence, Finding, Severity};
use crate::config::diagnostics::Diagnostic;

/// Every finding about the server, the most important first; empty when all is well.
pub(super) fn diagnose(e: &Evidence<'_>) -> Vec<Finding> {
    let mut out: Vec<Finding> = e
        .diagnostics
        .iter()
        .filter_map(|d| from_diagnostic(d))
        .collect();
    if let Some(why) = e.rejected {
        out.push(finding("config-invalid", Severity::Error, why.to_owned()));
    }
    out.extend(e.unpinned.as_ref().map(unpinned));
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

/// An `npx`/`uvx` server: whatever the registry serves is run at each start.
fn unpinned(p: &crate::config::CommandPackage) -> Finding {
    let version = p
        .version
        .as_deref()
        .unwrap_or("no exact version: the latest");
    let mut f = finding(
        "unpinned-package",
        Severity::Warning,
        format!(
            "unpinned package: `{}` ({version}) is fetched from the {} registry at each start",
            p.name,
            p.registry.as_str()
        ),
    );
    f.fix.push(
        "run `mcp-sidecar pin SERVER` and put the `package` block it prints in place of the \
         command (docs/packages.md)"
            .to_owned(),
    );
    f
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::doctor::command::Resolution;
    use crate::cli::doctor::finding::CommandFacts;
    use serde_json::json;

    fn evidence(report: &Value) -> Evidence<'_> {
        Evidence {
            report: Some(report),
            rejected: None,
            diagnostics: Vec::new(),
            command: None,
            unpinned: None,
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
    fn an_npx_server_is_an_unpinned_package() {
        let report = json!({"state": "ready", "timings": {"startupMs": 10.0}});
        let mut e = evidence(&report);
        e.unpinned = crate::config::package_in_command(
            "npx",
            &["-y".to_owned(), "@scope/server@1.2.3".to_owned()],
        );
        let f = diagnose(&e);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].kind, "unpinned-package");
        assert!(f[0].summary.contains("`@scope/server` (1.2.3)"), "{f:?}");
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
    #[allow(
        clippy::too_many_lines,
        reason = "a table of cases, one entry per line"
    )]
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
                json!({"code": "AUTH_REQUIRED", "authorizationUrl": "https://as.example/authorize?x=1"}),
                json!({"spawnMs": 1.0}),
                "needs-login",
            ),
            (
                json!({"code": "AUTH_FAILED"}),
                json!({"spawnMs": 1.0}),
                "auth-failed",
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
            (
                json!({"code": "SANDBOX_DENIED", "refused": "access to /x", "setting": "sandbox.read"}),
                json!({"spawnMs": 1.0}),
                "sandbox-denied",
            ),
            (
                json!({"code": "SANDBOX_DENIED", "sandbox": {"enforced": [], "missing": ["seccomp"]}}),
                json!({}),
                "sandbox-unenforceable",
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
                .contains(&"nearest match: mcp-fixture (/b/mcp-fixture)".to_owned()),
            "{f:?}"
        );
        assert!(
            f.fix
                .contains(&"if you meant it, set \"command\": \"mcp-fixture\"".to_owned()),
            "{f:?}"
        );
        // A path with a typo is corrected by a path, and nobody is told to install the typo.
        e.command = Some(CommandFacts {
            program: "/opt/mcp/mcp-server-memroy",
            path_var: "/a",
            path_from_config: false,
            cwd: None,
            resolution: Resolution::Missing {
                searched: vec!["/opt/mcp".into()],
                nearest: Some("/opt/mcp/mcp-server-memory".into()),
            },
        });
        let f = &diagnose(&e)[0];
        assert_eq!(
            f.fix,
            ["if you meant it, set \"command\": \"/opt/mcp/mcp-server-memory\""],
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
            unpinned: None,
            command_line: "",
            startup_timeout: Duration::from_secs(30),
            slow: Duration::from_secs(5),
        };
        let f = diagnose(&e);
        assert_eq!(f[0].kind, "config-invalid");
        assert!(f[0].summary.contains("did you mean"));
    }
}
