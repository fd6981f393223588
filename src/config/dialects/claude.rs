//! The `mcpServers` family: Claude Desktop (stdio only, no expansion), Claude Code `.mcp.json`
//! (`type`, `${VAR}` / `${VAR:-default}`), Cursor (`${env:NAME}`, `url` servers), and the servers of a
//! Claude Code plugin (read by [`super::plugin`] with `${CLAUDE_PLUGIN_ROOT}`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::common::{
    bad_transport, build, table, top_level, vars, workspace_vars, Context, Dialect, Entries,
    Parsed, EDITOR, STANDARD, TYPES,
};
use super::fields::{f, fx, Case, Ty};
use crate::config::diagnostics::{join, Diagnostic, Kind};
use crate::config::expand::{Syntax, Vars};

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

/// Cursor's fields after [`EDITOR`]'s.
const CURSOR: &[super::fields::Field] = &[f("auth", Ty::Ignored)];

pub(super) fn parse(dialect: Dialect, root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    top_level(
        root,
        &["mcpServers", "globalShortcut", "preferences"],
        &mut parsed.diagnostics,
    );
    let Some(servers) = table(root, "mcpServers", &mut parsed.diagnostics) else {
        return;
    };
    let syntax = match dialect {
        Dialect::ClaudeDesktop => Syntax::default(),
        Dialect::Cursor => Syntax {
            env_prefix: true,
            ..Syntax::default()
        },
        _ => Syntax {
            plain: true,
            ..Syntax::default()
        },
    };
    let extra = if dialect == Dialect::Cursor {
        // `.cursor/mcp.json` lives in the workspace's `.cursor` folder.
        workspace_vars(ctx, ".cursor")
    } else {
        BTreeMap::new()
    };
    let vars = vars(ctx, syntax, extra);
    entries(dialect, servers, "mcpServers", &vars, None, ctx, parsed);
}

/// Reads every entry of an `mcpServers` table; with `plugin = Some((name, root))` the servers are
/// named `<plugin>__<server>` and come from that plugin.
pub(super) fn entries(
    dialect: Dialect,
    servers: &serde_json::Map<String, Value>,
    base: &str,
    vars: &Vars<'_>,
    plugin: Option<(&str, &Path)>,
    ctx: &Context<'_>,
    parsed: &mut Parsed,
) {
    let cursor;
    let fields = match dialect {
        Dialect::ClaudeDesktop => DESKTOP,
        Dialect::Cursor => {
            cursor = [EDITOR, CURSOR].concat();
            &cursor
        }
        _ => CODE,
    };
    let table = Entries {
        base,
        fields,
        case: Case::Exact,
        vars,
        plugin,
    };
    table.read(servers, ctx, parsed, |entry, path, diags| {
        let transport = transport(dialect, entry, path, diags)?;
        let mut out = build(entry, transport, path, diags, STANDARD)?;
        if let Some(ms) = entry.get("timeout").and_then(Value::as_f64) {
            // Claude Code's per-server `timeout` is in milliseconds; the sidecar's own field, when
            // given too, is the more precise statement and stays.
            out.entry("toolTimeoutSeconds")
                .or_insert_with(|| Value::from(ms / 1000.0));
        }
        super::env_file::merge_entry_env_file(entry.str("envFile"), path, ctx, &mut out, diags)?;
        if let Some((_, root)) = plugin {
            // A plugin's server runs in the plugin's folder unless it says otherwise.
            out.entry("cwd")
                .or_insert_with(|| Value::from(root.display().to_string()));
        }
        Some(out)
    });
}

/// `type` as each client reads it. A `url` without a `type` is an error where the client would not
/// guess, so that an HTTP server is never silently run as something else.
fn transport(
    dialect: Dialect,
    entry: &super::fields::Entry,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'static str> {
    match entry.str("type") {
        Some("stdio") => Some("stdio"),
        Some("http" | "streamable-http" | "streamableHttp") => Some("http"),
        Some("sse") => Some("sse"),
        Some(other) => {
            bad_transport(path, "type", other, TYPES, diags);
            None
        }
        None if entry.get("url").is_some() => match dialect {
            // Cursor connects to a `url` with Streamable HTTP (falling back to SSE itself).
            Dialect::Cursor => Some("http"),
            _ => {
                diags.push(Diagnostic::error(
                    Kind::MissingField,
                    join(path, "type"),
                    "a server with `url` needs `type`: \"http\" or \"sse\"",
                ));
                None
            }
        },
        None => Some("stdio"),
    }
}
