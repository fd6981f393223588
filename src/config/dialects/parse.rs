//! [`parse`]: a document's syntax (JSON, TOML or YAML, guided by the file name), its dialect
//! (detected from markers only one format has, then the file name, or forced), then that dialect's
//! reader.

use std::path::Path;

use serde_json::Value;

use super::common::{Context, Dialect, Doc, Parsed};
use super::{claude, codex, epoch, manifest, plugin, vscode};
use crate::config::diagnostics::{Diagnostic, Kind};

/// Parses `text` (JSON, TOML or YAML, guided by the file name) and detects the dialect unless forced.
pub fn parse(text: &str, forced: Option<Dialect>, ctx: &Context<'_>) -> Parsed {
    let mut parsed = Parsed::default();
    let doc = match syntax(text, forced, ctx.file) {
        Ok(doc) => doc,
        Err(d) => {
            parsed.diagnostics.push(*d);
            return parsed;
        }
    };
    let dialect = match forced.or_else(|| detect(&doc, text, ctx.file)) {
        Some(d) => d,
        None => {
            parsed.diagnostics.push(Diagnostic::error(
                Kind::UnknownDialect,
                "",
                "not a known MCP config: expected `mcpServers`, `servers`, `[mcp_servers.NAME]` or a plugin manifest with `backend`",
            ));
            return parsed;
        }
    };
    let value = match doc {
        Doc::Json(v) | Doc::Toml(v) | Doc::Yaml(v) => v,
    };
    match dialect {
        Dialect::ClaudeDesktop | Dialect::ClaudeCode | Dialect::Cursor => {
            claude::parse(dialect, &value, ctx, &mut parsed)
        }
        Dialect::ClaudePlugin => plugin::parse(&value, ctx, &mut parsed),
        Dialect::Vscode => vscode::parse(&value, ctx, &mut parsed),
        Dialect::Codex => codex::parse(&value, ctx, &mut parsed),
        Dialect::Epoch => epoch::parse(&value, ctx, &mut parsed),
        Dialect::PluginManifest => manifest::parse(&value, ctx, &mut parsed),
    }
    parsed
}

fn ext(file: Option<&Path>) -> &str {
    file.and_then(Path::extension)
        .and_then(|e| e.to_str())
        .unwrap_or("")
}

fn syntax(
    text: &str,
    forced: Option<Dialect>,
    file: Option<&Path>,
) -> Result<Doc, Box<Diagnostic>> {
    let want_toml = forced == Some(Dialect::Codex) || ext(file) == "toml";
    let want_yaml = forced == Some(Dialect::PluginManifest) || matches!(ext(file), "yaml" | "yml");
    if want_toml {
        return toml_doc(text);
    }
    if want_yaml {
        return yaml_doc(text);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok(Doc::Json(v)),
        Err(json_error) => {
            // Not JSON: a TOML or YAML file without the usual extension, if it parses as one.
            if text.contains("[mcp_servers") {
                return toml_doc(text);
            }
            if !text.trim_start().starts_with(['{', '[']) {
                if let Ok(doc @ Doc::Yaml(Value::Object(_))) = yaml_doc(text) {
                    return Ok(doc);
                }
            }
            Err(Box::new(
                Diagnostic::error(Kind::Syntax, "", format!("invalid JSON: {json_error}"))
                    .at(json_error.line(), json_error.column()),
            ))
        }
    }
}

fn toml_doc(text: &str) -> Result<Doc, Box<Diagnostic>> {
    match toml::from_str::<toml::Table>(text) {
        Ok(t) => serde_json::to_value(t).map(Doc::Toml).map_err(|e| {
            Box::new(Diagnostic::error(
                Kind::Syntax,
                "",
                format!("TOML value cannot be read: {e}"),
            ))
        }),
        Err(e) => {
            let mut d =
                Diagnostic::error(Kind::Syntax, "", format!("invalid TOML: {}", e.message()));
            if let Some(span) = e.span() {
                let (line, column) = line_col(text, span.start);
                d = d.at(line, column);
            }
            Err(Box::new(d))
        }
    }
}

fn yaml_doc(text: &str) -> Result<Doc, Box<Diagnostic>> {
    match serde_yaml_ng::from_str::<Value>(text) {
        Ok(v) => Ok(Doc::Yaml(v)),
        Err(e) => {
            let mut d = Diagnostic::error(Kind::Syntax, "", format!("invalid YAML: {e}"));
            if let Some(loc) = e.location() {
                d = d.at(loc.line(), loc.column());
            }
            Err(Box::new(d))
        }
    }
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Content markers first (only one format has them), then the file name.
fn detect(doc: &Doc, text: &str, file: Option<&Path>) -> Option<Dialect> {
    let name = file
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let parent = file
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or("");
    match doc {
        Doc::Toml(v) => v.get("mcp_servers").map(|_| Dialect::Codex),
        Doc::Yaml(v) => {
            (v.get("backend").is_some() || v.get("id").is_some()).then_some(Dialect::PluginManifest)
        }
        Doc::Json(v) => {
            let obj = v.as_object()?;
            if obj.contains_key("backend") && obj.contains_key("id") {
                return Some(Dialect::PluginManifest);
            }
            if obj.contains_key("mcp_servers") {
                return Some(Dialect::Codex);
            }
            if obj.contains_key("mcpServers") {
                if (obj.get("name").is_some_and(Value::is_string) && !obj.contains_key("servers"))
                    || parent == ".claude-plugin"
                {
                    return Some(Dialect::ClaudePlugin);
                }
                if text.contains("${env:") || parent == ".cursor" {
                    return Some(Dialect::Cursor);
                }
                if name == ".mcp.json"
                    || text.contains("${")
                    || entries_have(obj.get("mcpServers"), &["type", "url", "headers"])
                {
                    return Some(Dialect::ClaudeCode);
                }
                return Some(Dialect::ClaudeDesktop);
            }
            if obj.contains_key("servers") {
                let vscode = obj.contains_key("inputs")
                    || text.contains("${input:")
                    || text.contains("${env:")
                    || text.contains("${workspaceFolder")
                    || entries_have(obj.get("servers"), &["envFile", "dev"])
                    || parent == ".vscode";
                let epoch = entries_have(
                    obj.get("servers"),
                    &[
                        "transport",
                        "timeout",
                        "connect_timeout",
                        "connectTimeout",
                        "streamable",
                        "keepalive_interval",
                        "keepaliveInterval",
                    ],
                );
                return Some(if vscode && !epoch {
                    Dialect::Vscode
                } else {
                    Dialect::Epoch
                });
            }
            None
        }
    }
}

fn entries_have(table: Option<&Value>, keys: &[&str]) -> bool {
    table
        .and_then(Value::as_object)
        .is_some_and(|t| t.values().any(|e| keys.iter().any(|k| e.get(*k).is_some())))
}
