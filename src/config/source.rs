//! Where a server came from. Set by how it arrived — never by a field in a config file, or a user
//! could label their own server as injected by the host.

use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A config file of the user's (`servers/load`, `--config`, `inspect`).
    User,
    /// `servers/add` by the host.
    #[default]
    Host,
    /// A plugin's files (`.claude-plugin/plugin.json`, a plugin's `.mcp.json`, a plugin manifest);
    /// its servers are named `<plugin>__<server>`.
    Plugin,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Host => "host",
            Self::Plugin => "plugin",
        }
    }
}
