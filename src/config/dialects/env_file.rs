//! An `envFile` (VS Code, Claude Code): its `KEY=VALUE` lines merged under a server's `env`, and the
//! record of where they came from — `envFiles` in the canonical config, which the trust gate binds
//! and shows. The values themselves land in `env` (and are marked secret); the record keeps what
//! `env` alone would lose: which file, which names it gave, and a digest of its whole text.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::Context;
use crate::canonical::sha256_tagged;
use crate::config::diagnostics::{Diagnostic, Kind};
use crate::config::invalid::invalid;
use crate::error::Result;
use crate::limits;

/// The canonical config key of the records (`env_files` in snake_case).
pub const ENV_FILES: &str = "envFiles";

/// Folders an editor keeps its config in: the config belongs to the folder above them.
const MARKER_FOLDERS: &[&str] = &[".vscode", ".cursor", ".claude-plugin"];

/// Where one server's env file came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnvFile {
    /// The file read: absolute, `..` and symlinks resolved where the file system allows.
    pub path: String,
    /// The folder the naming config belongs to, resolved the same way (the workspace for a file in
    /// `.vscode`/`.cursor`, the plugin for one in `.claude-plugin`); `None` for a document given inline.
    #[serde(default)]
    pub config_dir: Option<String>,
    /// The variables it gave the server (those `env` did not set itself), in file order.
    pub names: Vec<String>,
    /// `sha256:<hex>` of the file's bytes. Derived from secrets: the trust gate only ever shows or
    /// hashes it under its per-process key.
    pub sha256: String,
}

impl EnvFile {
    /// The config's folder when the file lies outside it (paths compared once resolved, so `..`
    /// and symlinks cannot hide the way out); `None` inside it or for a document given inline.
    pub fn outside_config_dir(&self) -> Option<&str> {
        let dir = self.config_dir.as_deref()?;
        (!Path::new(&self.path).starts_with(dir)).then_some(dir)
    }
}

/// The `envFiles` value of a canonical config (CONFIG_INVALID naming the field otherwise).
pub fn parse(value: &Value) -> Result<Vec<EnvFile>> {
    // serde's message names the shape problem, never a value: the record holds no secret values.
    Vec::<EnvFile>::deserialize(value).map_err(|e| {
        invalid(
            ENV_FILES,
            format!("must be an array of {{path, configDir?, names, sha256}} ({e})"),
        )
    })
}

/// A dialect entry's `envFile` (at `path.envFile`), when it names one: [`merge_env_file`].
pub fn merge_entry_env_file(
    env_file: Option<&str>,
    path: &str,
    ctx: &Context<'_>,
    out: &mut Map<String, Value>,
    diags: &mut Vec<Diagnostic>,
) -> Option<()> {
    match env_file {
        Some(file) => merge_env_file(
            file,
            &crate::config::diagnostics::join(path, "envFile"),
            ctx,
            out,
            diags,
        ),
        None => Some(()),
    }
}

/// Reads `KEY=VALUE` lines of an env file (relative to the config file) under `env` (which wins),
/// and records it under `envFiles`. Every value from an env file is treated as secret: such files
/// exist to keep secrets out of configs.
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
    let text = read_env_file(&path, at, diags)?;
    let env = out
        .entry("env")
        .or_insert_with(|| Value::Object(Map::new()));
    let mut names = Vec::new();
    // Lines that are not `KEY=VALUE`: the first is named, the others counted (one warning, not
    // one per line of a file of junk).
    let mut skipped: Option<(usize, usize)> = None;
    if let Value::Object(env) = env {
        if let Err(past) = merge_lines(&text, env, &mut names, &mut skipped) {
            diags.push(Diagnostic::error(
                Kind::TooLarge,
                at,
                format!("env file {} gives `env` {past} (its limit)", path.display()),
            ));
            return None;
        }
    }
    if let Some((first, count)) = skipped {
        diags.push(Diagnostic::warning(
            Kind::Invalid,
            at,
            format!(
                "{}:{first}: not a KEY=VALUE line; skipped ({count} such lines in the file)",
                path.display()
            ),
        ));
    }
    if !names.is_empty() {
        push(
            out,
            "secretEnv",
            names.iter().map(|n| Value::from(n.as_str())),
        );
    }
    let record = EnvFile {
        path: resolved(&path).display().to_string(),
        config_dir: ctx
            .dir()
            .map(|d| resolved(&owning_folder(&d)).display().to_string()),
        names,
        sha256: sha256_tagged(text.as_bytes()),
    };
    // The trust request warns about it too (`trust::risk`); a host that does not gate trust hears
    // of it only here.
    if let Some(dir) = record.outside_config_dir() {
        diags.push(Diagnostic::warning(
            Kind::PathEscape,
            at,
            format!(
                "reads env file `{}` outside the config's folder `{dir}`",
                record.path
            ),
        ));
    }
    // Serialising a struct of strings cannot fail.
    if let Ok(v) = serde_json::to_value(record) {
        push(out, ENV_FILES, std::iter::once(v));
    }
    Some(())
}

/// The env file at `path`, as text; `None` (a diagnostic at `at`) when it cannot be read or is not
/// UTF-8.
fn read_env_file(path: &Path, at: &str, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let bytes = match crate::config::file::read_bounded(path) {
        Ok(b) => b,
        Err(e) => {
            diags.push(Diagnostic::error(
                Kind::Unreadable,
                at,
                format!("cannot read env file {}: {e}", path.display()),
            ));
            return None;
        }
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        diags.push(Diagnostic::error(
            Kind::Unreadable,
            at,
            format!("env file {} is not UTF-8", path.display()),
        ));
        return None;
    };
    Some(text.to_owned())
}

/// Merges the `KEY=VALUE` lines of `text` into `env` (a name already there wins), each name
/// merged pushed to `names`; lines that are not `KEY=VALUE` are counted in `skipped` (the first
/// one's number, how many). `Err` names the bound of `env` the file would pass.
fn merge_lines(
    text: &str,
    env: &mut Map<String, Value>,
    names: &mut Vec<String>,
    skipped: &mut Option<(usize, usize)>,
) -> Result<(), String> {
    let mut bytes: usize = env
        .iter()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((k, v)) = line.split_once('=') else {
            let (_, count) = skipped.get_or_insert((n + 1, 0));
            *count += 1;
            continue;
        };
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(v);
        let k = k.trim().to_owned();
        if !env.contains_key(&k) {
            bytes += k.len() + v.len();
            let past = if env.len() >= limits::CONFIG_ENV_MAX {
                Some(format!("more than {} variables", limits::CONFIG_ENV_MAX))
            } else {
                (bytes > limits::CONFIG_ENV_MAX_BYTES)
                    .then(|| format!("more than {} bytes", limits::CONFIG_ENV_MAX_BYTES))
            };
            if let Some(past) = past {
                return Err(past);
            }
            env.insert(k.clone(), Value::from(v));
            names.push(k);
        }
    }
    Ok(())
}

/// Appends `items` to the array at `key` of `out`, creating it.
fn push(out: &mut Map<String, Value>, key: &str, items: impl Iterator<Item = Value>) {
    let list = out.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = list {
        list.extend(items);
    }
}

/// The folder a config in `dir` belongs to: `dir`, or its parent when `dir` is an editor's marker
/// folder (an env file next to `.vscode/` is the workspace's, not outside it).
fn owning_folder(dir: &Path) -> PathBuf {
    match (dir.file_name().and_then(|n| n.to_str()), dir.parent()) {
        (Some(name), Some(parent)) if MARKER_FOLDERS.contains(&name) => parent.to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// `path` absolute with symlinks resolved; where it cannot be (gone, unreadable folder), absolute
/// against the working directory with `.` and `..` folded by name.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[test]
    fn merges_and_records_provenance() {
        let root = std::env::temp_dir().join(format!("mcp-sidecar-envfile-{}", std::process::id()));
        let vscode = root.join(".vscode");
        std::fs::create_dir_all(&vscode).unwrap();
        std::fs::write(root.join("app.env"), "A=1\nexport B=\"two\"\n# c\nOWN=x\n").unwrap();
        let file = vscode.join("mcp.json");
        let inputs = BTreeMap::new();
        let ctx = Context {
            file: Some(&file),
            env: &|_| None,
            inputs: &inputs,
            source: crate::config::source::Source::User,
        };
        let mut out = Map::new();
        out.insert("env".into(), json!({"OWN": "mine"}));
        let mut diags = Vec::new();
        merge_env_file(
            "../app.env",
            "servers.s.envFile",
            &ctx,
            &mut out,
            &mut diags,
        )
        .unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(out["env"], json!({"OWN": "mine", "A": "1", "B": "two"}));
        assert_eq!(out["secretEnv"], json!(["A", "B"]));
        let records = parse(&out[ENV_FILES]).unwrap();
        let real_root = std::fs::canonicalize(&root).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(
            records[0].path,
            real_root.join("app.env").display().to_string()
        );
        assert_eq!(
            records[0].config_dir.as_deref(),
            Some(real_root.display().to_string().as_str())
        );
        assert_eq!(records[0].names, ["A", "B"]);
        assert!(records[0].sha256.starts_with("sha256:"));
        assert!(parse(&json!([{"path": "/x"}])).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }

    /// An env file of junk lines is one warning; one past the `env` bound is one error.
    #[test]
    fn env_files_are_bounded_and_junk_is_one_warning() {
        let root =
            std::env::temp_dir().join(format!("mcp-sidecar-envbound-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let junk: String = (0..5000).map(|i| format!("junk line {i}\n")).collect();
        std::fs::write(root.join("junk.env"), format!("A=1\n{junk}")).unwrap();
        let many: String = (0..=limits::CONFIG_ENV_MAX)
            .map(|i| format!("V{i}=1\n"))
            .collect();
        std::fs::write(root.join("many.env"), many).unwrap();
        let file = root.join(".mcp.json");
        let inputs = BTreeMap::new();
        let ctx = Context {
            file: Some(&file),
            env: &|_| None,
            inputs: &inputs,
            source: crate::config::source::Source::User,
        };
        let merge = |name: &str| {
            let (mut out, mut diags) = (Map::new(), Vec::new());
            let merged = merge_env_file(name, "s.envFile", &ctx, &mut out, &mut diags);
            (merged, out, diags)
        };
        let (merged, out, diags) = merge("junk.env");
        assert!(merged.is_some());
        assert_eq!(out["env"], json!({"A": "1"}));
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(
            diags[0]
                .message
                .ends_with(":2: not a KEY=VALUE line; skipped (5000 such lines in the file)"),
            "{diags:?}"
        );
        let (merged, _, diags) = merge("many.env");
        assert!(merged.is_none());
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].kind, Kind::TooLarge);
        assert!(
            diags[0].message.contains("more than 1024 variables"),
            "{diags:?}"
        );
        std::fs::write(
            root.join("big.env"),
            format!("BIG={}\n", "v".repeat(limits::CONFIG_ENV_MAX_BYTES)),
        )
        .unwrap();
        let (merged, _, diags) = merge("big.env");
        assert!(merged.is_none());
        assert_eq!(diags[0].kind, Kind::TooLarge);
        assert!(
            diags[0].message.contains("more than 262144 bytes"),
            "{diags:?}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A symlink inside the workspace that leads out of it is recorded as where it leads.
    #[cfg(unix)]
    #[test]
    fn symlinks_are_resolved() {
        let root = std::env::temp_dir().join(format!("mcp-sidecar-envlink-{}", std::process::id()));
        let ws = root.join("ws");
        std::fs::create_dir_all(ws.join(".vscode")).unwrap();
        std::fs::write(root.join("elsewhere.env"), "K=v\n").unwrap();
        let _ = std::fs::remove_file(ws.join("link.env"));
        std::os::unix::fs::symlink(root.join("elsewhere.env"), ws.join("link.env")).unwrap();
        let file = ws.join(".vscode").join("mcp.json");
        let inputs = BTreeMap::new();
        let ctx = Context {
            file: Some(&file),
            env: &|_| None,
            inputs: &inputs,
            source: crate::config::source::Source::User,
        };
        let mut out = Map::new();
        merge_env_file("../link.env", "at", &ctx, &mut out, &mut Vec::new()).unwrap();
        let record = &parse(&out[ENV_FILES]).unwrap()[0];
        let real = std::fs::canonicalize(&root).unwrap();
        assert_eq!(
            record.path,
            real.join("elsewhere.env").display().to_string()
        );
        assert_eq!(
            record.config_dir.as_deref(),
            Some(real.join("ws").display().to_string().as_str())
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn lexical_resolution_when_the_file_is_gone() {
        let p = resolved(Path::new("/no/such/dir/../x/./y.env"));
        assert_eq!(p, Path::new("/no/such/x/y.env"));
    }
}
