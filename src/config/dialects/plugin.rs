//! Claude Code plugins: `.claude-plugin/plugin.json` with `name` and `mcpServers` (an inline table or
//! the path of a JSON file holding one, relative to the plugin root). Servers are named
//! `<plugin>__<server>` by the sidecar, and `${CLAUDE_PLUGIN_ROOT}` is the plugin's folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::claude;
use super::common::{vars, Context, Dialect, Parsed};
use crate::config::diagnostics::{Diagnostic, Kind};
use crate::config::expand::Syntax;

pub(super) fn parse(root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    let diags = &mut parsed.diagnostics;
    let Some(name) = plugin_name(root, diags) else {
        return;
    };
    let plugin_root = plugin_root(ctx);
    let vars = vars(
        ctx,
        Syntax {
            plain: true,
            ..Syntax::default()
        },
        BTreeMap::from([(
            "CLAUDE_PLUGIN_ROOT".to_owned(),
            plugin_root.display().to_string(),
        )]),
    );
    let servers = match root.get("mcpServers") {
        None => return,
        Some(Value::Object(t)) => t.clone(),
        Some(Value::String(rel)) => match servers_file(rel, &plugin_root, diags) {
            Some(t) => t,
            None => return,
        },
        Some(_) => {
            diags.push(Diagnostic::error(
                Kind::WrongType,
                "mcpServers",
                "`mcpServers` must be an object or the path of a JSON file",
            ));
            return;
        }
    };
    claude::entries(
        Dialect::ClaudePlugin,
        &servers,
        "mcpServers",
        &vars,
        Some((&name, &plugin_root)),
        ctx,
        parsed,
    );
}

/// The plugin's `name`, which prefixes its server names; `None` (with the error) when it is
/// missing or invalid.
fn plugin_name(root: &Value, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let diagnostic = match root.get("name") {
        Some(Value::String(n)) if valid_plugin_name(n) => return Some(n.clone()),
        Some(Value::String(n)) => Diagnostic::error(
            Kind::Invalid,
            "name",
            format!(
                "plugin name {n:?} must be letters, digits, '_' or '-' (it prefixes server names)"
            ),
        ),
        Some(_) => Diagnostic::error(Kind::WrongType, "name", "`name` must be a string"),
        None => Diagnostic::error(Kind::MissingField, "name", "a plugin manifest needs `name`"),
    };
    diags.push(diagnostic);
    None
}

/// The plugin root: the folder that holds `.claude-plugin/`.
fn plugin_root(ctx: &Context<'_>) -> PathBuf {
    match ctx.dir() {
        Some(dir) if dir.file_name().is_some_and(|n| n == ".claude-plugin") => {
            dir.parent().map(PathBuf::from).unwrap_or(dir)
        }
        Some(dir) => dir,
        None => PathBuf::from("."),
    }
}

/// The server table of the JSON file `rel` names inside the plugin folder; `None` (with the
/// error) when it is outside, unreadable or not a table.
fn servers_file(
    rel: &str,
    plugin_root: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Option<Map<String, Value>> {
    let file = plugin_root.join(rel.replace("${CLAUDE_PLUGIN_ROOT}/", ""));
    if !crate::config::paths::inside(plugin_root, &file) {
        diags.push(Diagnostic::error(
            Kind::PathEscape,
            "mcpServers",
            format!("{rel:?} is outside the plugin folder"),
        ));
        return None;
    }
    let text = match crate::config::file::read_text_bounded(&file) {
        Ok(t) => t,
        Err(e) => {
            diags.push(Diagnostic::error(
                Kind::Unreadable,
                "mcpServers",
                format!("cannot read {}: {e}", file.display()),
            ));
            return None;
        }
    };
    let doc: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            diags.push(
                Diagnostic::error(Kind::Syntax, "", format!("invalid JSON: {e}"))
                    .at(e.line(), e.column())
                    .in_file(Some(&file.display().to_string())),
            );
            return None;
        }
    };
    // The referenced file is either `{mcpServers: {…}}` or the table itself.
    match doc.get("mcpServers").cloned().unwrap_or(doc) {
        Value::Object(t) => Some(t),
        _ => {
            diags.push(Diagnostic::error(
                Kind::WrongType,
                "mcpServers",
                "the referenced file must hold an object of servers",
            ));
            None
        }
    }
}

pub(super) fn valid_plugin_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 32
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
