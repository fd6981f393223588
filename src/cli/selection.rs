//! Which servers a command runs: every config file given (`--config`, or a file named where a
//! server name could go), any server given with `--stdio`/`--url`, merged in order — a name
//! defined twice keeps its first entry and the second is a `duplicate` diagnostic — then the
//! servers asked for by name (all of them when none is named).
//!
//! With no file and no server given, the configs people already have are read instead
//! ([`super::discovery`]): a name several of them define runs from the first (project before
//! user), quietly, since one server set up in two hosts is the common case; a line on stderr says
//! which files were read and which entries were passed over.
//!
//! A project's own files (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`) come with the
//! folder, from whoever wrote the repository: their servers are withheld — not even spawned —
//! unless `--allow-project` is given or, for `.mcp.json`, Claude Code's approval for this project
//! covers them. Naming the file (`--config ./.mcp.json`) is an approval too: it is then read as
//! any file given.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::config::diagnostics::{did_you_mean, Diagnostic, Kind};
use crate::config::dialects::Candidate;
use crate::config::expand::process_env;
use crate::config::load::{load, Loaded, Request};
use crate::config::Dialect;

use super::discovery::{self, ClaudeApproval, Found, Part, Places, CLAUDE_CODE_PROJECT};
use super::exit::Exit;
use super::output::stderr_line;

/// Where the servers come from.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sources {
    /// `--config` files or directories, in order.
    pub files: Vec<PathBuf>,
    /// `--dialect`: read every file as this dialect instead of detecting it.
    pub dialect: Option<Dialect>,
    /// `--input ID=VALUE`: values of `${input:ID}` (VS Code).
    pub inputs: BTreeMap<String, String>,
    /// Servers given with `--stdio`/`--url`.
    pub ad_hoc: Vec<Candidate>,
    /// Where to find the configs people have, when no file and no server is given.
    pub places: Option<Places>,
    /// `--quiet`: no line saying which files were found.
    pub quiet: bool,
    /// `--allow-project`: the servers of a project's discovered files start without an approval.
    pub allow_project: bool,
}

/// A server of a discovered project file that was not approved, so not started.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Withheld {
    pub name: String,
    /// The file, as the line saying what was read writes it (`./.mcp.json`).
    pub file: String,
}

impl Withheld {
    /// The reason, in `list --json`'s `skipped` entries.
    pub(crate) const REASON: &'static str = "not approved";

    /// One sentence: why it did not start and how to start it.
    pub(crate) fn sentence(&self) -> String {
        format!(
            "server `{}` of {} (a project's file) was not started: not approved; run with --config {} or --allow-project to start it",
            self.name, self.file, self.file
        )
    }
}

/// Every server of the sources, what the files said, and the servers withheld.
#[derive(Debug, Default)]
pub(crate) struct Read {
    pub servers: Vec<Candidate>,
    pub diagnostics: Vec<Diagnostic>,
    pub withheld: Vec<Withheld>,
}

/// The servers a command runs, and what the files said.
#[derive(Debug, Default)]
pub(crate) struct Selection {
    /// The servers selected, in the order of the files.
    pub servers: Vec<Candidate>,
    /// Problems in the files: those about no server in particular, and those about the servers
    /// selected (a server whose entry was rejected has only its diagnostics).
    pub diagnostics: Vec<Diagnostic>,
    /// Names asked for that no file defines, each with a sentence saying so.
    pub unknown: Vec<String>,
    /// Servers of a project's discovered files that were not approved, so not started.
    pub withheld: Vec<Withheld>,
}

impl Selection {
    /// `ConfigInvalid` when a file or a selected server's entry has an error, or a name asked for
    /// is not defined; else `Ok`.
    pub(crate) fn exit(&self) -> Exit {
        let invalid = !self.unknown.is_empty() || self.diagnostics.iter().any(Diagnostic::is_error);
        if invalid {
            Exit::ConfigInvalid
        } else {
            Exit::Ok
        }
    }

    /// The diagnostics about server `name`.
    pub(crate) fn diagnostics_of<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Diagnostic> {
        self.diagnostics
            .iter()
            .filter(move |d| d.server.as_deref() == Some(name))
    }
}

/// Why nothing can be selected at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SelectionError {
    #[error("no configuration given and none found: pass --config FILE (a Claude Desktop/Code, VS Code, Cursor, Codex, epoch or plugin file, or a directory of plugins), or a server with --stdio \"COMMAND\" or --url URL; looked for {0}")]
    NoConfig(String),
}

/// Reads every file and selects `wanted` (every server when empty).
pub(crate) async fn select(
    sources: &Sources,
    wanted: &[String],
) -> Result<Selection, SelectionError> {
    Ok(choose(read_all(sources).await?, wanted))
}

/// Every server of the sources, what the files said, and the servers withheld.
pub(crate) async fn read_all(sources: &Sources) -> Result<Read, SelectionError> {
    let mut all: Vec<Candidate> = Vec::new();
    let mut diagnostics = Vec::new();
    let withheld: Vec<Withheld> = Vec::new();
    if sources.files.is_empty() && sources.ad_hoc.is_empty() {
        let Some(places) = &sources.places else {
            return Err(SelectionError::NoConfig("nothing (no home folder)".into()));
        };
        return read_discovered(sources, places).await;
    }
    for file in &sources.files {
        let loaded = load(
            Request::Path(file.clone()),
            sources.dialect,
            sources.inputs.clone(),
            process_env,
        )
        .await;
        diagnostics.extend(loaded.diagnostics);
        merge(
            &mut all,
            &mut diagnostics,
            loaded.servers,
            &file.display().to_string(),
        );
    }
    merge(
        &mut all,
        &mut diagnostics,
        sources.ad_hoc.clone(),
        "the command line",
    );
    Ok(Read {
        servers: all,
        diagnostics,
        withheld,
    })
}

/// Every server of the config files found in their usual places (no `--config`): a project's
/// servers only when approved (Claude Code's approvals, or `--allow-project`), the first file that
/// defines a name wins; what was read goes to stderr, one note per file.
async fn read_discovered(sources: &Sources, places: &Places) -> Result<Read, SelectionError> {
    let mut all: Vec<Candidate> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut withheld: Vec<Withheld> = Vec::new();
    let found = discovery::discover(places);
    if found.is_empty() {
        return Err(SelectionError::NoConfig(
            "the files of Claude Desktop and Code, Cursor, VS Code, Codex and Windsurf, and a project's .mcp.json, .cursor/mcp.json and .vscode/mcp.json (see docs/cli.md)".into(),
        ));
    }
    // Claude Code's approvals for this project; none when `~/.claude.json` cannot be read.
    let approval = read_claude_json(&places.home.join(".claude.json"))
        .map(|doc| ClaudeApproval::of(&doc, &places.project.display().to_string()))
        .unwrap_or_default();
    let mut read = Vec::new();
    for f in &found {
        let loaded = load_found(f, sources).await;
        diagnostics.extend(loaded.diagnostics);
        let shown = if f.needs_approval {
            in_project(&f.path, &places.project)
        } else {
            discovery::short(&f.path, &places.home)
        };
        let (mut used, mut held, mut over) = (0, 0, Vec::new());
        for c in loaded.servers {
            let approved = !f.needs_approval
                || sources.allow_project
                || (f.what == CLAUDE_CODE_PROJECT && approval.covers(&c.name));
            if all.iter().any(|seen| seen.name == c.name) {
                over.push(format!("`{}`", c.name));
            } else if !approved {
                held += 1;
                withheld.push(Withheld {
                    name: c.name,
                    file: shown.clone(),
                });
            } else {
                used += 1;
                all.push(c);
            }
        }
        read.push(read_note(&shown, f.what, (used, held), &over));
    }
    // A name withheld here but defined by an approved file runs from that file.
    withheld.retain(|w| !all.iter().any(|c| c.name == w.name));
    if !sources.quiet {
        stderr_line(&format!("mcp-sidecar: read {}", read.join(", ")));
    }
    Ok(Read {
        servers: all,
        diagnostics,
        withheld,
    })
}

/// What was read of one file, as stderr tells it: where it is, whose file it is, how many servers
/// it gave, how many were held back for want of approval, which names an earlier file defined.
fn read_note(shown: &str, what: &str, (used, held): (usize, usize), over: &[String]) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut counts = Vec::new();
    if used > 0 || held == 0 {
        counts.push(format!("{used} server{}", plural(used)));
    }
    if held > 0 {
        counts.push(format!(
            "{held} server{} not started — not approved; run with --config {shown} or --allow-project to start {}",
            plural(held),
            if held == 1 { "it" } else { "them" }
        ));
    }
    let mut note = format!("{shown} ({what}: {}", counts.join("; "));
    if !over.is_empty() {
        note.push_str(&format!("; {} defined earlier", over.join(", ")));
    }
    note.push(')');
    note
}

/// A file of the project, written from it (`./.mcp.json`) so that `--config` takes it as is.
fn in_project(path: &Path, project: &Path) -> String {
    match path.strip_prefix(project) {
        Ok(rest) => format!("./{}", rest.display()),
        Err(_) => path.display().to_string(),
    }
}

/// Adds `servers` to `all`; a name already there is a `duplicate` error and keeps the first.
fn merge(
    all: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
    servers: Vec<Candidate>,
    place: &str,
) {
    for c in servers {
        if all.iter().any(|seen| seen.name == c.name) {
            diagnostics.push(
                Diagnostic::error(
                    Kind::Duplicate,
                    c.path.clone(),
                    format!(
                        "server `{}` is defined again in {place}; the first definition is used",
                        c.name,
                    ),
                )
                .in_file(Some(place))
                .for_server(&c.name),
            );
        } else {
            all.push(c);
        }
    }
}

/// One discovered file: the whole file in its dialect, or the part of `~/.claude.json` that holds
/// one scope's servers.
async fn load_found(found: &Found, sources: &Sources) -> Loaded {
    let request = match &found.part {
        Part::Whole => {
            return load(
                Request::Path(found.path.clone()),
                None,
                sources.inputs.clone(),
                process_env,
            )
            .await
        }
        part => match claude_json_part(&found.path, part) {
            Ok(Some(doc)) => Request::Document(doc),
            Ok(None) => return Loaded::default(),
            Err(why) => {
                let name = found.path.display().to_string();
                return Loaded {
                    servers: Vec::new(),
                    diagnostics: vec![
                        Diagnostic::warning(Kind::Unreadable, "", why).in_file(Some(&name))
                    ],
                };
            }
        },
    };
    let mut loaded = load(
        request,
        Some(Dialect::ClaudeCode),
        sources.inputs.clone(),
        process_env,
    )
    .await;
    let name = found.path.display().to_string();
    loaded.diagnostics = loaded
        .diagnostics
        .into_iter()
        .map(|d| d.in_file(Some(&name)))
        .collect();
    loaded
}

/// `{"mcpServers": …}` of one scope of `~/.claude.json` (`None`: that scope has no servers).
fn claude_json_part(path: &Path, part: &Part) -> Result<Option<Value>, String> {
    let doc = read_claude_json(path)?;
    let servers = match part {
        Part::ClaudeProject(project) => &doc["projects"][project.as_str()]["mcpServers"],
        _ => &doc["mcpServers"],
    };
    Ok(servers
        .as_object()
        .filter(|s| !s.is_empty())
        .map(|s| json!({ "mcpServers": s })))
}

/// `~/.claude.json`, parsed, within `CONFIG_FILE_MAX_BYTES`.
fn read_claude_json(path: &Path) -> Result<Value, String> {
    use std::io::Read as _;
    let limit = crate::limits::CONFIG_FILE_MAX_BYTES;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_string(&mut text))
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if text.len() as u64 > limit {
        return Err(format!("the file is over {limit} bytes"));
    }
    serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))
}

/// The selection proper, once every file is read.
pub(crate) fn choose(read: Read, wanted: &[String]) -> Selection {
    let Read {
        servers: all,
        diagnostics,
        withheld,
    } = read;
    if wanted.is_empty() {
        return Selection {
            servers: all,
            diagnostics,
            unknown: Vec::new(),
            withheld,
        };
    }
    let wanted: BTreeSet<&str> = wanted.iter().map(String::as_str).collect();
    // A server whose entry was rejected is known: its diagnostics say why it cannot run.
    let rejected: BTreeSet<String> = diagnostics
        .iter()
        .filter_map(|d| d.server.clone())
        .collect();
    let defined: Vec<&str> = all
        .iter()
        .map(|c| c.name.as_str())
        .chain(rejected.iter().map(String::as_str))
        .chain(withheld.iter().map(|w| w.name.as_str()))
        .collect();
    let unknown = wanted
        .iter()
        .filter(|w| !defined.contains(w))
        .map(|w| {
            let hint = did_you_mean(w, &defined)
                .map(|d| format!(" (did you mean `{d}`?)"))
                .unwrap_or_default();
            let mut known: Vec<&str> = defined.clone();
            known.sort_unstable();
            known.dedup();
            format!(
                "no server named `{w}` in the configuration{hint}; servers: {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )
        })
        .collect();
    Selection {
        servers: all
            .into_iter()
            .filter(|c| wanted.contains(c.name.as_str()))
            .collect(),
        diagnostics: diagnostics
            .into_iter()
            .filter(|d| d.server.as_deref().is_none_or(|s| wanted.contains(s)))
            .collect(),
        unknown,
        withheld: withheld
            .into_iter()
            .filter(|w| wanted.contains(w.name.as_str()))
            .collect(),
    }
}

/// The validated config of the first selected server (`login` and `pin` act on one); a config
/// that does not validate is said on stderr, naming `server`, and is `ConfigInvalid`.
pub(crate) fn first_spec(
    servers: &[Candidate],
    server: &str,
) -> Result<crate::config::ServerSpec, Exit> {
    let candidate = servers.first().ok_or(Exit::ConfigInvalid)?;
    crate::config::extras::split(&candidate.config)
        .and_then(|(rest, _)| crate::config::ServerSpec::from_json(&rest))
        .map_err(|e| {
            stderr_line(&format!("mcp-sidecar: server `{server}`: {}", e.message));
            Exit::ConfigInvalid
        })
}

/// `ID=VALUE` pairs of `--input` into a map; the first pair that is not one is the error.
pub(crate) fn inputs(pairs: &[String]) -> Result<BTreeMap<String, String>, String> {
    pairs
        .iter()
        .map(|p| match p.split_once('=') {
            Some((id, value)) if !id.is_empty() => Ok((id.to_owned(), value.to_owned())),
            _ => Err(format!("`--input {p}` is not ID=VALUE")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Source;
    use serde_json::json;

    fn candidate(name: &str) -> Candidate {
        Candidate {
            name: name.to_owned(),
            config: json!({"command": "x"}),
            source: Source::User,
            plugin_root: None,
            path: format!("mcpServers.{name}"),
        }
    }

    fn read(servers: Vec<Candidate>, diagnostics: Vec<Diagnostic>) -> Read {
        Read {
            servers,
            diagnostics,
            withheld: Vec::new(),
        }
    }

    #[test]
    fn a_withheld_server_is_known_by_name_and_kept_with_its_reason() {
        let mut r = read(vec![candidate("a")], Vec::new());
        r.withheld.push(Withheld {
            name: "b".into(),
            file: "./.mcp.json".into(),
        });
        let s = choose(r, &["b".to_owned()]);
        assert!(s.servers.is_empty() && s.unknown.is_empty());
        assert_eq!(s.withheld.len(), 1);
        assert!(s.withheld[0]
            .sentence()
            .contains("run with --config ./.mcp.json or --allow-project"));
    }

    #[test]
    fn every_server_when_none_is_named() {
        let s = choose(read(vec![candidate("a"), candidate("b")], Vec::new()), &[]);
        assert_eq!(s.servers.len(), 2);
        assert_eq!(s.exit(), Exit::Ok);
    }

    #[test]
    fn only_the_servers_named_with_their_diagnostics() {
        let diagnostics = vec![
            Diagnostic::error(
                Kind::UnknownField,
                "mcpServers.typo.comand",
                "unknown field",
            )
            .for_server("typo"),
            Diagnostic::warning(Kind::CommandNotFound, "mcpServers.b.command", "not on PATH")
                .for_server("b"),
        ];
        let s = choose(
            read(vec![candidate("a"), candidate("b")], diagnostics.clone()),
            &["a".to_owned()],
        );
        assert_eq!(s.servers.len(), 1);
        assert!(s.diagnostics.is_empty());
        assert_eq!(s.exit(), Exit::Ok);
        // A rejected entry is known: its diagnostic is the answer, and the config is invalid.
        let s = choose(
            read(vec![candidate("a")], diagnostics),
            &["typo".to_owned()],
        );
        assert!(s.servers.is_empty() && s.unknown.is_empty());
        assert_eq!(s.diagnostics.len(), 1);
        assert_eq!(s.exit(), Exit::ConfigInvalid);
    }

    #[test]
    fn a_name_no_file_defines_is_a_config_problem_with_a_hint() {
        let s = choose(
            read(vec![candidate("alpha"), candidate("beta")], Vec::new()),
            &["alhpa".to_owned()],
        );
        assert_eq!(
            s.unknown,
            ["no server named `alhpa` in the configuration (did you mean `alpha`?); servers: alpha, beta"]
        );
        assert_eq!(s.exit(), Exit::ConfigInvalid);
    }

    #[test]
    fn inputs_are_id_value_pairs() {
        assert_eq!(
            inputs(&["token=a=b".to_owned()]).unwrap(),
            BTreeMap::from([("token".to_owned(), "a=b".to_owned())])
        );
        assert!(inputs(&["=x".to_owned()]).is_err());
        assert!(inputs(&["x".to_owned()]).is_err());
    }
}
