//! A tool as an MCP client sees it when the sidecar is its MCP server (`mcp-sidecar mcp`): the
//! server's tool object under its exposed name, with its `inputSchema` cleaned for the provider
//! the client will hand it to (`--format`). Everything else of the tool — title, description,
//! annotations, `outputSchema`, `_meta`, icons — is the server's, untouched: only the input schema
//! reaches the provider, and the client still validates results against the output schema.
//!
//! - `mcp`: the schema as the server sent it (the tool is [`super::definition`]'s `mcp` form);
//! - `openai`, `openai-responses`, `anthropic`: the schema that format's definition carries (with
//!   strict mode for the OpenAI formats when asked for);
//! - `gemini`: Gemini's subset, spelled as JSON Schema (`"type": "object"`, not `"OBJECT"`), since
//!   an MCP host hands the provider a JSON Schema and converts it itself.

use serde_json::{Map, Value};

use super::definitions::{definition, Converted, Options};
use super::format::ToolFormat;
use super::schema;

/// `tool` (the MCP tool object as the server listed it) under `exposed_name`, its input schema
/// cleaned for `format`, with what the cleaning changed.
pub fn mcp_tool(
    format: ToolFormat,
    options: Options,
    exposed_name: &str,
    tool: &Value,
) -> Converted {
    if format == ToolFormat::Mcp {
        return definition(format, options, exposed_name, tool);
    }
    let converted = schema::convert(format, options.strict, tool.get("inputSchema"));
    let mut input_schema = converted.schema;
    if format == ToolFormat::Gemini {
        schema::gemini::as_json_schema(&mut input_schema);
    }
    let mut out = match tool {
        Value::Object(object) => object.clone(),
        _ => Map::new(),
    };
    out.insert("name".into(), Value::from(exposed_name));
    out.insert("inputSchema".into(), input_schema);
    Converted {
        definition: Value::Object(out),
        notes: converted.notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> Value {
        json!({
            "name": "find",
            "title": "Find",
            "description": "Find things",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"q": {"type": "string"}},
                "properties": {"query": {"$ref": "#/$defs/q"}, "limit": {"type": ["integer", "null"]}},
                "required": ["query"]
            },
            "outputSchema": {"type": "object", "properties": {"hits": {"type": "array"}}},
            "annotations": {"readOnlyHint": true},
            "_meta": {"k": 1}
        })
    }

    fn listed(format: ToolFormat, strict: bool) -> Value {
        mcp_tool(format, Options { strict }, "s__find", &tool()).definition
    }

    #[test]
    fn mcp_keeps_the_schema_and_only_renames() {
        let mut expected = tool();
        expected["name"] = json!("s__find");
        assert_eq!(listed(ToolFormat::Mcp, false), expected);
    }

    #[test]
    fn a_provider_format_cleans_only_the_input_schema() {
        let anthropic = listed(ToolFormat::Anthropic, false);
        assert_eq!(
            anthropic["inputSchema"].to_string(),
            r#"{"properties":{"limit":{"type":["integer","null"]},"query":{"type":"string"}},"required":["query"],"type":"object"}"#
        );
        for key in [
            "title",
            "description",
            "outputSchema",
            "annotations",
            "_meta",
        ] {
            assert_eq!(anthropic[key], tool()[key], "{key} is the server's");
        }
        assert_eq!(anthropic["name"], "s__find");
    }

    #[test]
    fn strict_openai_makes_every_property_required() {
        let strict = listed(ToolFormat::Openai, true);
        assert_eq!(strict["inputSchema"]["additionalProperties"], false);
        assert_eq!(strict["inputSchema"]["required"], json!(["limit", "query"]));
    }

    #[test]
    fn gemini_is_spelled_as_json_schema() {
        let gemini = listed(ToolFormat::Gemini, false);
        assert_eq!(
            gemini["inputSchema"].to_string(),
            r#"{"properties":{"limit":{"nullable":true,"type":"integer"},"query":{"type":"string"}},"required":["query"],"type":"object"}"#
        );
    }

    #[test]
    fn a_tool_that_is_not_an_object_still_becomes_one() {
        let out = mcp_tool(ToolFormat::Openai, Options::default(), "x", &json!(3)).definition;
        assert_eq!(out["name"], "x");
        assert_eq!(out["inputSchema"]["type"], "object");
    }
}
