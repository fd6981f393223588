//! Tool definitions: one MCP tool object (as the server listed it) becomes
//! the tool definition a provider API expects, under its exposed name.
//!
//! - openai: `{"type":"function","function":{"name","description","parameters"}}`
//! - openai-responses: `{"type":"function","name","description","parameters"}`
//! - anthropic: `{"name","description","input_schema"}`
//! - mcp: the server's tool object with only `name` replaced.
//!
//! The description is the first non-empty string of `description`, `title`,
//! `annotations.title`; the key is omitted when there is none. The parameter
//! schema is built by [`parameters`] alone, so schema transforms can slot in
//! there later.

use serde_json::{Map, Value};

use super::ToolFormat;

/// `tool` is the MCP tool object exactly as the server listed it (name, title?, description?, inputSchema, outputSchema?, annotations?, _meta?...).
pub fn definition(format: ToolFormat, exposed_name: &str, tool: &Value) -> Value {
    let name = Value::String(exposed_name.to_string());
    match format {
        ToolFormat::Openai => {
            let mut function = Map::new();
            function.insert("name".into(), name);
            insert_description(&mut function, tool);
            function.insert("parameters".into(), parameters(tool));
            let mut out = Map::new();
            out.insert("type".into(), Value::from("function"));
            out.insert("function".into(), Value::Object(function));
            Value::Object(out)
        }
        ToolFormat::OpenaiResponses => {
            let mut out = Map::new();
            out.insert("type".into(), Value::from("function"));
            out.insert("name".into(), name);
            insert_description(&mut out, tool);
            out.insert("parameters".into(), parameters(tool));
            Value::Object(out)
        }
        ToolFormat::Anthropic => {
            let mut out = Map::new();
            out.insert("name".into(), name);
            insert_description(&mut out, tool);
            out.insert("input_schema".into(), parameters(tool));
            Value::Object(out)
        }
        ToolFormat::Mcp => match tool.as_object() {
            Some(object) => {
                let mut out = object.clone();
                out.insert("name".into(), name);
                Value::Object(out)
            }
            // Not an MCP tool at all: the least that is still one.
            None => {
                let mut out = Map::new();
                out.insert("name".into(), name);
                out.insert("inputSchema".into(), parameters(tool));
                Value::Object(out)
            }
        },
    }
}

/// The text shown to the model: `description` if it is a non-empty string,
/// else `title`, else `annotations.title` (each only if a non-empty string).
pub fn description(tool: &Value) -> Option<&str> {
    fn non_empty(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str).filter(|s| !s.is_empty())
    }
    non_empty(tool.get("description"))
        .or_else(|| non_empty(tool.get("title")))
        .or_else(|| non_empty(tool.get("annotations").and_then(|a| a.get("title"))))
}

/// The parameter schema handed to providers: the tool's `inputSchema`,
/// minimally made acceptable.
///
/// - not an object (or missing) → `{"type":"object","properties":{}}`;
/// - no `type` → `"type": "object"` added (MCP requires it; OpenAI rejects a
///   schema without it);
/// - `properties` missing or not an object → `"properties": {}`;
/// - top-level `$schema` dropped (providers reject it).
///
/// Everything else, nested `$schema` included, is kept as sent.
pub fn parameters(tool: &Value) -> Value {
    let mut schema = match tool.get("inputSchema").and_then(Value::as_object) {
        Some(object) => object.clone(),
        None => Map::new(),
    };
    schema.remove("$schema");
    if !schema.contains_key("type") {
        schema.insert("type".into(), Value::from("object"));
    }
    if !schema.get("properties").is_some_and(Value::is_object) {
        schema.insert("properties".into(), Value::Object(Map::new()));
    }
    Value::Object(schema)
}

fn insert_description(out: &mut Map<String, Value>, tool: &Value) {
    if let Some(text) = description(tool) {
        out.insert("description".into(), Value::from(text));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(format: ToolFormat, tool: &Value) -> String {
        serde_json::to_string(&definition(format, "mcp__srv__get_weather", tool)).unwrap()
    }

    fn weather_tool() -> Value {
        json!({
            "name": "get_weather",
            "title": "Weather",
            "description": "Get the weather",
            "inputSchema": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"]
            },
            "outputSchema": {"type": "object", "properties": {"temp": {"type": "number"}}},
            "annotations": {"title": "Weather (annotated)", "readOnlyHint": true},
            "_meta": {"x": 1}
        })
    }

    #[test]
    fn openai() {
        assert_eq!(
            wire(ToolFormat::Openai, &weather_tool()),
            r#"{"function":{"description":"Get the weather","name":"mcp__srv__get_weather","parameters":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}},"type":"function"}"#
        );
    }

    #[test]
    fn openai_responses() {
        assert_eq!(
            wire(ToolFormat::OpenaiResponses, &weather_tool()),
            r#"{"description":"Get the weather","name":"mcp__srv__get_weather","parameters":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"type":"function"}"#
        );
    }

    #[test]
    fn anthropic() {
        assert_eq!(
            wire(ToolFormat::Anthropic, &weather_tool()),
            r#"{"description":"Get the weather","input_schema":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"mcp__srv__get_weather"}"#
        );
    }

    #[test]
    fn mcp_keeps_everything_but_the_name() {
        assert_eq!(
            wire(ToolFormat::Mcp, &weather_tool()),
            r#"{"_meta":{"x":1},"annotations":{"readOnlyHint":true,"title":"Weather (annotated)"},"description":"Get the weather","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"mcp__srv__get_weather","outputSchema":{"properties":{"temp":{"type":"number"}},"type":"object"},"title":"Weather"}"#
        );
        // A tool that is not an object still yields a usable MCP tool.
        assert_eq!(
            wire(ToolFormat::Mcp, &json!("nonsense")),
            r#"{"inputSchema":{"properties":{},"type":"object"},"name":"mcp__srv__get_weather"}"#
        );
    }

    #[test]
    fn description_falls_back_to_titles_then_is_omitted() {
        let tool = json!({"name": "t", "description": "", "title": "Title", "annotations": {"title": "Ann"}, "inputSchema": {"type": "object"}});
        assert_eq!(
            wire(ToolFormat::Anthropic, &tool),
            r#"{"description":"Title","input_schema":{"properties":{},"type":"object"},"name":"mcp__srv__get_weather"}"#
        );
        let tool = json!({"name": "t", "title": 7, "annotations": {"title": "Ann"}, "inputSchema": {"type": "object"}});
        assert_eq!(
            wire(ToolFormat::OpenaiResponses, &tool),
            r#"{"description":"Ann","name":"mcp__srv__get_weather","parameters":{"properties":{},"type":"object"},"type":"function"}"#
        );
        let tool = json!({"name": "t", "description": null, "title": "", "annotations": {"title": ""}, "inputSchema": {"type": "object"}});
        assert_eq!(
            wire(ToolFormat::Openai, &tool),
            r#"{"function":{"name":"mcp__srv__get_weather","parameters":{"properties":{},"type":"object"}},"type":"function"}"#
        );
        let tool = json!({"name": "t", "annotations": "odd", "inputSchema": {"type": "object"}});
        assert_eq!(description(&tool), None);
    }

    #[test]
    fn parameters_are_made_minimally_acceptable() {
        let p = |schema: Value| {
            serde_json::to_string(&parameters(&json!({"name": "t", "inputSchema": schema})))
                .unwrap()
        };
        let default = r#"{"properties":{},"type":"object"}"#;
        assert_eq!(p(json!(null)), default);
        assert_eq!(p(json!("object")), default);
        assert_eq!(p(json!([1, 2])), default);
        assert_eq!(p(json!({})), default);
        assert_eq!(p(json!({"$schema": "x"})), default);
        assert_eq!(p(json!({"type": "object", "properties": null})), default);
        assert_eq!(p(json!({"type": "object", "properties": [1]})), default);
        assert_eq!(
            serde_json::to_string(&parameters(&json!({"name": "no schema"}))).unwrap(),
            default
        );
        assert_eq!(
            serde_json::to_string(&parameters(&json!(42))).unwrap(),
            default
        );
        // Only the top-level $schema goes; an explicit non-object type is kept.
        assert_eq!(
            p(
                json!({"type": "object", "properties": {"a": {"$schema": "y", "type": "integer"}}, "additionalProperties": false})
            ),
            r#"{"additionalProperties":false,"properties":{"a":{"$schema":"y","type":"integer"}},"type":"object"}"#
        );
        assert_eq!(
            p(json!({"type": "array"})),
            r#"{"properties":{},"type":"array"}"#
        );
    }

    #[test]
    fn every_format_survives_non_object_tools() {
        for tool in [json!(null), json!([]), json!("x"), json!(1), json!({})] {
            for format in ToolFormat::ALL {
                let out = definition(format, "n", &tool);
                assert!(out.is_object(), "{format}: {out}");
            }
        }
        assert_eq!(
            wire(ToolFormat::Openai, &json!(null)),
            r#"{"function":{"name":"mcp__srv__get_weather","parameters":{"properties":{},"type":"object"}},"type":"function"}"#
        );
    }
}
