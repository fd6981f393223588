//! The commands for people as the command line spells them (clap), and the one entry that runs
//! any of them. `--config`, `--cache-dir` and the log flags are the binary's global flags; each
//! command adds the server selection (names after the command, or `--server NAME`), `--json`,
//! `--quiet` and its own flags. Exit statuses: [`super::exit`].

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::Value;

use super::call::{self, CallArgs};
use super::doctor::{self, DoctorArgs};
use super::exit::Exit;
use super::inspect::{self, InspectArgs};
use super::list::{self, ListArgs};
use super::output::usage;
use super::run::Context;
use super::selection::{inputs, Sources};
use super::trial::{self, TestArgs};
use crate::config::Dialect;
use crate::convert::ToolFormat;
use crate::store::SchemaCache;

#[derive(Subcommand)]
pub enum People {
    /// Start the servers, show each one's state, statistics and tools, stop them.
    List(ListCommand),
    /// Start one server and call one of its tools; print the converted result.
    Call(CallCommand),
    /// Try each server (start, handshake, list tools, stop) and report; exit 1 if one fails.
    Test(TestCommand),
    /// Try each server and explain every failure (and slow start) with its evidence and a fix.
    Doctor(DoctorCommand),
    /// Start the servers, print states and the converted tool definitions, stop them.
    Inspect(InspectCommand),
}

/// What every command reads its servers with.
#[derive(Args)]
pub struct Reading {
    /// Read every file as this dialect instead of detecting it (claude-desktop, claude-code,
    /// claude-plugin, vscode, cursor, codex, epoch, plugin-manifest).
    #[arg(long, value_parser = dialect)]
    dialect: Option<Dialect>,
    /// A value for `${input:ID}` in VS Code files, as ID=VALUE (repeatable).
    #[arg(long = "input", value_name = "ID=VALUE")]
    inputs: Vec<String>,
    /// No progress lines on stderr (they are only written to a terminal anyway).
    #[arg(long, short)]
    quiet: bool,
}

/// The servers a command runs.
#[derive(Args)]
pub struct Selected {
    /// Servers to run (default: every server in the files).
    #[arg(value_name = "SERVER")]
    names: Vec<String>,
    /// A server to run; repeatable, the same as naming it after the command.
    #[arg(long = "server", short = 's', value_name = "NAME")]
    more: Vec<String>,
}

impl Selected {
    fn all(self) -> Vec<String> {
        self.names.into_iter().chain(self.more).collect()
    }
}

#[derive(Args)]
pub struct ListCommand {
    #[command(flatten)]
    selected: Selected,
    #[command(flatten)]
    reading: Reading,
    /// One JSON document (statuses with their statistics, tool entries, diagnostics).
    #[arg(long)]
    json: bool,
    /// Format of the tool definitions in the JSON document.
    #[arg(long, default_value = "mcp")]
    format: ToolFormat,
}

#[derive(Args)]
pub struct CallCommand {
    /// The server, by its name in the configuration.
    server: String,
    /// The tool, by its name on that server.
    tool: String,
    /// An argument, KEY=VALUE (typed by the tool's schema where that is unambiguous) or
    /// KEY:=JSON; repeatable, applied over `--json`.
    #[arg(long = "arg", short = 'a', value_name = "KEY=VALUE")]
    pairs: Vec<String>,
    /// With a value: the arguments as one JSON object ('-' reads it from stdin). Without one:
    /// print the whole call result as JSON.
    #[arg(long, value_name = "ARGS", num_args = 0..=1)]
    json: Option<Option<String>>,
    /// The arguments as one JSON object (the same as `--json '{…}'`).
    #[arg(long = "args", value_name = "ARGS")]
    arguments: Option<String>,
    /// Also print the server's own MCP result.
    #[arg(long)]
    raw: bool,
    /// Format of the printed result (the text form of `openai` by default).
    #[arg(long, default_value = "openai")]
    format: ToolFormat,
    /// Seconds to wait for the answer (default: the server's toolTimeoutSeconds).
    #[arg(long, value_name = "SECS", value_parser = seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    reading: Reading,
}

#[derive(Args)]
pub struct TestCommand {
    #[command(flatten)]
    selected: Selected,
    #[command(flatten)]
    reading: Reading,
    /// One JSON document (a `servers/test` report per server).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct DoctorCommand {
    #[command(flatten)]
    selected: Selected,
    #[command(flatten)]
    reading: Reading,
    /// One JSON document (each server's findings: kind, severity, summary, evidence, fix).
    #[arg(long)]
    json: bool,
    /// Report a start slower than this many seconds.
    #[arg(long, value_name = "SECS", value_parser = seconds, default_value = "5")]
    slow: Duration,
}

#[derive(Args)]
pub struct InspectCommand {
    /// A config file or directory in any supported dialect (or give them with --config).
    file: Option<PathBuf>,
    /// A server to start (repeatable; default: every server in the files).
    #[arg(long = "server", short = 's', value_name = "NAME")]
    servers: Vec<String>,
    /// Tool definition format.
    #[arg(long, default_value = "openai")]
    format: ToolFormat,
    /// OpenAI strict mode (openai and openai-responses formats).
    #[arg(long)]
    strict: bool,
    /// Print one JSON document instead of the human report.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    reading: Reading,
}

/// What the binary hands a command besides its own flags.
pub struct Globals {
    /// `--config` files, in order.
    pub configs: Vec<PathBuf>,
    pub cache: Option<SchemaCache>,
    pub stop: tokio_util::sync::CancellationToken,
}

/// Runs a command for people to its exit status.
pub async fn run(command: People, globals: Globals) -> Exit {
    let reading = match &command {
        People::List(c) => &c.reading,
        People::Call(c) => &c.reading,
        People::Test(c) => &c.reading,
        People::Doctor(c) => &c.reading,
        People::Inspect(c) => &c.reading,
    };
    let inputs = match inputs(&reading.inputs) {
        Ok(i) => i,
        Err(why) => return usage(&why),
    };
    let context = Context {
        sources: Sources {
            files: globals.configs,
            dialect: reading.dialect,
            inputs,
        },
        cache: globals.cache,
        stop: globals.stop,
        quiet: reading.quiet,
    };
    match command {
        People::List(c) => {
            let args = ListArgs {
                servers: c.selected.all(),
                format: c.format,
                json: c.json,
            };
            list::run(&context, args).await
        }
        People::Call(c) => {
            let (json_output, json_arguments) = match c.json {
                None => (false, None),
                Some(None) => (true, None),
                Some(Some(arguments)) => (false, Some(arguments)),
            };
            if json_arguments.is_some() && c.arguments.is_some() {
                return usage("give the arguments once: --json '{…}' or --args '{…}'");
            }
            let args = CallArgs {
                server: c.server,
                tool: c.tool,
                pairs: c.pairs,
                arguments: json_arguments.or(c.arguments),
                raw: c.raw,
                format: c.format,
                timeout: c.timeout,
                json: json_output,
            };
            call::run(&context, args).await
        }
        People::Test(c) => {
            let args = TestArgs {
                servers: c.selected.all(),
                json: c.json,
            };
            trial::run(&context, args).await
        }
        People::Doctor(c) => {
            let args = DoctorArgs {
                servers: c.selected.all(),
                json: c.json,
                slow: c.slow,
            };
            doctor::run(&context, args).await
        }
        People::Inspect(c) => {
            let args = InspectArgs {
                file: c.file,
                servers: c.servers,
                format: c.format,
                strict: c.strict,
                json: c.json,
            };
            inspect::run(&context, args).await
        }
    }
}

fn dialect(text: &str) -> Result<Dialect, String> {
    serde_json::from_value(Value::String(text.to_owned())).map_err(|_| {
        format!("unknown dialect {text:?}; expected one of claude-desktop, claude-code, claude-plugin, vscode, cursor, codex, epoch, plugin-manifest")
    })
}

fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("{text:?} is not a number of seconds in (0, 86400]")),
    }
}
