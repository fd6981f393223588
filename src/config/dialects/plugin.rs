//! Claude Code plugins: `.claude-plugin/plugin.json` with `name` and `mcpServers` (an inline table or
//! the path of a JSON file holding one, relative to the plugin root). Servers are named
//! `<plugin>__<server>` by the sidecar, and `${CLAUDE_PLUGIN_ROOT}` is the plugin's folder.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::claude;
use super::common::{vars, Context, Dialect, Parsed};
use crate::config::diagnostics::{Diagnostic, Kind};
use crate::config::expand::Syntax;

pub fn parse(root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    let diags = &mut parsed.diagnostics;
    let name = match root.get("name") {
        Some(Value::String(n)) if valid_plugin_name(n) => n.clone(),
        Some(Value::String(n)) => {
            diags.push(Diagnostic::error(Kind::Invalid, "name", format!("plugin name {n:?} must be letters, digits, '_' or '-' (it prefixes server names)")));
            return;
        }
        Some(_) => {
            diags.push(Diagnostic::error(
                Kind::WrongType,
                "name",
                "`name` must be a string",
            ));
            return;
        }
        None => {
            diags.push(Diagnostic::error(
                Kind::MissingField,
                "name",
                "a plugin manifest needs `name`",
            ));
            return;
        }
    };
    // The plugin root is the folder that holds `.claude-plugin/`.
    let plugin_root = match ctx.dir() {
        Some(dir) if dir.file_name().is_some_and(|n| n == ".claude-plugin") => {
            dir.parent().map(PathBuf::from).unwrap_or(dir)
        }
        Some(dir) => dir,
        None => PathBuf::from("."),
    };
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
        Some(Value::String(rel)) => {
            let file = plugin_root.join(rel.replace("${CLAUDE_PLUGIN_ROOT}/", ""));
            if !crate::config::paths::inside(&plugin_root, &file) {
                diags.push(Diagnostic::error(
                    Kind::PathEscape,
                    "mcpServers",
                    format!("{rel:?} is outside the plugin folder"),
                ));
                return;
            }
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    diags.push(Diagnostic::error(
                        Kind::Unreadable,
                        "mcpServers",
                        format!("cannot read {}: {e}", file.display()),
                    ));
                    return;
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
                    return;
                }
            };
            // The referenced file is either `{mcpServers: {…}}` or the table itself.
            match doc.get("mcpServers").cloned().unwrap_or(doc) {
                Value::Object(t) => t,
                _ => {
                    diags.push(Diagnostic::error(
                        Kind::WrongType,
                        "mcpServers",
                        "the referenced file must hold an object of servers",
                    ));
                    return;
                }
            }
        }
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

pub fn valid_plugin_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 32
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
