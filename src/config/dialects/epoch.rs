//! The epoch-style `servers` file of seed 003: `transport` and its alias `type` (both given:
//! `transport` wins), transport inferred from `url` when absent (SSE) — and, precisely so that
//! `{"type": "http", url}` is never connected as SSE, the alias is always honoured. Both camelCase and
//! snake_case field names.

use serde_json::Value;

use super::fields::{f, read_entry, Case, Ty};
use super::{canonical, require, table, top_level, Candidate, Context, Parsed};
use crate::config::diagnostics::{join, Diagnostic, Kind};
use crate::config::expand::{Syntax, Vars};

const FIELDS: &[super::fields::Field] = &[
    f("transport", Ty::Str),
    f("type", Ty::Str),
    f("command", Ty::Str),
    f("args", Ty::StrList),
    f("url", Ty::Str),
    f("streamable", Ty::Bool),
    f("headers", Ty::StrMap),
    f("env", Ty::StrMap),
    f("cwd", Ty::Str),
    f("timeout", Ty::Number),
    f("connectTimeout", Ty::Number),
    f("keepaliveInterval", Ty::Number),
    f("idleTimeoutSeconds", Ty::Number),
    f("maxLifetimeSeconds", Ty::Number),
    f("supportsParallel", Ty::Ignored),
    f("skipPreflight", Ty::Ignored),
    f("oauth", Ty::Ignored),
];

pub fn parse(root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    top_level(root, &["servers"], &mut parsed.diagnostics);
    let Some(servers) = table(root, "servers", &mut parsed.diagnostics) else {
        return;
    };
    let vars = Vars {
        syntax: Syntax::default(),
        env: ctx.env,
        extra: Default::default(),
        inputs: ctx.inputs,
        secret_inputs: Default::default(),
    };
    for (name, raw) in servers {
        let path = join("servers", name);
        let mut diags = Vec::new();
        let built =
            read_entry(raw, &path, FIELDS, Case::Both, &vars, &mut diags).and_then(|entry| {
                let (field, value) = match (entry.str("transport"), entry.str("type")) {
                    (Some(t), _) => ("transport", Some(t)),
                    (None, Some(t)) => ("type", Some(t)),
                    (None, None) => ("transport", None),
                };
                let transport = match value {
                    Some("stdio") => "stdio",
                    Some("sse") => "sse",
                    Some("http" | "streamable" | "streamable-http" | "streamableHttp") => "http",
                    Some(other) => {
                        diags.push(Diagnostic::error(
                            Kind::Invalid,
                            join(&path, field),
                            format!(
                                "`{field}` {other:?} is not one of \"stdio\", \"sse\", \"http\""
                            ),
                        ));
                        return None;
                    }
                    None if entry.get("url").is_some() => {
                        if entry.get("streamable") == Some(&Value::Bool(true)) {
                            "http"
                        } else {
                            "sse"
                        }
                    }
                    None => "stdio",
                };
                require(&entry, transport, &path, &mut diags)?;
                let out = canonical(
                    &entry,
                    transport,
                    &[
                        ("command", "command"),
                        ("args", "args"),
                        ("env", "env"),
                        ("cwd", "cwd"),
                        ("url", "url"),
                        ("headers", "headers"),
                        ("timeout", "toolTimeoutSeconds"),
                        ("connectTimeout", "startupTimeoutSeconds"),
                        ("keepaliveInterval", "keepaliveSeconds"),
                        ("idleTimeoutSeconds", "idleTimeoutSeconds"),
                        ("maxLifetimeSeconds", "maxLifetimeSeconds"),
                    ],
                );
                let mut out = out;
                // `0` means "never" in this dialect; the canonical config says so by leaving it out.
                for key in [
                    "idleTimeoutSeconds",
                    "maxLifetimeSeconds",
                    "keepaliveSeconds",
                ] {
                    if out.get(key).and_then(Value::as_f64) == Some(0.0) {
                        out.remove(key);
                    }
                }
                Some(Value::Object(out))
            });
        parsed
            .diagnostics
            .extend(diags.into_iter().map(|d| d.for_server(name)));
        if let Some(config) = built {
            parsed.servers.push(Candidate {
                name: name.clone(),
                config,
                source: ctx.source,
                plugin_root: None,
                path,
            });
        }
    }
}
