//! VS Code `.vscode/mcp.json`: `servers` with `type`, `envFile`, `cwd`, and `inputs` whose values the
//! host provides through the protocol (`${input:ID}`; a `password` input makes what uses it secret).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::common::{
    bad_transport, build, table, top_level, vars, workspace_vars, Context, Entries, Parsed, EDITOR,
    STANDARD, TYPES,
};
use super::fields::{f, Case, Ty};
use crate::config::diagnostics::{index, join, Diagnostic, Kind};
use crate::config::expand::{Syntax, Vars};

/// VS Code's fields after [`EDITOR`]'s.
const FIELDS: &[super::fields::Field] = &[
    f("dev", Ty::Ignored),
    f("gallery", Ty::Ignored),
    f("version", Ty::Ignored),
];

pub fn parse(root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    top_level(root, &["servers", "inputs"], &mut parsed.diagnostics);
    let secret_inputs = inputs(root, &mut parsed.diagnostics);
    let Some(servers) = table(root, "servers", &mut parsed.diagnostics) else {
        return;
    };
    let vars = Vars {
        secret_inputs,
        ..vars(
            ctx,
            Syntax {
                env_prefix: true,
                input: true,
                plain: false,
            },
            workspace_vars(ctx, ".vscode"),
        )
    };
    let table = Entries {
        base: "servers",
        fields: &[EDITOR, FIELDS].concat(),
        case: Case::Exact,
        vars: &vars,
        plugin: None,
    };
    table.read(servers, ctx, parsed, |entry, path, diags| {
        let transport = match entry.str("type") {
            Some("stdio") => "stdio",
            Some("http") => "http",
            Some("sse") => "sse",
            Some(other) => {
                bad_transport(path, "type", other, TYPES, diags);
                return None;
            }
            // VS Code infers the type: a `url` is Streamable HTTP (it falls back to SSE itself).
            None if entry.get("url").is_some() => "http",
            None => "stdio",
        };
        let mut out = build(entry, transport, path, diags, STANDARD)?;
        if let Some(env_file) = entry.str("envFile") {
            merge_env_file(env_file, &join(path, "envFile"), ctx, &mut out, diags)?;
        }
        Some(out)
    });
}

/// The ids of `password` inputs; checks the `inputs` array's shape.
fn inputs(root: &Value, diags: &mut Vec<Diagnostic>) -> BTreeSet<String> {
    let mut secret = BTreeSet::new();
    match root.get("inputs") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let at = index("inputs", i);
                match item.get("id").and_then(Value::as_str) {
                    Some(id) => {
                        if item.get("password").and_then(Value::as_bool) == Some(true) {
                            secret.insert(id.to_owned());
                        }
                    }
                    None => diags.push(Diagnostic::error(
                        Kind::MissingField,
                        join(&at, "id"),
                        "an input needs a string `id`",
                    )),
                }
            }
        }
        Some(_) => diags.push(Diagnostic::error(
            Kind::WrongType,
            "inputs",
            "`inputs` must be an array",
        )),
    }
    secret
}

/// Reads `KEY=VALUE` lines of an env file (relative to the config file) under `env` (which wins).
/// Every value from an env file is treated as secret: such files exist to keep secrets out of configs.
pub fn merge_env_file(
    file: &str,
    at: &str,
    ctx: &Context<'_>,
    out: &mut Map<String, Value>,
    diags: &mut Vec<Diagnostic>,
) -> Option<()> {
    let path = match ctx.dir() {
        Some(dir) => dir.join(file),
        None => Path::new(file).to_path_buf(),
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            diags.push(Diagnostic::error(
                Kind::Unreadable,
                at,
                format!("cannot read env file {}: {e}", path.display()),
            ));
            return None;
        }
    };
    let env = out
        .entry("env")
        .or_insert_with(|| Value::Object(Map::new()));
    let mut names = Vec::new();
    if let Value::Object(env) = env {
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let line = line.strip_prefix("export ").unwrap_or(line);
            let Some((k, v)) = line.split_once('=') else {
                diags.push(Diagnostic::warning(
                    Kind::Invalid,
                    at,
                    format!(
                        "{}:{}: not a KEY=VALUE line; skipped",
                        path.display(),
                        n + 1
                    ),
                ));
                continue;
            };
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(v);
            let k = k.trim().to_owned();
            if !env.contains_key(&k) {
                env.insert(k.clone(), Value::from(v));
                names.push(Value::from(k));
            }
        }
    }
    if !names.is_empty() {
        let list = out
            .entry("secretEnv")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = list {
            items.extend(names);
        }
    }
    Some(())
}
