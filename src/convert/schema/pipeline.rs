//! [`convert`]: the schema transforms composed per format (the table in the `schema` module doc).

use serde_json::{Map, Value};

use super::notes::{Action, Note, Notes};
use super::{all_of, arrays, gemini, keywords, nullable, refs, root, strict, unions};
use crate::convert::format::ToolFormat;

/// What [`convert`] produces.
#[derive(Debug)]
pub struct Converted {
    /// The parameter schema for the provider.
    pub schema: Value,
    pub notes: Vec<Note>,
    /// `Some(true)`: made strict; `Some(false)`: strict was asked for and this tool fell back (a
    /// [`Action::StrictFallback`] note says why); `None`: not asked (or not an OpenAI format).
    pub strict: Option<bool>,
}

/// Converts a tool's `inputSchema` (as the server sent it; `None` or a non-object is treated as
/// "no parameters") for `format`. `strict` applies to `openai` and `openai-responses` only.
/// For `mcp` the schema is returned as is.
pub fn convert(format: ToolFormat, strict: bool, input: Option<&Value>) -> Converted {
    let mut notes = Notes::default();
    let mut schema = match input {
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            notes.add(
                "",
                Action::Rewritten,
                "`inputSchema` is not an object; sent as an object without parameters",
            );
            Value::Object(Map::new())
        }
        None => Value::Object(Map::new()),
    };
    if format == ToolFormat::Mcp {
        return Converted {
            schema: input.cloned().unwrap_or(schema),
            notes: Vec::new(),
            strict: None,
        };
    }

    refs::inline(&mut schema, &mut notes);
    all_of::merge(&mut schema, &mut notes);
    keywords::drop_meta(&mut schema, &mut notes);
    root::normalise(&mut schema, &mut notes);
    arrays::single_items(&mut schema, &mut notes);

    let mut strict_outcome = None;
    match format {
        ToolFormat::Gemini => {
            arrays::require_items(&mut schema, "Gemini", &mut notes);
            keywords::const_to_enum(&mut schema, "Gemini", &mut notes);
            nullable::rewrite(&mut schema, &mut notes);
            unions::for_gemini(&mut schema, &mut notes);
            gemini::subset(&mut schema, &mut notes);
        }
        ToolFormat::Openai | ToolFormat::OpenaiResponses => {
            arrays::require_items(&mut schema, "OpenAI", &mut notes);
            if strict {
                let mut candidate = schema.clone();
                let mut strict_notes = Notes::default();
                keywords::const_to_enum(&mut candidate, "OpenAI strict mode", &mut strict_notes);
                match strict::make_strict(&mut candidate, &mut strict_notes) {
                    Ok(()) => {
                        schema = candidate;
                        notes.extend(strict_notes);
                        strict_outcome = Some(true);
                    }
                    Err(why) => {
                        notes.add(
                            "",
                            Action::StrictFallback,
                            format!("{why}; this tool is sent with strict: false"),
                        );
                        strict_outcome = Some(false);
                    }
                }
            }
        }
        ToolFormat::Anthropic | ToolFormat::Mcp => {}
    }
    Converted {
        schema,
        notes: notes.into_vec(),
        strict: strict_outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::schema::notes::MAX_NOTES;
    use crate::convert::schema::walk::permissive;
    use serde_json::json;

    fn wire(format: ToolFormat, strict: bool, schema: Value) -> (String, String, Option<bool>) {
        let out = convert(format, strict, Some(&schema));
        (
            serde_json::to_string(&out.schema).unwrap(),
            serde_json::to_string(&out.notes).unwrap(),
            out.strict,
        )
    }

    #[test]
    fn note_wire_shape() {
        let note = Note {
            path: "/properties/a".into(),
            action: Action::StrictFallback,
            reason: "why".into(),
        };
        assert_eq!(
            serde_json::to_string(&note).unwrap(),
            r#"{"action":"strict-fallback","path":"/properties/a","reason":"why"}"#
        );
    }

    #[test]
    fn notes_do_not_repeat() {
        let mut notes = Notes::default();
        notes.add("", Action::Dropped, "x");
        notes.add("", Action::Dropped, "x");
        notes.add("/a", Action::Dropped, "x");
        assert_eq!(notes.as_slice().len(), 2);
        for i in 0..MAX_NOTES + 5 {
            notes.add(&format!("/{i}"), Action::Cut, "y");
        }
        let all = notes.into_vec();
        assert_eq!(all.len(), MAX_NOTES + 1);
        assert_eq!(
            all[MAX_NOTES].reason,
            "7 more note(s) left out (at most 200 per tool)"
        );
    }

    #[test]
    fn mcp_is_untouched() {
        let schema = json!({"$schema": "x", "type": "object", "$defs": {"a": {}}, "properties": {"p": {"$ref": "#/$defs/a"}}});
        let out = convert(ToolFormat::Mcp, true, Some(&schema));
        assert_eq!(out.schema, schema);
        assert!(out.notes.is_empty());
        assert_eq!(out.strict, None);
    }

    #[test]
    fn plain_schema_passes_unchanged_except_for_openai_and_gemini_specifics() {
        let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
        for format in [
            ToolFormat::Openai,
            ToolFormat::OpenaiResponses,
            ToolFormat::Anthropic,
        ] {
            assert_eq!(
                wire(format, false, schema.clone()),
                (
                    r#"{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}"#.into(),
                    "[]".into(),
                    None
                )
            );
        }
        assert_eq!(
            wire(ToolFormat::Gemini, false, schema.clone()).0,
            r#"{"properties":{"city":{"type":"STRING"}},"required":["city"],"type":"OBJECT"}"#
        );
        assert_eq!(
            wire(ToolFormat::Openai, true, schema),
            (
                r#"{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}"#.into(),
                r#"[{"action":"narrowed","path":"","reason":"set additionalProperties: false on 1 object(s) (OpenAI strict mode requires it on every object)"}]"#.into(),
                Some(true)
            )
        );
    }

    #[test]
    fn non_object_input_is_an_empty_object() {
        for format in [
            ToolFormat::Openai,
            ToolFormat::Anthropic,
            ToolFormat::Gemini,
        ] {
            let out = convert(format, false, Some(&json!([1])));
            assert_eq!(out.notes[0].action, Action::Rewritten);
            assert!(out.schema.is_object());
        }
        assert_eq!(
            serde_json::to_string(&convert(ToolFormat::Anthropic, false, None).schema).unwrap(),
            r#"{"properties":{},"type":"object"}"#
        );
    }

    #[test]
    fn strict_fallback_keeps_the_non_strict_schema() {
        let schema = json!({"type": "object", "properties": {"meta": {"type": "object", "additionalProperties": {"type": "string"}}}});
        let (wire_schema, notes, strict) = wire(ToolFormat::OpenaiResponses, true, schema.clone());
        assert_eq!(strict, Some(false));
        assert_eq!(
            wire_schema,
            wire(ToolFormat::OpenaiResponses, false, schema).0
        );
        assert_eq!(
            notes,
            r#"[{"action":"strict-fallback","path":"","reason":"/properties/meta: an object whose additional properties follow a schema (a map) cannot be expressed in strict mode; this tool is sent with strict: false"}]"#
        );
    }

    #[test]
    fn permissive_keeps_type_and_description_only() {
        assert_eq!(permissive(None), json!({}));
        assert_eq!(
            permissive(Some(
                &json!({"type": "object", "description": "d", "properties": {"a": {}}})
            )),
            json!({"type": "object", "description": "d"})
        );
        assert_eq!(permissive(Some(&json!(true))), json!({}));
    }
}
