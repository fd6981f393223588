//! Config dialects, table-driven over real files in tests/data/config: the canonical config each
//! server becomes, and every diagnostic (kind, JSON path, severity) the bad entries produce.

#![allow(clippy::unwrap_used, clippy::type_complexity)] // tables of cases

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_sidecar::config::load::{load_document, load_path, Loaded, Sources};
use serde_json::{json, Value};

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/config")
        .join(rel)
}

fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/u".into()),
        "GH_TOKEN" => Some("gh-secret-token".into()),
        "DB_PASS" => Some("db-secret-pass".into()),
        "CODEX_TOKEN" => Some("codex-secret".into()),
        "PATH" => std::env::var("PATH").ok(),
        _ => None,
    }
}

fn load(rel: &str, inputs: &[(&str, &str)]) -> Loaded {
    let inputs: BTreeMap<String, String> = inputs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load_path(
        &data(rel),
        None,
        &Sources {
            env: &env,
            inputs: &inputs,
        },
    )
}

fn server<'a>(l: &'a Loaded, name: &str) -> &'a Value {
    &l.servers
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no server {name}: {l:#?}"))
        .config
}

/// `(kind, path, severity)` of every diagnostic.
fn diags(l: &Loaded) -> Vec<(String, String, String)> {
    l.diagnostics
        .iter()
        .map(|d| {
            let v = serde_json::to_value(d).unwrap();
            (
                v["kind"].as_str().unwrap().to_owned(),
                d.path.clone(),
                v["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn has(l: &Loaded, kind: &str, path: &str, severity: &str) {
    let all = diags(l);
    assert!(
        all.iter()
            .any(|(k, p, s)| k == kind && p == path && s == severity),
        "no {kind} at {path} ({severity}) in {all:#?}"
    );
}

fn names(l: &Loaded) -> Vec<&str> {
    let mut n: Vec<&str> = l.servers.iter().map(|c| c.name.as_str()).collect();
    n.sort();
    n
}

#[test]
fn every_dialect_reads_its_file() {
    // (file, servers loaded, [(server, field, expected canonical value)])
    let cases: &[(&str, &[&str], &[(&str, &str, Value)])] = &[
        (
            "desktop/claude_desktop_config.json",
            &["filesystem"],
            &[
                (
                    "filesystem",
                    "args",
                    json!(["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]),
                ),
                ("filesystem", "transport", json!("stdio")),
            ],
        ),
        (
            "code/.mcp.json",
            &["gh"],
            &[
                ("gh", "command", json!("/usr/bin/gh-mcp")),
                ("gh", "args", json!(["--home", "/home/u"])),
                ("gh", "env", json!({"GITHUB_TOKEN": "gh-secret-token"})),
            ],
        ),
        (
            "cursor/.cursor/mcp.json",
            &["db"],
            &[("db", "env", json!({"DB_PASSWORD": "db-secret-pass"}))],
        ),
        (
            "vscode/.vscode/mcp.json",
            &["search"],
            &[
                (
                    "search",
                    "env",
                    json!({"SEARCH_KEY": "typed-key", "FROM_FILE": "file-secret-value"}),
                ),
                ("search", "secretEnv", json!(["SEARCH_KEY", "FROM_FILE"])),
            ],
        ),
        (
            "codex/config.toml",
            &["docs"],
            &[
                ("docs", "inheritEnv", json!(["LANG"])),
                ("docs", "toolTimeoutSeconds", json!(45)),
                ("docs", "startupTimeoutSeconds", json!(20)),
                ("docs", "includeTools", json!(["search*"])),
                ("docs", "excludeTools", json!(["search_admin"])),
            ],
        ),
        (
            "epoch/mcp.json",
            &["camel", "filesystem", "skip"],
            &[
                ("filesystem", "toolTimeoutSeconds", json!(300)),
                ("filesystem", "startupTimeoutSeconds", json!(60)),
                ("camel", "keepaliveSeconds", json!(180)),
                ("camel", "startupTimeoutSeconds", json!(5)),
            ],
        ),
        (
            "manifest/plugin.yaml",
            &["example-mcp"],
            &[
                ("example-mcp", "expectTools", json!(["search"])),
                ("example-mcp", "permissions", json!(["notes.read"])),
                (
                    "example-mcp",
                    "permissionMetaKey",
                    json!("notesagent/permission"),
                ),
                ("example-mcp", "toolTimeoutSeconds", json!(30)),
                ("example-mcp", "startupTimeoutSeconds", json!(60)),
            ],
        ),
    ];
    for (file, loaded, fields) in cases {
        let l = load(file, &[("api-key", "typed-key")]);
        assert_eq!(names(&l), *loaded, "{file}: {:#?}", l.diagnostics);
        for (name, field, want) in *fields {
            assert_eq!(&server(&l, name)[*field], want, "{file} {name}.{field}");
        }
        assert!(
            l.diagnostics.iter().all(|d| d.file.is_some()),
            "{file}: a diagnostic without its file: {:#?}",
            l.diagnostics
        );
    }
}

#[test]
fn every_problem_is_a_diagnostic() {
    let none: &[(&str, &str)] = &[];
    let cases: &[(&str, &[(&str, &str, &str)])] = &[
        (
            "desktop/claude_desktop_config.json",
            &[("unknown-field", "mcpServers.typo.comand", "error")],
        ),
        (
            "code/.mcp.json",
            &[
                ("unresolved-variable", "mcpServers.missing.args[0]", "error"),
                ("unsupported", "mcpServers.remote.url", "error"),
            ],
        ),
        (
            "cursor/.cursor/mcp.json",
            &[("unsupported", "mcpServers.web.url", "error")],
        ),
        (
            "vscode/.vscode/mcp.json",
            &[
                ("unresolved-variable", "servers.needs-input.env.X", "error"),
                ("unsupported", "servers.remote.url", "error"),
            ],
        ),
        (
            "codex/config.toml",
            &[
                ("ignored", "mcp_servers.off.enabled", "warning"),
                ("unsupported", "mcp_servers.api.url", "error"),
            ],
        ),
        (
            "epoch/mcp.json",
            &[
                ("unsupported", "servers.remote.url", "error"),
                ("unsupported", "servers.typed.url", "error"),
                ("ignored", "servers.skip.skip_preflight", "warning"),
                ("wrong-type", "servers.badtype.args", "error"),
                ("wrong-type", "servers.badtype.timeout", "error"),
            ],
        ),
        (
            "bad/types.json",
            &[
                ("wrong-type", "mcpServers.a.command", "error"),
                ("wrong-type", "mcpServers.a.args[0]", "error"),
                ("wrong-type", "mcpServers.a.env.K", "error"),
                ("missing-field", "mcpServers.b.command", "error"),
                ("unknown-field", "mcpServers.c.argss", "error"),
            ],
        ),
        (
            "scan/escape",
            &[
                ("path-escape", "mcpServers.up.command", "error"),
                ("path-escape", "mcpServers.abs.command", "error"),
            ],
        ),
    ];
    for (file, want) in cases {
        let l = load(file, none);
        for (kind, path, severity) in *want {
            has(&l, kind, path, severity);
        }
    }
    // A typo is named with its likely meaning.
    let l = load("desktop/claude_desktop_config.json", none);
    assert!(
        l.diagnostics
            .iter()
            .any(|d| d.message.contains("did you mean `command`")),
        "{:#?}",
        l.diagnostics
    );
    // Secret values never appear in a diagnostic.
    let l = load("code/.mcp.json", none);
    let text = serde_json::to_string(&l.diagnostics).unwrap();
    assert!(!text.contains("gh-secret-token"), "{text}");
}

#[test]
fn syntax_errors_have_line_and_column() {
    for (file, line) in [
        ("bad/syntax.json", 3),
        ("bad/syntax.toml", 2),
        ("bad/syntax.yaml", 3),
    ] {
        let l = load(file, &[]);
        let d = l
            .diagnostics
            .iter()
            .find(|d| d.path.is_empty())
            .unwrap_or_else(|| panic!("{file}: {:#?}", l.diagnostics));
        let v = serde_json::to_value(d).unwrap();
        assert_eq!(v["kind"], "syntax", "{file}");
        assert_eq!(d.line, Some(line), "{file}: {d:?}");
        assert!(d.column.is_some_and(|c| c > 0), "{file}");
        assert!(l.servers.is_empty());
    }
}

#[test]
fn http_type_is_never_read_as_sse() {
    let l = load("epoch/mcp.json", &[]);
    // The remote ones are not loaded by this build, but their canonical transport is reported
    // through the diagnostics; check the mapping itself on the inline path.
    let src_inputs = BTreeMap::new();
    let srcs = Sources {
        env: &env,
        inputs: &src_inputs,
    };
    for (entry, want) in [
        (json!({"type": "http", "url": "u"}), "http"),
        (json!({"transport": "http", "url": "u"}), "http"),
        (json!({"url": "u"}), "sse"),
        (json!({"url": "u", "streamable": true}), "http"),
        (
            json!({"transport": "sse", "type": "http", "url": "u"}),
            "sse",
        ),
    ] {
        let doc = json!({"servers": {"r": entry.clone()}});
        let parsed = mcp_sidecar::config::dialects::parse(
            &doc.to_string(),
            Some(mcp_sidecar::config::Dialect::Epoch),
            &mcp_sidecar::config::dialects::Context {
                file: None,
                env: &env,
                inputs: &src_inputs,
                source: mcp_sidecar::config::Source::User,
            },
        );
        assert_eq!(parsed.servers[0].config["transport"], want, "{entry}");
        assert_eq!(parsed.servers[0].config["url"], "u");
    }
    let _ = (l, load_document(&json!({}), None, &srcs));
}

#[test]
fn plugin_scan_prefixes_and_sources() {
    let l = load("scan", &[]);
    assert_eq!(
        names(&l),
        ["notes__extra", "notes__srv", "proj"],
        "{:#?}",
        l.diagnostics
    );
    let root = data("scan/plug");
    let srv = server(&l, "notes__srv");
    assert_eq!(srv["command"], format!("{}/bin/server", root.display()));
    assert_eq!(srv["cwd"], root.display().to_string());
    for c in &l.servers {
        let want = if c.name == "proj" { "user" } else { "plugin" };
        assert_eq!(c.source.as_str(), want, "{}", c.name);
    }
    // A file cannot name its own prefix or source: the plugin name is the sidecar's prefix.
    let doc = json!({"mcpServers": {"x": {"command": "sh", "source": "host"}}});
    let inputs = BTreeMap::new();
    let l = load_document(
        &doc,
        None,
        &Sources {
            env: &env,
            inputs: &inputs,
        },
    );
    assert_eq!(l.servers[0].source.as_str(), "user");
    assert!(l.servers[0].config.get("source").is_none());
}

#[test]
fn dialect_detection_and_override() {
    use mcp_sidecar::config::dialects::{parse, Context};
    use mcp_sidecar::config::{Dialect, Source};
    let inputs = BTreeMap::new();
    let ctx = Context {
        file: None,
        env: &env,
        inputs: &inputs,
        source: Source::User,
    };
    // Plain `${HOME}` is expanded by Claude Code, kept verbatim by Claude Desktop.
    let text = json!({"mcpServers": {"a": {"command": "sh", "args": ["${HOME}"]}}}).to_string();
    assert_eq!(
        parse(&text, None, &ctx).servers[0].config["args"],
        json!(["/home/u"])
    );
    assert_eq!(
        parse(&text, Some(Dialect::ClaudeDesktop), &ctx).servers[0].config["args"],
        json!(["${HOME}"])
    );
    let cursor =
        json!({"mcpServers": {"a": {"command": "sh", "args": ["${env:HOME}"]}}}).to_string();
    assert_eq!(
        parse(&cursor, None, &ctx).servers[0].config["args"],
        json!(["/home/u"])
    );
    let unknown = parse("{\"nothing\": 1}", None, &ctx);
    assert_eq!(
        serde_json::to_value(&unknown.diagnostics[0]).unwrap()["kind"],
        "unknown-dialect"
    );
}
