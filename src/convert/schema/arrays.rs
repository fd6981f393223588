//! Arrays: one `items` schema, always present where a provider requires it.
//!
//! - [`single_items`]: a tuple (`prefixItems`, or draft-07's `items: [A, B]`) becomes
//!   `items: {"anyOf": [A, B]}` (or `items: A` for one): providers take a single `items` schema.
//!   `additionalItems` goes with it.
//! - [`require_items`]: an array without `items` gets `items: {}` (any value). OpenAI answers 400
//!   "array schema missing items"; Gemini "items: missing field".

use serde_json::{Map, Value};

use super::notes::{Action, Notes};
use super::walk::{self, child};

/// Rewrites tuple forms to one `items` schema (see the module doc).
pub fn single_items(schema: &mut Value, notes: &mut Notes) {
    walk::post_order(schema, &mut |node, path, _| {
        let tuple = match (node.remove("prefixItems"), node.get("items")) {
            (Some(Value::Array(prefix)), _) => {
                node.remove("items");
                Some(("prefixItems", prefix))
            }
            (Some(_), _) => {
                notes.add(
                    &child(path, "prefixItems"),
                    Action::Dropped,
                    "`prefixItems` is not a list of schemas",
                );
                None
            }
            (None, Some(Value::Array(_))) => match node.remove("items") {
                Some(Value::Array(items)) => Some(("items", items)),
                _ => None,
            },
            (None, _) => None,
        };
        let Some((key, mut positions)) = tuple else {
            return;
        };
        node.remove("additionalItems");
        let items = match positions.len() {
            0 => Value::Object(Map::new()),
            1 => positions.remove(0),
            _ => {
                let mut unique: Vec<Value> = Vec::new();
                for p in positions {
                    if !unique.contains(&p) {
                        unique.push(p);
                    }
                }
                if unique.len() == 1 {
                    unique.remove(0)
                } else {
                    let mut union = Map::new();
                    union.insert("anyOf".into(), Value::Array(unique));
                    Value::Object(union)
                }
            }
        };
        node.insert("items".into(), items);
        notes.add(
            &child(path, key),
            Action::Widened,
            "a tuple (one schema per position) sent as one `items` schema for every element: providers take a single `items`",
        );
    });
}

/// Adds `items: {}` to every array without one (`provider` names who requires it, for the note).
pub fn require_items(schema: &mut Value, provider: &str, notes: &mut Notes) {
    walk::post_order(schema, &mut |node, path, _| {
        if walk::has_type(node, "array") && !node.get("items").is_some_and(Value::is_object) {
            node.insert("items".into(), Value::Object(Map::new()));
            notes.add(
                &child(path, "items"),
                Action::Rewritten,
                format!(
                    "{provider} requires `items` on every array; `items: {{}}` (any element) added"
                ),
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tuples_become_one_items_schema() {
        let mut schema = json!({"properties": {
            "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false},
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
            "one": {"type": "array", "items": [{"type": "string"}]},
            "none": {"type": "array", "items": []}
        }});
        let mut notes = Notes::default();
        single_items(&mut schema, &mut notes);
        assert_eq!(
            serde_json::to_string(&schema).unwrap(),
            r#"{"properties":{"none":{"items":{},"type":"array"},"one":{"items":{"type":"string"},"type":"array"},"pair":{"items":{"anyOf":[{"type":"string"},{"type":"integer"}]},"type":"array"},"point":{"items":{"type":"number"},"type":"array"}}}"#
        );
        assert_eq!(notes.as_slice().len(), 4);
    }

    #[test]
    fn missing_items_are_added() {
        let mut schema = json!({"properties": {"a": {"type": "array"}, "b": {"type": ["array", "null"], "items": true}, "c": {"type": "array", "items": {"type": "string"}}}});
        let mut notes = Notes::default();
        require_items(&mut schema, "OpenAI", &mut notes);
        assert_eq!(
            serde_json::to_string(&schema).unwrap(),
            r#"{"properties":{"a":{"items":{},"type":"array"},"b":{"items":{},"type":["array","null"]},"c":{"items":{"type":"string"},"type":"array"}}}"#
        );
        assert_eq!(
            serde_json::to_string(&notes.as_slice()[0]).unwrap(),
            r#"{"action":"rewritten","path":"/properties/a/items","reason":"OpenAI requires `items` on every array; `items: {}` (any element) added"}"#
        );
    }
}
