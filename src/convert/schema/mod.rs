//! Schema transforms: a tool's `inputSchema` becomes a parameter schema one provider accepts, and
//! every change is recorded as a [`Note`] (sent to hosts as `conversionNotes`).
//!
//! Each transform is a small pure function over `serde_json::Value`, in its own file, with its own
//! tests. [`convert`] composes them per format, in this order:
//!
//! | transform | openai, openai-responses | anthropic | gemini |
//! |---|---|---|---|
//! | [`refs::inline`]: local `$ref` inlined, `$defs` removed, cut-offs | ✓ | ✓ | ✓ |
//! | [`all_of::merge`]: `allOf` merged into one schema | ✓ | ✓ | ✓ |
//! | [`keywords::drop_meta`]: `$schema`, `$id`, `$comment`… | ✓ | ✓ | ✓ |
//! | [`root::normalise`]: top level is a plain object (no `anyOf`/`oneOf`) | ✓ | ✓ | ✓ |
//! | [`arrays::single_items`]: tuple `items`/`prefixItems` → one `items` | ✓ | ✓ | ✓ |
//! | [`arrays::require_items`]: every array has `items` | ✓ | | ✓ |
//! | [`keywords::const_to_enum`] | strict only | | ✓ |
//! | [`nullable::rewrite`]: `type: [T, "null"]`, null branches → `nullable` | | | ✓ |
//! | [`unions::for_gemini`]: `oneOf` → `anyOf`, unions collapsed where Gemini rejects them | | | ✓ |
//! | [`gemini::subset`]: Gemini's OpenAPI-subset `Schema` (field allowlist, `TYPE` names…) | | | ✓ |
//! | [`strict::make_strict`]: OpenAI strict mode, or a reasoned fallback | strict only | | |
//!
//! The `mcp` format is never converted: it is the server's own tool object.
//!
//! Termination and size: [`refs::inline`] runs first and bounds the tree (a `$ref` cycle or a chain
//! deeper than [`MAX_REF_DEPTH`] is cut to a permissive schema, nesting deeper than
//! [`MAX_SCHEMA_DEPTH`] likewise, and at most [`MAX_SCHEMA_NODES`] nodes are produced however the
//! definitions fan out), so every later walk is bounded too. Nothing here panics on any input.
//!
//! Arguments are always validated against the server's original schema, never against the
//! converted one (see `mcp::tools`); [`super::arguments`] undoes the one rewrite that changes what
//! a model sends (strict mode's nullable optional properties).

pub mod all_of;
pub mod arrays;
pub mod gemini;
pub mod keywords;
pub mod nullable;
pub mod refs;
pub mod root;
pub mod strict;
pub mod unions;
pub mod walk;

use serde_json::{Map, Value};

use super::ToolFormat;

/// Deepest nesting of subschemas kept; deeper ones become permissive.
pub const MAX_SCHEMA_DEPTH: usize = 32;
/// Longest chain of `$ref`s followed within one branch (a cycle is cut at its first repeat).
pub const MAX_REF_DEPTH: usize = 16;
/// Most schema nodes produced by inlining one tool's schema (a typical tool has well under 200;
/// definitions used many times can otherwise multiply: each level of a DAG of references may
/// double the output).
pub const MAX_SCHEMA_NODES: usize = 5_000;

/// One change made to a tool's schema, for a host to log. Fields are declared in key order, so
/// the wire JSON is canonical like everything else (`{"action","path","reason"}`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Note {
    pub action: Action,
    /// JSON Pointer of the schema node concerned, in the schema as the transform saw it (after
    /// inlining: positions in the converted schema); `""` is the top level.
    pub path: String,
    /// Why, in words, naming the keyword and the provider rule.
    pub reason: String,
}

/// What was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// A keyword was removed (the schema accepts at least what it accepted before).
    Dropped,
    /// A construct was expressed differently with the same meaning for a model.
    Rewritten,
    /// `$ref`s were replaced by the definitions they point at.
    Inlined,
    /// Several schemas were merged into one (`allOf`).
    Merged,
    /// The schema now admits more than before (the original schema still validates arguments).
    Widened,
    /// The schema now admits less than before (what a model sends still passes validation).
    Narrowed,
    /// A branch (recursive `$ref`, too deep, too large, remote `$ref`) became a permissive schema.
    Cut,
    /// Strict mode was asked for but this tool cannot be strict; it is sent with `strict: false`.
    StrictFallback,
}

/// Most notes kept per tool; the rest are counted in one last note (a huge generated schema must
/// not turn into a huge `conversionNotes`).
pub const MAX_NOTES: usize = 200;

/// The notes of one conversion, in order, without repeats, at most [`MAX_NOTES`].
#[derive(Debug, Default)]
pub struct Notes {
    notes: Vec<Note>,
    seen: std::collections::HashSet<Note>,
    omitted: usize,
}

impl Notes {
    pub fn add(&mut self, path: &str, action: Action, reason: impl Into<String>) {
        self.push(Note {
            path: path.to_string(),
            action,
            reason: reason.into(),
        });
    }

    fn push(&mut self, note: Note) {
        if self.seen.contains(&note) {
            return;
        }
        if self.notes.len() >= MAX_NOTES {
            self.omitted += 1;
            return;
        }
        self.seen.insert(note.clone());
        self.notes.push(note);
    }

    pub fn extend(&mut self, other: Notes) {
        self.omitted += other.omitted;
        for note in other.notes {
            self.push(note);
        }
    }

    /// The notes, with a last one counting those left out.
    pub fn into_vec(self) -> Vec<Note> {
        let mut notes = self.notes;
        if self.omitted > 0 {
            notes.push(Note {
                path: String::new(),
                action: Action::Dropped,
                reason: format!(
                    "{} more note(s) left out (at most {MAX_NOTES} per tool)",
                    self.omitted
                ),
            });
        }
        notes
    }

    pub fn as_slice(&self) -> &[Note] {
        &self.notes
    }
}

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

/// A schema that accepts what `like` accepts and more: its `type` (if any) and `description`,
/// nothing else. Used wherever a branch is cut.
pub fn permissive(like: Option<&Value>) -> Value {
    let mut out = Map::new();
    if let Some(Value::Object(map)) = like {
        for key in ["type", "description"] {
            if let Some(v @ (Value::String(_) | Value::Array(_))) = map.get(key) {
                out.insert(key.to_string(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// Runs one transform on `schema`; the resulting schema and notes as compact JSON, for exact-wire
/// assertions in each transform's tests.
#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
pub(crate) fn run_transform(
    transform: fn(&mut Value, &mut Notes),
    schema: Value,
) -> (String, String) {
    let mut schema = schema;
    let mut notes = Notes::default();
    transform(&mut schema, &mut notes);
    (
        serde_json::to_string(&schema).unwrap(),
        serde_json::to_string(notes.as_slice()).unwrap(),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;
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
