//! Where the configs people already have live, for the commands run without `--config`: each
//! host's documented files (Claude Desktop, Claude Code, Cursor, VS Code, Codex, Windsurf) on
//! Linux, macOS and Windows, and a project's own files in the current directory.
//!
//! Precedence, as those hosts apply it: the project's files before the user's — Claude Code's
//! per-project entry of `~/.claude.json` (its "local" scope), then `.mcp.json`, `.cursor/mcp.json`
//! and `.vscode/mcp.json`, then the user files. A server name defined in several files runs from
//! the first one in that order; the others are named in the line saying what was read.
//!
//! A project's files come with whatever repository was cloned, so they are not the person's word:
//! their servers start only once approved ([`Found::needs_approval`], [`ClaudeApproval`]). Claude
//! Code's local scope and the user files are written by the person and run as found.

use std::path::{Path, PathBuf};

/// What is looked at: a home, the platform's settings folder, a project folder.
#[derive(Clone, Debug)]
pub(crate) struct Places {
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME` on Linux (else `~/.config`), `%APPDATA%` on Windows,
    /// `~/Library/Application Support` on macOS.
    pub settings: PathBuf,
    /// The project: the current directory.
    pub project: PathBuf,
    /// `$CODEX_HOME`, where Codex keeps its config instead of `~/.codex`.
    pub codex_home: Option<PathBuf>,
}

impl Places {
    /// The places of this process: its home, its settings folder and its working directory.
    pub(crate) fn of_this_process() -> Option<Self> {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)?;
        let settings = if cfg!(target_os = "macos") {
            home.join("Library").join("Application Support")
        } else if cfg!(windows) {
            std::env::var_os("APPDATA")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join("AppData").join("Roaming"))
        } else {
            std::env::var_os("XDG_CONFIG_HOME")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(".config"))
        };
        Some(Self {
            home,
            settings,
            project: std::env::current_dir().ok()?,
            codex_home: std::env::var_os("CODEX_HOME")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
        })
    }
}

/// Which part of a file holds the servers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The whole file, in its own dialect.
    Whole,
    /// `~/.claude.json`'s top-level `mcpServers` (Claude Code's user scope).
    ClaudeUser,
    /// `~/.claude.json`'s `projects[<project>].mcpServers` (Claude Code's local scope).
    ClaudeProject(String),
}

/// One config file found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub path: PathBuf,
    pub part: Part,
    /// The host and scope, as a person knows them ("Cursor, project").
    pub what: &'static str,
    /// A project's own file (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`): it came with
    /// the folder, so its servers wait for an approval.
    pub needs_approval: bool,
}

/// The files that exist, in precedence order (first wins).
pub(crate) fn discover(places: &Places) -> Vec<Found> {
    let Places {
        home,
        settings,
        project,
        codex_home,
    } = places;
    let claude_json = home.join(".claude.json");
    let codex = codex_home
        .clone()
        .unwrap_or_else(|| home.join(".codex"))
        .join("config.toml");
    let in_project = [
        project.join(".mcp.json"),
        project.join(".cursor").join("mcp.json"),
        project.join(".vscode").join("mcp.json"),
    ];
    let candidates = [
        (
            claude_json.clone(),
            Part::ClaudeProject(project.display().to_string()),
            "Claude Code, local",
        ),
        (in_project[0].clone(), Part::Whole, CLAUDE_CODE_PROJECT),
        (in_project[1].clone(), Part::Whole, "Cursor, project"),
        (in_project[2].clone(), Part::Whole, "VS Code, workspace"),
        (claude_json, Part::ClaudeUser, "Claude Code, user"),
        (
            settings.join("Claude").join("claude_desktop_config.json"),
            Part::Whole,
            "Claude Desktop",
        ),
        (
            home.join(".cursor").join("mcp.json"),
            Part::Whole,
            "Cursor, user",
        ),
        (
            settings.join("Code").join("User").join("mcp.json"),
            Part::Whole,
            "VS Code, user",
        ),
        (codex, Part::Whole, "Codex"),
        (
            home.join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            Part::Whole,
            "Windsurf",
        ),
    ];
    let mut found = Vec::new();
    for (path, part, what) in candidates {
        // The project may be the home itself: its `.cursor/mcp.json` is then the user's, read once.
        if found
            .iter()
            .any(|f: &Found| f.path == path && f.part == part)
            || !path.is_file()
        {
            continue;
        }
        // The project may be the home: `~/.cursor/mcp.json` is then the user's own file.
        let needs_approval =
            in_project.contains(&path) && path != home.join(".cursor").join("mcp.json");
        found.push(Found {
            path,
            part,
            what,
            needs_approval,
        });
    }
    found
}

/// What `Found::what` says of a project's `.mcp.json`: the one file Claude Code's approvals cover.
pub(crate) const CLAUDE_CODE_PROJECT: &str = "Claude Code, project";

/// Claude Code's answer, kept in `~/.claude.json` under `projects[<project>]`, to "New MCP server
/// found in .mcp.json … use it?": every server of the project's `.mcp.json`, or the ones named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ClaudeApproval {
    /// `enableAllProjectMcpServers: true`.
    pub all: bool,
    /// `enabledMcpjsonServers`.
    pub enabled: Vec<String>,
    /// `disabledMcpjsonServers`: refused, whatever else says.
    pub disabled: Vec<String>,
}

impl ClaudeApproval {
    /// The approvals of `project` in the parsed `~/.claude.json` (none when it has no entry).
    pub(crate) fn of(claude_json: &serde_json::Value, project: &str) -> Self {
        let entry = &claude_json["projects"][project];
        let names = |key: &str| -> Vec<String> {
            entry[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        Self {
            all: entry["enableAllProjectMcpServers"] == true,
            enabled: names("enabledMcpjsonServers"),
            disabled: names("disabledMcpjsonServers"),
        }
    }

    /// Whether server `name` of the project's `.mcp.json` may start.
    pub(crate) fn covers(&self, name: &str) -> bool {
        let named = |list: &[String]| list.iter().any(|n| n == name);
        !named(&self.disabled) && (self.all || named(&self.enabled))
    }
}

/// `path` with the home folder written `~`, for the line saying what was read.
pub(crate) fn short(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rest) if !home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "{}").unwrap();
    }

    #[test]
    fn project_files_come_before_user_files_and_missing_ones_are_skipped() {
        let root = std::env::temp_dir().join(format!("discovery-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let places = Places {
            home: root.join("home"),
            settings: root.join("home/.config"),
            project: root.join("project"),
            codex_home: None,
        };
        touch(&root.join("home/.cursor/mcp.json"));
        touch(&root.join("home/.claude.json"));
        touch(&root.join("home/.codex/config.toml"));
        touch(&root.join("home/.config/Claude/claude_desktop_config.json"));
        touch(&root.join("project/.mcp.json"));
        touch(&root.join("project/.cursor/mcp.json"));
        touch(&root.join("project/.vscode/mcp.json"));
        let discovered = discover(&places);
        let gated: Vec<&str> = discovered
            .iter()
            .filter(|f| f.needs_approval)
            .map(|f| f.what)
            .collect();
        assert_eq!(
            gated,
            [
                "Claude Code, project",
                "Cursor, project",
                "VS Code, workspace"
            ]
        );
        let found: Vec<&str> = discovered.iter().map(|f| f.what).collect::<Vec<_>>();
        assert_eq!(
            found,
            [
                "Claude Code, local",
                "Claude Code, project",
                "Cursor, project",
                "VS Code, workspace",
                "Claude Code, user",
                "Claude Desktop",
                "Cursor, user",
                "Codex"
            ]
        );
        assert_eq!(
            short(&root.join("home/.cursor/mcp.json"), &places.home),
            "~/.cursor/mcp.json"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_project_in_the_home_reads_the_users_cursor_file_without_a_gate() {
        let root = std::env::temp_dir().join(format!("discovery-home-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let places = Places {
            home: root.clone(),
            settings: root.join(".config"),
            project: root.clone(),
            codex_home: None,
        };
        touch(&root.join(".cursor/mcp.json"));
        let found = discover(&places);
        assert_eq!(found.len(), 1);
        assert!(!found[0].needs_approval, "{found:?}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn claude_codes_approval_covers_all_or_the_names_enabled_but_never_the_disabled() {
        let doc = json!({"projects": {
            "/p": {"enabledMcpjsonServers": ["a", "b"], "disabledMcpjsonServers": ["b"]},
            "/q": {"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["c"]},
        }});
        let p = ClaudeApproval::of(&doc, "/p");
        assert!(p.covers("a") && !p.covers("b") && !p.covers("c"));
        let q = ClaudeApproval::of(&doc, "/q");
        assert!(q.covers("a") && !q.covers("c"));
        assert!(!ClaudeApproval::of(&doc, "/elsewhere").covers("a"));
    }
}
