//! Unions (`anyOf`/`oneOf`) where a provider cannot take them as they are.
//!
//! [`merge_alternatives`] turns a list of alternatives into one schema that accepts all of them
//! (used for a top-level union, which OpenAI and Anthropic reject, and for Gemini's `items`).
//! [`for_gemini`] applies Gemini's rules:
//! - `oneOf` becomes `anyOf` (Gemini has no `oneOf`; the choice is no longer exclusive);
//! - alternatives that are all string `enum`s (Notion-style `oneOf` of `const`s) become one `enum`;
//! - a union of one alternative is that alternative;
//! - a union directly under `items` (Gemini answers 400 for `anyOf` there) is merged into one
//!   schema when the alternatives share a type, else the first alternative is kept.

use serde_json::{Map, Value};

use super::notes::{Action, Notes};
use super::walk::{self, child};

/// One schema accepting every alternative: the common `type` when they all share one; for objects,
/// every property of every alternative (a property declared differently by several becomes their
/// `anyOf`) with `required` only where all of them require it; any other keyword only when every
/// alternative has the same value.
pub fn merge_alternatives(alternatives: &[Map<String, Value>]) -> Map<String, Value> {
    let mut out = Map::new();
    let Some((first, rest)) = alternatives.split_first() else {
        return out;
    };
    for (key, value) in first {
        match key.as_str() {
            "properties" | "required" => {}
            _ => {
                if rest.iter().all(|alt| alt.get(key) == Some(value)) {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
    }
    let mut properties: Map<String, Value> = Map::new();
    for alt in alternatives {
        if let Some(Value::Object(props)) = alt.get("properties") {
            for (name, schema) in props {
                match properties.get_mut(name) {
                    None => {
                        properties.insert(name.clone(), schema.clone());
                    }
                    Some(existing) if existing == schema => {}
                    Some(existing) => {
                        let mut branches = match existing.get("anyOf") {
                            Some(Value::Array(b))
                                if existing.as_object().is_some_and(|o| o.len() == 1) =>
                            {
                                b.clone()
                            }
                            _ => vec![existing.clone()],
                        };
                        if !branches.contains(schema) {
                            branches.push(schema.clone());
                        }
                        let mut union = Map::new();
                        union.insert("anyOf".into(), Value::Array(branches));
                        *existing = Value::Object(union);
                    }
                }
            }
        }
    }
    if !properties.is_empty() {
        out.insert("properties".into(), Value::Object(properties));
        let required: Vec<Value> = required_of(first)
            .into_iter()
            .filter(|name| rest.iter().all(|alt| required_of(alt).contains(name)))
            .collect();
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
    }
    out
}

fn required_of(map: &Map<String, Value>) -> Vec<Value> {
    match map.get("required") {
        Some(Value::Array(names)) => names.iter().filter(|n| n.is_string()).cloned().collect(),
        _ => Vec::new(),
    }
}

/// Gemini's union rules (see the module doc).
pub fn for_gemini(schema: &mut Value, notes: &mut Notes) {
    walk::post_order(schema, &mut |node, path, via| {
        // Writing an alternative in place of its union can bring that alternative's own union
        // along; each round takes one level (bounded by the depth of the tree).
        for _ in 0..super::notes::MAX_SCHEMA_DEPTH {
            if !gemini_round(node, path, via, notes) {
                break;
            }
        }
    });
}

/// One pass of the rules over `node`; true when an alternative was written in place of its union
/// and brought a union of its own (then another pass is needed).
fn gemini_round(
    node: &mut Map<String, Value>,
    path: &str,
    via: walk::Via<'_>,
    notes: &mut Notes,
) -> bool {
    one_of_as_any_of(node, path, notes);
    let Some(any_of) = node.remove("anyOf") else {
        return false;
    };
    let here = child(path, "anyOf");
    let Value::Array(items) = any_of else {
        notes.add(&here, Action::Dropped, "`anyOf` is not a list of schemas");
        return false;
    };
    let alternatives: Vec<Map<String, Value>> = items
        .into_iter()
        .filter_map(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .collect();
    if alternatives.is_empty() {
        notes.add(&here, Action::Dropped, "`anyOf` has no schema alternatives");
        return false;
    }
    if let Some(values) = string_enums(&alternatives) {
        node.entry("type").or_insert_with(|| Value::from("string"));
        node.insert("enum".into(), Value::Array(values));
        notes.add(
            &here,
            Action::Merged,
            "alternatives that are all string constants written as one `enum`",
        );
        return false;
    }
    let replacement = if alternatives.len() == 1 {
        notes.add(
            &here,
            Action::Rewritten,
            "a union of one alternative written as that alternative",
        );
        alternatives.into_iter().next().unwrap_or_default()
    } else if via.0 == "items" {
        items_union(alternatives, &here, notes)
    } else {
        node.insert(
            "anyOf".into(),
            Value::Array(alternatives.into_iter().map(Value::Object).collect()),
        );
        return false;
    };
    hoist(node, replacement);
    node.contains_key("anyOf") || node.contains_key("oneOf")
}

/// `oneOf` becomes `anyOf` (Gemini has no `oneOf`), or is dropped next to an `anyOf`.
fn one_of_as_any_of(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    let Some(one_of) = node.remove("oneOf") else {
        return;
    };
    let here = child(path, "oneOf");
    if node.contains_key("anyOf") {
        notes.add(
            &here,
            Action::Widened,
            "Gemini has no `oneOf` and this schema also has `anyOf`; `oneOf` dropped",
        );
    } else {
        node.insert("anyOf".into(), one_of);
        notes.add(
            &here,
            Action::Widened,
            "Gemini has no `oneOf`; its alternatives are sent as `anyOf` (no longer exclusive)",
        );
    }
}

/// The one schema sent for a union of several `alternatives` directly under `items`: their merge
/// when they share a type, else the first.
fn items_union(
    alternatives: Vec<Map<String, Value>>,
    here: &str,
    notes: &mut Notes,
) -> Map<String, Value> {
    let first_type = |a: &Map<String, Value>| match walk::types(a).as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    };
    let shared = alternatives.first().and_then(first_type);
    if shared.is_some() && alternatives.iter().all(|a| first_type(a) == shared) {
        notes.add(
            here,
            Action::Widened,
            "Gemini rejects `anyOf` as an array's `items`; its alternatives (all of one type) were merged into one schema",
        );
        merge_alternatives(&alternatives)
    } else {
        notes.add(
            here,
            Action::Narrowed,
            "Gemini rejects `anyOf` as an array's `items` and its alternatives differ in type; only the first is kept",
        );
        alternatives.into_iter().next().unwrap_or_default()
    }
}

/// `Some(values)` when every alternative is an `enum` of strings (with at most a `type: "string"`,
/// `description` and `title` besides).
fn string_enums(alternatives: &[Map<String, Value>]) -> Option<Vec<Value>> {
    let mut values: Vec<Value> = Vec::new();
    for alt in alternatives {
        let Some(Value::Array(items)) = alt.get("enum") else {
            return None;
        };
        if !items.iter().all(Value::is_string) {
            return None;
        }
        let plain = alt.iter().all(|(k, v)| match k.as_str() {
            "enum" | "description" | "title" => true,
            "type" => v == "string",
            _ => false,
        });
        if !plain {
            return None;
        }
        for item in items {
            if !values.contains(item) {
                values.push(item.clone());
            }
        }
    }
    Some(values)
}

/// Puts `alternative`'s keywords into `node`, where `node` does not already have them (the outer
/// schema's `description` wins).
fn hoist(node: &mut Map<String, Value>, alternative: Map<String, Value>) {
    for (key, value) in alternative {
        node.entry(key).or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn gemini(schema: Value) -> (String, String) {
        let mut schema = schema;
        let mut notes = Notes::default();
        for_gemini(&mut schema, &mut notes);
        (
            serde_json::to_string(&schema).unwrap(),
            serde_json::to_string(notes.as_slice()).unwrap(),
        )
    }

    #[test]
    fn alternatives_merge() {
        let merged = merge_alternatives(&[
            obj(
                json!({"type": "object", "properties": {"kind": {"enum": ["a"]}, "x": {"type": "string"}}, "required": ["kind", "x"]}),
            ),
            obj(
                json!({"type": "object", "properties": {"kind": {"enum": ["b"]}, "y": {"type": "integer"}}, "required": ["kind"], "title": "B"}),
            ),
        ]);
        assert_eq!(
            serde_json::to_string(&merged).unwrap(),
            r#"{"properties":{"kind":{"anyOf":[{"enum":["a"]},{"enum":["b"]}]},"x":{"type":"string"},"y":{"type":"integer"}},"required":["kind"],"type":"object"}"#
        );
        assert!(merge_alternatives(&[]).is_empty());
        assert_eq!(
            serde_json::to_string(&merge_alternatives(&[
                obj(json!({"type": "string"})),
                obj(json!({"type": "integer"}))
            ]))
            .unwrap(),
            "{}"
        );
    }

    #[test]
    fn one_of_becomes_any_of() {
        let (schema, notes) = gemini(json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}));
        assert_eq!(
            schema,
            r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#
        );
        assert!(notes.contains("no longer exclusive"));
    }

    #[test]
    fn string_constants_become_one_enum() {
        let (schema, _) = gemini(json!({"description": "color", "oneOf": [
            {"enum": ["red"], "description": "warm"}, {"type": "string", "enum": ["blue", "red"]}
        ]}));
        assert_eq!(
            schema,
            r#"{"description":"color","enum":["red","blue"],"type":"string"}"#
        );
    }

    #[test]
    fn single_alternative_is_hoisted() {
        let (schema, _) = gemini(
            json!({"description": "outer", "anyOf": [{"type": "string", "description": "inner"}]}),
        );
        assert_eq!(schema, r#"{"description":"outer","type":"string"}"#);
    }

    #[test]
    fn unions_under_items() {
        let (schema, notes) = gemini(json!({"type": "array", "items": {"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
        ]}}));
        assert_eq!(
            schema,
            r#"{"items":{"properties":{"a":{"type":"string"},"b":{"type":"string"}},"type":"object"},"type":"array"}"#
        );
        assert!(notes.contains("were merged into one schema"));
        let (schema, notes) = gemini(
            json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}}),
        );
        assert_eq!(schema, r#"{"items":{"type":"string"},"type":"array"}"#);
        assert!(notes.contains("only the first is kept"));
        // Not under items: kept.
        let (schema, _) = gemini(
            json!({"properties": {"v": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
        );
        assert_eq!(
            schema,
            r#"{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}"#
        );
    }

    #[test]
    fn hoisted_unions_are_handled_in_turn() {
        let (schema, _) = gemini(
            json!({"type": "array", "items": {"oneOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}]}]}}),
        );
        assert_eq!(schema, r#"{"items":{"type":"string"},"type":"array"}"#);
    }

    #[test]
    fn malformed_unions_are_dropped() {
        let (schema, _) = gemini(json!({"type": "string", "anyOf": "x"}));
        assert_eq!(schema, r#"{"type":"string"}"#);
        let (schema, _) = gemini(json!({"type": "string", "anyOf": [1, true]}));
        assert_eq!(schema, r#"{"type":"string"}"#);
    }
}
