//! VS Code `.vscode/mcp.json`: `servers` with `type`, `envFile`, `cwd`, and `inputs` whose values the
//! host provides through the protocol (`${input:ID}`; a `password` input makes what uses it secret).

use std::collections::BTreeSet;

use serde_json::Value;

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

pub(super) fn parse(root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
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
        super::env_file::merge_entry_env_file(entry.str("envFile"), path, ctx, &mut out, diags)?;
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
