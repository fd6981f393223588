//! How `mcp-sidecar mcp` is set up from its command line: the servers' config files, how tools are
//! named and their schemas cleaned, and where it listens (stdio, or HTTP with its guards).

use std::net::SocketAddr;
use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use crate::convert::{NameTemplate, ToolFormat};
use crate::store::SchemaCache;

/// The default name template of `mcp` mode: MCP hosts put their own prefix in front of every tool of
/// a server (`mcp__<name>__` in Claude Code), so the sidecar adds only the server's.
pub const DEFAULT_NAME_TEMPLATE: &str = "{server}__{tool}";

pub struct Options {
    /// Config files or directories (any dialect), loaded at start.
    pub configs: Vec<PathBuf>,
    /// The provider the client hands the tools to: their input schemas are cleaned for it.
    pub format: ToolFormat,
    /// OpenAI strict mode for the OpenAI formats.
    pub strict: bool,
    /// A list waits until every configured server started or failed (for a client that ignores
    /// `list_changed`).
    pub wait_for_servers: bool,
    /// `tools/list` in pages of at most this many tools (`None`: one page).
    pub page_size: Option<usize>,
    pub names: NameTemplate,
    pub cache: Option<SchemaCache>,
    /// Longest message accepted from the client (a stdio line, an HTTP body).
    pub max_message_bytes: usize,
    /// The client's requests in flight at once; past it no more is read until one is answered.
    pub max_inflight: usize,
    /// Cancelled to stop gracefully (the first SIGTERM/SIGINT/SIGHUP).
    pub stop: CancellationToken,
    /// Streamable HTTP instead of stdio.
    pub http: Option<HttpOptions>,
}

pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Required on every request when set; required to be set for an address that is not loopback.
    pub token: Option<Token>,
    /// Browser origins allowed besides loopback ones (`http://localhost:PORT` on a loopback bind).
    pub allowed_origins: Vec<String>,
    /// End when this pipe (the sidecar's stdin, held by the process that started it) ends.
    pub stop_on_stdin_eof: bool,
}

/// A bearer token. Its value never appears in `Debug` output, and it is compared in constant time.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// `None` for an empty value (after trimming a trailing newline, as a token file has).
    pub fn new(value: &str) -> Option<Token> {
        let value = value.trim_end_matches(['\r', '\n']);
        (!value.is_empty()).then(|| Token(value.to_owned()))
    }

    pub fn value(&self) -> &str {
        &self.0
    }

    /// Whether `presented` is this token, in time that does not depend on where they differ.
    pub fn matches(&self, presented: &[u8]) -> bool {
        use subtle::ConstantTimeEq;
        let (a, b) = (self.0.as_bytes(), presented);
        // Lengths are compared openly (a token's length is no secret worth a timing channel).
        a.len() == b.len() && bool::from(a.ct_eq(b))
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_matches_only_itself_and_never_prints() {
        let t = Token::new("s3cret-value\n").unwrap();
        assert!(t.matches(b"s3cret-value"));
        assert!(!t.matches(b"s3cret-valuf"));
        assert!(!t.matches(b"s3cret"));
        assert_eq!(format!("{t:?}"), "Token(***)");
        assert!(Token::new("\n").is_none());
    }
}
