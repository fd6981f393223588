//! `resourcesAsTools`: two tools the sidecar serves in front of a server's resources, so that a
//! model reads only the documents it needs instead of having them all in its context (seed 003).
//! `list_resources` lists the server's resources and resource templates; `read_resource {uri}`
//! reads one. They join the server's tool list when it declared `resources` (named by the same
//! template and collision rules, filtered by `includeTools`/`excludeTools`, converted like any
//! tool; a tool of the server's own with the same name keeps the plain name), and a call runs
//! through the same path as any tool call: arguments checked, `maxInflight`, timeout, result
//! budget, secrets masked.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

use super::session::Session;
use crate::convert;
use crate::error::Result;
use crate::limits;
use crate::mcp::{validate_tools, SurfaceList, ToolDef, ToolKind};
use crate::names::ToolName;

pub(super) const LIST_RESOURCES: &str = "list_resources";
pub(super) const READ_RESOURCE: &str = "read_resource";

/// The two tools, validated once.
pub(super) fn definitions() -> &'static [ToolDef] {
    static DEFINITIONS: OnceLock<Vec<ToolDef>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        let raw = vec![
            json!({
                "name": LIST_RESOURCES,
                "title": "List resources",
                "description": "Lists the resources (documents, files, data) this server offers — the URI, name, type and description of each — and the URI templates it can fill in. Read one with read_resource.",
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
                "annotations": {"readOnlyHint": true, "openWorldHint": false},
            }),
            json!({
                "name": READ_RESOURCE,
                "title": "Read a resource",
                "description": "Reads one resource of this server by its URI (as listed by list_resources, or a URI template filled in) and returns its contents.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"uri": {"type": "string", "description": "The resource's URI."}},
                    "required": ["uri"],
                    "additionalProperties": false,
                },
                "annotations": {"readOnlyHint": true, "openWorldHint": false},
            }),
        ];
        let mut tools = validate_tools("sidecar", raw).unwrap_or_default();
        for tool in &mut tools {
            tool.kind = match tool.name.as_str() {
                LIST_RESOURCES => ToolKind::ListResources,
                _ => ToolKind::ReadResource,
            };
        }
        tools
    })
}

/// `tool` under a name none of `theirs` has: its own, or else the first free of `<name>_2`,
/// `<name>_3`, … (a server's own tool keeps its name; the exposed names then follow from the
/// name template as for any tool).
pub(super) fn named_apart(tool: &ToolDef, theirs: &[ToolDef]) -> ToolDef {
    let taken = |name: &str| theirs.iter().any(|t| t.name == name);
    if !taken(tool.name.as_str()) {
        return tool.clone();
    }
    let name = (2..)
        .map(|n| format!("{}_{n}", tool.name))
        .find(|candidate| !taken(candidate))
        .unwrap_or_default();
    let mut raw = tool.raw.clone();
    raw["name"] = Value::from(name.as_str());
    ToolDef {
        hash: crate::mcp::tools::definition_hash(&raw),
        name: ToolName::from(name),
        raw,
        ..tool.clone()
    }
}

/// Runs `kind` on `session` within `timeout`: the result as a `CallToolResult` and the bytes of
/// the server's answers (what the result budget is held to).
pub(super) async fn call(
    session: &Session,
    kind: ToolKind,
    arguments: &Value,
    timeout: Duration,
) -> Result<(Value, usize)> {
    let deadline = tokio::time::Instant::now() + timeout;
    let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
    match kind {
        ToolKind::ReadResource => {
            let uri = arguments
                .get("uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let reply = session.client.read_resource(uri, left()).await?;
            let bytes = reply.bytes;
            let mut value = session.client.reply_outcome(reply)?;
            let contents = match value.get_mut("contents").map(Value::take) {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            };
            Ok((convert::resources::contents_result(&contents), bytes))
        }
        _ => {
            let mut bytes = 0;
            let mut lists = Vec::new();
            for list in [SurfaceList::Resources, SurfaceList::ResourceTemplates] {
                let mut items = Vec::new();
                let mut cursor: Option<String> = None;
                for _ in 0..limits::SURFACE_LIST_MAX_PAGES {
                    let page = session
                        .client
                        .list_page(list, cursor.as_deref(), left())
                        .await?;
                    bytes += page.bytes;
                    items.extend(page.items);
                    cursor = page.next;
                    if cursor.is_none() {
                        break;
                    }
                }
                lists.push(items);
            }
            let templates = lists.pop().unwrap_or_default();
            let resources = lists.pop().unwrap_or_default();
            Ok((
                convert::resources::listing_result(&resources, &templates),
                bytes,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_tools_are_valid_and_marked() {
        let tools = definitions();
        let kinds: Vec<(&str, ToolKind)> =
            tools.iter().map(|t| (t.name.as_str(), t.kind)).collect();
        assert_eq!(
            kinds,
            [
                (LIST_RESOURCES, ToolKind::ListResources),
                (READ_RESOURCE, ToolKind::ReadResource)
            ]
        );
        let read = &tools[1];
        assert!(
            crate::mcp::tools::check_arguments(&"s".into(), read, &json!({"uri": "a://b"})).is_ok()
        );
        assert!(crate::mcp::tools::check_arguments(&"s".into(), read, &json!({})).is_err());
    }

    #[test]
    fn a_server_tool_of_the_same_name_keeps_it() {
        let list = &definitions()[0];
        assert_eq!(named_apart(list, &[]).name, LIST_RESOURCES);
        let theirs: Vec<ToolDef> = ["list_resources", "list_resources_2"]
            .iter()
            .map(|n| ToolDef {
                name: ToolName::from(*n),
                ..list.clone()
            })
            .collect();
        let apart = named_apart(list, &theirs);
        assert_eq!(
            (apart.name.as_str(), apart.kind),
            ("list_resources_3", ToolKind::ListResources)
        );
        assert_eq!(apart.raw["name"], "list_resources_3");
        assert_ne!(apart.hash, list.hash);
    }
}
