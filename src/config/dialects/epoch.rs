//! The epoch-style `servers` file of seed 003: `transport` and its alias `type` (both given:
//! `transport` wins), transport inferred from `url` when absent (SSE) — and, precisely so that
//! `{"type": "http", url}` is never connected as SSE, the alias is always honoured. Both camelCase and
//! snake_case field names. Its `supports_parallel` is the sidecar's own `supportsParallel` (an
//! extension field every dialect reads).

use serde_json::Value;

use super::common::{
    bad_transport, build, table, top_level, vars, Context, Entries, Parsed, STANDARD,
};
use super::fields::{f, Case, Ty};
use crate::config::expand::Syntax;

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
    f("skipPreflight", Ty::Ignored),
    f("oauth", Ty::Ignored),
];

pub(super) fn parse(root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    top_level(root, &["servers"], &mut parsed.diagnostics);
    let Some(servers) = table(root, "servers", &mut parsed.diagnostics) else {
        return;
    };
    let vars = vars(ctx, Syntax::default(), Default::default());
    let table = Entries {
        base: "servers",
        fields: FIELDS,
        case: Case::Both,
        vars: &vars,
        plugin: None,
    };
    table.read(servers, ctx, parsed, |entry, path, diags| {
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
                bad_transport(path, field, other, "\"stdio\", \"sse\", \"http\"", diags);
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
        let mut out = build(
            entry,
            transport,
            path,
            diags,
            &[
                STANDARD,
                &[
                    ("timeout", "toolTimeoutSeconds"),
                    ("connectTimeout", "startupTimeoutSeconds"),
                    ("keepaliveInterval", "keepaliveSeconds"),
                    ("idleTimeoutSeconds", "idleTimeoutSeconds"),
                    ("maxLifetimeSeconds", "maxLifetimeSeconds"),
                ],
            ]
            .concat(),
        )?;
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
        Some(out)
    });
}
