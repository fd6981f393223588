//! Tool definitions: one MCP tool object (as the server listed it) becomes
//! the tool definition a provider API expects, under its exposed name, with
//! notes on what its schema conversion changed ([`super::schema`]).
//!
//! - openai: `{"type":"function","function":{"name","description","parameters","strict"?}}`
//!   (`strict` only when the host asked for strict mode: `true`, or `false`
//!   for a tool that could not be made strict);
//! - openai-responses: `{"type":"function","name","description","parameters","strict"}`
//!   (`strict` always: the Responses API assumes `true` when it is absent);
//! - anthropic: `{"name","description","input_schema"}`;
//! - gemini: `{"name","description","parameters"}`, a `FunctionDeclaration`
//!   (<https://ai.google.dev/api/caching#FunctionDeclaration>); `parameters`
//!   is left out for a tool without parameters (Gemini rejects an `OBJECT`
//!   with no properties, and documents leaving it unset);
//! - mcp: the server's tool object with only `name` replaced, and no notes.
//!
//! The description is the first non-empty string of `description`, `title`,
//! `annotations.title`; the key is omitted when there is none.

use serde_json::{Map, Value};

use super::format::ToolFormat;
use super::schema::{self, Action, Note};

/// Options of a listing that change definitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// OpenAI strict mode (`openai` and `openai-responses`; ignored by the other formats).
    pub strict: bool,
}

/// A converted definition and what its conversion changed (`[]` when nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    pub definition: Value,
    pub notes: Vec<Note>,
}

/// `tool` is the MCP tool object exactly as the server listed it (name, title?, description?, inputSchema, outputSchema?, annotations?, _meta?...).
pub fn definition(
    format: ToolFormat,
    options: Options,
    exposed_name: &str,
    tool: &Value,
) -> Converted {
    let name = Value::String(exposed_name.to_string());
    if format == ToolFormat::Mcp {
        return Converted {
            definition: mcp_definition(name, tool),
            notes: Vec::new(),
        };
    }

    let converted = schema::convert(format, options.strict, tool.get("inputSchema"));
    let mut notes = converted.notes;
    let parameters = converted.schema;
    let mut out = Map::new();
    match format {
        ToolFormat::Openai => {
            let mut function = Map::new();
            function.insert("name".into(), name);
            insert_description(&mut function, tool);
            function.insert("parameters".into(), parameters);
            if let Some(strict) = converted.strict {
                function.insert("strict".into(), Value::Bool(strict));
            }
            out.insert("type".into(), Value::from("function"));
            out.insert("function".into(), Value::Object(function));
        }
        ToolFormat::OpenaiResponses => {
            out.insert("type".into(), Value::from("function"));
            out.insert("name".into(), name);
            insert_description(&mut out, tool);
            out.insert("parameters".into(), parameters);
            out.insert("strict".into(), Value::Bool(converted.strict == Some(true)));
        }
        ToolFormat::Anthropic => {
            out.insert("name".into(), name);
            insert_description(&mut out, tool);
            out.insert("input_schema".into(), parameters);
        }
        ToolFormat::Gemini => {
            out.insert("name".into(), name);
            insert_description(&mut out, tool);
            if let Some(note) = insert_gemini_parameters(&mut out, parameters) {
                notes.push(note);
            }
        }
        // Returned unconverted above.
        ToolFormat::Mcp => {}
    }
    Converted {
        definition: Value::Object(out),
        notes,
    }
}

/// The server's tool object with only `name` replaced.
fn mcp_definition(name: Value, tool: &Value) -> Value {
    match tool.as_object() {
        Some(object) => {
            let mut out = object.clone();
            out.insert("name".into(), name);
            Value::Object(out)
        }
        // Not an MCP tool at all: the least that is still one.
        None => {
            let mut out = Map::new();
            out.insert("name".into(), name);
            out.insert(
                "inputSchema".into(),
                schema::convert(ToolFormat::Anthropic, false, None).schema,
            );
            Value::Object(out)
        }
    }
}

/// Gemini's `parameters`, left out (with the note returned) for a tool without parameters.
fn insert_gemini_parameters(out: &mut Map<String, Value>, parameters: Value) -> Option<Note> {
    if parameters
        .get("properties")
        .is_some_and(|p| p.as_object().is_some_and(|p| !p.is_empty()))
    {
        out.insert("parameters".into(), parameters);
        return None;
    }
    Some(Note {
        path: String::new(),
        action: Action::Dropped,
        reason: "no parameters: Gemini rejects an OBJECT without properties, so `parameters` is left out".into(),
    })
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

fn insert_description(out: &mut Map<String, Value>, tool: &Value) {
    if let Some(text) = description(tool) {
        out.insert("description".into(), Value::from(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(format: ToolFormat, tool: &Value) -> String {
        serde_json::to_string(
            &definition(format, Options::default(), "mcp__srv__get_weather", tool).definition,
        )
        .unwrap()
    }

    fn notes(format: ToolFormat, strict: bool, tool: &Value) -> String {
        serde_json::to_string(&definition(format, Options { strict }, "n", tool).notes).unwrap()
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

    const SCHEMA_NOTE: &str = r#"[{"action":"dropped","path":"/$schema","reason":"`$schema` describes the schema document, not the data; providers reject or ignore it"}]"#;

    #[test]
    fn openai() {
        assert_eq!(
            wire(ToolFormat::Openai, &weather_tool()),
            r#"{"function":{"description":"Get the weather","name":"mcp__srv__get_weather","parameters":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}},"type":"function"}"#
        );
        assert_eq!(
            notes(ToolFormat::Openai, false, &weather_tool()),
            SCHEMA_NOTE
        );
    }

    #[test]
    fn openai_strict() {
        let out = definition(
            ToolFormat::Openai,
            Options { strict: true },
            "n",
            &weather_tool(),
        );
        assert_eq!(
            serde_json::to_string(&out.definition).unwrap(),
            r#"{"function":{"description":"Get the weather","name":"n","parameters":{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"strict":true},"type":"function"}"#
        );
        let free_form =
            json!({"name": "t", "inputSchema": {"type": "object", "properties": {"x": {}}}});
        let out = definition(
            ToolFormat::Openai,
            Options { strict: true },
            "n",
            &free_form,
        );
        assert_eq!(
            serde_json::to_string(&out.definition).unwrap(),
            r#"{"function":{"name":"n","parameters":{"properties":{"x":{}},"type":"object"},"strict":false},"type":"function"}"#
        );
        assert_eq!(out.notes[0].action, Action::StrictFallback);
    }

    #[test]
    fn openai_responses() {
        assert_eq!(
            wire(ToolFormat::OpenaiResponses, &weather_tool()),
            r#"{"description":"Get the weather","name":"mcp__srv__get_weather","parameters":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"strict":false,"type":"function"}"#
        );
        let out = definition(
            ToolFormat::OpenaiResponses,
            Options { strict: true },
            "n",
            &weather_tool(),
        );
        assert_eq!(out.definition["strict"], json!(true));
    }

    #[test]
    fn anthropic() {
        assert_eq!(
            wire(ToolFormat::Anthropic, &weather_tool()),
            r#"{"description":"Get the weather","input_schema":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"mcp__srv__get_weather"}"#
        );
        // Strict is an OpenAI option.
        assert_eq!(
            notes(ToolFormat::Anthropic, true, &weather_tool()),
            SCHEMA_NOTE
        );
    }

    #[test]
    fn gemini() {
        assert_eq!(
            wire(ToolFormat::Gemini, &weather_tool()),
            r#"{"description":"Get the weather","name":"mcp__srv__get_weather","parameters":{"properties":{"city":{"type":"STRING"}},"required":["city"],"type":"OBJECT"}}"#
        );
        let no_params = json!({"name": "t", "description": "d", "inputSchema": {"type": "object"}});
        assert_eq!(
            wire(ToolFormat::Gemini, &no_params),
            r#"{"description":"d","name":"mcp__srv__get_weather"}"#
        );
        assert_eq!(
            notes(ToolFormat::Gemini, false, &no_params),
            r#"[{"action":"dropped","path":"","reason":"no parameters: Gemini rejects an OBJECT without properties, so `parameters` is left out"}]"#
        );
    }

    #[test]
    fn mcp_keeps_everything_but_the_name() {
        assert_eq!(
            wire(ToolFormat::Mcp, &weather_tool()),
            r#"{"_meta":{"x":1},"annotations":{"readOnlyHint":true,"title":"Weather (annotated)"},"description":"Get the weather","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"mcp__srv__get_weather","outputSchema":{"properties":{"temp":{"type":"number"}},"type":"object"},"title":"Weather"}"#
        );
        assert_eq!(notes(ToolFormat::Mcp, true, &weather_tool()), "[]");
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
            r#"{"description":"Ann","name":"mcp__srv__get_weather","parameters":{"properties":{},"type":"object"},"strict":false,"type":"function"}"#
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
    fn parameters_are_made_acceptable() {
        let p = |schema: Value| {
            let tool = json!({"name": "t", "inputSchema": schema});
            serde_json::to_string(
                &definition(ToolFormat::Anthropic, Options::default(), "n", &tool).definition
                    ["input_schema"],
            )
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
        // Meta keywords go everywhere; additionalProperties stays for Anthropic.
        assert_eq!(
            p(
                json!({"type": "object", "properties": {"a": {"$schema": "y", "type": "integer"}}, "additionalProperties": false})
            ),
            r#"{"additionalProperties":false,"properties":{"a":{"type":"integer"}},"type":"object"}"#
        );
        assert_eq!(p(json!({"type": "array"})), default);
    }

    #[test]
    fn every_format_survives_non_object_tools() {
        for tool in [json!(null), json!([]), json!("x"), json!(1), json!({})] {
            for format in ToolFormat::ALL {
                for strict in [false, true] {
                    let out = definition(format, Options { strict }, "n", &tool);
                    assert!(out.definition.is_object(), "{format}: {}", out.definition);
                }
            }
        }
        assert_eq!(
            wire(ToolFormat::Openai, &json!(null)),
            r#"{"function":{"name":"mcp__srv__get_weather","parameters":{"properties":{},"type":"object"}},"type":"function"}"#
        );
    }
}
