//! How `mcp-sidecar mcp` is set up from its command line: the servers' config files, how tools are
//! named and their schemas cleaned, and where it listens (stdio, or HTTP with its guards).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::convert::{NameTemplate, ToolFormat};
use crate::limits;
use crate::store::SchemaCache;

/// The default name template of `mcp` mode: MCP hosts put their own prefix in front of every tool of
/// a server (`mcp__<name>__` in Claude Code), so the sidecar adds only the server's.
pub(crate) const DEFAULT_NAME_TEMPLATE: &str = "{server}__{tool}";

pub(crate) struct Options {
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

pub(crate) struct HttpOptions {
    pub addr: SocketAddr,
    /// Required on every request when set (one of its tokens, each naming a client: `--token-file`
    /// lines or `--access` clients); required to be set for an address that is not loopback.
    pub keys: Option<crate::aggregate::access::Keys>,
    /// Where each request's audit line goes (`--audit-log`).
    pub audit: Option<crate::aggregate::access::Audit>,
    /// `/metrics`' own bearer tokens (a scraper's); `None`: `/metrics` takes `keys`.
    pub metrics_token: Option<crate::aggregate::access::Token>,
    /// Browser origins allowed besides loopback ones (`http://localhost:PORT` on a loopback bind).
    pub allowed_origins: Vec<String>,
    /// End when this pipe (the sidecar's stdin, held by the process that started it) ends.
    pub stop_on_stdin_eof: bool,
    /// How long a connection may wait for a request's head, and a request take to send its body.
    pub idle_timeout: Duration,
    pub body_timeout: Duration,
    /// How long a stop lets the requests in flight finish before answering them `SHUTTING_DOWN`.
    pub drain_timeout: Duration,
    /// `--replica NAME`: the prefix of every legacy session id this replica makes.
    pub replica: Option<String>,
}

/// Checks a `--replica` name: 1 to [`limits::MAX_REPLICA_NAME_BYTES`] ASCII letters, digits and
/// `-` (a Kubernetes pod name fits), so that the ids made with it stay valid `Mcp-Session-Id`
/// values and the `.` after it ends it unambiguously.
pub(crate) fn replica_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > limits::MAX_REPLICA_NAME_BYTES {
        return Err(format!(
            "must be 1 to {} characters, not {}",
            limits::MAX_REPLICA_NAME_BYTES,
            name.len()
        ));
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
    {
        Some(c) => Err(format!(
            "{c:?} is not allowed: ASCII letters, digits and '-' only"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_name_is_what_a_pod_name_can_be() {
        assert!(replica_name("gateway-7d9f-x2").is_ok());
        assert!(replica_name("").is_err());
        assert!(replica_name("a.b").unwrap_err().contains("'.'"));
        assert!(replica_name("a b").is_err());
        assert!(replica_name(&"x".repeat(64)).is_err());
    }
}
