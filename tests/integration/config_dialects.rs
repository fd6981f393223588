//! Config dialects, table-driven over real files in tests/data/config: the canonical config each
//! server becomes, and every diagnostic (kind, JSON path, severity) the bad entries produce.

#![allow(clippy::type_complexity)] // tables of cases

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_sidecar::config::load::{load_document, load_path, Loaded, Sources};
use mcp_sidecar::config::{extras, RemoteKind, ServerSpec};
use mcp_sidecar::trust::request::Subject;
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
            &["gh", "remote"],
            &[
                ("gh", "command", json!("/usr/bin/gh-mcp")),
                ("gh", "args", json!(["--home", "/home/u"])),
                ("gh", "env", json!({"GITHUB_TOKEN": "gh-secret-token"})),
                ("remote", "transport", json!("http")),
                ("remote", "url", json!("https://mcp.example.com/mcp")),
                (
                    "remote",
                    "headers",
                    json!({"Authorization": "Bearer gh-secret-token", "X-Client": "sidecar"}),
                ),
            ],
        ),
        (
            "cursor/.cursor/mcp.json",
            &["db", "web"],
            &[
                ("db", "env", json!({"DB_PASSWORD": "db-secret-pass"})),
                // Cursor reads a bare `url` as Streamable HTTP.
                ("web", "transport", json!("http")),
                ("web", "url", json!("https://cursor.example.com/mcp")),
            ],
        ),
        (
            "vscode/.vscode/mcp.json",
            &["remote", "search"],
            &[
                ("remote", "transport", json!("sse")),
                ("remote", "url", json!("https://sse.example.com/sse")),
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
            &["api", "docs"],
            &[
                ("api", "transport", json!("http")),
                ("api", "url", json!("https://codex.example.com/mcp")),
                (
                    "api",
                    "headers",
                    json!({"Authorization": "Bearer codex-secret"}),
                ),
                ("api", "secretHeaders", json!(["Authorization"])),
                ("docs", "inheritEnv", json!(["LANG"])),
                ("docs", "toolTimeoutSeconds", json!(45)),
                ("docs", "startupTimeoutSeconds", json!(20)),
                ("docs", "includeTools", json!(["search*"])),
                ("docs", "excludeTools", json!(["search_admin"])),
            ],
        ),
        (
            "epoch/mcp.json",
            &[
                "both",
                "camel",
                "filesystem",
                "remote",
                "skip",
                "sse",
                "typed",
            ],
            &[
                ("remote", "transport", json!("http")),
                ("remote", "url", json!("https://mcp.example.com/mcp")),
                (
                    "remote",
                    "headers",
                    json!({"Authorization": "Bearer epoch-secret-token"}),
                ),
                ("typed", "transport", json!("http")),
                ("sse", "transport", json!("sse")),
                ("both", "transport", json!("sse")),
                ("filesystem", "toolTimeoutSeconds", json!(300)),
                ("filesystem", "startupTimeoutSeconds", json!(60)),
                ("camel", "keepaliveSeconds", json!(180)),
                ("camel", "startupTimeoutSeconds", json!(5)),
                // Seed 003's field, in both spellings: the sidecar's own `supportsParallel`.
                ("filesystem", "supportsParallel", json!(false)),
                ("camel", "supportsParallel", json!(true)),
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
                // A remote entry's real errors name their field.
                ("invalid", "mcpServers.reserved.headers.Accept", "error"),
            ],
        ),
        (
            "vscode/.vscode/mcp.json",
            &[("unresolved-variable", "servers.needs-input.env.X", "error")],
        ),
        (
            "codex/config.toml",
            &[("ignored", "mcp_servers.off.enabled", "warning")],
        ),
        (
            "epoch/mcp.json",
            &[
                ("invalid", "servers.badurl.url", "error"),
                ("invalid", "servers.mixed.command", "error"),
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
    // Remote entries that load have no diagnostic at all: no `unsupported`, and no command or PATH
    // check (those apply to stdio servers only).
    for (file, remote) in [
        ("code/.mcp.json", &["remote"][..]),
        ("cursor/.cursor/mcp.json", &["web"]),
        ("vscode/.vscode/mcp.json", &["remote"]),
        ("codex/config.toml", &["api"]),
        ("epoch/mcp.json", &["remote", "typed", "sse", "both"]),
    ] {
        let l = load(file, none);
        let about: Vec<_> = l
            .diagnostics
            .iter()
            .filter(|d| d.server.as_deref().is_some_and(|s| remote.contains(&s)))
            .collect();
        assert!(about.is_empty(), "{file}: {about:#?}");
        assert!(
            diags(&l).iter().all(|(k, _, _)| k != "unsupported"),
            "{file}: {:#?}",
            l.diagnostics
        );
    }
    // The invalid remote entries are not loaded, and their messages name the problem.
    let l = load("epoch/mcp.json", none);
    for (server, says) in [("badurl", "scheme"), ("mixed", "remote")] {
        assert!(!names(&l).contains(&server), "{server}");
        let d = l
            .diagnostics
            .iter()
            .find(|d| d.server.as_deref() == Some(server))
            .unwrap();
        assert!(d.message.contains(says), "{server}: {d:?}");
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
    // The seed-000 manifest's backend is stdio by its own rule: another transport stays refused.
    let inputs = BTreeMap::new();
    let l = load_document(
        &Value::from("id: web\nbackend:\n  type: mcp\n  transport: http\n  command: srv\n"),
        Some(mcp_sidecar::config::Dialect::PluginManifest),
        &Sources {
            env: &env,
            inputs: &inputs,
        },
    );
    assert!(l.servers.is_empty(), "{:#?}", l.servers);
    has(&l, "unsupported", "backend.transport", "error");
    assert!(
        l.diagnostics
            .iter()
            .any(|d| d.message.contains("transport: stdio")),
        "{:#?}",
        l.diagnostics
    );
}

/// The launch spec a loaded candidate becomes (as `servers/add` reads it).
fn spec_of(config: &Value) -> ServerSpec {
    let (rest, _) = extras::split(config).unwrap();
    ServerSpec::from_json(&rest).unwrap_or_else(|e| panic!("{config}: {}", e.message))
}

#[test]
fn remote_entries_load_with_their_secret_headers_kept_but_masked() {
    // (file, server, kind, url, header whose value is secret, that value)
    let cases: &[(&str, &str, RemoteKind, &str, &str, &str)] = &[
        (
            "code/.mcp.json",
            "remote",
            RemoteKind::Http,
            "https://mcp.example.com/mcp",
            "Authorization",
            "Bearer gh-secret-token",
        ),
        (
            "codex/config.toml",
            "api",
            RemoteKind::Http,
            "https://codex.example.com/mcp",
            "Authorization",
            "Bearer codex-secret",
        ),
        (
            "epoch/mcp.json",
            "remote",
            RemoteKind::Http,
            "https://mcp.example.com/mcp",
            "Authorization",
            "Bearer epoch-secret-token",
        ),
    ];
    for (file, name, kind, url, header, value) in cases {
        let l = load(file, &[]);
        let config = server(&l, name);
        let spec = spec_of(config);
        assert!(spec.command.is_empty(), "{file} {name}");
        let remote = spec.remote.as_ref().unwrap();
        assert_eq!(remote.kind, *kind, "{file} {name}");
        assert_eq!(remote.url.as_str(), *url, "{file} {name}");
        // Kept: the value is what is sent.
        let h = remote.headers.iter().find(|h| h.name == *header).unwrap();
        assert_eq!(h.value, *value, "{file} {name}");
        assert!(h.secret, "{file} {name}: {header} is secret");
        // Masked: status shows `command` (the URL) and header names only; what masks its texts
        // (lastError, stderrTail) replaces the value and its credential part.
        let (_, extras) = extras::split(config).unwrap();
        let subject = Subject::new(&spec, &extras);
        let secrets = subject.secrets();
        let credential = value.split_once(' ').unwrap().1;
        assert_eq!(
            secrets.mask(&format!("sent {value}; token {credential}")),
            "sent ***; token ***",
            "{file} {name}"
        );
        assert_eq!(spec.display_command(), *url);
        let request = subject.to_json(mcp_sidecar::config::Source::User, None);
        assert_eq!(request["url"], *url);
        assert!(
            request["headerNames"]
                .as_array()
                .unwrap()
                .contains(&json!(header)),
            "{request}"
        );
        assert!(!request.to_string().contains(credential), "{request}");
        assert!(!format!("{spec:?}").contains(credential), "{file} {name}");
    }
    // A header that does not look secret is kept in the clear.
    let l = load("code/.mcp.json", &[]);
    let spec = spec_of(server(&l, "remote"));
    let plain = spec
        .remote
        .unwrap()
        .headers
        .into_iter()
        .find(|h| h.name == "X-Client")
        .unwrap();
    assert!(!plain.secret);
    assert_eq!(plain.value, "sidecar");
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
    // From the file to the launch spec: `type`/`transport` "http" stays Streamable HTTP.
    let l = load("epoch/mcp.json", &[]);
    for (name, want) in [
        ("remote", RemoteKind::Http),
        ("typed", RemoteKind::Http),
        ("sse", RemoteKind::Sse),
        ("both", RemoteKind::Sse),
    ] {
        let kind = spec_of(server(&l, name)).remote.unwrap().kind;
        assert_eq!(kind, want, "{name}");
    }
    // Every spelling, through each dialect that reads `type`.
    let src_inputs = BTreeMap::new();
    let ctx = mcp_sidecar::config::dialects::Context {
        file: None,
        env: &env,
        inputs: &src_inputs,
        source: mcp_sidecar::config::Source::User,
    };
    use mcp_sidecar::config::Dialect;
    for (dialect, table, entry, want, kind) in [
        (
            Dialect::Epoch,
            "servers",
            json!({"type": "http", "url": "https://h/mcp"}),
            "http",
            RemoteKind::Http,
        ),
        (
            Dialect::Epoch,
            "servers",
            json!({"transport": "http", "url": "https://h/mcp"}),
            "http",
            RemoteKind::Http,
        ),
        (
            Dialect::Epoch,
            "servers",
            json!({"type": "streamable-http", "url": "https://h/mcp"}),
            "http",
            RemoteKind::Http,
        ),
        (
            Dialect::Epoch,
            "servers",
            json!({"url": "https://h/mcp"}),
            "sse",
            RemoteKind::Sse,
        ),
        (
            Dialect::Epoch,
            "servers",
            json!({"url": "https://h/mcp", "streamable": true}),
            "http",
            RemoteKind::Http,
        ),
        (
            Dialect::Epoch,
            "servers",
            json!({"transport": "sse", "type": "http", "url": "https://h/mcp"}),
            "sse",
            RemoteKind::Sse,
        ),
        (
            Dialect::ClaudeCode,
            "mcpServers",
            json!({"type": "http", "url": "https://h/mcp"}),
            "http",
            RemoteKind::Http,
        ),
        (
            Dialect::ClaudeCode,
            "mcpServers",
            json!({"type": "sse", "url": "https://h/mcp"}),
            "sse",
            RemoteKind::Sse,
        ),
        (
            Dialect::Vscode,
            "servers",
            json!({"type": "http", "url": "https://h/mcp"}),
            "http",
            RemoteKind::Http,
        ),
        (
            Dialect::Vscode,
            "servers",
            json!({"url": "https://h/mcp"}),
            "http",
            RemoteKind::Http,
        ),
        (
            Dialect::Cursor,
            "mcpServers",
            json!({"url": "https://h/mcp"}),
            "http",
            RemoteKind::Http,
        ),
        (
            Dialect::Codex,
            "mcp_servers",
            json!({"url": "https://h/mcp"}),
            "http",
            RemoteKind::Http,
        ),
    ] {
        let text = match dialect {
            Dialect::Codex => format!("[{table}.r]\nurl = {}\n", entry["url"]),
            _ => json!({ table: {"r": entry.clone()} }).to_string(),
        };
        let parsed = mcp_sidecar::config::dialects::parse(&text, Some(dialect), &ctx);
        assert_eq!(
            parsed.servers.len(),
            1,
            "{dialect:?} {entry}: {:#?}",
            parsed.diagnostics
        );
        let config = &parsed.servers[0].config;
        assert_eq!(config["transport"], want, "{dialect:?} {entry}");
        assert_eq!(config["url"], "https://h/mcp");
        assert_eq!(
            spec_of(config).remote.unwrap().kind,
            kind,
            "{dialect:?} {entry}"
        );
        // And the loader (the path of `servers/load`) keeps it so.
        let l = load_document(
            &Value::from(text),
            Some(dialect),
            &Sources {
                env: &env,
                inputs: &src_inputs,
            },
        );
        assert_eq!(
            l.servers[0].config["transport"], want,
            "{dialect:?} {entry}"
        );
        assert!(
            l.diagnostics.is_empty(),
            "{dialect:?} {entry}: {:#?}",
            l.diagnostics
        );
    }
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

#[test]
fn every_dialect_carries_the_sidecars_supervision_fields_in_both_spellings() {
    use mcp_sidecar::config::dialects::fields::SUPERVISION;
    let known = mcp_sidecar::config::field_names();
    for field in SUPERVISION {
        assert!(
            known.contains(&field.name),
            "`{}` is not a server config field",
            field.name
        );
    }
    let inputs = BTreeMap::new();
    let sources = Sources {
        env: &env,
        inputs: &inputs,
    };
    let desktop = json!({"mcpServers": {"a": {
        "command": "sh", "toolTimeoutSeconds": 2, "max_result_bytes": 4096,
        "resultPolicy": "truncate", "restart": "never", "auto_start": false
    }}});
    let l = load_document(&desktop, None, &sources);
    assert!(l.diagnostics.is_empty(), "{:?}", diags(&l));
    let config = server(&l, "a");
    for (key, value) in [
        ("toolTimeoutSeconds", json!(2)),
        ("maxResultBytes", json!(4096)),
        ("resultPolicy", json!("truncate")),
        ("restart", json!("never")),
        ("autoStart", json!(false)),
    ] {
        assert_eq!(config[key], value, "{key} in {config}");
    }
    let (launch, _) = extras::split(config).unwrap();
    ServerSpec::from_json(&launch).unwrap();
    // Claude Code's own `timeout` (ms) gives way to an explicit `toolTimeoutSeconds`.
    let code = json!({"mcpServers": {"a": {"type": "stdio", "command": "sh", "timeout": 9000, "toolTimeoutSeconds": 3}}});
    assert_eq!(
        server(&load_document(&code, None, &sources), "a")["toolTimeoutSeconds"],
        json!(3)
    );
    let typo = json!({"mcpServers": {"a": {"command": "sh", "toolTimeoutSecond": 3}}});
    let d = diags(&load_document(&typo, None, &sources));
    assert_eq!(d[0].0, "unknown-field", "a near miss is named: {d:?}");
}
