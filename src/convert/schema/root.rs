//! The top level of a parameter schema: every provider wants a plain object there.
//!
//! - `type` becomes `"object"` (added when missing, as MCP requires; `["object", "null"]` and any
//!   other value are rewritten);
//! - a top-level `anyOf`/`oneOf` (OpenAI: "must not have anyOf at the top level"; Anthropic: "does
//!   not support oneOf, allOf, or anyOf at the top level") is merged into the object with
//!   [`merge_alternatives`]: every property of every alternative, `required` only where all agree;
//! - a top-level `enum`, `const` or `not` is dropped;
//! - `properties` is always present (OpenAI: "object schema missing properties").

use serde_json::{Map, Value};

use super::notes::{Action, Notes};
use super::unions::merge_alternatives;
use super::walk::child;

/// Normalises the top level of `schema` (see the module doc).
pub fn normalise(schema: &mut Value, notes: &mut Notes) {
    if !schema.is_object() {
        notes.add(
            "",
            Action::Rewritten,
            "the schema is not an object; sent as an object without parameters",
        );
        *schema = Value::Object(Map::new());
    }
    let Value::Object(root) = schema else { return };

    // An alternative may itself be a union; each round merges one level (bounded: the tree is).
    for _ in 0..super::notes::MAX_SCHEMA_DEPTH {
        if !root.contains_key("anyOf") && !root.contains_key("oneOf") {
            break;
        }
        merge_top_level_unions(root, notes);
    }
    for key in ["anyOf", "oneOf", "enum", "const", "not"] {
        if root.remove(key).is_some() {
            notes.add(
                &child("", key),
                Action::Dropped,
                format!("providers reject `{key}` at the top level"),
            );
        }
    }

    match root.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        None => {
            root.insert("type".into(), Value::from("object"));
        }
        Some(other) => {
            notes.add(
                "/type",
                Action::Rewritten,
                format!("top-level type {other} sent as \"object\" (tool arguments are always an object)"),
            );
            root.insert("type".into(), Value::from("object"));
        }
    }
    if !root.get("properties").is_some_and(Value::is_object) {
        if root.contains_key("properties") {
            notes.add(
                "/properties",
                Action::Dropped,
                "`properties` is not an object",
            );
        }
        root.insert("properties".into(), Value::Object(Map::new()));
    }
}

/// Merges a top-level `anyOf` and `oneOf` into the top-level object (see the module doc).
fn merge_top_level_unions(root: &mut Map<String, Value>, notes: &mut Notes) {
    for key in ["anyOf", "oneOf"] {
        let Some(union) = root.remove(key) else {
            continue;
        };
        let alternatives: Vec<Map<String, Value>> = match union {
            Value::Array(items) => items
                .into_iter()
                .filter_map(|v| match v {
                    Value::Object(m) => Some(m),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let alternatives = flatten(alternatives, 0);
        let count = alternatives.len();
        for (k, v) in merge_alternatives(&alternatives) {
            match (k.as_str(), root.get_mut(&k)) {
                ("properties", Some(Value::Object(mine))) => {
                    if let Value::Object(theirs) = v {
                        for (name, s) in theirs {
                            mine.entry(name).or_insert(s);
                        }
                    }
                }
                ("required", Some(Value::Array(mine))) => {
                    if let Value::Array(theirs) = v {
                        for name in theirs {
                            if !mine.contains(&name) {
                                mine.push(name);
                            }
                        }
                    }
                }
                (_, Some(_)) => {}
                (_, None) => {
                    root.insert(k, v);
                }
            }
        }
        notes.add(
            &child("", key),
            Action::Widened,
            format!(
                "providers reject `{key}` at the top level; its {count} alternative(s) were merged into one object \
                 (properties of all, required only where every alternative requires it)"
            ),
        );
    }
}

/// Alternatives that are only a union themselves (`{"anyOf": [...]}`, perhaps with a
/// description) replaced by their own alternatives.
fn flatten(alternatives: Vec<Map<String, Value>>, depth: usize) -> Vec<Map<String, Value>> {
    let mut out = Vec::new();
    for alternative in alternatives {
        let only_union = alternative
            .keys()
            .all(|k| matches!(k.as_str(), "anyOf" | "oneOf" | "description" | "title"))
            && (alternative.contains_key("anyOf") || alternative.contains_key("oneOf"));
        if !only_union || depth >= super::notes::MAX_SCHEMA_DEPTH {
            out.push(alternative);
            continue;
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(items)) = alternative.get(key) {
                let inner = items
                    .iter()
                    .filter_map(|v| v.as_object().cloned())
                    .collect();
                out.extend(flatten(inner, depth + 1));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: Value) -> (String, String) {
        crate::convert::schema::run_transform(normalise, schema)
    }

    #[test]
    fn minimal_object() {
        assert_eq!(
            run(json!({})),
            (r#"{"properties":{},"type":"object"}"#.into(), "[]".into())
        );
        assert_eq!(run(json!("x")).0, r#"{"properties":{},"type":"object"}"#);
        let (schema, notes) = run(json!({"type": ["object", "null"], "properties": [1]}));
        assert_eq!(schema, r#"{"properties":{},"type":"object"}"#);
        assert!(
            notes.contains(r#"top-level type [\"object\",\"null\"] sent as \"object\""#),
            "{notes}"
        );
        assert!(notes.contains("`properties` is not an object"));
    }

    #[test]
    fn top_level_union_is_merged() {
        let (schema, notes) = run(json!({
            "type": "object",
            "properties": {"common": {"type": "string"}},
            "required": ["common"],
            "oneOf": [
                {"properties": {"id": {"type": "string"}}, "required": ["id"]},
                {"properties": {"query": {"type": "string"}}, "required": ["query"]}
            ]
        }));
        assert_eq!(
            schema,
            r#"{"properties":{"common":{"type":"string"},"id":{"type":"string"},"query":{"type":"string"}},"required":["common"],"type":"object"}"#
        );
        assert_eq!(
            notes,
            r#"[{"action":"widened","path":"/oneOf","reason":"providers reject `oneOf` at the top level; its 2 alternative(s) were merged into one object (properties of all, required only where every alternative requires it)"}]"#
        );
    }

    #[test]
    fn nested_top_level_unions_are_merged_too() {
        let (schema, _) = run(
            json!({"oneOf": [{"anyOf": [{"properties": {"a": {"type": "string"}}}, {"oneOf": [{"properties": {"b": {}}}]}]}]}),
        );
        assert_eq!(
            schema,
            r#"{"properties":{"a":{"type":"string"},"b":{}},"type":"object"}"#
        );
    }

    #[test]
    fn top_level_enum_const_not_are_dropped() {
        let (schema, notes) = run(
            json!({"type": "object", "properties": {}, "not": {"required": ["x"]}, "enum": [{}]}),
        );
        assert_eq!(schema, r#"{"properties":{},"type":"object"}"#);
        assert_eq!(notes.matches("reject").count(), 2);
    }
}
