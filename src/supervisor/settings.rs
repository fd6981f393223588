//! How the host configures a registry (`initialize` and the command line) and how it adds one server
//! (`servers/add`, `servers/load`, a plugin).

use std::sync::Arc;

use crate::ask::Asker;
use crate::config::Source;
use crate::convert::{NameTemplate, Options, ToolFormat};
use crate::store::{DeferRule, SchemaCache};

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
