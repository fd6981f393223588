//! `resources/*`, `prompts/*`, `completion/complete` and `logging/setLevel`: each turns its params
//! into one registry operation and the registry's answer into the result, contents and messages
//! converted to the requested format (the session's `toolFormat` by default) like a tool result.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::params::{Complete, GetPrompt, ListSurface, ReadResource, SetLogLevel, Subscription};
use crate::convert;
use crate::error::Result;
use crate::supervisor::Registry;

/// The paginated lists of the surface.
#[derive(Clone, Copy)]
pub(super) enum List {
    Resources,
    ResourceTemplates,
    Prompts,
}

/// `resources/list`, `resources/templates/list`, `prompts/list`: one page over the servers.
pub(super) async fn list(registry: &Arc<Registry>, list: List, p: ListSurface) -> Result<Value> {
    let (server, cursor) = (p.server.as_deref(), p.cursor.as_deref());
    match list {
        List::Resources => registry.resources(server, cursor).await,
        List::ResourceTemplates => registry.resource_templates(server, cursor).await,
        List::Prompts => registry.prompts(server, cursor).await,
    }
}

/// `resources/read`: `{server, uri, contents, text, output, truncated?}`.
pub(super) async fn read(registry: &Arc<Registry>, p: ReadResource) -> Result<Value> {
    let read = registry.read_resource(&p.server, &p.uri).await?;
    let format = p.format.unwrap_or(registry.settings().format);
    let converted = convert::convert_owned(format, read.result);
    let mut result = Map::new();
    result.insert("server".into(), Value::String(read.server));
    result.insert("uri".into(), Value::String(read.uri));
    result.insert("contents".into(), read.contents);
    result.insert("text".into(), Value::String(converted.text));
    result.insert("output".into(), converted.output);
    if let Some(truncated) = &read.truncated {
        result.insert("truncated".into(), truncated.to_json());
    }
    Ok(Value::Object(result))
}

/// `resources/subscribe` (`on`) and `resources/unsubscribe`: `{}`.
pub(super) async fn subscribe(
    registry: &Arc<Registry>,
    p: Subscription,
    on: bool,
) -> Result<Value> {
    registry.subscribe(&p.server, &p.uri, on).await?;
    Ok(json!({}))
}

/// `prompts/get`: `{server, name, description?, messages, output}`.
pub(super) async fn get_prompt(registry: &Arc<Registry>, p: GetPrompt) -> Result<Value> {
    let arguments: Map<String, Value> = p
        .arguments
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let got = registry.get_prompt(&p.server, &p.name, &arguments).await?;
    let format = p.format.unwrap_or(registry.settings().format);
    let mut result = Map::new();
    result.insert("server".into(), Value::String(got.server));
    result.insert("name".into(), Value::String(got.name));
    if let Some(description) = got.description {
        result.insert("description".into(), Value::String(description));
    }
    result.insert(
        "output".into(),
        convert::prompts::messages(format, &got.messages),
    );
    result.insert("messages".into(), Value::Array(got.messages));
    Ok(Value::Object(result))
}

/// `completion/complete`: `{server, completion: {values, total?, hasMore?}}`.
pub(super) async fn complete(registry: &Arc<Registry>, p: Complete) -> Result<Value> {
    let mut params = json!({ "ref": p.reference, "argument": p.argument });
    if let Some(context) = p.context {
        params["context"] = json!(context);
    }
    let completion = registry.complete(&p.server, &params).await?;
    Ok(json!({ "server": p.server, "completion": completion }))
}

/// `logging/setLevel`: `{servers, errors?}`.
pub(super) async fn set_log_level(registry: &Arc<Registry>, p: SetLogLevel) -> Result<Value> {
    registry.set_log_level(p.server.as_deref(), p.level).await
}
