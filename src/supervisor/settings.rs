//! How the host configures a registry (`initialize` and the command line) and how it adds one server
//! (`servers/add`, `servers/load`, a plugin).

use std::sync::Arc;

use crate::ask::Asker;
use crate::config::{Extras, Source};
use crate::convert::{NameTemplate, Options, ToolFormat};
use crate::mcp::LogLevel;
use crate::oauth::TokenStore;
use crate::store::{DeferRule, SchemaCache};

use super::server::Exposure;

/// Session-wide settings fixed by the host's `initialize` (and the command line).
pub(crate) struct Settings {
    pub names: NameTemplate,
    pub format: ToolFormat,
    /// Where lazy servers' tool lists are cached; `None` disables the cache (every lazy server is
    /// started once to discover its tools).
    pub cache: Option<SchemaCache>,
    /// Where `package` servers are installed (`<cache dir>/packages`); kept by a test run, which
    /// starts a package from there as any start does.
    pub packages: Option<std::path::PathBuf>,
    /// OpenAI strict mode for listings that do not say otherwise.
    pub strict: bool,
    /// `initialize {requireTrust: true}`: a server (stdio or remote) is started only with the digest of its
    /// launch config (`servers/add`/`servers/test {…, trust}`).
    pub require_trust: bool,
    /// Who answers the servers' own requests (sampling, elicitation, roots): the host, usually.
    pub asker: Arc<dyn Asker>,
    /// OAuth for remote servers: where tokens are kept, and who can show a person a login.
    pub auth: AuthSettings,
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

/// OAuth settings of a session.
#[derive(Clone)]
pub(crate) struct AuthSettings {
    /// The token store: files under the cache directory, or memory only.
    pub store: Arc<TokenStore>,
    /// Whether a login may ask the session's owner (the `asker`, when it declared `auth`) to show
    /// the authorization URL to a person: in serve mode; not in a test run or `inspect`.
    pub interactive: bool,
    /// Whether a server that needs a login (and has no browser step to ask) waits for one on the
    /// loopback listener, its URL in the status: in serve mode; not in a test run or `inspect`.
    pub loopback_logins: bool,
}

impl AuthSettings {
    /// Tokens in files under the cache directory (in memory without one), no browser step.
    pub(crate) fn for_cache(cache: Option<&SchemaCache>) -> Self {
        Self {
            store: Arc::new(match cache {
                Some(cache) => TokenStore::in_cache_dir(cache.dir()),
                None => TokenStore::memory(),
            }),
            interactive: false,
            loopback_logins: false,
        }
    }
}

impl Settings {
    /// The default definition options.
    pub(crate) fn options(&self) -> Options {
        Options {
            strict: self.strict,
        }
    }

    /// The same settings without a schema cache (a `servers/test` run never reads or writes it).
    pub(crate) fn without_cache(&self) -> Settings {
        Settings {
            names: self.names.clone(),
            format: self.format,
            strict: self.strict,
            cache: None,
            packages: self.packages.clone(),
            require_trust: self.require_trust,
            asker: Arc::clone(&self.asker),
            // A test run uses stored tokens but never asks a person.
            auth: AuthSettings {
                store: Arc::clone(&self.auth.store),
                interactive: false,
                loopback_logins: false,
            },
            defer: self.defer,
            resources_as_tools: self.resources_as_tools,
            pin_tools: self.pin_tools,
            server_logs: self.server_logs,
        }
    }

    /// The packages folder under a cache directory.
    pub(crate) fn packages_in(cache: Option<&SchemaCache>) -> Option<std::path::PathBuf> {
        cache.map(|c| c.dir().join("packages"))
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
pub(crate) struct AddOptions {
    pub source: Source,
    /// The digest the host approved, when trust is required.
    pub trust: Option<String>,
    /// The plugin folder of a plugin's server (for the trust request's warnings).
    pub plugin_root: Option<std::path::PathBuf>,
}
