//! Null for Gemini, whose `Schema` has one `type` and a `nullable` flag instead of JSON Schema's
//! type lists and null alternatives (a list answers 400 "Proto field is not repeating").
//!
//! - `type: [T, "null"]` → `type: T, nullable: true`;
//! - `type: [T, U, ...]` → `anyOf` of one schema per type, each with the keywords that apply to
//!   it (`properties` go with `object`, `items` with `array`, `pattern` with `string`...), and
//!   `nullable: true` when `"null"` was listed;
//! - `type: "null"` alone → `type: string, nullable: true` (Gemini has no null type; narrowed: the
//!   only value a model can send that way and that still validates is null);
//! - `null` alternatives of `anyOf`/`oneOf` → `nullable: true`; a single remaining alternative is
//!   written in place of the union;
//! - `null` among `enum` values → `nullable: true`.

use serde_json::{Map, Value};

use super::notes::{Action, Notes};
use super::walk::{self, child};

/// Keywords that only apply to one JSON type, so a type list can be split without losing them.
const FOR_TYPE: &[(&str, &[&str])] = &[
    (
        "object",
        &[
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "minProperties",
            "maxProperties",
            "propertyNames",
        ],
    ),
    (
        "array",
        &["items", "minItems", "maxItems", "uniqueItems", "contains"],
    ),
    ("string", &["minLength", "maxLength", "pattern", "format"]),
    (
        "number",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
    (
        "integer",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
];

/// Rewrites null and type lists for Gemini (see the module doc).
pub fn rewrite(schema: &mut Value, notes: &mut Notes) {
    walk::post_order(schema, &mut |node, path, via| {
        for key in ["anyOf", "oneOf"] {
            null_alternatives(node, key, path, notes);
        }
        if let Some(Value::Array(values)) = node.get_mut("enum") {
            if values.contains(&Value::Null) {
                values.retain(|v| !v.is_null());
                if values.is_empty() {
                    node.remove("enum");
                }
                node.insert("nullable".into(), Value::Bool(true));
                notes.add(
                    &child(path, "enum"),
                    Action::Rewritten,
                    "`null` among `enum` values written as `nullable: true` (Gemini)",
                );
            }
        }
        // A null alternative is left for its union to turn into `nullable` (children come first).
        let in_union = via.0 == "anyOf" || via.0 == "oneOf";
        if !(in_union && is_null_schema(&Value::Object(node.clone()))) {
            type_list(node, path, notes);
        }
    });
}

fn type_list(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    let here = child(path, "type");
    let listed: Vec<String> = match node.get("type") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(Value::String(t)) if t == "null" => vec![t.clone()],
        _ => return,
    };
    if listed.is_empty() {
        node.remove("type");
        notes.add(&here, Action::Dropped, "`type` lists no type names");
        return;
    }
    let nullable = listed.iter().any(|t| t == "null");
    let mut rest: Vec<String> = Vec::new();
    for t in listed.into_iter().filter(|t| t != "null") {
        if !rest.contains(&t) {
            rest.push(t);
        }
    }
    if nullable {
        node.insert("nullable".into(), Value::Bool(true));
    }
    match rest.len() {
        0 => {
            node.insert("type".into(), Value::from("string"));
            notes.add(
                &here,
                Action::Narrowed,
                "Gemini has no null type; a null-only value is sent as a nullable string",
            );
        }
        1 => {
            let only = rest.remove(0);
            node.insert("type".into(), Value::String(only.clone()));
            if nullable {
                notes.add(&here, Action::Rewritten, format!("type [\"{only}\", \"null\"] written as type \"{only}\" + nullable: true (Gemini takes one type)"));
            } else {
                notes.add(
                    &here,
                    Action::Rewritten,
                    "a one-element type list written as that type",
                );
            }
        }
        _ if node.contains_key("anyOf") => {
            node.remove("type");
            notes.add(
                &here,
                Action::Widened,
                "Gemini takes one type; this type list (next to an `anyOf`) was dropped",
            );
        }
        _ => {
            one_schema_per_type(node, &rest);
            notes.add(&here, Action::Rewritten, format!("type list {rest:?} written as `anyOf` of one schema per type (Gemini takes one type)"));
        }
    }
}

/// Replaces the `type` list `types` by an `anyOf` of one schema per type, each taking the
/// keywords that belong to its type (see `FOR_TYPE`).
fn one_schema_per_type(node: &mut Map<String, Value>, types: &[String]) {
    node.remove("type");
    let mut alternatives = Vec::new();
    for t in types {
        let mut alternative = Map::new();
        alternative.insert("type".into(), Value::String(t.clone()));
        if let Some((_, keys)) = FOR_TYPE.iter().find(|(name, _)| name == t) {
            for key in *keys {
                if let Some(v) = node.get(*key) {
                    alternative.insert((*key).to_string(), v.clone());
                }
            }
        }
        alternatives.push(Value::Object(alternative));
    }
    for (_, keys) in FOR_TYPE {
        for key in *keys {
            node.remove(*key);
        }
    }
    node.insert("anyOf".into(), Value::Array(alternatives));
}

fn null_alternatives(node: &mut Map<String, Value>, key: &str, path: &str, notes: &mut Notes) {
    let Some(Value::Array(alternatives)) = node.get_mut(key) else {
        return;
    };
    let before = alternatives.len();
    alternatives.retain(|a| !is_null_schema(a));
    if alternatives.len() == before {
        return;
    }
    node.insert("nullable".into(), Value::Bool(true));
    let here = child(path, key);
    let remaining = match node.get(key) {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    match remaining.as_slice() {
        [Value::Object(only)] => {
            node.remove(key);
            for (k, v) in only {
                if k == "nullable" {
                    continue;
                }
                node.entry(k.clone()).or_insert_with(|| v.clone());
            }
            notes.add(&here, Action::Rewritten, format!("`{key}` of one schema and null written as that schema + nullable: true (Gemini)"));
        }
        [] => {
            node.remove(key);
            node.entry("type").or_insert_with(|| Value::from("string"));
            notes.add(
                &here,
                Action::Narrowed,
                "Gemini has no null type; a null-only value is sent as a nullable string",
            );
        }
        _ => notes.add(
            &here,
            Action::Rewritten,
            format!("null alternative of `{key}` written as nullable: true (Gemini)"),
        ),
    }
}

/// `{"type": "null"}` (with at most documentation keywords besides).
fn is_null_schema(value: &Value) -> bool {
    let Value::Object(map) = value else {
        return false;
    };
    map.get("type").and_then(Value::as_str) == Some("null")
        && map
            .keys()
            .all(|k| matches!(k.as_str(), "type" | "description" | "title"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: Value) -> (String, String) {
        crate::convert::schema::run_transform(rewrite, schema)
    }

    #[test]
    fn type_and_null() {
        let (schema, notes) = run(json!({"type": ["string", "null"], "maxLength": 3}));
        assert_eq!(schema, r#"{"maxLength":3,"nullable":true,"type":"string"}"#);
        assert_eq!(
            notes,
            r#"[{"action":"rewritten","path":"/type","reason":"type [\"string\", \"null\"] written as type \"string\" + nullable: true (Gemini takes one type)"}]"#
        );
        assert_eq!(run(json!({"type": ["integer"]})).0, r#"{"type":"integer"}"#);
        assert_eq!(
            run(json!({"type": "null"})).0,
            r#"{"nullable":true,"type":"string"}"#
        );
    }

    #[test]
    fn several_types_split_with_their_keywords() {
        let (schema, _) = run(json!({
            "description": "a value", "type": ["string", "array", "null"],
            "maxLength": 10, "items": {"type": "integer"}, "minItems": 1
        }));
        assert_eq!(
            schema,
            r#"{"anyOf":[{"maxLength":10,"type":"string"},{"items":{"type":"integer"},"minItems":1,"type":"array"}],"description":"a value","nullable":true}"#
        );
    }

    #[test]
    fn null_alternatives() {
        let (schema, _) = run(
            json!({"description": "outer", "anyOf": [{"type": "string", "description": "inner"}, {"type": "null"}]}),
        );
        assert_eq!(
            schema,
            r#"{"description":"outer","nullable":true,"type":"string"}"#
        );
        let (schema, _) =
            run(json!({"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}));
        assert_eq!(
            schema,
            r#"{"nullable":true,"oneOf":[{"type":"string"},{"type":"integer"}]}"#
        );
        let (schema, _) = run(json!({"anyOf": [{"type": "null"}]}));
        assert_eq!(schema, r#"{"nullable":true,"type":"string"}"#);
        // A branch that only looks null-ish is kept.
        let (schema, _) =
            run(json!({"anyOf": [{"type": "null", "enum": [null]}, {"type": "string"}]}));
        assert!(schema.contains("anyOf"));
    }

    #[test]
    fn null_in_enum() {
        let (schema, _) = run(json!({"type": "string", "enum": ["a", null]}));
        assert_eq!(schema, r#"{"enum":["a"],"nullable":true,"type":"string"}"#);
    }
}
