//! The commands for people as the command line spells them (clap), and the one entry that runs
//! any of them. `--config`, `--cache-dir` and the log flags are the binary's global flags; each
//! command adds the server selection (names after the command — a config file given there is
//! read as one — or `--server NAME`), servers given inline (`--stdio`, `--url`), `--json`,
//! `--quiet` and its own flags. Exit statuses: [`super::exit`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::Value;

use super::ad_hoc::{self, Given};
use super::call::{self, CallArgs};
use super::discovery::Places;
use super::doctor::{self, DoctorArgs};
use super::exit::Exit;
use super::inspect::{self, InspectArgs};
use super::list::{self, ListArgs};
use super::login::{self, LoginArgs};
use super::output::usage;
use super::pin::{self, PinArgs};
use super::run::Context;
use super::selection::{inputs, Sources};
use super::surface::{self, Listing, One};
use super::trial::{self, TestArgs};
use crate::config::Dialect;
use crate::convert::ToolFormat;
use crate::store::SchemaCache;

#[derive(Subcommand)]
pub(crate) enum People {
    /// Start the servers, show each one's state, statistics and tools, stop them.
    #[command(after_help = "Examples:
  mcp-sidecar list                                  the servers of the configs you have (Claude, Cursor, VS Code, Codex, Windsurf)
  mcp-sidecar list fixtures/demo.json alpha         one server of a file, its tools as signatures
  mcp-sidecar list --stdio \"npx -y @modelcontextprotocol/server-memory\"
  mcp-sidecar list --json --format anthropic ~/.cursor/mcp.json")]
    List(ListCommand),
    /// Start one server and call one of its tools; print the converted result.
    #[command(after_help = "Examples:
  mcp-sidecar call fixtures/demo.json alpha echo --arg message=hi
  mcp-sidecar call alpha.sleep --arg ms=20 --config fixtures/demo.json
  mcp-sidecar call --json alpha echo --args '{\"message\": \"hi\"}' fixtures/demo.json
  mcp-sidecar call --stdio \"npx -y @modelcontextprotocol/server-everything\" echo --arg message=hi")]
    Call(CallCommand),
    /// Try each server (start, handshake, list tools, stop) and report; exit 1 if one fails.
    #[command(after_help = "Examples:
  mcp-sidecar test
  mcp-sidecar test fixtures/demo.json beta
  mcp-sidecar test --url https://example.com/mcp --json")]
    Test(TestCommand),
    /// Try each server and explain every failure (and slow start) with its evidence and a fix.
    #[command(after_help = "Examples:
  mcp-sidecar doctor
  mcp-sidecar doctor ~/.cursor/mcp.json --slow 2
  mcp-sidecar doctor --stdio \"uvx mcp-server-time\"")]
    Doctor(DoctorCommand),
    /// Start the servers, print states and the converted tool definitions, stop them.
    #[command(after_help = "Examples:
  mcp-sidecar inspect fixtures/demo.json
  mcp-sidecar inspect fixtures/demo.json --format gemini --json
  mcp-sidecar inspect --stdio \"npx -y @modelcontextprotocol/server-memory\" --strict")]
    Inspect(InspectCommand),
    /// Start the servers and list their resources and resource templates.
    #[command(after_help = "Examples:
  mcp-sidecar resources
  mcp-sidecar resources --stdio \"npx -y @modelcontextprotocol/server-everything\" --json")]
    Resources(ListingCommand),
    /// Start one server and read one of its resources; print its contents.
    #[command(after_help = "Examples:
  mcp-sidecar read everything test://static/resource/1 --config servers.json
  mcp-sidecar read --stdio \"npx -y @modelcontextprotocol/server-everything\" test://static/resource/1")]
    Read(ReadCommand),
    /// Start the servers and list their prompts with their arguments (`name(required, optional?)`).
    #[command(after_help = "Examples:
  mcp-sidecar prompts
  mcp-sidecar prompts fixtures/demo.json --json")]
    Prompts(ListingCommand),
    /// Start one server and get one of its prompts; print its messages.
    #[command(after_help = "Examples:
  mcp-sidecar prompt everything simple_prompt --config servers.json
  mcp-sidecar prompt everything complex_prompt --arg temperature=0.7 --config servers.json")]
    Prompt(PromptCommand),
    /// Log in to a remote server that uses OAuth: print the authorization URL, wait for the
    /// browser's redirect, keep the tokens under the cache directory for every sidecar using it.
    #[command(after_help = "Examples:
  mcp-sidecar login notion --config ~/.cursor/mcp.json
  mcp-sidecar login --url https://mcp.example.com/mcp")]
    Login(LoginCommand),
    /// Print the `package` block that pins a server's npm or PyPI package by the hash the registry
    /// serves now (the server's command is `npx -y name@version` or `uvx name==version`).
    #[command(after_help = "Examples:
  mcp-sidecar pin memory --config ~/.cursor/mcp.json
  mcp-sidecar pin --stdio \"npx -y @modelcontextprotocol/server-memory@2025.9.25\"")]
    Pin(PinCommand),
}

/// What every command reads its servers with.
#[derive(Args)]
pub(crate) struct Reading {
    /// Read every file as this dialect instead of detecting it (claude-desktop, claude-code,
    /// claude-plugin, vscode, cursor, codex, epoch, plugin-manifest).
    #[arg(long, value_parser = dialect)]
    dialect: Option<Dialect>,
    /// A value for `${input:ID}` in VS Code files, as ID=VALUE (repeatable).
    #[arg(long = "input", value_name = "ID=VALUE")]
    inputs: Vec<String>,
    /// No progress lines on stderr (they are only written to a terminal anyway), and no line
    /// saying which configs were found.
    #[arg(long, short)]
    quiet: bool,
    /// A server to run from its command line, without a config file (split as a shell would:
    /// `--stdio "npx -y @modelcontextprotocol/server-memory"`); repeatable.
    #[arg(long, value_name = "COMMAND")]
    stdio: Vec<String>,
    /// A remote server to run from its URL (Streamable HTTP, or legacy SSE), without a config
    /// file; tokens from `login` are used. Repeatable.
    #[arg(long, value_name = "URL")]
    url: Vec<String>,
    /// The name of the `--stdio`/`--url` servers, in order (default: after the package or host).
    #[arg(long = "name", value_name = "NAME")]
    inline_names: Vec<String>,
    /// Start the servers of the current folder's own files (.mcp.json, .cursor/mcp.json,
    /// .vscode/mcp.json) without an approval. Risk: those files come with whatever repository
    /// was cloned, and each server is a command run as you; without this flag they start only
    /// when named with --config or approved in Claude Code.
    #[arg(long)]
    allow_project: bool,
}

impl Reading {
    /// `--stdio` and `--url`, in the order given on the command line is not known to clap: the
    /// `--stdio` ones first, then the `--url` ones (as `--name`s are given).
    fn given(&self) -> Vec<Given> {
        self.stdio
            .iter()
            .cloned()
            .map(Given::Stdio)
            .chain(self.url.iter().cloned().map(Given::Url))
            .collect()
    }
}

/// The servers a command runs.
#[derive(Args)]
pub(crate) struct Selected {
    /// Servers to run (default: every server in the files); a config file given here is read as
    /// one, as with --config.
    #[arg(value_name = "SERVER|FILE")]
    names: Vec<String>,
    /// A server to run; repeatable, the same as naming it after the command.
    #[arg(long = "server", short = 's', value_name = "NAME")]
    more: Vec<String>,
}

impl Selected {
    /// The config files among the words.
    fn files(&self) -> Vec<PathBuf> {
        self.names
            .iter()
            .filter(|w| names_a_file(w))
            .map(PathBuf::from)
            .collect()
    }

    /// The config files among the words, and the server names.
    fn split(self) -> (Vec<PathBuf>, Vec<String>) {
        let (files, names): (Vec<String>, Vec<String>) =
            self.names.into_iter().partition(|w| names_a_file(w));
        (
            files.into_iter().map(PathBuf::from).collect(),
            names.into_iter().chain(self.more).collect(),
        )
    }
}

/// Whether a word given where a server name may go is a config file: it exists, or it has a
/// folder or a config file's extension (a server name has neither). `server.tool` of `call` has
/// no such extension.
pub(crate) fn names_a_file(word: &str) -> bool {
    let path = Path::new(word);
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["json", "jsonc", "toml", "yaml", "yml"].contains(&e));
    if word.contains("://") {
        // A resource's URI (`file:///a/b.json` included) is never a config file.
        return false;
    }
    extension || word.contains('/') || word.contains(std::path::MAIN_SEPARATOR) || path.exists()
}

#[derive(Args)]
pub(crate) struct ListCommand {
    #[command(flatten)]
    selected: Selected,
    #[command(flatten)]
    reading: Reading,
    /// One JSON document (statuses with their statistics, tool entries, diagnostics).
    #[arg(long)]
    json: bool,
    /// Format of the tool definitions in the JSON document.
    #[arg(long, default_value = "openai", value_parser = format_parser())]
    format: ToolFormat,
}

#[derive(Args)]
pub(crate) struct CallCommand {
    /// `SERVER TOOL` or `SERVER.TOOL` (or `TOOL` alone with one `--stdio`/`--url` server); a
    /// config file given before them is read as one, as with --config.
    #[arg(value_name = "SERVER TOOL", required = true, num_args = 1..)]
    words: Vec<String>,
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
    #[arg(long, default_value = "openai", value_parser = format_parser())]
    format: ToolFormat,
    /// Seconds to wait for the answer (default: the server's toolTimeoutSeconds).
    #[arg(long, value_name = "SECS", value_parser = seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    reading: Reading,
}

#[derive(Args)]
pub(crate) struct TestCommand {
    #[command(flatten)]
    selected: Selected,
    #[command(flatten)]
    reading: Reading,
    /// One JSON document (a `servers/test` report per server).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub(crate) struct DoctorCommand {
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
pub(crate) struct InspectCommand {
    /// A config file or directory in any supported dialect (or give them with --config).
    file: Option<PathBuf>,
    /// A server to start (repeatable; default: every server in the files).
    #[arg(long = "server", short = 's', value_name = "NAME")]
    servers: Vec<String>,
    /// Tool definition format.
    #[arg(long, default_value = "openai", value_parser = format_parser())]
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

#[derive(Args)]
pub(crate) struct ListingCommand {
    #[command(flatten)]
    selected: Selected,
    #[command(flatten)]
    reading: Reading,
    /// One JSON document (the items with their server, the servers' errors, diagnostics).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub(crate) struct ReadCommand {
    /// `SERVER URI` (or `URI` alone with one `--stdio`/`--url` server); a config file given
    /// before them is read as one.
    #[arg(value_name = "SERVER URI", required = true, num_args = 1..)]
    words: Vec<String>,
    /// Format the contents are converted to (as a tool result is).
    #[arg(long, default_value = "openai", value_parser = format_parser())]
    format: ToolFormat,
    /// One JSON document (the contents, their text and the converted output).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    reading: Reading,
}

#[derive(Args)]
pub(crate) struct PromptCommand {
    /// `SERVER NAME` (or `NAME` alone with one `--stdio`/`--url` server); a config file given
    /// before them is read as one.
    #[arg(value_name = "SERVER NAME", required = true, num_args = 1..)]
    words: Vec<String>,
    /// An argument of the prompt, KEY=VALUE; repeatable.
    #[arg(long = "arg", short = 'a', value_name = "KEY=VALUE")]
    pairs: Vec<String>,
    /// Format the messages are converted to in the JSON document's `output`.
    #[arg(long, default_value = "openai", value_parser = format_parser())]
    format: ToolFormat,
    /// One JSON document (the messages and their converted output).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    reading: Reading,
}

/// The words of `read`/`prompt` that are not config files: `[SERVER] ITEM`.
fn server_and_item(words: &[String]) -> Result<(Option<String>, String), String> {
    let rest: Vec<&String> = words.iter().filter(|w| !names_a_file(w)).collect();
    match rest.as_slice() {
        [item] => Ok((None, (*item).clone())),
        [server, item] => Ok((Some((*server).clone()), (*item).clone())),
        _ => Err(format!(
            "expected SERVER and one item, got: {}",
            words.join(" ")
        )),
    }
}

#[derive(Args)]
pub(crate) struct LoginCommand {
    /// The server, by its name in the configuration (not needed with one `--url`).
    server: Option<String>,
    #[command(flatten)]
    reading: Reading,
}

/// `pin`'s words.
#[derive(Args)]
pub(crate) struct PinCommand {
    /// The server, by its name in the configuration (not needed with one `--stdio`).
    server: Option<String>,
    #[command(flatten)]
    reading: Reading,
}

/// What the binary hands a command besides its own flags.
pub(crate) struct Globals {
    /// `--config` files, in order.
    pub configs: Vec<PathBuf>,
    pub cache: Option<SchemaCache>,
    pub stop: tokio_util::sync::CancellationToken,
}

/// Runs a command for people to its exit status.
pub(crate) async fn run(command: People, globals: Globals) -> Exit {
    match context(&command, globals) {
        Ok(context) => dispatch(command, &context).await,
        Err(why) => usage(&why),
    }
}

/// Where a command's servers come from (its reading flags, the config files named on the line,
/// the inline servers) and what it runs with.
fn context(command: &People, globals: Globals) -> Result<Context, String> {
    let reading = command.reading();
    let inputs = inputs(&reading.inputs)?;
    let ad_hoc = ad_hoc::candidates(&reading.given(), &reading.inline_names)?;
    let mut files = globals.configs;
    // Config files given where server names go, after the --config ones.
    files.extend(command.named_files());
    Ok(Context {
        sources: Sources {
            files,
            dialect: reading.dialect,
            inputs,
            ad_hoc,
            places: Places::of_this_process(),
            quiet: reading.quiet,
            allow_project: reading.allow_project,
        },
        cache: globals.cache,
        stop: globals.stop,
        quiet: reading.quiet,
    })
}

/// Each command handed to its runner with its own arguments.
async fn dispatch(command: People, context: &Context) -> Exit {
    match command {
        People::List(c) => {
            let args = ListArgs {
                servers: c.selected.split().1,
                format: c.format,
                json: c.json,
            };
            list::run(context, args).await
        }
        People::Call(c) => match c.into_args() {
            Ok(args) => call::run(context, args).await,
            Err(why) => usage(why),
        },
        People::Test(c) => {
            let args = TestArgs {
                servers: c.selected.split().1,
                json: c.json,
            };
            trial::run(context, args).await
        }
        People::Doctor(c) => {
            let args = DoctorArgs {
                servers: c.selected.split().1,
                json: c.json,
                slow: c.slow,
            };
            doctor::run(context, args).await
        }
        People::Inspect(c) => {
            let args = InspectArgs {
                file: c.file,
                servers: c.servers,
                format: c.format,
                strict: c.strict,
                json: c.json,
            };
            inspect::run(context, args).await
        }
        People::Resources(c) => {
            surface::list(context, Listing::Resources, &c.selected.split().1, c.json).await
        }
        People::Prompts(c) => {
            surface::list(context, Listing::Prompts, &c.selected.split().1, c.json).await
        }
        People::Read(c) => match server_and_item(&c.words) {
            Ok((server, uri)) => {
                surface::one(context, server, One::Read { uri }, c.format, c.json).await
            }
            Err(why) => usage(&why),
        },
        People::Prompt(c) => match server_and_item(&c.words) {
            Ok((server, name)) => {
                let ask = One::Prompt {
                    name,
                    pairs: c.pairs,
                };
                surface::one(context, server, ask, c.format, c.json).await
            }
            Err(why) => usage(&why),
        },
        People::Login(c) => match one_server(c.server, context) {
            Some(server) => login::run(context, LoginArgs { server }).await,
            None => usage("name the server to log in to (or give one --url)"),
        },
        People::Pin(c) => match one_server(c.server, context) {
            Some(server) => pin::run(context, PinArgs { server }).await,
            None => usage("name the server to pin (or give one --stdio)"),
        },
    }
}

impl People {
    /// The flags every command reads its servers with.
    fn reading(&self) -> &Reading {
        match self {
            People::List(c) => &c.reading,
            People::Call(c) => &c.reading,
            People::Test(c) => &c.reading,
            People::Doctor(c) => &c.reading,
            People::Inspect(c) => &c.reading,
            People::Login(c) => &c.reading,
            People::Pin(c) => &c.reading,
            People::Resources(c) | People::Prompts(c) => &c.reading,
            People::Read(c) => &c.reading,
            People::Prompt(c) => &c.reading,
        }
    }

    /// The config files named where the command's server names or words go.
    fn named_files(&self) -> Vec<PathBuf> {
        match self {
            People::List(c) => c.selected.files(),
            People::Test(c) => c.selected.files(),
            People::Doctor(c) => c.selected.files(),
            People::Resources(c) | People::Prompts(c) => c.selected.files(),
            People::Call(c) => files_among(&c.words),
            People::Read(c) => files_among(&c.words),
            People::Prompt(c) => files_among(&c.words),
            People::Inspect(_) | People::Login(_) | People::Pin(_) => Vec::new(),
        }
    }
}

/// The words that name config files.
fn files_among(words: &[String]) -> Vec<PathBuf> {
    words
        .iter()
        .filter(|w| names_a_file(w))
        .map(PathBuf::from)
        .collect()
}

impl CallCommand {
    /// `call`'s arguments: `--json` with a value is the arguments, without one the output's form.
    fn into_args(self) -> Result<CallArgs, &'static str> {
        let (json_output, json_arguments) = match self.json {
            None => (false, None),
            Some(None) => (true, None),
            Some(Some(arguments)) => (false, Some(arguments)),
        };
        if json_arguments.is_some() && self.arguments.is_some() {
            return Err("give the arguments once: --json '{…}' or --args '{…}'");
        }
        Ok(CallArgs {
            words: self
                .words
                .into_iter()
                .filter(|w| !names_a_file(w))
                .collect(),
            pairs: self.pairs,
            arguments: json_arguments.or(self.arguments),
            raw: self.raw,
            format: self.format,
            timeout: self.timeout,
            json: json_output,
        })
    }
}

/// The server `login` or `pin` acts on: the one named, else the only inline one.
fn one_server(named: Option<String>, context: &Context) -> Option<String> {
    match (named, context.sources.ad_hoc.as_slice()) {
        (Some(server), _) => Some(server),
        (None, [only]) => Some(only.name.clone()),
        (None, _) => None,
    }
}

/// `--format`'s values, listed in the help and checked by clap.
fn format_parser() -> impl clap::builder::TypedValueParser<Value = ToolFormat> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(ToolFormat::ALL.map(ToolFormat::as_str))
        .try_map(|text| text.parse::<ToolFormat>())
}

/// The command line with `call`'s `--json` read as a flag when the word after it is not the
/// arguments object: `call --json everything echo` prints the result as JSON instead of taking
/// `everything` for the arguments. The flag moves to the end, where it takes no value.
pub(crate) fn normalize(mut args: Vec<OsString>) -> Vec<OsString> {
    let Some(call) = args.iter().position(|a| a == "call") else {
        return args;
    };
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let mut moved = false;
    let mut i = call + 1;
    while i < end.min(args.len()) {
        let is_arguments = |w: &OsString| {
            let w = w.to_string_lossy();
            w.trim_start().starts_with('{') || w == "-"
        };
        if args[i] == "--json" && args.get(i + 1).is_some_and(|next| !is_arguments(next)) {
            args.remove(i);
            moved = true;
            continue;
        }
        i += 1;
    }
    if moved {
        let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
        args.insert(end, OsString::from("--json"));
    }
    args
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
