//! What every dialect shares: the [`Dialect`] names, the parse [`Context`] and its output
//! ([`Parsed`], [`Candidate`]), and the helpers that walk server tables, expand variables and build
//! the canonical config with its diagnostics.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use super::fields::{self, read_entry, Case, Entry, Field};
use crate::config::diagnostics::{join, Diagnostic, Kind};
use crate::config::expand::{Syntax, Vars};
use crate::config::source::Source;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// `claude_desktop_config.json`: `mcpServers` of stdio servers, no expansion.
    ClaudeDesktop,
    /// Claude Code `.mcp.json`: `mcpServers`, `type`, `${VAR}` / `${VAR:-default}`.
    ClaudeCode,
    /// `.claude-plugin/plugin.json`: `name`, `mcpServers` (inline or a file), `${CLAUDE_PLUGIN_ROOT}`.
    ClaudePlugin,
    /// `.vscode/mcp.json`: `servers`, `inputs`, `type`, `envFile`, `${input:ID}`, `${env:NAME}`.
    Vscode,
    /// `.cursor/mcp.json`: `mcpServers`, `${env:NAME}`.
    Cursor,
    /// Codex `config.toml`: `[mcp_servers.NAME]`.
    Codex,
    /// The epoch-style `servers` file (seed 003): `transport`/`type` aliases, timeouts, both cases.
    Epoch,
    /// The YAML plugin manifest of seed 000 (`id`, `permissions`, `contributes.tools`, `backend`).
    PluginManifest,
}

impl Dialect {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeDesktop => "claude-desktop",
            Self::ClaudeCode => "claude-code",
            Self::ClaudePlugin => "claude-plugin",
            Self::Vscode => "vscode",
            Self::Cursor => "cursor",
            Self::Codex => "codex",
            Self::Epoch => "epoch",
            Self::PluginManifest => "plugin-manifest",
        }
    }
}

/// What a dialect needs besides the text.
pub struct Context<'a> {
    pub file: Option<&'a Path>,
    /// The environment `${VAR}` reads.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `${input:ID}` values given by the host.
    pub inputs: &'a BTreeMap<String, String>,
    /// The source of servers not from a plugin.
    pub source: Source,
}

impl Context<'_> {
    /// The directory of the file (relative paths in it are relative to it).
    pub fn dir(&self) -> Option<PathBuf> {
        self.file.and_then(Path::parent).map(Path::to_path_buf)
    }
}

/// One server read from a file: its final name, its canonical config, and how it arrived.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub name: String,
    pub config: Value,
    pub source: Source,
    /// The plugin's folder, for servers from a plugin (executables must stay inside it).
    pub plugin_root: Option<PathBuf>,
    /// JSON path of the entry in its file.
    pub path: String,
}

#[derive(Debug, Default)]
pub struct Parsed {
    pub servers: Vec<Candidate>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A parsed document, whatever its syntax.
pub(super) enum Doc {
    Json(Value),
    Toml(Value),
    Yaml(Value),
}

/// Walks a `{name: entry}` table, reporting a missing or non-object table.
pub(super) fn table<'v>(
    root: &'v Value,
    key: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'v Map<String, Value>> {
    match root.get(key) {
        Some(Value::Object(t)) => Some(t),
        Some(_) => {
            diags.push(Diagnostic::error(
                Kind::WrongType,
                key,
                format!("`{key}` must be an object of servers keyed by name"),
            ));
            None
        }
        None => {
            diags.push(Diagnostic::error(
                Kind::MissingField,
                key,
                format!("`{key}` is missing"),
            ));
            None
        }
    }
}

/// Reports top-level keys outside `known` (warnings: other tools keep their settings in these files).
pub(super) fn top_level(root: &Value, known: &[&str], diags: &mut Vec<Diagnostic>) {
    if let Some(obj) = root.as_object() {
        for key in obj.keys().filter(|k| !known.contains(&k.as_str())) {
            if let Some(hint) = crate::config::diagnostics::did_you_mean(key, known) {
                diags.push(Diagnostic::warning(
                    Kind::UnknownField,
                    join("", key),
                    format!("unknown top-level field `{key}` (did you mean `{hint}`?)"),
                ));
            }
        }
    }
}

/// The variables of a dialect: `syntax`, the named `extra`s, and no secret inputs.
pub(super) fn vars<'a>(
    ctx: &Context<'a>,
    syntax: Syntax,
    extra: BTreeMap<String, String>,
) -> Vars<'a> {
    Vars {
        syntax,
        env: ctx.env,
        extra,
        inputs: ctx.inputs,
        secret_inputs: Default::default(),
    }
}

/// `userHome` (from `HOME`) and `workspaceFolder`: the file's folder, or its parent when that folder
/// is the editor's `marker` folder (`.vscode`, `.cursor`).
pub(super) fn workspace_vars(ctx: &Context<'_>, marker: &str) -> BTreeMap<String, String> {
    let mut extra = BTreeMap::new();
    if let Some(home) = (ctx.env)("HOME") {
        extra.insert("userHome".to_owned(), home);
    }
    if let Some(dir) = ctx.dir() {
        let ws = if dir.file_name().is_some_and(|n| n == marker) {
            dir.parent().map(Path::to_path_buf).unwrap_or(dir)
        } else {
            dir
        };
        extra.insert("workspaceFolder".to_owned(), ws.display().to_string());
    }
    extra
}

/// How a dialect's `{name: entry}` table of servers is read.
pub(super) struct Entries<'a> {
    /// JSON path of the table.
    pub base: &'a str,
    pub fields: &'a [Field],
    pub case: Case,
    pub vars: &'a Vars<'a>,
    /// `Some((plugin, root))`: the servers are named `<plugin>__<server>` and come from that plugin.
    pub plugin: Option<(&'a str, &'a Path)>,
}

impl Entries<'_> {
    /// Reads every entry of `servers` and turns each into a candidate with `build(entry, path,
    /// diags)`; an entry's diagnostics are attributed to its server.
    pub(super) fn read(
        &self,
        servers: &Map<String, Value>,
        ctx: &Context<'_>,
        parsed: &mut Parsed,
        mut build: impl FnMut(&Entry, &str, &mut Vec<Diagnostic>) -> Option<Map<String, Value>>,
    ) {
        // A table of a million two-line servers is read no further than one load may add
        // (`config::load` bounds the servers of all files together).
        let max = crate::limits::CONFIG_LOAD_MAX_SERVERS;
        if servers.len() > max {
            parsed.diagnostics.push(Diagnostic::error(
                Kind::TooLarge,
                self.base,
                format!(
                    "{} servers are given; only the first {max} are read (one load may add {max})",
                    servers.len()
                ),
            ));
        }
        for (name, raw) in servers.iter().take(max) {
            let path = join(self.base, name);
            let final_name = match self.plugin {
                Some((p, _)) => format!("{p}__{name}"),
                None => name.clone(),
            };
            let mut diags = Vec::new();
            let built = read_entry(raw, &path, self.fields, self.case, self.vars, &mut diags)
                .and_then(|entry| build(&entry, &path, &mut diags));
            parsed
                .diagnostics
                .extend(diags.into_iter().map(|d| d.for_server(&final_name)));
            if let Some(config) = built {
                parsed.servers.push(Candidate {
                    name: final_name,
                    config: Value::Object(config),
                    source: if self.plugin.is_some() {
                        Source::Plugin
                    } else {
                        ctx.source
                    },
                    plugin_root: self.plugin.map(|(_, r)| r.to_path_buf()),
                    path,
                });
            }
        }
    }
}

/// The fields VS Code and Cursor share (each adds its own after them).
pub(super) const EDITOR: &[Field] = &[
    fields::f("type", fields::Ty::Str),
    fields::fx("command", fields::Ty::Str),
    fields::fx("args", fields::Ty::StrList),
    fields::fx("env", fields::Ty::StrMap),
    fields::fx("envFile", fields::Ty::Str),
    fields::fx("cwd", fields::Ty::Str),
    fields::fx("url", fields::Ty::Str),
    fields::fx("headers", fields::Ty::StrMap),
];

/// The fields most dialects copy as they are.
pub(super) const STANDARD: &[(&str, &str)] = &[
    ("command", "command"),
    ("args", "args"),
    ("env", "env"),
    ("cwd", "cwd"),
    ("url", "url"),
    ("headers", "headers"),
];

/// [`require`] then [`canonical`]: the canonical config of an entry that has what `transport` needs.
pub(super) fn build(
    entry: &Entry,
    transport: &str,
    path: &str,
    diags: &mut Vec<Diagnostic>,
    pairs: &[(&str, &str)],
) -> Option<Map<String, Value>> {
    require(entry, transport, path, diags)?;
    Some(canonical(entry, transport, pairs))
}

/// The values of `type` in the editors' formats, as the error for another one names them.
pub(super) const TYPES: &str = "\"stdio\", \"http\", \"sse\"";

/// The error of a `field` (`type`, `transport`) whose value is not one of `allowed`.
pub(super) fn bad_transport(
    path: &str,
    field: &str,
    value: &str,
    allowed: &str,
    diags: &mut Vec<Diagnostic>,
) {
    diags.push(Diagnostic::error(
        Kind::Invalid,
        join(path, field),
        format!("`{field}` {value:?} is not one of {allowed}"),
    ));
}

/// The canonical config of a stdio or remote server from an entry's standard fields.
pub(super) fn canonical(
    entry: &fields::Entry,
    transport: &str,
    pairs: &[(&str, &str)],
) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("transport".into(), Value::from(transport));
    // Every name a dialect writes is one the launch spec or the extras read (else every server of
    // that dialect would fail as "unknown field"): the serde struct is the one list of the former.
    debug_assert!(
        pairs.iter().all(|(_, to)| {
            crate::config::raw::field_names().contains(to)
                || fields::EXTENSIONS.iter().any(|f| f.name == *to)
        }),
        "a dialect maps to a field the server config does not have: {pairs:?}"
    );
    for (from, to) in pairs {
        if let Some(v) = entry.get(from) {
            out.insert((*to).to_owned(), v.clone());
        }
    }
    fields::copy_extensions(entry, &mut out);
    out
}

/// A `stdio` entry needs a command; a remote one a URL. `None` (with an error) when it lacks it.
pub(super) fn require(
    entry: &fields::Entry,
    transport: &str,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<()> {
    // A pinned package stands for the command (the server config checks it).
    if transport == "stdio" && entry.get("package").is_some() {
        return Some(());
    }
    let (field, why) = if transport == "stdio" {
        ("command", "a stdio server needs `command` (or a `package`)")
    } else {
        ("url", "a remote server needs `url`")
    };
    match entry.str(field) {
        Some(s) if !s.trim().is_empty() => Some(()),
        Some(_) => {
            diags.push(Diagnostic::error(
                Kind::Invalid,
                join(path, field),
                format!("`{field}` must not be empty"),
            ));
            None
        }
        None => {
            diags.push(Diagnostic::error(
                Kind::MissingField,
                join(path, field),
                why,
            ));
            None
        }
    }
}
