//! Codex `config.toml`: `[mcp_servers.NAME]` tables (`command`, `args`, `env`, `env_vars`, `cwd`,
//! `url`, `http_headers`, `env_http_headers`, `bearer_token_env_var`, timeouts, `enabled`,
//! `enabled_tools` / `disabled_tools`). No `${…}` expansion; secrets come by variable name.

use serde_json::{Map, Value};

use super::common::{build, table, vars, Context, Entries, Parsed};
use super::fields::{f, Case, Ty};
use crate::config::diagnostics::{join, Diagnostic, Kind};
use crate::config::expand::Syntax;

const FIELDS: &[super::fields::Field] = &[
    f("command", Ty::Str),
    f("args", Ty::StrList),
    f("env", Ty::StrMap),
    f("env_vars", Ty::StrList),
    f("cwd", Ty::Str),
    f("url", Ty::Str),
    f("http_headers", Ty::StrMap),
    f("env_http_headers", Ty::StrMap),
    f("bearer_token_env_var", Ty::Str),
    f("startup_timeout_sec", Ty::Number),
    f("startup_timeout_ms", Ty::Number),
    f("tool_timeout_sec", Ty::Number),
    f("enabled", Ty::Bool),
    f("enabled_tools", Ty::StrList),
    f("disabled_tools", Ty::StrList),
];

pub(super) fn parse(root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    let Some(servers) = table(root, "mcp_servers", &mut parsed.diagnostics) else {
        return;
    };
    let vars = vars(ctx, Syntax::default(), Default::default());
    let table = Entries {
        base: "mcp_servers",
        fields: FIELDS,
        case: Case::Exact,
        vars: &vars,
        plugin: None,
    };
    table.read(servers, ctx, parsed, |entry, path, diags| {
        if entry.get("enabled") == Some(&Value::Bool(false)) {
            diags.push(Diagnostic::warning(
                Kind::Ignored,
                join(path, "enabled"),
                "disabled (`enabled = false`); not loaded",
            ));
            return None;
        }
        let transport = if entry.get("url").is_some() {
            "http"
        } else {
            "stdio"
        };
        let mut out = build(
            entry,
            transport,
            path,
            diags,
            &[
                ("command", "command"),
                ("args", "args"),
                ("env", "env"),
                ("env_vars", "inheritEnv"),
                ("cwd", "cwd"),
                ("url", "url"),
                ("http_headers", "headers"),
                ("tool_timeout_sec", "toolTimeoutSeconds"),
                ("startup_timeout_sec", "startupTimeoutSeconds"),
                ("enabled_tools", "includeTools"),
                ("disabled_tools", "excludeTools"),
            ],
        )?;
        if let Some(ms) = entry.get("startup_timeout_ms").and_then(Value::as_f64) {
            out.insert("startupTimeoutSeconds".into(), Value::from(ms / 1000.0));
        }
        headers_from_env(entry, path, ctx, &mut out, diags)?;
        Some(out)
    });
}

/// `env_http_headers` and `bearer_token_env_var` read header values from the environment; they are
/// secret by construction.
fn headers_from_env(
    entry: &super::fields::Entry,
    path: &str,
    ctx: &Context<'_>,
    out: &mut Map<String, Value>,
    diags: &mut Vec<Diagnostic>,
) -> Option<()> {
    let mut added: Vec<(String, String)> = Vec::new();
    let mut ok = true;
    let mut read = |var: &str, at: String, diags: &mut Vec<Diagnostic>| match (ctx.env)(var) {
        Some(v) => Some(v),
        None => {
            diags.push(Diagnostic::error(
                Kind::UnresolvedVariable,
                at,
                format!("variable `{var}` is not set"),
            ));
            ok = false;
            None
        }
    };
    if let Some(Value::Object(map)) = entry.get("env_http_headers") {
        for (header, var) in map {
            if let Some(v) = read(
                var.as_str().unwrap_or(""),
                join(&join(path, "env_http_headers"), header),
                diags,
            ) {
                added.push((header.clone(), v));
            }
        }
    }
    if let Some(var) = entry.str("bearer_token_env_var") {
        if let Some(v) = read(var, join(path, "bearer_token_env_var"), diags) {
            added.push(("Authorization".into(), format!("Bearer {v}")));
        }
    }
    if !ok {
        return None;
    }
    if added.is_empty() {
        return Some(());
    }
    let names: Vec<Value> = added.iter().map(|(h, _)| Value::from(h.as_str())).collect();
    if let Value::Object(headers) = out
        .entry("headers")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        headers.extend(added.into_iter().map(|(h, v)| (h, Value::from(v))));
    }
    if let Value::Array(items) = out
        .entry("secretHeaders")
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        items.extend(names);
    }
    Some(())
}
