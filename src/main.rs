//! The `mcp-sidecar` binary: command-line parsing, logging to stderr, and the modes (serve the host
//! protocol on stdio; serve every configured server as one MCP server; inspect a servers file), plus
//! the hidden `guardian` mode the sidecar runs itself in (see `process::guardian`). Everything else
//! lives in the library (the inspect report: `cli::report`; the MCP server: `upstream`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_sidecar::cli::{inspect, report};
use mcp_sidecar::convert::{NameTemplate, ToolFormat};
use mcp_sidecar::process::{self as tree, guardian};
use mcp_sidecar::store::SchemaCache;
use mcp_sidecar::{host, limits, logging, serving, signals, upstream};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(
    name = "mcp-sidecar",
    version,
    about = "Supervise MCP servers and serve provider-ready tools to a host over stdio"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Longest request line accepted from the host, in bytes.
    #[arg(long, default_value_t = limits::DEFAULT_HOST_LINE_BYTES, global = true)]
    max_line_bytes: usize,
    /// Requests from the host served at once; past it no more of stdin is read until one is
    /// answered (the host's writes block).
    #[arg(long, default_value_t = limits::DEFAULT_HOST_MAX_INFLIGHT as u32, value_parser = clap::value_parser!(u32).range(1..), global = true)]
    max_inflight: u32,
    /// Log filter for stderr (e.g. `info`, `mcp_sidecar=debug`); also read from MCP_SIDECAR_LOG.
    #[arg(long, global = true)]
    log: Option<String>,
    /// Log line format on stderr: `text` (coloured only on a terminal) or `json` (one object a line).
    #[arg(long, value_enum, default_value_t = logging::LogFormat::Text, global = true)]
    log_format: logging::LogFormat,
    /// Directory of the schema cache for lazy servers (default: the platform cache directory,
    /// e.g. $XDG_CACHE_HOME/mcp-sidecar).
    #[arg(long, global = true)]
    cache_dir: Option<PathBuf>,
    /// A config file or directory (any dialect: Claude Desktop/Code/plugins, VS Code, Cursor, Codex,
    /// epoch, plugin manifest) whose servers are added once the host has initialized. Repeatable.
    #[arg(long = "config", value_name = "FILE")]
    configs: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve host protocol v1 on stdin/stdout (the default).
    Serve,
    /// Start every server in a servers file, print states and converted tools, stop them, exit.
    Inspect {
        /// A config file or directory in any supported dialect (see `--config`).
        file: PathBuf,
        /// Tool definition format.
        #[arg(long, default_value = "openai")]
        format: ToolFormat,
        /// OpenAI strict mode (openai and openai-responses formats).
        #[arg(long)]
        strict: bool,
        /// Print one JSON document instead of the human report.
        #[arg(long)]
        json: bool,
    },
    /// Serve every server of the config files as one MCP server: over stdio (the default), or over
    /// Streamable HTTP with --http.
    Mcp(McpArgs),
    /// Internal: a one-shot MCP client for the official conformance suite (README "Conformance").
    #[command(hide = true)]
    ConformanceClient {
        /// The scenario server's URL (appended by the suite).
        url: String,
    },
    /// Internal: the guardian process the sidecar starts to clean up after its own SIGKILL.
    #[command(hide = true)]
    Guardian {
        #[arg(long)]
        sidecar_pid: u32,
    },
}

#[derive(clap::Args)]
struct McpArgs {
    /// A config file or directory (any dialect, see the top-level `--config`). Repeatable.
    #[arg(long = "config", value_name = "FILE", required = true)]
    configs: Vec<PathBuf>,
    /// The provider the client hands the tools to: their input schemas are cleaned for it
    /// (`mcp`: as the servers sent them).
    #[arg(long, default_value = "mcp")]
    format: ToolFormat,
    /// OpenAI strict mode (openai and openai-responses formats).
    #[arg(long)]
    strict: bool,
    /// How exposed tool names are made from `{server}` and `{tool}`.
    #[arg(long, default_value = upstream::DEFAULT_NAME_TEMPLATE)]
    name_template: String,
    /// Longest exposed tool name (16-256).
    #[arg(long, default_value_t = mcp_sidecar::convert::DEFAULT_MAX_NAME_LENGTH)]
    max_name_length: usize,
    /// Serve Streamable HTTP on ADDR (`127.0.0.1:PORT`, or just `PORT` for loopback) at `/mcp`
    /// instead of stdio. Any address that is not loopback needs a bearer token.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// A file holding the bearer token every HTTP request must carry (also: MCP_SIDECAR_TOKEN).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// A browser origin allowed to call the HTTP endpoint (loopback origins are, on loopback).
    /// Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::Guardian { sidecar_pid }) = cli.command {
        // No logging set-up and no runtime: the guardian stays as small as possible.
        return ExitCode::from(u8::try_from(guardian::run(sidecar_pid)).unwrap_or(1));
    }
    logging::init(cli.log.as_deref(), cli.log_format);
    let cache = cli
        .cache_dir
        .or_else(SchemaCache::default_dir)
        .map(SchemaCache::new);
    // One thread: a request's path (host pipe → server pipe → host pipe) never crosses threads, which
    // measured far faster than a multi-thread runtime; the work per message is small. It also means
    // every server is spawned from the main thread, which lives as long as the process (so
    // PR_SET_PDEATHSIG fires only when the sidecar dies).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp-sidecar: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let options = host::ServeOptions {
                max_line_bytes: cli.max_line_bytes,
                cache,
                stop: CancellationToken::new(),
                configs: cli.configs,
                max_inflight: cli.max_inflight as usize,
            };
            run_serve(runtime, options)
        }
        Command::Guardian { .. } => ExitCode::FAILURE, // handled above
        Command::Mcp(args) => {
            let options = match mcp_options(args, &cli.max_line_bytes, cli.max_inflight, cache) {
                Ok(options) => options,
                Err(message) => {
                    eprintln!("mcp-sidecar mcp: {message}");
                    return ExitCode::from(2);
                }
            };
            run_mcp(runtime, options)
        }
        Command::ConformanceClient { url } => {
            match runtime.block_on(mcp_sidecar::cli::conformance_client::run(&url)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("mcp-sidecar conformance-client: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Inspect {
            file,
            format,
            strict,
            json,
        } => run_inspect(&runtime, &file, format, strict, json, cache),
    }
}

/// Serve mode: the host protocol on stdio until `shutdown`, end of input or a termination signal.
fn run_serve(runtime: tokio::runtime::Runtime, options: host::ServeOptions) -> ExitCode {
    let stop = options.stop.clone();
    supervised(runtime, stop, async {
        host::serve(serving::stdio::input(), serving::stdio::output(), options).await;
    });
    ExitCode::SUCCESS
}

/// Runs a serving mode the way every one ends: termination signals handled (the first cancels
/// `stop`), every process the sidecar started swept once `serve` returns, a second signal's exit
/// left to the signal thread.
fn supervised<T>(
    runtime: tokio::runtime::Runtime,
    stop: CancellationToken,
    serve: impl std::future::Future<Output = T>,
) -> T {
    if let Err(e) = signals::install(stop) {
        tracing::warn!("cannot handle termination signals: {e}");
    }
    let outcome = runtime.block_on(async {
        tree::install();
        let outcome = serve.await;
        tree::final_sweep().await;
        outcome
    });
    if signals::escalated() {
        // A second signal killed everything: its thread exits 128 + n, without `bye` to the
        // guardian (which then sweeps once more).
        signals::await_escalated_exit();
    }
    tree::farewell();
    // Do not wait for blocking reads of stdin that may still be parked in the runtime.
    runtime.shutdown_background();
    outcome
}

/// `mcp` mode's options from its flags; a bad flag value is the message to show.
fn mcp_options(
    args: McpArgs,
    max_line_bytes: &usize,
    max_inflight: u32,
    cache: Option<SchemaCache>,
) -> Result<upstream::Options, String> {
    let names = NameTemplate::new(&args.name_template, args.max_name_length)
        .map_err(|why| format!("--{}: {why}", kebab(why.field())))?;
    let http = match args.http {
        None => None,
        Some(addr) => Some(upstream::HttpOptions {
            addr: http_addr(&addr)?,
            token: token(args.token_file.as_deref())?,
            allowed_origins: args.allowed_origins,
            stop_on_stdin_eof: stdin_is_a_pipe(),
        }),
    };
    Ok(upstream::Options {
        configs: args.configs,
        format: args.format,
        strict: args.strict,
        names,
        cache,
        max_message_bytes: *max_line_bytes,
        max_inflight: max_inflight as usize,
        stop: CancellationToken::new(),
        http,
    })
}

fn kebab(field: &str) -> &'static str {
    if field == "maxNameLength" {
        "max-name-length"
    } else {
        "name-template"
    }
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

/// The bearer token from `--token-file`, else `MCP_SIDECAR_TOKEN`; it is masked in every log line.
fn token(file: Option<&std::path::Path>) -> Result<Option<upstream::Token>, String> {
    let value = match file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("--token-file {}: {e}", path.display()))?,
        None => std::env::var("MCP_SIDECAR_TOKEN").unwrap_or_default(),
    };
    let token = upstream::Token::new(&value);
    if let Some(token) = &token {
        logging::register_secrets([token.value()]);
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

/// `mcp` mode: the aggregate served until the client goes or a signal comes, then every server
/// stopped, as in serve mode. Exit 2 when it cannot start (say, the HTTP address is taken).
fn run_mcp(runtime: tokio::runtime::Runtime, options: upstream::Options) -> ExitCode {
    let stop = options.stop.clone();
    match supervised(runtime, stop, upstream::run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-sidecar mcp: {e}");
            ExitCode::from(2)
        }
    }
}

/// Inspect mode: start, report, stop. Exit 0 when every server is ready, 1 when one is not, 2 when
/// the inspection itself failed.
fn run_inspect(
    runtime: &tokio::runtime::Runtime,
    file: &std::path::Path,
    format: ToolFormat,
    strict: bool,
    json: bool,
    cache: Option<SchemaCache>,
) -> ExitCode {
    let report = runtime.block_on(async {
        tree::install();
        let report = inspect::inspect(file, format, strict, cache).await;
        tree::final_sweep().await;
        report
    });
    tree::farewell();
    match report {
        Ok(report) => {
            report::print(&report, format, json);
            if report.all_ready() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("mcp-sidecar: {}", e.message);
            ExitCode::from(2)
        }
    }
}
