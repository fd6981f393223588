//! `mcp-sidecar mcp`'s command line: its flags read into [`aggregate::Options`] (the name template
//! and its length checked, the HTTP address, the bearer token from its file or the environment —
//! registered as a secret of every log line — and whether stdin is a pipe whose end stops the
//! HTTP endpoint). The mode itself is `crate::aggregate`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::aggregate;
use crate::convert::{NameTemplate, ToolFormat};
use crate::logging;
use crate::store::SchemaCache;

/// The flags of `mcp` (its `--config` files are the global ones).
#[derive(clap::Args)]
pub(crate) struct McpArgs {
    /// The provider the client hands the tools to: their input schemas are cleaned for it
    /// (`mcp`: as the servers sent them).
    #[arg(long, default_value = "mcp")]
    pub format: ToolFormat,
    /// OpenAI strict mode (openai and openai-responses formats).
    #[arg(long)]
    pub strict: bool,
    /// Make a list wait until every configured server started or failed, for a host that ignores
    /// `notifications/tools/list_changed` (by default each server's tools come as it is ready).
    #[arg(long)]
    pub wait_for_servers: bool,
    /// Serve `tools/list` in pages of at most N tools, each with an opaque `nextCursor` (by default
    /// one page: every tool).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub page_size: Option<u64>,
    /// How exposed tool names are made from `{server}` and `{tool}`.
    #[arg(long, default_value = aggregate::DEFAULT_NAME_TEMPLATE)]
    pub name_template: String,
    /// Longest exposed tool name (16-256).
    #[arg(long, default_value_t = crate::convert::DEFAULT_MAX_NAME_LENGTH)]
    pub max_name_length: usize,
    /// Serve Streamable HTTP on ADDR (`127.0.0.1:PORT`, or just `PORT` for loopback) at `/mcp`
    /// instead of stdio. Any address that is not loopback needs a bearer token.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// A file holding the bearer token every HTTP request must carry (also: MCP_SIDECAR_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// An access file: several clients, each with its token (a file, a variable or a SHA-256), the
    /// servers and tools it may see and call, and its rate limit; re-read when it or a token file
    /// changes.
    #[arg(long, value_name = "FILE", conflicts_with = "token_file")]
    pub access: Option<PathBuf>,
    /// Write one JSON line per HTTP request (client, method, tool, outcome, duration, masked
    /// arguments) to FILE, or to stderr with `-`.
    #[arg(long, value_name = "FILE|-")]
    pub audit_log: Option<String>,
    /// HTTP: a file holding the bearer token Prometheus presents to scrape /metrics (one per
    /// line). Without it /metrics takes the endpoint's own token, as /mcp does.
    #[arg(long, value_name = "FILE")]
    pub metrics_token_file: Option<PathBuf>,
    /// A browser origin allowed to call the HTTP endpoint (loopback origins are, on loopback).
    /// Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// HTTP: how long a connection may wait for its next request's head before it is closed.
    #[arg(long, value_name = "MS", default_value_t = crate::limits::AGGREGATE_HTTP_IDLE_TIMEOUT.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub http_idle_timeout_ms: u64,
    /// HTTP: how long a client has to send a request's body once its head is in (408 past it).
    #[arg(long, value_name = "MS", default_value_t = crate::limits::AGGREGATE_HTTP_BODY_TIMEOUT.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub http_body_timeout_ms: u64,
    /// HTTP: on SIGTERM (or the end of the stdin pipe), how long the requests in flight may take
    /// to finish while new ones are refused (503) and /readyz answers 503; those left are then
    /// answered SHUTTING_DOWN and every server is stopped. 0: no drain.
    #[arg(long, value_name = "MS", default_value_t = crate::limits::AGGREGATE_HTTP_DRAIN_TIMEOUT.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub drain_timeout_ms: u64,
    /// HTTP: this replica's name (letters, digits, '-'; also MCP_SIDECAR_REPLICA, e.g. the pod's
    /// name), put in front of every legacy session id it makes (`NAME.…`) so a load balancer can
    /// send a session to its replica by the id alone (docs/gateway.md, nginx).
    #[arg(long, value_name = "NAME")]
    pub replica: Option<String>,
}

/// The command line's global values `mcp` mode reads too.
pub(crate) struct Globals {
    pub configs: Vec<PathBuf>,
    pub cache: Option<SchemaCache>,
    pub max_line_bytes: usize,
    pub max_inflight: usize,
}

/// `mcp` mode's options from its flags; a bad flag value is the message to show.
pub(crate) fn options(args: McpArgs, globals: Globals) -> Result<aggregate::Options, String> {
    if globals.configs.is_empty() {
        return Err("--config FILE is required: the servers to serve".into());
    }
    let names = NameTemplate::new(&args.name_template, args.max_name_length)
        .map_err(|why| format!("--{}: {why}", kebab(why.field())))?;
    let http = match args.http {
        None => None,
        Some(addr) => Some(aggregate::HttpOptions {
            addr: http_addr(&addr)?,
            keys: keys_for(&addr, args.token_file.as_deref(), args.access.as_deref())?,
            audit: args
                .audit_log
                .as_deref()
                .map(aggregate::access::Audit::open)
                .transpose()?,
            metrics_token: metrics_token(args.metrics_token_file.as_deref())?,
            allowed_origins: args.allowed_origins,
            stop_on_stdin_eof: stdin_is_a_pipe(),
            idle_timeout: Duration::from_millis(args.http_idle_timeout_ms),
            body_timeout: Duration::from_millis(args.http_body_timeout_ms),
            drain_timeout: Duration::from_millis(args.drain_timeout_ms),
            replica: replica(args.replica)?,
        }),
    };
    Ok(aggregate::Options {
        configs: globals.configs,
        format: args.format,
        strict: args.strict,
        wait_for_servers: args.wait_for_servers,
        page_size: args.page_size.map(|n| n as usize),
        names,
        cache: globals.cache,
        max_message_bytes: globals.max_line_bytes,
        max_inflight: globals.max_inflight,
        stop: CancellationToken::new(),
        reload: Default::default(),
        http,
    })
}

/// The tokens of an HTTP endpoint at `addr` (`--access`, else `--token-file` or the variable);
/// one is required where the address is not loopback — checked here, before any server starts.
fn keys_for(
    addr: &str,
    file: Option<&std::path::Path>,
    access: Option<&std::path::Path>,
) -> Result<Option<aggregate::access::Keys>, String> {
    let token = match access {
        Some(path) => Some(aggregate::access::Keys::File(
            aggregate::access::Live::load(path).map_err(|why| format!("--access {why}"))?,
        )),
        None => token(file)?.map(aggregate::access::Keys::Lines),
    };
    let at = http_addr(addr)?;
    if token.is_none() && !at.ip().is_loopback() {
        return Err(format!(
            "refusing to listen on {at} without a bearer token: it is not a loopback address (give one with --token-file FILE or MCP_SIDECAR_TOKEN)"
        ));
    }
    Ok(token)
}

fn kebab(field: &str) -> &'static str {
    if field == "maxNameLength" {
        "max-name-length"
    } else {
        "name-template"
    }
}

/// `--replica NAME`, else `MCP_SIDECAR_REPLICA` (a Deployment sets it to the pod's name), checked.
fn replica(flag: Option<String>) -> Result<Option<String>, String> {
    let name = flag.or_else(|| {
        std::env::var("MCP_SIDECAR_REPLICA")
            .ok()
            .filter(|n| !n.is_empty())
    });
    if let Some(name) = &name {
        aggregate::replica_name(name).map_err(|why| format!("--replica {name:?}: {why}"))?;
    }
    Ok(name)
}

/// `PORT`, `localhost:PORT` or an IP address with a port.
fn http_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    let text = text
        .strip_prefix("localhost:")
        .map_or_else(|| text.to_owned(), |port| format!("127.0.0.1:{port}"));
    text.parse()
        .map_err(|_| format!("--http {text:?}: expected PORT, localhost:PORT or IP:PORT"))
}

/// The scrape tokens of `--metrics-token-file` (one per line), masked in logs like the others.
fn metrics_token(file: Option<&std::path::Path>) -> Result<Option<aggregate::Token>, String> {
    let Some(path) = file else {
        return Ok(None);
    };
    let value = std::fs::read_to_string(path)
        .map_err(|e| format!("--metrics-token-file {}: {e}", path.display()))?;
    let token = aggregate::Token::new(&value)
        .ok_or_else(|| format!("--metrics-token-file {}: the file is empty", path.display()))?;
    logging::register_secrets(token.values());
    Ok(Some(token))
}

/// The bearer tokens from `--token-file` (one per line), else `MCP_SIDECAR_TOKEN`; they are masked
/// in every log line.
fn token(file: Option<&std::path::Path>) -> Result<Option<aggregate::Token>, String> {
    let value = match file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("--token-file {}: {e}", path.display()))?,
        None => std::env::var("MCP_SIDECAR_TOKEN").unwrap_or_default(),
    };
    let token = aggregate::Token::new(&value);
    if let Some(token) = &token {
        logging::register_secrets(token.values());
    } else if let Some(path) = file {
        return Err(format!(
            "--token-file {}: the file is empty",
            path.display()
        ));
    }
    Ok(token)
}

/// Whether stdin is a pipe or a socket: the process that started the sidecar holds its other end,
/// and its end (EOF) means that process is gone. A terminal or `/dev/null` is no such signal.
fn stdin_is_a_pipe() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .and_then(|fd| std::fs::File::from(fd).metadata().ok())
            .is_some_and(|m| m.file_type().is_fifo() || m.file_type().is_socket())
    }
    #[cfg(not(unix))]
    false
}
