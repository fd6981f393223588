//! How `mcp-sidecar mcp` is set up from its command line: the servers' config files, how tools are
//! named and their schemas cleaned, and where it listens (stdio, or HTTP with its guards).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

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
    /// Cancelled to stop gracefully (the first SIGTERM or SIGINT).
    pub stop: CancellationToken,
    /// Notified to reload the config files (SIGHUP; their edits notify it too).
    pub reload: std::sync::Arc<tokio::sync::Notify>,
    /// Streamable HTTP instead of stdio.
    pub http: Option<HttpOptions>,
}

pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Required on every request when set (one of its tokens); required to be set for an address
    /// that is not loopback.
    pub token: Option<Token>,
    /// `/metrics`' own bearer tokens (a scraper's); `None`: `/metrics` takes `token`.
    pub metrics_token: Option<Token>,
    /// Browser origins allowed besides loopback ones (`http://localhost:PORT` on a loopback bind).
    pub allowed_origins: Vec<String>,
    /// End when this pipe (the sidecar's stdin, held by the process that started it) ends.
    pub stop_on_stdin_eof: bool,
    /// How long a connection may wait for a request's head, and a request take to send its body.
    pub idle_timeout: Duration,
    pub body_timeout: Duration,
    /// How long a stop lets the requests in flight finish before answering them `SHUTTING_DOWN`.
    pub drain_timeout: Duration,
}

/// The bearer tokens callers may present: one per line of the token file (one per client), so a
/// legacy session can be bound to the token that opened it. Their values never appear in `Debug`
/// output, and they are compared in constant time.
#[derive(Clone)]
pub struct Token(Vec<String>);

impl Token {
    /// `None` when no line holds a token (lines end with `\n` or `\r\n`; empty lines are skipped).
    pub fn new(value: &str) -> Option<Token> {
        let tokens: Vec<String> = value
            .split('\n')
            .map(|line| line.trim_end_matches('\r'))
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect();
        (!tokens.is_empty()).then_some(Token(tokens))
    }

    /// Every token (to mask).
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// Which token `presented` is (its line, from 0), compared with every token in time that does
    /// not depend on where they differ.
    pub fn which(&self, presented: &[u8]) -> Option<usize> {
        use subtle::ConstantTimeEq;
        let mut found = None;
        for (i, token) in self.0.iter().enumerate() {
            let a = token.as_bytes();
            // Lengths are compared openly (a token's length is no secret worth a timing channel).
            if a.len() == presented.len() && bool::from(a.ct_eq(presented)) {
                found = Some(i);
            }
        }
        found
    }

    /// Whether `presented` is one of the tokens.
    pub fn matches(&self, presented: &[u8]) -> bool {
        self.which(presented).is_some()
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
        let two = Token::new("first\r\n\nsecond\n").unwrap();
        assert_eq!(two.values().collect::<Vec<_>>(), ["first", "second"]);
        assert_eq!(two.which(b"first"), Some(0));
        assert_eq!(two.which(b"second"), Some(1));
        assert_eq!(two.which(b"third"), None);
    }
}
