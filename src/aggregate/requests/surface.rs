//! What the aggregate serves beyond tools, from every server through the registry: `resources/list`,
//! `resources/templates/list`, `prompts/list` (one page over the ready servers, the registry's
//! opaque cursor passed through), `resources/read`, `prompts/get`, `completion/complete`, and the
//! legacy `resources/subscribe`/`unsubscribe` (2026-07-28: `subscriptions/listen`, `listen`).
//! Results keep MCP's shapes — no provider conversion — with the servers' secrets masked (the
//! registry masks them, as for a host). While a server reads, gets a prompt or completes, its
//! questions are asked of the client whose request it is, as during a tool call (`answering`).
//!
//! Naming (`docs/mcp-mode.md`): a prompt is exposed as `mcp__<server>__<prompt>`, by the
//! tools' name template; a resource keeps its URI, and the server that owns it is the one that
//! listed it (`owners`; the first by name when several list it). A URI no listing showed (one made
//! from a template, or read before any listing) is tried on each ready server in name order.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::answering::{self, Step};
use super::request::Request;
use super::tools::TRUNCATED_META;
use super::wire::WireError;
use crate::aggregate::shared::Aggregate;
use crate::error::{Error, ErrorCode};
use crate::names::ServerName;
use crate::supervisor::{Registry, ServerState};

/// The lists beyond tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum List {
    Resources,
    ResourceTemplates,
    Prompts,
}

impl List {
    fn key(self) -> &'static str {
        match self {
            List::Resources => "resources",
            List::ResourceTemplates => "resourceTemplates",
            List::Prompts => "prompts",
        }
    }
}

/// One page of `list` over every ready server: `{<items>, nextCursor?}`, each item an MCP item (a
/// prompt under its exposed name). A server that failed to list is left out (and logged); the
/// listing goes on with the others.
pub(crate) async fn list(
    r: &Request<'_>,
    list: List,
    params: Option<&Value>,
) -> Result<Value, WireError> {
    let cursor = cursor_of(params)?;
    let aggregate = r.aggregate;
    aggregate.before_listing().await;
    let page = fetch(aggregate.registry(), list, cursor).await?;
    Ok(mcp_page(aggregate, list, page, &|server| r.may_use(server)))
}

fn cursor_of(params: Option<&Value>) -> Result<Option<&str>, WireError> {
    match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(cursor)) => Ok(Some(cursor.as_str())),
        Some(other) => Err(WireError::invalid_params(format!(
            "`cursor` must be a string, not {other}"
        ))
        .with_data(json!({"field": "cursor"}))),
    }
}

async fn fetch(registry: &Registry, list: List, cursor: Option<&str>) -> Result<Value, Error> {
    match list {
        List::Resources => registry.resources(None, cursor).await,
        List::ResourceTemplates => registry.resource_templates(None, cursor).await,
        List::Prompts => registry.prompts(None, cursor).await,
    }
}

/// The registry's page as an MCP page: the `server` tag each item carries goes (its owner is
/// remembered instead), prompts take their exposed names, `errors` go to the log. Items of servers
/// the client may not use are left out (their owners still remembered).
fn mcp_page(
    aggregate: &Aggregate,
    list: List,
    mut page: Value,
    may_use: &dyn Fn(&str) -> bool,
) -> Value {
    if let Some(errors) = page.get("errors") {
        tracing::warn!(list = list.key(), %errors, "some servers could not be listed");
    }
    let items = match page.get_mut(list.key()).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let items: Vec<Value> = items
        .into_iter()
        .filter_map(|item| mcp_item(aggregate, list, item, may_use))
        .collect();
    let mut out = Map::new();
    out.insert(list.key().into(), Value::Array(items));
    if let Some(next) = page.get("nextCursor").filter(|c| c.is_string()) {
        out.insert("nextCursor".into(), next.clone());
    }
    Value::Object(out)
}

fn mcp_item(
    aggregate: &Aggregate,
    list: List,
    item: Value,
    may_use: &dyn Fn(&str) -> bool,
) -> Option<Value> {
    let Value::Object(mut item) = item else {
        return None;
    };
    let Some(Value::String(server)) = item.remove("server") else {
        return None;
    };
    let text = |item: &Map<String, Value>, key: &str| item.get(key)?.as_str().map(str::to_owned);
    match list {
        List::Resources => aggregate
            .owners()
            .saw_resource(&text(&item, "uri")?, &server),
        List::ResourceTemplates => aggregate
            .owners()
            .saw_resource(&text(&item, "uriTemplate")?, &server),
        List::Prompts => {
            let prompt = text(&item, "name")?;
            let exposed = prompt_name(aggregate.registry(), &server, &prompt);
            aggregate.owners().saw_prompt(&exposed, &server, &prompt);
            item.insert("name".into(), Value::String(exposed));
        }
    }
    may_use(&server).then_some(Value::Object(item))
}

/// The name a prompt of `server` is exposed under: the tools' template, made valid and short
/// enough the same way (a hash suffix when it has to be).
fn prompt_name(registry: &Registry, server: &str, prompt: &str) -> String {
    let names = &registry.settings().names;
    names
        .assign(&[(&ServerName::from(server), prompt)])
        .pop()
        .unwrap_or_else(|| names.render(server, prompt))
}

/// Pages through a whole list, learning who owns what; bounded by the registry's caps on pages
/// per server.
async fn learn(aggregate: &Aggregate, list: List) {
    let mut cursor: Option<String> = None;
    loop {
        let page = match fetch(aggregate.registry(), list, cursor.as_deref()).await {
            Ok(page) => page,
            Err(e) => {
                tracing::debug!(
                    list = list.key(),
                    "listing to find an owner failed: {}",
                    e.message
                );
                return;
            }
        };
        let page = mcp_page(aggregate, list, page, &|_| true);
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => return,
        }
    }
}

fn text_param<'a>(
    params: Option<&'a Value>,
    field: &str,
    method: &str,
) -> Result<&'a str, WireError> {
    params
        .and_then(|p| p.get(field))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            WireError::invalid_params(format!("{method} needs `{field}` (a string)"))
                .with_data(json!({"field": field}))
        })
}

/// The ready servers, by name.
fn ready_servers(registry: &Registry) -> Vec<String> {
    let mut names: Vec<String> = registry
        .list()
        .into_iter()
        .filter(|s| s.state == ServerState::Ready)
        .map(|s| s.name)
        .collect();
    names.sort();
    names
}

fn unknown_uri(uri: &str) -> WireError {
    WireError::invalid_params(format!(
        "unknown resource `{uri}`: no server lists or serves it"
    ))
    .with_data(json!({"field": "uri", "uri": uri}))
}

/// The server that owns `uri` (or URI template): remembered, else learnt from a fresh listing of
/// `lists`.
async fn owner_of(aggregate: &Aggregate, uri: &str, lists: &[List]) -> Result<String, WireError> {
    if let Some(server) = aggregate.owners().resource(uri) {
        return Ok(server);
    }
    aggregate.before_listing().await;
    for &list in lists {
        learn(aggregate, list).await;
        if let Some(server) = aggregate.owners().resource(uri) {
            return Ok(server);
        }
    }
    Err(unknown_uri(uri))
}

/// `resources/read {uri}`: `{contents}` from the server that owns it (held to its
/// `maxResultBytes`; a cut result says so in `_meta["mcp-sidecar/truncated"]`). While its owner
/// reads, the owner's questions are this client's (`answering`).
pub(crate) async fn read(r: &Request<'_>, params: Option<&Value>) -> Result<Value, WireError> {
    let uri = text_param(params, "uri", "resources/read")?;
    let aggregate = r.aggregate;
    let Some(server) = aggregate.owners().resource(uri) else {
        return Ok(contents_of(try_each(r, uri).await?));
    };
    if !r.may_use(&server) {
        return Err(unknown_uri(uri));
    }
    let registry = Arc::clone(aggregate.registry());
    let (owner, owned_uri) = (server.clone(), uri.to_owned());
    let work = async move {
        let read = registry.read_resource(&owner, &owned_uri).await?;
        Ok(contents_of(read))
    };
    let request = format!("resource `{uri}`");
    let retry = answering::retry_of(r, params);
    answered(answering::run(r, request, server, retry, true, work).await?)
}

fn contents_of(read: crate::supervisor::ResourceRead) -> Value {
    let mut result = json!({ "contents": read.contents });
    if let Some(truncated) = &read.truncated {
        result["_meta"] = json!({ TRUNCATED_META: truncated.to_json() });
    }
    result
}

/// A request's answer: its result, the `input_required` result that parks it, or its error.
fn answered(step: Step) -> Result<Value, WireError> {
    match step {
        Step::Done(Ok(result)) | Step::InputRequired(result) => Ok(result),
        Step::Done(Err(e)) => Err(e.into()),
    }
}

/// A URI no listing showed: each ready server is asked in name order; the first that reads it
/// owns it from then on.
async fn try_each(
    r: &Request<'_>,
    uri: &str,
) -> Result<crate::supervisor::ResourceRead, WireError> {
    let aggregate = r.aggregate;
    aggregate.before_listing().await;
    let registry = aggregate.registry();
    for server in ready_servers(registry).into_iter().filter(|s| r.may_use(s)) {
        match registry.read_resource(&server, uri).await {
            Ok(read) => {
                aggregate.owners().saw_resource(uri, &server);
                return Ok(read);
            }
            // A URI-level problem (too long) is the client's, whichever server.
            Err(e) if e.code == ErrorCode::InvalidParams => return Err(e.into()),
            Err(e) => tracing::debug!(server, uri, "not read there: {}", e.message),
        }
    }
    Err(unknown_uri(uri))
}

#[derive(Deserialize)]
struct GetParams {
    name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
}

/// `(server, prompt)` of an exposed prompt name: remembered, else learnt from a fresh listing. A
/// prompt of a server the client may not use is as unknown as one no server lists.
async fn prompt_of(r: &Request<'_>, exposed: &str) -> Result<(String, String), WireError> {
    let aggregate = r.aggregate;
    let found = match aggregate.owners().prompt(exposed) {
        Some(found) => Some(found),
        None => {
            aggregate.before_listing().await;
            learn(aggregate, List::Prompts).await;
            aggregate.owners().prompt(exposed)
        }
    };
    found
        .filter(|(server, _)| r.may_use(server))
        .ok_or_else(|| {
            WireError::invalid_params(format!("unknown prompt `{exposed}`: no server lists it"))
                .with_data(json!({"field": "name", "name": exposed}))
        })
}

/// `prompts/get {name, arguments?}`: `{description?, messages}` of the prompt's own server, whose
/// questions meanwhile are this client's (`answering`).
pub(crate) async fn get_prompt(r: &Request<'_>, params: Option<Value>) -> Result<Value, WireError> {
    let retry_params = params.clone();
    let retry = answering::retry_of(r, retry_params.as_ref());
    let p: GetParams = serde_json::from_value(params.unwrap_or_default())
        .map_err(|e| WireError::invalid_params(format!("invalid prompts/get params: {e}")))?;
    let (server, prompt) = prompt_of(r, &p.name).await?;
    let arguments = p.arguments.unwrap_or_default();
    let registry = Arc::clone(r.aggregate.registry());
    let owner = server.clone();
    let work = async move {
        let got = registry.get_prompt(&owner, &prompt, &arguments).await?;
        let mut result = Map::new();
        if let Some(description) = got.description {
            result.insert("description".into(), Value::String(description));
        }
        result.insert("messages".into(), Value::Array(got.messages));
        Ok(Value::Object(result))
    };
    let request = format!("prompt `{}`", p.name);
    answered(answering::run(r, request, server, retry, true, work).await?)
}

/// `completion/complete {ref, argument, context?}`: asked of the server of the prompt (its own
/// name put back in `ref`) or of the resource (template); `{completion}`. A legacy client is asked
/// its server's questions meanwhile; a 2026-07-28 one cannot be (`answering`).
pub(crate) async fn complete(r: &Request<'_>, params: Option<Value>) -> Result<Value, WireError> {
    let aggregate = r.aggregate;
    let mut params = params.unwrap_or_default();
    let reference = params.get("ref").cloned().unwrap_or_default();
    let server = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let exposed = text_param(Some(&reference), "name", "completion/complete's ref/prompt")?;
            let (server, prompt) = prompt_of(r, exposed).await?;
            params["ref"]["name"] = Value::String(prompt);
            server
        }
        Some("ref/resource") => {
            let uri = text_param(
                Some(&reference),
                "uri",
                "completion/complete's ref/resource",
            )?;
            let owner =
                owner_of(aggregate, uri, &[List::ResourceTemplates, List::Resources]).await?;
            if !r.may_use(&owner) {
                return Err(unknown_uri(uri));
            }
            owner
        }
        _ => {
            return Err(WireError::invalid_params(
                "completion/complete needs `ref` of type `ref/prompt` or `ref/resource`",
            )
            .with_data(json!({"field": "ref"})))
        }
    };
    if let Value::Object(map) = &mut params {
        map.remove("_meta");
    }
    let registry = Arc::clone(aggregate.registry());
    let owner = server.clone();
    let request = format!("completion of {}", params["ref"]);
    let work = async move {
        let completion = registry.complete(&owner, &params).await?;
        Ok(json!({ "completion": completion }))
    };
    answered(answering::run(r, request, server, None, false, work).await?)
}

/// Subscribes the aggregate to `uri` for one more client: its server is asked on the first.
/// Returns the owning server.
pub(crate) async fn hold(aggregate: &Aggregate, uri: &str) -> Result<String, WireError> {
    let server = owner_of(aggregate, uri, &[List::Resources]).await?;
    if aggregate.subscribers().hold(uri, &server) {
        if let Err(e) = aggregate.registry().subscribe(&server, uri, true).await {
            aggregate.subscribers().release(uri);
            return Err(e.into());
        }
    }
    Ok(server)
}

/// One client fewer subscribed to `uri`: its server is told after the last.
pub(crate) async fn release(
    registry: &Arc<Registry>,
    subscribers: &crate::aggregate::shared::Subscribers,
    uri: &str,
) {
    if let Some(server) = subscribers.release(uri) {
        if let Err(e) = registry.subscribe(&server, uri, false).await {
            tracing::debug!(server, uri, "unsubscribing failed: {}", e.message);
        }
    }
}

/// `resources/subscribe` / `resources/unsubscribe {uri}` of a legacy session: `{}`.
pub(crate) async fn subscribe(
    r: &Request<'_>,
    params: Option<&Value>,
    on: bool,
) -> Result<Value, WireError> {
    let (aggregate, session) = (r.aggregate, r.session);
    let method = if on {
        "resources/subscribe"
    } else {
        "resources/unsubscribe"
    };
    let uri = text_param(params, "uri", method)?;
    if on {
        if session.is_subscribed(uri) {
            return Ok(json!({}));
        }
        session.can_subscribe()?;
        if !r.may_use(&owner_of(aggregate, uri, &[List::Resources]).await?) {
            return Err(unknown_uri(uri));
        }
        hold(aggregate, uri).await?;
        let (registry, subscribers) = (
            Arc::clone(aggregate.registry()),
            aggregate.subscribers_arc(),
        );
        let give_back = move || -> crate::aggregate::session::legacy::Release {
            Box::new(move |uris: Vec<String>| {
                // Off the dropping task: telling the servers waits for them.
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move {
                        for uri in uris {
                            release(&registry, &subscribers, &uri).await;
                        }
                    });
                }
            })
        };
        if !session.subscribe(uri, give_back) {
            // Subscribed meanwhile by a concurrent request of the same session.
            release(aggregate.registry(), aggregate.subscribers(), uri).await;
        }
    } else if session.unsubscribe(uri) {
        release(aggregate.registry(), aggregate.subscribers(), uri).await;
    }
    Ok(json!({}))
}
