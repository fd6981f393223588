//! How the host configures a registry (`initialize` and the command line) and how it adds one server
//! (`servers/add`, `servers/load`, a plugin).

use std::sync::Arc;

use crate::ask::Asker;
use crate::config::{Extras, Source};
use crate::convert::{NameTemplate, Options, ToolFormat};
use crate::mcp::LogLevel;
use crate::store::{DeferRule, SchemaCache};

use super::server::Exposure;

/// Session-wide settings fixed by the host's `initialize` (and the command line).
pub struct Settings {
    pub names: NameTemplate,
    pub format: ToolFormat,
    /// Where lazy servers' tool lists are cached; `None` disables the cache (every lazy server is
    /// started once to discover its tools).
    pub cache: Option<SchemaCache>,
    /// OpenAI strict mode for listings that do not say otherwise.
    pub strict: bool,
    /// `initialize {requireTrust: true}`: a server (stdio or remote) is started only with the digest of its
    /// launch config (`servers/add`/`servers/test {…, trust}`).
    pub require_trust: bool,
    /// Who answers the servers' own requests (sampling, elicitation, roots): the host, usually.
    pub asker: Arc<dyn Asker>,
    /// Which servers' tools listings defer (`initialize {defer, deferAboveTokens}`).
    pub defer: DeferRule,
    /// `initialize {resourcesAsTools}`: servers whose config does not say offer their resources
    /// as two tools.
    pub resources_as_tools: bool,
    /// `initialize {pinTools}`: for servers whose config does not say, a tool whose definition
    /// changes is held until the host accepts it.
    pub pin_tools: bool,
    /// `initialize {serverLogs}`: servers' log messages at or above this level reach the host;
    /// `None`: none do until `logging/setLevel`.
    pub server_logs: Option<LogLevel>,
}

impl Settings {
    /// The default definition options.
    pub fn options(&self) -> Options {
        Options {
            strict: self.strict,
        }
    }

    /// The same settings without a schema cache (a `servers/test` run never reads or writes it).
    pub fn without_cache(&self) -> Settings {
        Settings {
            names: self.names.clone(),
            format: self.format,
            strict: self.strict,
            cache: None,
            require_trust: self.require_trust,
            asker: Arc::clone(&self.asker),
            defer: self.defer,
            resources_as_tools: self.resources_as_tools,
            pin_tools: self.pin_tools,
            server_logs: self.server_logs,
        }
    }

    /// A server's exposure: its config's choices, the session's where it makes none.
    pub(super) fn exposure(&self, extras: &Extras) -> Exposure {
        Exposure {
            resources_as_tools: extras.resources_as_tools.unwrap_or(self.resources_as_tools),
            pin_tools: extras.pin_tools.unwrap_or(self.pin_tools),
        }
    }
}

/// How a server is being added.
#[derive(Clone, Debug, Default)]
pub struct AddOptions {
    pub source: Source,
    /// The digest the host approved, when trust is required.
    pub trust: Option<String>,
    /// The plugin folder of a plugin's server (for the trust request's warnings).
    pub plugin_root: Option<std::path::PathBuf>,
}
