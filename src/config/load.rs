//! Loading configuration: a file (any dialect), a directory (every `.claude-plugin/plugin.json` and
//! `.mcp.json` below it), or a JSON document from the host, into candidate servers plus diagnostics.
//! Each candidate is checked here as far as it can be without starting it (name, launch spec, tools
//! policy, command on PATH, plugin containment), so one bad server never stops the others.
//!
//! All of it is blocking file-system work (reads, directory walks, PATH look-ups): an async caller
//! uses [`load`], which runs it on tokio's blocking pool instead of a runtime thread.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::diagnostics::{join, Diagnostic, Kind};
use super::dialects::{self, Candidate, Context, Dialect, Parsed};
use super::source::Source;
use super::{extras, validate_server_name, ServerSpec};
use crate::config::expand::mask_values;
use crate::config::paths;
use crate::limits;

/// Deepest directory level a scan descends to, and most files it reads: a scan of a home directory
/// by mistake stays bounded.
const MAX_SCAN_DEPTH: usize = 6;
const MAX_SCAN_FILES: usize = 256;

/// Servers ready for `servers/add` and every problem found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub servers: Vec<Candidate>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Where `${…}` values come from.
pub struct Sources<'a> {
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub inputs: &'a BTreeMap<String, String>,
}

/// What [`load`] reads, owned so that the work can move to another thread.
#[derive(Clone, Debug)]
pub enum Request {
    /// A file or a directory ([`load_path`]).
    Path(PathBuf),
    /// A document given inline ([`load_document`]).
    Document(Value),
}

/// [`load_path`] or [`load_document`] on the blocking pool (`spawn_blocking`): a directory scan of
/// many files must not stall the runtime thread that also serves every other request. `env` is
/// where `${VAR}` reads (the process environment, in the sidecar).
pub async fn load(
    request: Request,
    dialect: Option<Dialect>,
    inputs: BTreeMap<String, String>,
    env: fn(&str) -> Option<String>,
) -> Loaded {
    let work = move || {
        let src = Sources {
            env: &env,
            inputs: &inputs,
        };
        match &request {
            Request::Path(path) => load_path(path, dialect, &src),
            Request::Document(doc) => load_document(doc, dialect, &src),
        }
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(loaded) => loaded,
        // A panic in the loader (a bug) or a runtime shutting down: reported, not propagated.
        Err(e) => Loaded {
            servers: Vec::new(),
            diagnostics: vec![Diagnostic::error(
                Kind::Unreadable,
                "",
                format!("loading the configuration failed: {e}"),
            )],
        },
    }
}

/// A file or, for a directory, every plugin manifest and `.mcp.json` below it.
pub fn load_path(path: &Path, dialect: Option<Dialect>, src: &Sources<'_>) -> Loaded {
    let mut loaded = Loaded::default();
    if path.is_dir() {
        let mut files = Vec::new();
        scan(path, 0, &mut files);
        if files.is_empty() {
            loaded.diagnostics.push(
                Diagnostic::warning(
                    Kind::Unreadable,
                    "",
                    "no `.claude-plugin/plugin.json` or `.mcp.json` below this directory",
                )
                .in_file(Some(&path.display().to_string())),
            );
        }
        let (mut seen, mut read) = (BTreeSet::new(), 0);
        for file in files {
            load_file(&file, dialect, src, &mut loaded, &mut seen, &mut read);
        }
    } else {
        let mut read = 0;
        load_file(
            path,
            dialect,
            src,
            &mut loaded,
            &mut BTreeSet::new(),
            &mut read,
        );
    }
    loaded
}

/// A document given inline by the host (`json` object, or `text` for TOML and YAML).
pub fn load_document(doc: &Value, dialect: Option<Dialect>, src: &Sources<'_>) -> Loaded {
    let text = match doc {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let ctx = Context {
        file: None,
        env: src.env,
        inputs: src.inputs,
        source: Source::User,
    };
    let Parsed {
        servers,
        diagnostics,
    } = dialects::parse(&text, dialect, &ctx);
    let mut loaded = Loaded {
        servers: Vec::new(),
        diagnostics,
    };
    finish(servers, None, &mut loaded, &mut BTreeSet::new());
    loaded
}

/// Reads one file into `loaded`; `read` counts the bytes this load has read, against
/// [`limits::CONFIG_LOAD_MAX_BYTES`].
fn load_file(
    file: &Path,
    dialect: Option<Dialect>,
    src: &Sources<'_>,
    loaded: &mut Loaded,
    seen: &mut BTreeSet<String>,
    read: &mut u64,
) {
    let name = file.display().to_string();
    let left = limits::CONFIG_LOAD_MAX_BYTES.saturating_sub(*read);
    let text = match super::file::read_text_within_load(file, left) {
        Ok(t) => {
            *read += t.len() as u64;
            t
        }
        Err(e) => {
            let kind = match e.kind() {
                std::io::ErrorKind::QuotaExceeded => Kind::TooLarge,
                _ => Kind::Unreadable,
            };
            loaded.diagnostics.push(
                Diagnostic::error(kind, "", format!("cannot read the file: {e}"))
                    .in_file(Some(&name)),
            );
            return;
        }
    };
    // A `.mcp.json` at a plugin's root belongs to that plugin (prefix, source, containment).
    let plugin_manifest = file
        .parent()
        .map(|d| d.join(".claude-plugin").join("plugin.json"))
        .filter(|m| m.is_file());
    let ctx = Context {
        file: Some(file),
        env: src.env,
        inputs: src.inputs,
        source: Source::User,
    };
    let parsed = match (
        &plugin_manifest,
        file.file_name().is_some_and(|n| n == ".mcp.json"),
        dialect,
    ) {
        (Some(manifest), true, None) => plugin_servers_file(manifest, &text, src, &name),
        _ => dialects::parse(&text, dialect, &ctx),
    };
    loaded.diagnostics.extend(
        parsed
            .diagnostics
            .into_iter()
            .map(|d| d.in_file(Some(&name))),
    );
    finish(parsed.servers, Some(&name), loaded, seen);
}

/// A plugin's root `.mcp.json`, read as its manifest's `mcpServers`.
fn plugin_servers_file(manifest: &Path, text: &str, src: &Sources<'_>, name: &str) -> Parsed {
    let plugin = super::file::read_text_bounded(manifest)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|m| m.get("name").cloned());
    let table = match serde_json::from_str::<Value>(text) {
        Ok(v) => v.get("mcpServers").cloned().unwrap_or(v),
        Err(e) => {
            let mut p = Parsed::default();
            p.diagnostics.push(
                Diagnostic::error(Kind::Syntax, "", format!("invalid JSON: {e}"))
                    .at(e.line(), e.column())
                    .in_file(Some(name)),
            );
            return p;
        }
    };
    let doc = serde_json::json!({"name": plugin, "mcpServers": table});
    let ctx = Context {
        file: Some(manifest),
        env: src.env,
        inputs: src.inputs,
        source: Source::Plugin,
    };
    dialects::parse(&doc.to_string(), Some(Dialect::ClaudePlugin), &ctx)
}

fn scan(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_SCAN_DEPTH || out.len() >= MAX_SCAN_FILES {
        return;
    }
    let manifest = dir.join(".claude-plugin").join("plugin.json");
    if manifest.is_file() {
        out.push(manifest);
    }
    let mcp = dir.join(".mcp.json");
    if mcp.is_file() {
        out.push(mcp);
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subdirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n != ".git" && n != "node_modules" && n != "target" && n != ".claude-plugin"
            })
        })
        .collect();
    subdirs.sort();
    for sub in subdirs {
        scan(&sub, depth + 1, out);
    }
}

/// Checks every candidate of one file; those with an error become diagnostics instead.
fn finish(
    servers: Vec<Candidate>,
    file: Option<&str>,
    loaded: &mut Loaded,
    seen: &mut BTreeSet<String>,
) {
    let room = limits::CONFIG_LOAD_MAX_SERVERS.saturating_sub(loaded.servers.len());
    if servers.len() > room {
        loaded.diagnostics.push(
            Diagnostic::error(
                Kind::TooLarge,
                "",
                format!(
                    "{} of this file's servers are not loaded: one load may add {} servers",
                    servers.len() - room,
                    limits::CONFIG_LOAD_MAX_SERVERS
                ),
            )
            .in_file(file),
        );
    }
    for c in servers.into_iter().take(room) {
        let diags = check(&c, seen);
        let bad = diags.iter().any(Diagnostic::is_error);
        loaded.diagnostics.extend(
            diags
                .into_iter()
                .map(|d| d.for_server(&c.name).in_file(file)),
        );
        if !bad {
            loaded.servers.push(c);
        }
    }
}

fn check(c: &Candidate, seen: &mut BTreeSet<String>) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    if let Err(e) = validate_server_name(&c.name) {
        d.push(Diagnostic::error(Kind::Invalid, c.path.clone(), e.message));
        return d;
    }
    if !seen.insert(c.name.clone()) {
        d.push(Diagnostic::error(
            Kind::Duplicate,
            c.path.clone(),
            format!(
                "a server named `{}` was already loaded; this one is skipped",
                c.name
            ),
        ));
        return d;
    }
    let (rest, extras) = match extras::split(&c.config) {
        Ok(ok) => ok,
        Err(e) => {
            d.push(Diagnostic::error(
                Kind::WrongType,
                field_path(c, &e),
                e.message,
            ));
            return d;
        }
    };
    // Remote (http/sse) entries are validated like any other; real errors name their field.
    let spec = match ServerSpec::from_json(&rest) {
        Ok(spec) => spec,
        Err(e) => {
            d.push(Diagnostic::error(
                Kind::Invalid,
                field_path(c, &e),
                e.message,
            ));
            return d;
        }
    };
    if spec.remote.is_some() || spec.package.is_some() {
        // No command, no PATH, no plugin executable: nothing is spawned, or (a package) what is
        // spawned comes from the cache.
        return d;
    }
    let command = c
        .config
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("");
    let cwd = c.config.get("cwd").and_then(Value::as_str).map(Path::new);
    if let Some(root) = &c.plugin_root {
        if let Err(why) =
            paths::check_plugin_command(root, cwd.filter(|p| p.is_relative()), command)
        {
            d.push(Diagnostic::error(
                Kind::PathEscape,
                join(&c.path, "command"),
                mask_values(&why, &extras.secret_values),
            ));
            return d;
        }
    }
    let path_var = c
        .config
        .get("env")
        .and_then(|e| e.get("PATH"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| std::env::var("PATH").ok());
    if !paths::on_path(command, path_var.as_deref()) {
        let command = mask_values(command, &extras.secret_values);
        d.push(Diagnostic::warning(Kind::CommandNotFound, join(&c.path, "command"), format!("command `{command}` was not found on PATH; the server will fail to start unless it is installed")));
    }
    d
}

/// The JSON path of the field a CONFIG_INVALID error names (`env.X`, `args[1]`, `headers.Auth.value`),
/// below the candidate's own path.
fn field_path(c: &Candidate, e: &crate::error::Error) -> String {
    let Some(field) = e.details.get("field").and_then(Value::as_str) else {
        return c.path.clone();
    };
    let split = field.find(['.', '[']).unwrap_or(field.len());
    let (top, rest) = field.split_at(split);
    let path = join(&c.path, top);
    match rest.strip_prefix('.') {
        None => format!("{path}{rest}"),
        Some(key) => {
            // A header given as `{value, secret}`: its name, then which of the two.
            match key.rsplit_once('.') {
                Some((name, sub)) if top == "headers" && matches!(sub, "value" | "secret") => {
                    join(&join(&path, name), sub)
                }
                _ => join(&path, key),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Error, ErrorCode};

    /// `load` reads a file off the runtime thread and gives what `load_path` gives.
    #[tokio::test(flavor = "current_thread")]
    async fn load_reads_files_on_the_blocking_pool() {
        let dir = std::env::temp_dir().join(format!("mcp-sidecar-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("servers.json");
        std::fs::write(&file, r#"{"mcpServers": {"a": {"command": "sh"}, "b": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}"#).unwrap();
        fn no_env(_: &str) -> Option<String> {
            None
        }
        let loaded = load(Request::Path(file.clone()), None, BTreeMap::new(), no_env).await;
        let names: Vec<&str> = loaded.servers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"], "{:#?}", loaded.diagnostics);
        let doc = serde_json::json!({"mcpServers": {"c": {"command": "sh"}}});
        let loaded = load(Request::Document(doc), None, BTreeMap::new(), no_env).await;
        assert_eq!(loaded.servers.len(), 1, "{:#?}", loaded.diagnostics);
        let missing = load(
            Request::Path(dir.join("none.json")),
            None,
            BTreeMap::new(),
            no_env,
        )
        .await;
        assert!(missing.servers.is_empty());
        assert_eq!(missing.diagnostics[0].kind, Kind::Unreadable);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn load_json(doc: Value) -> Loaded {
        let inputs = BTreeMap::new();
        let src = Sources {
            env: &no_env,
            inputs: &inputs,
        };
        load_document(&doc, None, &src)
    }

    /// `args` past their count or bytes and `env` past its entries are one `too-large` error each
    /// (not one per item), and the other servers load.
    #[test]
    fn args_and_env_past_their_bounds_are_one_error_each() {
        let env: serde_json::Map<String, Value> = (0..=limits::CONFIG_ENV_MAX)
            .map(|i| (format!("V{i}"), Value::from("1")))
            .collect();
        let loaded = load_json(serde_json::json!({"mcpServers": {
            "many": {"command": "sh", "args": vec![1; limits::CONFIG_ARGS_MAX + 1]},
            "long": {"command": "sh", "args": ["x".repeat(limits::CONFIG_ARGS_MAX_BYTES), "y"]},
            "vars": {"command": "sh", "env": env},
            "huge": {"command": "sh", "env": {"BIG": "v".repeat(limits::CONFIG_ENV_MAX_BYTES)}},
            "fine": {"command": "sh", "args": vec!["a"; limits::CONFIG_ARGS_MAX]},
        }}));
        let names: Vec<&str> = loaded.servers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["fine"], "{:#?}", loaded.diagnostics);
        let errors: Vec<(&str, &str)> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| (d.server.as_deref().unwrap_or(""), d.message.as_str()))
            .collect();
        assert_eq!(errors.len(), 4, "{errors:#?}");
        assert!(loaded
            .diagnostics
            .iter()
            .all(|d| !d.is_error() || d.kind == Kind::TooLarge));
        let message = |server: &str| errors.iter().find(|(s, _)| *s == server).unwrap().1;
        assert!(message("many").contains("the limit is 1024"), "{errors:?}");
        assert!(message("long").contains("262144 bytes"), "{errors:?}");
        assert!(message("vars").contains("1025 entries"), "{errors:?}");
        assert!(message("huge").contains("262147 bytes"), "{errors:?}");
    }

    /// An entry of more fields than any dialect has is one error, not a diagnostic per field.
    #[test]
    fn an_entry_of_too_many_fields_is_one_error() {
        let mut entry: serde_json::Map<String, Value> = (0..limits::CONFIG_ENTRY_MAX_FIELDS)
            .map(|i| (format!("x{i}"), Value::from(1)))
            .collect();
        entry.insert("command".into(), Value::from("sh"));
        let loaded =
            load_json(serde_json::json!({"mcpServers": {"wide": entry, "ok": {"command": "sh"}}}));
        let names: Vec<&str> = loaded.servers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["ok"]);
        assert_eq!(loaded.diagnostics.len(), 1, "{:#?}", loaded.diagnostics);
        assert_eq!(loaded.diagnostics[0].kind, Kind::TooLarge);
        assert!(loaded.diagnostics[0].message.contains("257 fields"));
    }

    /// One load adds at most `CONFIG_LOAD_MAX_SERVERS`; a longer table is read no further.
    #[test]
    fn a_load_adds_a_bounded_number_of_servers() {
        let table: serde_json::Map<String, Value> = (0..limits::CONFIG_LOAD_MAX_SERVERS + 5)
            .map(|i| (format!("s{i}"), serde_json::json!({"command": "sh"})))
            .collect();
        let loaded = load_json(serde_json::json!({ "mcpServers": table }));
        assert_eq!(loaded.servers.len(), limits::CONFIG_LOAD_MAX_SERVERS);
        let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert_eq!(errors[0].kind, Kind::TooLarge);
        assert!(errors[0].message.contains("1029 servers"), "{errors:?}");
    }

    /// The files of one folder share one byte bound: the file that would pass it is not read.
    #[test]
    fn the_files_of_one_load_share_a_byte_bound() {
        let dir = std::env::temp_dir().join(format!("mcp-sidecar-budget-{}", std::process::id()));
        let third = limits::CONFIG_LOAD_MAX_BYTES as usize / 3 + 1;
        for i in 0..3 {
            let sub = dir.join(format!("r{i}"));
            std::fs::create_dir_all(&sub).unwrap();
            let doc = format!(
                r#"{{"mcpServers": {{"s{i}": {{"command": "sh"}}}}, "padding": "{}"}}"#,
                "p".repeat(third)
            );
            std::fs::write(sub.join(".mcp.json"), doc).unwrap();
        }
        let inputs = BTreeMap::new();
        let src = Sources {
            env: &no_env,
            inputs: &inputs,
        };
        let loaded = load_path(&dir, None, &src);
        std::fs::remove_dir_all(&dir).unwrap();
        let names: Vec<&str> = loaded.servers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["s0", "s1"], "{:#?}", loaded.diagnostics);
        let d = &loaded.diagnostics[0];
        assert_eq!(d.kind, Kind::TooLarge, "{d:?}");
        assert!(
            d.file.as_deref().unwrap().ends_with("r2/.mcp.json"),
            "{d:?}"
        );
        assert!(d.message.contains("16777216 bytes together"), "{d:?}");
    }

    #[test]
    fn field_paths_below_the_entry() {
        let c = Candidate {
            name: "r".into(),
            config: Value::Null,
            source: Source::User,
            plugin_root: None,
            path: "servers.r".into(),
        };
        let at = |field: &str| {
            field_path(
                &c,
                &Error::new(ErrorCode::ConfigInvalid, "x").with("field", field),
            )
        };
        assert_eq!(at("url"), "servers.r.url");
        assert_eq!(at("args[1]"), "servers.r.args[1]");
        assert_eq!(at("env.API_KEY"), "servers.r.env.API_KEY");
        assert_eq!(at("headers.Accept"), "servers.r.headers.Accept");
        assert_eq!(at("headers.X.Y.value"), "servers.r.headers[\"X.Y\"].value");
        assert_eq!(at("env.A.B"), "servers.r.env[\"A.B\"]");
    }
}
