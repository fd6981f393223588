//! Which servers a command runs: every config file given with `--config` (any dialect, read by
//! the loader `servers/load` uses), merged in order — a name defined twice keeps its first entry
//! and the second is a `duplicate` diagnostic — then the servers asked for by name (all of them
//! when none is named).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::config::diagnostics::{did_you_mean, Diagnostic, Kind};
use crate::config::dialects::Candidate;
use crate::config::expand::process_env;
use crate::config::load::{load, Request};
use crate::config::Dialect;

use super::exit::Exit;

/// Where the servers come from.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// `--config` files or directories, in order.
    pub files: Vec<PathBuf>,
    /// `--dialect`: read every file as this dialect instead of detecting it.
    pub dialect: Option<Dialect>,
    /// `--input ID=VALUE`: values of `${input:ID}` (VS Code).
    pub inputs: BTreeMap<String, String>,
}

/// The servers a command runs, and what the files said.
#[derive(Debug, Default)]
pub struct Selection {
    /// The servers selected, in the order of the files.
    pub servers: Vec<Candidate>,
    /// Problems in the files: those about no server in particular, and those about the servers
    /// selected (a server whose entry was rejected has only its diagnostics).
    pub diagnostics: Vec<Diagnostic>,
    /// Names asked for that no file defines, each with a sentence saying so.
    pub unknown: Vec<String>,
}

impl Selection {
    /// `ConfigInvalid` when a file or a selected server's entry has an error, or a name asked for
    /// is not defined; else `Ok`.
    pub fn exit(&self) -> Exit {
        let invalid = !self.unknown.is_empty() || self.diagnostics.iter().any(Diagnostic::is_error);
        if invalid {
            Exit::ConfigInvalid
        } else {
            Exit::Ok
        }
    }

    /// The diagnostics about server `name`.
    pub fn diagnostics_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Diagnostic> {
        self.diagnostics
            .iter()
            .filter(move |d| d.server.as_deref() == Some(name))
    }
}

/// Why nothing can be selected at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    #[error("no configuration given: pass --config FILE (a Claude Desktop/Code, VS Code, Cursor, Codex, epoch or plugin file, or a directory of plugins)")]
    NoConfig,
}

/// Reads every file and selects `wanted` (every server when empty).
pub async fn select(sources: &Sources, wanted: &[String]) -> Result<Selection, SelectionError> {
    if sources.files.is_empty() {
        return Err(SelectionError::NoConfig);
    }
    let mut all: Vec<Candidate> = Vec::new();
    let mut diagnostics = Vec::new();
    for file in &sources.files {
        let loaded = load(
            Request::Path(file.clone()),
            sources.dialect,
            sources.inputs.clone(),
            process_env,
        )
        .await;
        diagnostics.extend(loaded.diagnostics);
        for c in loaded.servers {
            if all.iter().any(|seen| seen.name == c.name) {
                diagnostics.push(
                    Diagnostic::error(
                        Kind::Duplicate,
                        c.path.clone(),
                        format!(
                            "server `{}` is defined again in {}; the first definition is used",
                            c.name,
                            file.display()
                        ),
                    )
                    .in_file(Some(&file.display().to_string()))
                    .for_server(&c.name),
                );
            } else {
                all.push(c);
            }
        }
    }
    Ok(choose(all, diagnostics, wanted))
}

/// The selection proper, once every file is read.
fn choose(all: Vec<Candidate>, diagnostics: Vec<Diagnostic>, wanted: &[String]) -> Selection {
    if wanted.is_empty() {
        return Selection {
            servers: all,
            diagnostics,
            unknown: Vec::new(),
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
    }
}

/// `ID=VALUE` pairs of `--input` into a map; the first pair that is not one is the error.
pub fn inputs(pairs: &[String]) -> Result<BTreeMap<String, String>, String> {
    pairs
        .iter()
        .map(|p| match p.split_once('=') {
            Some((id, value)) if !id.is_empty() => Ok((id.to_owned(), value.to_owned())),
            _ => Err(format!("`--input {p}` is not ID=VALUE")),
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
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

    #[test]
    fn every_server_when_none_is_named() {
        let s = choose(vec![candidate("a"), candidate("b")], Vec::new(), &[]);
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
            vec![candidate("a"), candidate("b")],
            diagnostics.clone(),
            &["a".to_owned()],
        );
        assert_eq!(s.servers.len(), 1);
        assert!(s.diagnostics.is_empty());
        assert_eq!(s.exit(), Exit::Ok);
        // A rejected entry is known: its diagnostic is the answer, and the config is invalid.
        let s = choose(vec![candidate("a")], diagnostics, &["typo".to_owned()]);
        assert!(s.servers.is_empty() && s.unknown.is_empty());
        assert_eq!(s.diagnostics.len(), 1);
        assert_eq!(s.exit(), Exit::ConfigInvalid);
    }

    #[test]
    fn a_name_no_file_defines_is_a_config_problem_with_a_hint() {
        let s = choose(
            vec![candidate("alpha"), candidate("beta")],
            Vec::new(),
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
