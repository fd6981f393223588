//! The `mcpServers` family: Claude Desktop (stdio only, no expansion), Claude Code `.mcp.json`
//! (`type`, `${VAR}` / `${VAR:-default}`), Cursor (`${env:NAME}`, `url` servers), and the servers of a
//! Claude Code plugin (read by [`super::plugin`] with `${CLAUDE_PLUGIN_ROOT}`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::fields::{f, fx, read_entry, Case, Ty};
use super::{canonical, require, table, top_level, Candidate, Context, Dialect, Parsed};
use crate::config::diagnostics::{join, Diagnostic, Kind};
use crate::config::expand::{Syntax, Vars};
use crate::config::source::Source;

const DESKTOP: &[super::fields::Field] = &[
    f("command", Ty::Str),
    f("args", Ty::StrList),
    f("env", Ty::StrMap),
    f("cwd", Ty::Str),
];

const CODE: &[super::fields::Field] = &[
    f("type", Ty::Str),
    fx("command", Ty::Str),
    fx("args", Ty::StrList),
    fx("env", Ty::StrMap),
    fx("cwd", Ty::Str),
    fx("url", Ty::Str),
    fx("headers", Ty::StrMap),
    f("headersHelper", Ty::Ignored),
    f("oauth", Ty::Ignored),
    f("timeout", Ty::Number),
];

const CURSOR: &[super::fields::Field] = &[
    f("type", Ty::Str),
    fx("command", Ty::Str),
    fx("args", Ty::StrList),
    fx("env", Ty::StrMap),
    fx("envFile", Ty::Str),
    fx("cwd", Ty::Str),
    fx("url", Ty::Str),
    fx("headers", Ty::StrMap),
    f("auth", Ty::Ignored),
];

pub fn parse(dialect: Dialect, root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    top_level(
        root,
        &["mcpServers", "globalShortcut", "preferences"],
        &mut parsed.diagnostics,
    );
    let Some(servers) = table(root, "mcpServers", &mut parsed.diagnostics) else {
        return;
    };
    let mut extra = BTreeMap::new();
    if let Some(home) = (ctx.env)("HOME") {
        extra.insert("userHome".to_owned(), home);
    }
    if let Some(dir) = ctx.dir() {
        // `.cursor/mcp.json` lives in the workspace's `.cursor` folder.
        let ws = if dir.file_name().is_some_and(|n| n == ".cursor") {
            dir.parent().map(Path::to_path_buf).unwrap_or(dir)
        } else {
            dir
        };
        extra.insert("workspaceFolder".to_owned(), ws.display().to_string());
    }
    let vars = Vars {
        syntax: match dialect {
            Dialect::ClaudeDesktop => Syntax::default(),
            Dialect::Cursor => Syntax {
                env_prefix: true,
                ..Syntax::default()
            },
            _ => Syntax {
                plain: true,
                ..Syntax::default()
            },
        },
        env: ctx.env,
        extra: if dialect == Dialect::Cursor {
            extra
        } else {
            BTreeMap::new()
        },
        inputs: ctx.inputs,
        secret_inputs: Default::default(),
    };
    entries(dialect, servers, "mcpServers", &vars, None, ctx, parsed);
}

/// Reads every entry of an `mcpServers` table; with `plugin = Some((name, root))` the servers are
/// named `<plugin>__<server>` and come from that plugin.
pub fn entries(
    dialect: Dialect,
    servers: &serde_json::Map<String, Value>,
    base: &str,
    vars: &Vars<'_>,
    plugin: Option<(&str, &Path)>,
    ctx: &Context<'_>,
    parsed: &mut Parsed,
) {
    let fields = match dialect {
        Dialect::ClaudeDesktop => DESKTOP,
        Dialect::Cursor => CURSOR,
        _ => CODE,
    };
    for (name, raw) in servers {
        let path = join(base, name);
        let final_name = match plugin {
            Some((p, _)) => format!("{p}__{name}"),
            None => name.clone(),
        };
        let mut diags = Vec::new();
        let built =
            read_entry(raw, &path, fields, Case::Exact, vars, &mut diags).and_then(|entry| {
                let transport = transport(dialect, &entry, &path, &mut diags)?;
                require(&entry, transport, &path, &mut diags)?;
                let mut out = canonical(
                    &entry,
                    transport,
                    &[
                        ("command", "command"),
                        ("args", "args"),
                        ("env", "env"),
                        ("cwd", "cwd"),
                        ("url", "url"),
                        ("headers", "headers"),
                    ],
                );
                if let Some(ms) = entry.get("timeout").and_then(Value::as_f64) {
                    // Claude Code's per-server `timeout` is in milliseconds.
                    out.insert("toolTimeoutSeconds".into(), Value::from(ms / 1000.0));
                }
                if let Some(env_file) = entry.str("envFile") {
                    super::vscode::merge_env_file(
                        env_file,
                        &join(&path, "envFile"),
                        ctx,
                        &mut out,
                        &mut diags,
                    )?;
                }
                if let Some((_, root)) = plugin {
                    // A plugin's server runs in the plugin's folder unless it says otherwise.
                    out.entry("cwd")
                        .or_insert_with(|| Value::from(root.display().to_string()));
                }
                Some(Value::Object(out))
            });
        parsed
            .diagnostics
            .extend(diags.into_iter().map(|d| d.for_server(&final_name)));
        if let Some(config) = built {
            parsed.servers.push(Candidate {
                name: final_name,
                config,
                source: if plugin.is_some() {
                    Source::Plugin
                } else {
                    ctx.source
                },
                plugin_root: plugin.map(|(_, r)| r.to_path_buf()),
                path,
            });
        }
    }
}

/// `type` as each client reads it. A `url` without a `type` is an error where the client would not
/// guess, so that an HTTP server is never silently run as something else.
fn transport(
    dialect: Dialect,
    entry: &super::fields::Entry,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'static str> {
    let at = join(path, "type");
    match entry.str("type") {
        Some("stdio") => Some("stdio"),
        Some("http" | "streamable-http" | "streamableHttp") => Some("http"),
        Some("sse") => Some("sse"),
        Some(other) => {
            diags.push(Diagnostic::error(
                Kind::Invalid,
                at,
                format!("`type` {other:?} is not one of \"stdio\", \"http\", \"sse\""),
            ));
            None
        }
        None if entry.get("url").is_some() => match dialect {
            // Cursor connects to a `url` with Streamable HTTP (falling back to SSE itself).
            Dialect::Cursor => Some("http"),
            _ => {
                diags.push(Diagnostic::error(
                    Kind::MissingField,
                    at,
                    "a server with `url` needs `type`: \"http\" or \"sse\"",
                ));
                None
            }
        },
        None => Some("stdio"),
    }
}
