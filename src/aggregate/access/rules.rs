//! What one client of the gateway may see and call: the servers (by name; none listed: every
//! server) and the tools, as patterns over `server.tool` (the server's own tool name, whatever the
//! exposed name template). A pattern is a glob where `*` stands for any run of characters; one
//! starting with `!` takes away what the others give. A tool is allowed when its server is, some
//! plain pattern matches it (no plain pattern: every tool of an allowed server), and no `!`
//! pattern does. The same rules filter the listings and refuse the calls, so a client never learns
//! of a tool it may not call.

use crate::names::{ServerName, ToolName};

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Rules {
    /// `None`: every server.
    servers: Option<Vec<String>>,
    allow: Vec<String>,
    deny: Vec<String>,
}

impl Rules {
    /// Everything allowed (the `--token-file` tokens, a gateway without tokens).
    pub(crate) fn everything() -> Rules {
        Rules::default()
    }

    pub(crate) fn new(servers: Option<Vec<String>>, tools: Vec<String>) -> Rules {
        let (deny, allow): (Vec<String>, Vec<String>) =
            tools.into_iter().partition(|p| p.starts_with('!'));
        Rules {
            servers,
            allow,
            deny: deny
                .into_iter()
                .map(|p| p.trim_start_matches('!').to_owned())
                .collect(),
        }
    }

    /// Whether the client may see and use `server` (its resources, prompts; its tools as
    /// [`Self::tool`] says).
    pub(crate) fn server(&self, server: &str) -> bool {
        self.servers
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == server))
    }

    /// Whether the client may see and call `tool` of `server`.
    pub(crate) fn tool(&self, server: &ServerName, tool: &ToolName) -> bool {
        if !self.server(server.as_str()) {
            return false;
        }
        let full = format!("{server}.{tool}");
        let given = self.allow.is_empty() || self.allow.iter().any(|p| glob(p, &full));
        given && !self.deny.iter().any(|p| glob(p, &full))
    }

    /// Whether every server and tool is allowed (nothing to filter).
    pub(crate) fn allows_everything(&self) -> bool {
        self.servers.is_none() && self.allow.is_empty() && self.deny.is_empty()
    }
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters (none included).
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // The classic linear matcher with one backtrack point: the last `*` seen.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_any_run_and_nothing_else() {
        assert!(glob("github.*", "github.create_issue"));
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(glob("*.delete_*", "github.delete_repo"));
        assert!(!glob("github.*", "gitlab.x"));
        assert!(!glob("github", "github.x"));
        assert!(glob("exact", "exact"));
    }

    #[test]
    fn a_negated_pattern_takes_away_what_the_others_give() {
        let rules = Rules::new(
            Some(vec!["github".into(), "memory".into()]),
            vec![
                "github.*".into(),
                "!github.delete_*".into(),
                "memory.*".into(),
            ],
        );
        let allows = |rules: &Rules, server: &str, tool: &str| {
            rules.tool(&ServerName::from(server), &ToolName::from(tool))
        };
        assert!(allows(&rules, "github", "create_issue"));
        assert!(!allows(&rules, "github", "delete_repo"));
        assert!(allows(&rules, "memory", "read"));
        assert!(!allows(&rules, "search", "find"), "not among its servers");
        assert!(!rules.server("search"));
        let only_servers = Rules::new(Some(vec!["memory".into()]), vec![]);
        assert!(allows(&only_servers, "memory", "anything"));
        assert!(!allows(&only_servers, "github", "anything"));
        let only_denied = Rules::new(None, vec!["!*.delete_*".into()]);
        assert!(allows(&only_denied, "any", "read"));
        assert!(!allows(&only_denied, "any", "delete_all"));
        assert!(Rules::everything().allows_everything());
        assert!(!only_denied.allows_everything());
    }
}
