//! The servers' surface beyond tools, for people: `resources` and `prompts` (every page of the
//! listing over the selected servers, resource templates included), `read SERVER URI` (a
//! resource's contents converted as a tool result is) and `prompt SERVER NAME --arg k=v` (a
//! prompt's messages). Each starts the servers as `list` does and stops them before it exits.

use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::exit::Exit;
use super::output::{pretty, stderr_line, stdout, usage};
use super::progress::Progress;
use super::run::{self, Context};
use super::selection::{choose, read_all, Selection};
use super::table::{Align, Table};
use crate::convert::{self, ToolFormat};
use crate::error::Error;
use crate::limits;
use crate::supervisor::Registry;

/// Which listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listing {
    Resources,
    Prompts,
}

/// `resources` / `prompts` over `servers` (all when empty).
pub(crate) async fn list(context: &Context, what: Listing, servers: &[String], json: bool) -> Exit {
    let selection = match read_all(&context.sources).await {
        Ok(read) => choose(read, servers),
        Err(e) => return usage(&e.to_string()),
    };
    let registry = run::registry(context, ToolFormat::default(), false);
    let outcome = run::until_stopped(&context.stop, async {
        let exit = start(context, &registry, &selection).await;
        let pages = match what {
            Listing::Resources => {
                let resources = all_pages(&registry, "resources").await;
                let templates = all_pages(&registry, "resourceTemplates").await;
                (resources, Some(templates))
            }
            Listing::Prompts => (all_pages(&registry, "prompts").await, None),
        };
        (exit, pages)
    })
    .await;
    registry.shutdown().await;
    let Some((exit, ((items, errors), templates))) = outcome else {
        return Exit::Interrupted;
    };
    let (templates, template_errors) = templates.unwrap_or_default();
    let errors: Vec<Value> = errors.into_iter().chain(template_errors).collect();
    let exit = if errors.is_empty() {
        exit
    } else {
        exit.and(Exit::ServerFailed)
    };
    if json {
        let mut doc = Map::new();
        match what {
            Listing::Resources => {
                doc.insert("resources".into(), Value::Array(items));
                doc.insert("resourceTemplates".into(), Value::Array(templates));
            }
            Listing::Prompts => {
                doc.insert("prompts".into(), Value::Array(items));
            }
        }
        doc.insert("errors".into(), Value::Array(errors));
        doc.insert("diagnostics".into(), json!(selection.diagnostics));
        doc.insert("unknownServers".into(), json!(selection.unknown));
        stdout(&format!("{}\n", pretty(&Value::Object(doc))));
        return exit;
    }
    let mut out = match what {
        Listing::Resources => resources_text(&items, &templates),
        Listing::Prompts => prompts_text(&items),
    };
    for e in &errors {
        let _ = writeln!(
            out,
            "{}: {}",
            e["server"].as_str().unwrap_or("?"),
            e["error"]["message"].as_str().unwrap_or("failed")
        );
    }
    out.push_str(&run::diagnostics_text(&selection));
    stdout(&out);
    exit
}

/// What `read` and `prompt` ask for.
pub(crate) enum One {
    /// `read SERVER URI`.
    Read { uri: String },
    /// `prompt SERVER NAME --arg k=v`.
    Prompt { name: String, pairs: Vec<String> },
}

/// `read` or `prompt`: `server` is started alone, asked once, stopped.
pub(crate) async fn one(
    context: &Context,
    server: Option<String>,
    ask: One,
    format: ToolFormat,
    json: bool,
) -> Exit {
    let read = match read_all(&context.sources).await {
        Ok(read) => read,
        Err(e) => return usage(&e.to_string()),
    };
    let all = &read.servers;
    let server = match server {
        Some(s) => s,
        None if all.len() == 1 && context.sources.ad_hoc.len() == 1 => all[0].name.clone(),
        None => return usage("name the server (or give one --stdio/--url server)"),
    };
    let arguments = match &ask {
        One::Prompt { pairs, .. } => match prompt_arguments(pairs) {
            Ok(a) => a,
            Err(why) => return usage(&why),
        },
        One::Read { .. } => Map::new(),
    };
    let selection = choose(read, std::slice::from_ref(&server));
    if selection.servers.is_empty() {
        stderr_line(run::diagnostics_text(&selection).trim_end());
        return Exit::ConfigInvalid;
    }
    let registry = run::registry(context, format, false);
    let outcome =
        run::until_stopped(&context.stop, async {
            let exit = start(context, &registry, &selection).await;
            if exit != Exit::Ok {
                return Err(exit);
            }
            Ok(match &ask {
                One::Read { uri } => registry.read_resource(&server, uri).await.map(|read| {
                    let converted = convert::convert_owned(format, read.result);
                    let mut doc = json!({"server": read.server, "uri": read.uri,
                    "contents": read.contents, "text": converted.text, "output": converted.output});
                    if let Some(t) = &read.truncated {
                        doc["truncated"] = t.to_json();
                    }
                    doc
                }),
                One::Prompt { name, .. } => registry
                    .get_prompt(&server, name, &arguments)
                    .await
                    .map(|got| {
                        json!({"server": got.server, "name": got.name,
                        "description": got.description,
                        "output": convert::prompts::messages(format, &got.messages),
                        "messages": got.messages})
                    }),
            })
        })
        .await;
    registry.shutdown().await;
    match outcome {
        None => Exit::Interrupted,
        Some(Err(exit)) => exit,
        Some(Ok(Err(e))) => failed(&e, json),
        Some(Ok(Ok(doc))) => {
            if json {
                stdout(&format!("{}\n", pretty(&doc)));
            } else if let Some(messages) = doc["messages"].as_array() {
                stdout(&messages_text(messages));
            } else {
                let mut text = doc["text"].as_str().unwrap_or("").to_owned();
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                stdout(&text);
            }
            Exit::Ok
        }
    }
}

/// Starts the selected servers (progress on a terminal); a server that did not start is said on
/// stderr and makes the status 1.
async fn start(context: &Context, registry: &Arc<Registry>, selection: &Selection) -> Exit {
    let mut progress = Progress::new(
        selection.servers.iter().map(|c| c.name.as_str()),
        context.quiet,
    );
    let outcomes = run::start_all(registry, &selection.servers, &mut progress).await;
    let mut exit = selection.exit();
    for (c, outcome) in selection.servers.iter().zip(outcomes) {
        match outcome {
            Ok(status) if run::started(&status) => {}
            Ok(status) => {
                stderr_line(&format!(
                    "mcp-sidecar: server `{}` did not start: {}",
                    c.name,
                    run::status_problem(&status)
                ));
                exit = exit.and(Exit::ServerFailed);
            }
            Err(e) => {
                stderr_line(&format!("mcp-sidecar: server `{}`: {}", c.name, e.message));
                exit = exit.and(Exit::ConfigInvalid);
            }
        }
    }
    exit
}

/// Every page of a listing (`key`: `resources`, `resourceTemplates` or `prompts`) over the
/// started servers: its items and the servers' errors.
async fn all_pages(registry: &Arc<Registry>, key: &str) -> (Vec<Value>, Vec<Value>) {
    let (mut items, mut errors) = (Vec::new(), Vec::new());
    let mut cursor: Option<String> = None;
    for _ in 0..limits::CLI_SURFACE_MAX_PAGES {
        let page = match key {
            "resources" => registry.resources(None, cursor.as_deref()).await,
            "resourceTemplates" => registry.resource_templates(None, cursor.as_deref()).await,
            _ => registry.prompts(None, cursor.as_deref()).await,
        };
        let page = match page {
            Ok(p) => p,
            Err(e) => {
                errors.push(json!({"server": "", "error": e.to_rpc_error()}));
                break;
            }
        };
        items.extend(page[key].as_array().cloned().unwrap_or_default());
        errors.extend(page["errors"].as_array().cloned().unwrap_or_default());
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    (items, errors)
}

fn resources_text(resources: &[Value], templates: &[Value]) -> String {
    let mut out = String::new();
    if resources.is_empty() && templates.is_empty() {
        out.push_str("no resources\n");
        return out;
    }
    let cell = |v: &Value, key: &str| v[key].as_str().unwrap_or("").to_owned();
    if !resources.is_empty() {
        let mut t = Table::new(&[
            ("SERVER", Align::Left),
            ("URI", Align::Left),
            ("NAME", Align::Left),
            ("MIME", Align::Left),
        ]);
        for r in resources {
            t.row(vec![
                cell(r, "server"),
                cell(r, "uri"),
                cell(r, "name"),
                cell(r, "mimeType"),
            ]);
        }
        out.push_str(&t.render());
    }
    if !templates.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        let mut t = Table::new(&[
            ("SERVER", Align::Left),
            ("URI TEMPLATE", Align::Left),
            ("NAME", Align::Left),
            ("DESCRIPTION", Align::Left),
        ]);
        for r in templates {
            t.row(vec![
                cell(r, "server"),
                cell(r, "uriTemplate"),
                cell(r, "name"),
                run::first_line(r["description"].as_str().unwrap_or("")).to_owned(),
            ]);
        }
        out.push_str(&t.render());
    }
    out
}

/// Each prompt as `server  name(arg, optional?)  description`.
fn prompts_text(prompts: &[Value]) -> String {
    if prompts.is_empty() {
        return "no prompts\n".to_owned();
    }
    let mut t = Table::new(&[
        ("SERVER", Align::Left),
        ("PROMPT", Align::Left),
        ("DESCRIPTION", Align::Left),
    ]);
    for p in prompts {
        let arguments: Vec<String> = p["arguments"]
            .as_array()
            .map(|args| {
                args.iter()
                    .map(|a| {
                        let name = a["name"].as_str().unwrap_or("?");
                        if a["required"] == true {
                            name.to_owned()
                        } else {
                            format!("{name}?")
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let description = p["description"]
            .as_str()
            .or(p["title"].as_str())
            .unwrap_or("");
        t.row(vec![
            p["server"].as_str().unwrap_or("").to_owned(),
            format!(
                "{}({})",
                p["name"].as_str().unwrap_or("?"),
                arguments.join(", ")
            ),
            run::first_line(description).to_owned(),
        ]);
    }
    t.render()
}

/// A prompt's messages, each as `role: text` (`[image image/png]` for what is not text).
fn messages_text(messages: &[Value]) -> String {
    let mut out = String::new();
    for m in messages {
        let role = m["role"].as_str().unwrap_or("?");
        let content = &m["content"];
        let text = match content["type"].as_str() {
            Some("text") => content["text"].as_str().unwrap_or("").to_owned(),
            Some(other) => format!(
                "[{other}{}]",
                content["mimeType"]
                    .as_str()
                    .map(|m| format!(" {m}"))
                    .unwrap_or_default()
            ),
            None => pretty(content),
        };
        let _ = writeln!(out, "{role}: {text}");
    }
    out
}

/// `--arg k=v` pairs of a prompt: its arguments are strings.
fn prompt_arguments(pairs: &[String]) -> Result<Map<String, Value>, String> {
    pairs
        .iter()
        .map(|p| match p.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), Value::String(v.to_owned()))),
            _ => Err(format!("`--arg {p}` is not KEY=VALUE")),
        })
        .collect()
}

/// A failed read or prompt: its message on stderr (and the error object with `--json`).
fn failed(e: &Error, json: bool) -> Exit {
    if json {
        stdout(&format!(
            "{}\n",
            pretty(&json!({ "error": e.to_rpc_error() }))
        ));
    }
    stderr_line(&format!("mcp-sidecar: failed ({}): {}", e.code, e.message));
    Exit::CallFailed
}
