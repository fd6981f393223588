//! `mcp-sidecar call SERVER TOOL` (or `SERVER.TOOL`): start one server, call one of its tools
//! with arguments given as JSON (`--json '{…}'`) and/or `--arg KEY=VALUE` pairs typed by the
//! tool's schema ([`super::arguments`]), print the result converted for a provider (`--format`,
//! the text form of `openai` by default) — and the server's own MCP result with `--raw` — then
//! stop it. On a terminal, the server's progress (and a line every few seconds of silence) shows
//! on stderr while the tool runs.

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::io::AsyncReadExt;

use super::arguments;
use super::exit::Exit;
use super::output::{pretty, stderr_line, stdout, usage, Paint};
use super::progress::Progress;
use super::run::{self, Context};
use super::selection::{choose, read_all};
use crate::config::diagnostics::did_you_mean;
use crate::convert::{self, ToolFormat};
use crate::error::Error;
use crate::limits;
use crate::names::{ServerName, ToolName};
use crate::supervisor::{CallOptions, CallOutcome, Registry};

pub(crate) struct CallArgs {
    /// `SERVER TOOL`, `SERVER.TOOL`, or `TOOL` with one server given inline.
    pub words: Vec<String>,
    /// `--arg` pairs, applied in order over `arguments`.
    pub pairs: Vec<String>,
    /// The arguments object as JSON text (`-`: read it from stdin).
    pub arguments: Option<String>,
    pub raw: bool,
    pub format: ToolFormat,
    pub timeout: Option<Duration>,
    /// The whole call result as one JSON document.
    pub json: bool,
}

/// What the call came to, before the server is stopped.
enum Outcome {
    Done(Box<CallOutcome>),
    Failed(Error),
    /// A problem found before calling: the status to exit with, the line to print.
    Refused(Exit, String),
}

pub(crate) async fn run(context: &Context, mut args: CallArgs) -> Exit {
    if args.arguments.as_deref() == Some("-") {
        match read_stdin().await {
            Ok(text) => args.arguments = Some(text),
            Err(why) => return usage(&why),
        }
    }
    let read = match read_all(&context.sources).await {
        Ok(read) => read,
        Err(e) => return usage(&e.to_string()),
    };
    // A server withheld is still a name: `call a.tool` then says why `a` did not start.
    let names: Vec<&str> = read
        .servers
        .iter()
        .map(|c| c.name.as_str())
        .chain(read.withheld.iter().map(|w| w.name.as_str()))
        .collect();
    let target = match target(&args.words, &names, context.sources.ad_hoc.len()) {
        Ok(t) => t,
        Err(why) => return usage(&why),
    };
    let selection = choose(read, &[target.server.to_string()]);
    if selection.servers.is_empty() {
        stderr_line(run::diagnostics_text(&selection).trim_end());
        return Exit::ConfigInvalid;
    }
    for d in selection.diagnostics.iter().filter(|d| !d.is_error()) {
        stderr_line(&run::diagnostic_line(d));
    }
    let registry = run::registry(context, args.format, false);
    let outcome = run::until_stopped(
        &context.stop,
        call(context, &registry, &selection.servers, &target, &args),
    )
    .await;
    registry.shutdown().await;
    match outcome {
        None => Exit::Interrupted,
        Some(Outcome::Refused(exit, why)) => {
            stderr_line(&format!("mcp-sidecar: {why}"));
            exit
        }
        Some(Outcome::Failed(e)) => {
            report_failure(&e, args.json);
            Exit::CallFailed
        }
        Some(Outcome::Done(done)) => report_success(context, *done, &args),
    }
}

/// The server and the tool a call names.
pub(crate) struct Target {
    pub server: ServerName,
    pub tool: ToolName,
}

/// `SERVER TOOL`; `SERVER.TOOL` (split at the dot after a server that exists, else the first
/// one: a server name holds no dot, a tool name may); `TOOL` alone when one server was given with
/// `--stdio`/`--url`.
pub(crate) fn target(words: &[String], servers: &[&str], inline: usize) -> Result<Target, String> {
    let pair = |server: &str, tool: &str| Target {
        server: ServerName::from(server),
        tool: ToolName::from(tool),
    };
    match words {
        [server, tool] => Ok(pair(server, tool)),
        [word] => {
            let at_a_server = word
                .match_indices('.')
                .map(|(i, _)| i)
                .find(|i| servers.contains(&&word[..*i]));
            if let Some(i) = at_a_server.or_else(|| word.find('.')) {
                return Ok(pair(&word[..i], &word[i + 1..]));
            }
            if inline == 1 && servers.len() == 1 {
                return Ok(pair(servers[0], word));
            }
            Err(format!(
                "name the server and the tool: `call SERVER {word}` or `call SERVER.{word}`"
            ))
        }
        _ => Err(format!(
            "`call` takes SERVER TOOL (or SERVER.TOOL), not {} words: {}",
            words.len(),
            words.join(" ")
        )),
    }
}

/// Starts the server, finds the tool, builds the arguments, calls.
async fn call(
    context: &Context,
    registry: &std::sync::Arc<Registry>,
    servers: &[crate::config::dialects::Candidate],
    target: &Target,
    args: &CallArgs,
) -> Outcome {
    let mut progress = Progress::new(servers.iter().map(|c| c.name.as_str()), context.quiet);
    let status = match run::start_all(registry, servers, &mut progress).await.pop() {
        Some(Ok(status)) => status,
        Some(Err(e)) => return Outcome::Refused(Exit::ConfigInvalid, e.message),
        None => return Outcome::Refused(Exit::ConfigInvalid, "nothing to start".into()),
    };
    if !run::started(&status) {
        let mut why = format!(
            "server `{}` did not start: {}",
            status.name,
            run::status_problem(&status)
        );
        why.push('\n');
        why.push_str(&run::tail_lines(&status.stderr_tail, 10, "  "));
        return Outcome::Refused(Exit::ServerFailed, why.trim_end().to_owned());
    }
    let only = [target.server.to_string()];
    let entries = match registry.tools(Some(ToolFormat::Mcp), Some(false), Some(&only)) {
        Ok(listing) => listing.tools,
        Err(e) => return Outcome::Failed(e),
    };
    let Some(entry) = entries.iter().find(|e| e["tool"] == target.tool.as_str()) else {
        return Outcome::Refused(
            Exit::CallFailed,
            no_such_tool(&target.server, &target.tool, &entries),
        );
    };
    let schema = &entry["definition"]["inputSchema"];
    let arguments = match arguments::build(args.arguments.as_deref(), &args.pairs, schema) {
        Ok(a) => a,
        Err(e) => return Outcome::Refused(Exit::Usage, e.to_string()),
    };
    let name = entry["name"].as_str().unwrap_or_default();
    let mut options = CallOptions {
        timeout: args.timeout,
        ..CallOptions::default()
    };
    let watch = terminal_progress(context).then(|| {
        let (sink, watch) = tokio::sync::watch::channel(None);
        options.progress = Some(sink);
        watch
    });
    let call = registry.call_tool_with(name, Some(arguments), options);
    let done = match watch {
        None => call.await,
        Some(mut watch) => {
            let label = format!("{}/{}", target.server, target.tool);
            let mut last = None;
            let done = {
                let shown = show_progress(&mut watch, &label, &mut last);
                tokio::pin!(call, shown);
                tokio::select! {
                    done = &mut call => done,
                    () = &mut shown => call.await,
                }
            };
            // The answer can come in the same read as the last progress: that one is shown too.
            let latest = watch.borrow().clone();
            if let Some(p) = latest.as_ref().filter(|_| latest != last) {
                stderr_line(&progress_line(&label, p));
            }
            done
        }
    };
    match done {
        Ok(done) => Outcome::Done(Box::new(done)),
        Err(e) => Outcome::Failed(e),
    }
}

/// Whether progress lines go to stderr: a terminal, and no `--quiet`.
fn terminal_progress(context: &Context) -> bool {
    !context.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr())
}

/// How long a tool may run without a word before a line says it still does.
const SILENCE_NOTE: Duration = Duration::from_secs(5);

/// A line for each progress notification of the call (`progress/total message`), and one after
/// each [`SILENCE_NOTE`] without any; ends when the call drops its end of the watch.
async fn show_progress(
    watch: &mut tokio::sync::watch::Receiver<crate::mcp::progress::Progress>,
    label: &str,
    last: &mut crate::mcp::progress::Progress,
) {
    let started = std::time::Instant::now();
    loop {
        tokio::select! {
            changed = watch.changed() => {
                if changed.is_err() {
                    return;
                }
                let latest = watch.borrow_and_update().clone();
                if let Some(p) = &latest {
                    stderr_line(&progress_line(label, p));
                }
                *last = latest;
            }
            () = tokio::time::sleep(SILENCE_NOTE) => {
                stderr_line(&format!(
                    "{label}: still running after {}",
                    super::table::duration(started.elapsed())
                ));
            }
        }
    }
}

/// `server/tool: 3/10 copying` from a progress notification's params.
fn progress_line(label: &str, p: &Value) -> String {
    let number = |v: &Value| match v.as_f64() {
        Some(n) if n.fract() == 0.0 => format!("{n:.0}"),
        Some(n) => format!("{n}"),
        None => "?".to_owned(),
    };
    let mut line = format!("{label}: {}", number(&p["progress"]));
    if !p["total"].is_null() {
        line.push('/');
        line.push_str(&number(&p["total"]));
    }
    if let Some(message) = p["message"].as_str() {
        line.push(' ');
        line.push_str(message);
    }
    line
}

/// TOOL_NOT_FOUND for people: the nearest name, and every tool the server has.
fn no_such_tool(server: &ServerName, tool: &ToolName, entries: &[Value]) -> String {
    let names: Vec<&str> = entries.iter().filter_map(|e| e["tool"].as_str()).collect();
    let hint = did_you_mean(tool.as_str(), &names)
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
    format!(
        "server `{server}` has no tool `{tool}`{hint}; its tools: {}",
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    )
}

/// Prints the converted result (and the raw one); the tool's own `isError` exits 5.
fn report_success(context: &Context, done: CallOutcome, args: &CallArgs) -> Exit {
    let raw = args.raw.then(|| done.result.clone());
    let converted = convert::convert_owned(args.format, done.result);
    let is_error = converted.is_error;
    if args.json {
        let mut doc = Map::new();
        doc.insert("isError".into(), Value::Bool(is_error));
        doc.insert("content".into(), converted.content);
        if let Some(structured) = converted.structured_content {
            doc.insert("structuredContent".into(), structured);
        }
        doc.insert("text".into(), Value::String(converted.text));
        doc.insert("output".into(), converted.output);
        doc.insert("server".into(), Value::String(done.server.to_string()));
        doc.insert("tool".into(), Value::String(done.tool.to_string()));
        doc.insert(
            "durationMs".into(),
            json!(done.duration.as_secs_f64() * 1000.0),
        );
        if let Some(t) = &done.truncated {
            doc.insert("truncated".into(), t.to_json());
        }
        if let Some(raw) = raw {
            doc.insert("raw".into(), raw);
        }
        stdout(&format!("{}\n", pretty(&Value::Object(doc))));
    } else {
        let mut text = match converted.output {
            Value::String(s) => s,
            other => pretty(&other),
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if let Some(raw) = raw {
            text.push_str("\n--- raw MCP result ---\n");
            text.push_str(&pretty(&raw));
            text.push('\n');
        }
        stdout(&text);
    }
    if !context.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let paint = Paint::for_stderr();
        let verdict = if is_error {
            paint.warn("the tool reported an error (isError)")
        } else {
            paint.good("ok")
        };
        stderr_line(&format!(
            "{}/{}: {verdict} in {}",
            done.server,
            done.tool,
            super::table::duration(done.duration)
        ));
    }
    if is_error {
        Exit::ToolError
    } else {
        Exit::Ok
    }
}

/// A failed call: its message, its argument violations and the server's stderr tail on stderr;
/// with `--json`, the error object on stdout as well.
fn report_failure(e: &Error, json: bool) {
    if json {
        stdout(&format!(
            "{}\n",
            pretty(&json!({ "error": e.to_rpc_error() }))
        ));
    }
    stderr_line(&format!(
        "mcp-sidecar: call failed ({}): {}",
        e.code, e.message
    ));
    if let Some(violations) = e.details.get("violations").and_then(Value::as_array) {
        for v in violations {
            stderr_line(&format!(
                "  {}: {}",
                v["path"].as_str().unwrap_or("/"),
                v["message"].as_str().unwrap_or("")
            ));
        }
    }
    if let Some(tail) = e.details.get("stderrTail").and_then(Value::as_str) {
        stderr_line(run::tail_lines(tail, 10, "  ").trim_end());
    }
}

/// `--json -`: the arguments from stdin, within the host line bound.
async fn read_stdin() -> Result<String, String> {
    let mut text = String::new();
    let limit = limits::DEFAULT_HOST_LINE_BYTES as u64;
    tokio::io::stdin()
        .take(limit + 1)
        .read_to_string(&mut text)
        .await
        .map_err(|e| format!("cannot read the arguments from stdin: {e}"))?;
    if text.len() as u64 > limit {
        return Err(format!("the arguments on stdin are over {limit} bytes"));
    }
    Ok(text)
}
