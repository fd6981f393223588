//! The YAML plugin manifest of seed 000: `id`, `permissions`, `contributes.tools`
//! (`<id>.<remote_name>`), and one `backend: {type: mcp, transport: stdio, command, args,
//! startup_timeout_seconds, tool_timeout_seconds}`. The backend becomes one server named after the
//! plugin id, run in the plugin's folder, whose discovered tool set must equal the declared one
//! (`expectTools`) and whose tools' `notesagent/permission` must be among `permissions`.

use serde_json::{Map, Value};

use super::common::{canonical, require, vars, Candidate, Context, Parsed};
use super::fields::{f, read_entry, Case, Entry, Ty};
use super::plugin::valid_plugin_name;
use crate::config::diagnostics::{index, join, Diagnostic, Kind};
use crate::config::expand::Syntax;
use crate::config::source::Source;

/// The `_meta` key seed 000 reads a tool's permission from.
pub(super) const PERMISSION_META_KEY: &str = "notesagent/permission";

const TOP: &[&str] = &[
    "id",
    "name",
    "version",
    "description",
    "author",
    "permissions",
    "contributes",
    "backend",
];

const BACKEND: &[super::fields::Field] = &[
    f("type", Ty::Str),
    f("transport", Ty::Str),
    f("command", Ty::Str),
    f("args", Ty::StrList),
    f("env", Ty::StrMap),
    f("startup_timeout_seconds", Ty::Number),
    f("tool_timeout_seconds", Ty::Number),
];

pub(super) fn parse(root: &Value, ctx: &Context<'_>, parsed: &mut Parsed) {
    let diags = &mut parsed.diagnostics;
    let Some(obj) = root.as_object() else {
        diags.push(Diagnostic::error(
            Kind::WrongType,
            "",
            "a plugin manifest must be a mapping",
        ));
        return;
    };
    unknown_top_fields(obj, diags);
    let Some(id) = plugin_id(obj, diags) else {
        return;
    };
    let mut bad = false;
    let permissions = strings(obj.get("permissions"), "permissions", diags, &mut bad);
    let contributes = obj.get("contributes").and_then(|c| c.get("tools"));
    let declared = strings(contributes, "contributes.tools", diags, &mut bad);
    let expect = expected_tools(&declared, &id, diags, &mut bad);
    let Some(backend) = obj.get("backend") else {
        diags.push(Diagnostic::error(
            Kind::MissingField,
            "backend",
            "a plugin manifest needs `backend`",
        ));
        return;
    };
    let vars = vars(ctx, Syntax::default(), Default::default());
    let mut server_diags = Vec::new();
    let root_dir = ctx.dir().unwrap_or_else(|| std::path::PathBuf::from("."));
    let built = read_entry(
        backend,
        "backend",
        BACKEND,
        Case::Exact,
        &vars,
        &mut server_diags,
    )
    .and_then(|entry| {
        let ok = backend_is_stdio_mcp(&entry, &mut server_diags);
        require(&entry, "stdio", "backend", &mut server_diags)?;
        if !ok {
            return None;
        }
        Some(backend_config(&entry, &root_dir, expect, permissions))
    });
    parsed
        .diagnostics
        .extend(server_diags.into_iter().map(|d| d.for_server(&id)));
    if let (Some(config), false) = (built, bad) {
        parsed.servers.push(Candidate {
            name: id,
            config,
            source: Source::Plugin,
            plugin_root: Some(root_dir),
            path: "backend".into(),
        });
    }
}

/// A top-level field outside [`TOP`]: an error when it looks like a typo, else a warning.
fn unknown_top_fields(obj: &Map<String, Value>, diags: &mut Vec<Diagnostic>) {
    for key in obj.keys().filter(|k| !TOP.contains(&k.as_str())) {
        let hint = crate::config::diagnostics::did_you_mean(key, TOP);
        diags.push(match hint {
            Some(h) => Diagnostic::error(
                Kind::UnknownField,
                key.as_str(),
                format!("unknown field `{key}` (did you mean `{h}`?)"),
            ),
            None => Diagnostic::warning(
                Kind::UnknownField,
                key.as_str(),
                format!("unknown field `{key}` is ignored"),
            ),
        });
    }
}

/// The plugin id, which names the server; `None` (with the error) when it is missing or invalid.
fn plugin_id(obj: &Map<String, Value>, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let diagnostic = match obj.get("id") {
        Some(Value::String(id)) if valid_plugin_name(id) => return Some(id.clone()),
        Some(Value::String(id)) => Diagnostic::error(
            Kind::Invalid,
            "id",
            format!("plugin id {id:?} must be letters, digits, '_' or '-'"),
        ),
        Some(_) => Diagnostic::error(Kind::WrongType, "id", "`id` must be a string"),
        None => Diagnostic::error(Kind::MissingField, "id", "a plugin manifest needs `id`"),
    };
    diags.push(diagnostic);
    None
}

/// The remote names of the declared `<id>.<remote_name>` tools (`expectTools`).
fn expected_tools(
    declared: &[String],
    id: &str,
    diags: &mut Vec<Diagnostic>,
    bad: &mut bool,
) -> Vec<Value> {
    let prefix = format!("{id}.");
    let mut expect = Vec::new();
    for (i, tool) in declared.iter().enumerate() {
        match tool.strip_prefix(&prefix) {
            Some(remote) if !remote.is_empty() => expect.push(Value::from(remote)),
            _ => {
                diags.push(
                    Diagnostic::error(
                        Kind::Invalid,
                        index("contributes.tools", i),
                        format!("tool {tool:?} must be `{id}.<remote_name>`"),
                    )
                    .for_server(id),
                );
                *bad = true;
            }
        }
    }
    expect
}

/// True when the backend says `type: mcp` and `transport: stdio`, the only backend there is.
fn backend_is_stdio_mcp(entry: &Entry, diags: &mut Vec<Diagnostic>) -> bool {
    let mut ok = true;
    for (field, want) in [("type", "mcp"), ("transport", "stdio")] {
        match entry.str(field) {
            Some(v) if v == want => {}
            Some(v) => {
                diags.push(Diagnostic::error(
                    Kind::Unsupported,
                    join("backend", field),
                    format!("`backend.{field}` {v:?} is not allowed: a plugin manifest's backend is `type: mcp`, `transport: stdio` (declare remote servers in an MCP config file instead)"),
                ));
                ok = false;
            }
            None => {
                diags.push(Diagnostic::error(
                    Kind::MissingField,
                    join("backend", field),
                    format!("`backend.{field}` is required (\"{want}\")"),
                ));
                ok = false;
            }
        }
    }
    ok
}

/// The canonical server config of the backend, run in the plugin's folder.
fn backend_config(
    entry: &Entry,
    root_dir: &std::path::Path,
    expect: Vec<Value>,
    permissions: Vec<String>,
) -> Value {
    let mut out: Map<String, Value> = canonical(
        entry,
        "stdio",
        &[
            ("command", "command"),
            ("args", "args"),
            ("env", "env"),
            ("startup_timeout_seconds", "startupTimeoutSeconds"),
            ("tool_timeout_seconds", "toolTimeoutSeconds"),
        ],
    );
    out.insert("cwd".into(), Value::from(root_dir.display().to_string()));
    out.insert("expectTools".into(), Value::Array(expect));
    out.insert(
        "permissions".into(),
        Value::Array(permissions.into_iter().map(Value::from).collect()),
    );
    out.insert("permissionMetaKey".into(), Value::from(PERMISSION_META_KEY));
    Value::Object(out)
}

fn strings(
    v: Option<&Value>,
    at: &str,
    diags: &mut Vec<Diagnostic>,
    bad: &mut bool,
) -> Vec<String> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s.as_str() {
                Some(s) => Some(s.to_owned()),
                None => {
                    diags.push(Diagnostic::error(
                        Kind::WrongType,
                        index(at, i),
                        "must be a string",
                    ));
                    *bad = true;
                    None
                }
            })
            .collect(),
        Some(_) => {
            diags.push(Diagnostic::error(
                Kind::WrongType,
                at,
                format!("`{at}` must be a list of strings"),
            ));
            *bad = true;
            Vec::new()
        }
    }
}
