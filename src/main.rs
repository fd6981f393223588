//! The `mcp-sidecar` binary: command-line parsing, logging to stderr, and the two modes (serve the
//! host protocol on stdio; inspect a servers file), plus the hidden `guardian` mode the sidecar runs
//! itself in (see `process::guardian`). Everything else lives in the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_sidecar::cli::inspect;
use mcp_sidecar::convert::ToolFormat;
use mcp_sidecar::process::{self as tree, guardian};
use mcp_sidecar::store::SchemaCache;
use mcp_sidecar::{host, limits, logging, signals};
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
            let stop = CancellationToken::new();
            if let Err(e) = signals::install(stop.clone()) {
                tracing::warn!("cannot handle termination signals: {e}");
            }
            let options = host::ServeOptions {
                max_line_bytes: cli.max_line_bytes,
                cache,
                stop,
                configs: cli.configs,
            };
            runtime.block_on(async {
                tree::install();
                host::serve(host::stdio::input(), host::stdio::output(), options).await;
                tree::final_sweep().await;
            });
            tree::farewell();
            // Do not wait for blocking reads of stdin that may still be parked in the runtime.
            runtime.shutdown_background();
            ExitCode::SUCCESS
        }
        Command::Guardian { .. } => ExitCode::FAILURE, // handled above
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
        } => {
            let report = runtime.block_on(async {
                tree::install();
                let report = inspect::inspect(&file, format, strict, cache).await;
                tree::final_sweep().await;
                report
            });
            tree::farewell();
            let report = match report {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("mcp-sidecar: {}", e.message);
                    return ExitCode::from(2);
                }
            };
            if json {
                print_json(&report);
            } else {
                print_human(&report, format);
            }
            if report.all_ready() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

// The inspect report is the subcommand's output; stdout is protocol-only in serve mode alone.
#[allow(clippy::print_stdout)]
fn print_human(report: &inspect::Report, format: ToolFormat) {
    println!(
        "{:<16} {:<10} {:>7}  {:<11} {:>5}  detail",
        "SERVER", "STATE", "PID", "PROTOCOL", "TOOLS"
    );
    for s in &report.servers {
        let detail = s
            .last_error
            .as_ref()
            .and_then(|e| e.get("message"))
            .and_then(|m| m.as_str())
            .map(str::to_owned)
            .or_else(|| {
                s.server_info.as_ref().map(|i| {
                    format!(
                        "{} {}",
                        i["name"].as_str().unwrap_or(""),
                        i["version"].as_str().unwrap_or("")
                    )
                })
            })
            .unwrap_or_default();
        println!(
            "{:<16} {:<10} {:>7}  {:<11} {:>5}  {}",
            s.name,
            serde_json::to_value(s.state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            s.pid.map(|p| p.to_string()).unwrap_or_else(|| "-".into()),
            s.protocol_version.as_deref().unwrap_or("-"),
            s.tools_count,
            detail
        );
        if s.last_error.is_some() && !s.stderr_tail.is_empty() {
            for line in s
                .stderr_tail
                .lines()
                .rev()
                .take(5)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                println!("{:<16} stderr: {line}", "");
            }
        }
    }
    for d in &report.diagnostics {
        println!(
            "{:<16} {:<10} {}:{} {}",
            d.server.as_deref().unwrap_or("-"),
            serde_json::to_value(d.severity)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            d.file.as_deref().unwrap_or(""),
            d.path,
            d.message
        );
    }
    for (name, e) in &report.rejected {
        println!(
            "{name:<16} {:<10} {:>7}  {:<11} {:>5}  {}",
            "rejected", "-", "-", 0, e.message
        );
    }
    println!();
    println!(
        "{} tools ({} format), fingerprint {}",
        report.listing.tools.len(),
        format.as_str(),
        report.listing.fingerprint
    );
    let definitions: Vec<&serde_json::Value> = report
        .listing
        .tools
        .iter()
        .map(|t| &t["definition"])
        .collect();
    println!(
        "{}",
        serde_json::to_string_pretty(&definitions).unwrap_or_default()
    );
}

#[allow(clippy::print_stdout)]
fn print_json(report: &inspect::Report) {
    let rejected: Vec<serde_json::Value> = report
        .rejected
        .iter()
        .map(|(name, e)| serde_json::json!({"name": name, "error": e.to_rpc_error()}))
        .collect();
    let doc = serde_json::json!({
        "servers": report.servers,
        "rejected": rejected,
        "diagnostics": report.diagnostics,
        "tools": *report.listing.tools,
        "fingerprint": report.listing.fingerprint,
    });
    println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
}
