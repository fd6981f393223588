//! Deferred tools: the shapes each provider API expects for tools whose definitions are not loaded
//! into the model's context up front but found through a search.
//!
//! - OpenAI Responses (`openai-responses`): deferred functions carry `"defer_loading": true` and
//!   are grouped in one `{"type": "namespace", "name", "description", "tools"}` entry per server
//!   (`defer_loading` applies to the functions inside, not to the namespace; the model first sees
//!   only the namespace's name and description), plus the hosted `{"type": "tool_search"}` tool
//!   (<https://developers.openai.com/api/docs/guides/tools-tool-search>).
//! - Anthropic (`anthropic`): deferred tools carry `"defer_loading": true`, plus the tool search
//!   tool `{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}`
//!   (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>; the API
//!   wants the `advanced-tool-use-2025-11-20` beta header, which is the host's to send).
//! - Every other format has no native search: deferred tools are left out, and one meta-tool,
//!   `search_tools` ([`search_tools_tool`]), finds them; its call result carries the matching
//!   definitions for the host to add to the next request.

use serde_json::{json, Value};

use super::format::ToolFormat;

/// The meta-tool's name on its (reserved) server; its exposed name comes from the name template.
pub const SEARCH_TOOLS: &str = "search_tools";
/// The server name the meta-tool's exposed name is rendered with.
pub const SEARCH_TOOLS_SERVER: &str = "sidecar";
/// Longest namespace description, in bytes (a server's instructions can be long; what describes
/// a namespace is read on every turn).
pub const MAX_NAMESPACE_DESCRIPTION_BYTES: usize = 1024;
/// Matches the meta-tool returns without a `limit`, and at most.
pub const SEARCH_TOOLS_DEFAULT_LIMIT: usize = 5;
pub const SEARCH_TOOLS_MAX_LIMIT: usize = 20;

/// Whether the format's API searches deferred tools itself (`defer_loading` definitions).
pub fn native(format: ToolFormat) -> bool {
    matches!(format, ToolFormat::OpenaiResponses | ToolFormat::Anthropic)
}

/// Marks a converted definition deferred, in the formats whose API reads the mark.
pub fn mark(format: ToolFormat, definition: &mut Value) {
    if native(format) {
        if let Some(object) = definition.as_object_mut() {
            object.insert("defer_loading".into(), Value::Bool(true));
        }
    }
}

/// The provider's own tool-search tool (native formats only).
pub fn native_search_tool(format: ToolFormat) -> Option<Value> {
    match format {
        ToolFormat::OpenaiResponses => Some(json!({"type": "tool_search"})),
        ToolFormat::Anthropic => Some(json!({
            "type": "tool_search_tool_bm25_20251119",
            "name": "tool_search_tool_bm25",
        })),
        _ => None,
    }
}

/// The description of a server's namespace: its instructions (cut to
/// [`MAX_NAMESPACE_DESCRIPTION_BYTES`] at a character boundary), else a plain sentence.
pub fn namespace_description(server: &str, instructions: Option<&str>) -> String {
    match instructions.map(str::trim).filter(|s| !s.is_empty()) {
        Some(text) if text.len() > MAX_NAMESPACE_DESCRIPTION_BYTES => {
            let mut end = MAX_NAMESPACE_DESCRIPTION_BYTES;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text[..end].to_owned()
        }
        Some(text) => text.to_owned(),
        None => format!("Tools of the MCP server `{server}`."),
    }
}

/// The compact JSON of an OpenAI Responses namespace holding `tools` (each a definition's compact
/// JSON), keys in canonical (sorted) order.
pub fn namespace_json(name: &str, description: &str, tools: &[&str]) -> String {
    let text = |s: &str| Value::from(s).to_string();
    format!(
        "{{\"description\":{},\"name\":{},\"tools\":[{}],\"type\":\"namespace\"}}",
        text(description),
        text(name),
        tools.join(",")
    )
}

/// The MCP tool object of the `search_tools` meta-tool; `servers` are the deferred servers with
/// their tool counts, named in its description so a model knows what is there to find.
pub fn search_tools_tool(servers: &[(&str, usize)]) -> Value {
    let listed: Vec<String> = servers
        .iter()
        .map(|(name, count)| format!("{name} ({count} tools)"))
        .collect();
    json!({
        "name": SEARCH_TOOLS,
        "description": format!(
            "Finds tools that are not loaded yet, by what they do or by their exact name, and loads the best matches: they can be called right after. Tools of these servers are found here: {}.",
            listed.join(", ")
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What the tool should do (a few words), or its exact name."},
                "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_TOOLS_MAX_LIMIT, "description": format!("Most tools to load (default {SEARCH_TOOLS_DEFAULT_LIMIT}).")},
            },
            "required": ["query"],
            "additionalProperties": false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_only_native_formats() {
        for format in ToolFormat::ALL {
            let mut definition = json!({"name": "n"});
            mark(format, &mut definition);
            assert_eq!(
                definition.get("defer_loading").is_some(),
                native(format),
                "{format}"
            );
            assert_eq!(native_search_tool(format).is_some(), native(format));
        }
    }

    #[test]
    fn namespace_is_canonical_json() {
        let text = namespace_json("gh", "Use \"gh\"", &[r#"{"name":"a"}"#, r#"{"name":"b"}"#]);
        assert_eq!(
            text,
            r#"{"description":"Use \"gh\"","name":"gh","tools":[{"name":"a"},{"name":"b"}],"type":"namespace"}"#
        );
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(crate::canonical::canonical_json(&parsed), text);
    }

    #[test]
    fn namespace_descriptions() {
        assert_eq!(namespace_description("gh", Some("  Use me.  ")), "Use me.");
        assert_eq!(
            namespace_description("gh", Some(" ")),
            "Tools of the MCP server `gh`."
        );
        let long = "é".repeat(MAX_NAMESPACE_DESCRIPTION_BYTES);
        let cut = namespace_description("gh", Some(&long));
        assert!(cut.len() <= MAX_NAMESPACE_DESCRIPTION_BYTES && cut.starts_with('é'));
    }
}
