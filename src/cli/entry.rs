//! The `mcp-sidecar` binary's whole body (`src/main.rs` only calls [`main`]): command-line
//! parsing, logging to stderr, and the modes — serve the
//! host protocol on stdio (the default), serve every configured server as one MCP server (`mcp`:
//! `cli::mcp`, `aggregate`), the commands for people (`list`, `call`, `test`, `doctor`, `inspect`:
//! `cli::command`) — plus the hidden `guardian` mode the sidecar runs itself in (see
//! `process::guardian`) and the conformance client.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::command::{self as people, People};
use crate::cli::mcp::{self, McpArgs};
#[cfg(unix)]
use crate::process::guardian;
use crate::process::{self as tree};
use crate::store::SchemaCache;
use crate::{aggregate, host, limits, logging, serving, signals, telemetry};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
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
    /// Directory of the schema cache for lazy servers and of the OAuth tokens (default: the
    /// platform cache directory, e.g. $XDG_CACHE_HOME/mcp-sidecar).
    #[arg(long, global = true)]
    cache_dir: Option<PathBuf>,
    /// A config file or directory (any dialect: Claude Desktop/Code/plugins, VS Code, Cursor, Codex,
    /// epoch, plugin manifest). Serving: its servers are added once the host has initialized.
    /// The other commands: the servers they run. Repeatable.
    #[arg(long = "config", value_name = "FILE", global = true)]
    configs: Vec<PathBuf>,
    /// Export OpenTelemetry traces over OTLP/HTTP to this collector (its base URL; traces go to
    /// /v1/traces). Also: OTEL_EXPORTER_OTLP_ENDPOINT. Serving and `mcp` mode only.
    #[arg(long, value_name = "URL", global = true)]
    otlp_endpoint: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve host protocol v1 on stdin/stdout (the default).
    Serve,
    /// Serve every server of the config files as one MCP server: over stdio (the default), or over
    /// Streamable HTTP with --http.
    Mcp(McpArgs),
    #[command(flatten)]
    People(People),
    /// Internal: a one-shot MCP client for the official conformance suite (docs/conformance.md).
    #[command(hide = true)]
    ConformanceClient {
        /// The scenario server's URL (appended by the suite).
        url: String,
    },
    /// Internal: the guardian process the sidecar starts to clean up after its own SIGKILL (Unix;
    /// on Windows each server's Job Object does that work).
    #[cfg(unix)]
    #[command(hide = true)]
    Guardian {
        #[arg(long)]
        sidecar_pid: u32,
        /// The sidecar's cgroup, killed whole and removed if the sidecar dies.
        #[arg(long)]
        cgroup: Option<PathBuf>,
    },
}

/// The log filter of the commands for people when none is given: their report says what went
/// wrong, so only the sidecar's own errors are logged.
const PEOPLE_LOG_FILTER: &str = "error";

/// The commands for people, whose help leaves out serve mode's flags.
const PEOPLE_COMMANDS: &[&str] = &[
    "list",
    "call",
    "test",
    "doctor",
    "inspect",
    "resources",
    "read",
    "prompts",
    "prompt",
    "login",
];

/// The command line, parsed: `call`'s `--json` before a server name is a flag
/// ([`people::normalize`]), and the commands for people list only their own flags in their help.
/// The host-protocol bounds still parse after them, as they always have: each of those commands
/// holds a hidden copy of the two global flags (clap then does not add the shown one), of the
/// same types, so a value given there reaches the top level unchanged.
fn parse() -> Cli {
    let mut command = Cli::command();
    for name in PEOPLE_COMMANDS {
        command = command.mut_subcommand(name, |sub| {
            sub.arg(
                clap::Arg::new("max_line_bytes")
                    .long("max-line-bytes")
                    .value_parser(clap::value_parser!(usize))
                    .hide(true),
            )
            .arg(
                clap::Arg::new("max_inflight")
                    .long("max-inflight")
                    .value_parser(clap::value_parser!(u32).range(1..))
                    .hide(true),
            )
        });
    }
    let matches = command.get_matches_from(people::normalize(std::env::args_os().collect()));
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// Runs the binary: what `mcp-sidecar` does with its command line, to its exit status.
pub fn main() -> ExitCode {
    let cli = parse();
    #[cfg(unix)]
    if let Some(Command::Guardian {
        sidecar_pid,
        cgroup,
    }) = cli.command
    {
        // No logging set-up and no runtime: the guardian stays as small as possible.
        return ExitCode::from(u8::try_from(guardian::run(sidecar_pid, cgroup)).unwrap_or(1));
    }
    let quiet_logs = matches!(cli.command, Some(Command::People(_)))
        && std::env::var_os("MCP_SIDECAR_LOG").is_none();
    let filter = cli
        .log
        .as_deref()
        .or(quiet_logs.then_some(PEOPLE_LOG_FILTER));
    logging::init(filter, cli.log_format);
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
            logging::say(format_args!("mcp-sidecar: cannot start the runtime: {e}"));
            return ExitCode::FAILURE;
        }
    };
    // Before the runtime runs: the exporter's blocking HTTP client must not be built inside it.
    let serving = matches!(cli.command, None | Some(Command::Serve | Command::Mcp(_)));
    let exporting = match serving.then(|| telemetry::init(cli.otlp_endpoint.as_deref())) {
        Some(Err(message)) => {
            logging::say(format_args!("mcp-sidecar: --otlp-endpoint: {message}"));
            return ExitCode::from(2);
        }
        Some(Ok(exporting)) => exporting,
        None => None,
    };
    let exit = run(
        cli.command,
        runtime,
        cache,
        cli.configs,
        cli.max_line_bytes,
        cli.max_inflight,
    );
    if let Some(exporting) = exporting {
        exporting.shutdown();
    }
    exit
}

/// The mode the command line asks for, to its exit status.
fn run(
    command: Option<Command>,
    runtime: tokio::runtime::Runtime,
    cache: Option<SchemaCache>,
    configs: Vec<PathBuf>,
    max_line_bytes: usize,
    max_inflight: u32,
) -> ExitCode {
    match command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let options = host::ServeOptions {
                max_line_bytes,
                cache,
                stop: CancellationToken::new(),
                configs,
                max_inflight: max_inflight as usize,
            };
            run_serve(runtime, options)
        }
        #[cfg(unix)]
        Command::Guardian { .. } => ExitCode::FAILURE, // handled above
        Command::ConformanceClient { url } => {
            match runtime.block_on(crate::cli::conformance_client::run(&url)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    logging::say(format_args!("mcp-sidecar conformance-client: {e}"));
                    ExitCode::FAILURE
                }
            }
        }
        Command::Mcp(args) => {
            let globals = mcp::Globals {
                configs,
                cache,
                max_line_bytes,
                max_inflight: max_inflight as usize,
            };
            match mcp::options(args, globals) {
                Ok(options) => run_mcp(runtime, options),
                Err(message) => {
                    logging::say(format_args!("mcp-sidecar mcp: {message}"));
                    ExitCode::from(2)
                }
            }
        }
        Command::People(command) => {
            let globals = people::Globals {
                configs,
                cache,
                stop: CancellationToken::new(),
            };
            run_people(runtime, command, globals)
        }
    }
}

/// Serve mode: the host protocol on stdio until `shutdown`, end of input or a termination signal.
fn run_serve(runtime: tokio::runtime::Runtime, options: host::ServeOptions) -> ExitCode {
    let stop = options.stop.clone();
    supervised(runtime, stop, None, async {
        host::serve(serving::stdio::input(), serving::stdio::output(), options).await;
    });
    ExitCode::SUCCESS
}

/// `mcp` mode: the aggregate served until the client goes or a signal comes (SIGHUP reloads the
/// config files instead), then every server stopped, as in serve mode. Exit 3 when no config file
/// gives a server (the status the commands for people give a bad config), 2 when it cannot start
/// (say, the HTTP address is taken).
fn run_mcp(runtime: tokio::runtime::Runtime, options: aggregate::Options) -> ExitCode {
    let stop = options.stop.clone();
    let reload = std::sync::Arc::clone(&options.reload);
    match supervised(runtime, stop, Some(reload), aggregate::run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            logging::say(format_args!("mcp-sidecar mcp: {e}"));
            ExitCode::from(match e {
                aggregate::StartError::NothingToServe(_) => 3,
                aggregate::StartError::Http(_) => 2,
            })
        }
    }
}

/// A command for people: start what it needs, report, stop everything, exit with its status.
fn run_people(
    runtime: tokio::runtime::Runtime,
    command: People,
    globals: people::Globals,
) -> ExitCode {
    let stop = globals.stop.clone();
    let exit = supervised(runtime, stop, None, people::run(command, globals));
    ExitCode::from(exit.code())
}

/// Runs a mode the way every one ends: termination signals handled (the first cancels `stop`),
/// every process the sidecar started swept once `serve` returns, a second signal's exit left to
/// the signal thread.
fn supervised<T>(
    runtime: tokio::runtime::Runtime,
    stop: CancellationToken,
    hangup: Option<std::sync::Arc<tokio::sync::Notify>>,
    serve: impl std::future::Future<Output = T>,
) -> T {
    if let Err(e) = signals::install(stop, hangup) {
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
    // Do not wait for blocking reads of stdin (the host's, or `call --json -`) that may still be
    // parked in the runtime.
    runtime.shutdown_background();
    outcome
}
