//! Walking a JSON Schema: which keywords hold subschemas, JSON Pointer paths, and a post-order
//! visitor that every transform uses, so each transform only says what it does to one node.

use serde_json::{Map, Value};

use super::notes::MAX_SCHEMA_DEPTH;

/// Keywords whose value is one subschema.
pub const ONE: &[&str] = &[
    "additionalItems",
    "additionalProperties",
    "contains",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Keywords whose value maps names to subschemas.
pub const MAP: &[&str] = &[
    "$defs",
    "definitions",
    "dependentSchemas",
    "patternProperties",
    "properties",
];

/// Keywords whose value is a list of subschemas (`items` too, in its draft-07 tuple form).
pub const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords where a boolean is a meaningful value of its own (`additionalProperties: false`), not
/// a stand-in for a schema that providers would want as an object.
pub const BOOLEAN_OK: &[&str] = &[
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// How deep [`post_order`] descends: twice the depth [`super::refs::inline`] leaves.
pub const VISIT_DEPTH: usize = 2 * MAX_SCHEMA_DEPTH;

/// `path` + `/` + `key` with JSON Pointer escaping (`~` → `~0`, `/` → `~1`).
pub fn child(path: &str, key: &str) -> String {
    let mut out = String::with_capacity(path.len() + key.len() + 1);
    out.push_str(path);
    out.push('/');
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// Where a node hangs: the keyword of its parent that holds it (`""` for the root), so a transform
/// can treat, say, an array's `items` differently from a property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Via<'a>(pub &'a str);

impl Via<'_> {
    pub fn is_root(self) -> bool {
        self.0.is_empty()
    }
}

/// What [`post_order`] calls on each node: the node, its JSON Pointer, where it hangs.
pub type Visitor<'f> = dyn FnMut(&mut Map<String, Value>, &str, Via<'_>) + 'f;

/// Calls `f` on every schema object of the tree, children before their parent, in sorted key
/// order (deterministic), with its JSON Pointer and the keyword it hangs under. Booleans and other
/// non-object subschemas are not visited. Nodes deeper than [`VISIT_DEPTH`] are not visited either
/// ([`super::refs::inline`] cuts the tree at [`MAX_SCHEMA_DEPTH`] first, and later transforms add
/// at most a level or two, so none remain in practice); this bounds the recursion on any input.
pub fn post_order(schema: &mut Value, f: &mut Visitor<'_>) {
    visit(schema, "", "", 0, f);
}

fn visit(node: &mut Value, path: &str, via: &str, depth: usize, f: &mut Visitor<'_>) {
    let Value::Object(map) = node else { return };
    if depth < VISIT_DEPTH {
        for (key, value) in map.iter_mut() {
            let key = key.as_str();
            let here = child(path, key);
            if ONE.contains(&key) {
                match value {
                    Value::Array(items) if key == "items" => {
                        for (i, item) in items.iter_mut().enumerate() {
                            visit(item, &child(&here, &i.to_string()), key, depth + 1, f);
                        }
                    }
                    _ => visit(value, &here, key, depth + 1, f),
                }
            } else if MAP.contains(&key) {
                if let Value::Object(entries) = value {
                    for (name, item) in entries.iter_mut() {
                        visit(item, &child(&here, name), key, depth + 1, f);
                    }
                }
            } else if LIST.contains(&key) {
                if let Value::Array(items) = value {
                    for (i, item) in items.iter_mut().enumerate() {
                        visit(item, &child(&here, &i.to_string()), key, depth + 1, f);
                    }
                }
            }
        }
    }
    f(map, path, Via(via));
}

/// The `type` of a node as a list of names (`"string"` → `["string"]`); empty when absent or
/// malformed.
pub fn types(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether the node's `type` is (or includes) `name`.
pub fn has_type(map: &Map<String, Value>, name: &str) -> bool {
    types(map).contains(&name)
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointer_escaping() {
        assert_eq!(child("", "properties"), "/properties");
        assert_eq!(child("/properties", "a/b~c"), "/properties/a~1b~0c");
    }

    #[test]
    fn visits_children_first_in_sorted_order() {
        let mut schema = json!({
            "type": "object",
            "properties": {"b": {"type": "string"}, "a": {"items": {"type": "integer"}}},
            "anyOf": [{"required": ["a"]}, true],
            "items": [{"type": "null"}],
            "additionalProperties": false,
            "enum": [{"not": "a schema"}]
        });
        let mut seen = Vec::new();
        post_order(&mut schema, &mut |_, path, via| {
            seen.push(format!("{path} ({})", via.0))
        });
        assert_eq!(
            seen,
            [
                "/anyOf/0 (anyOf)",
                "/items/0 (items)",
                "/properties/a/items (items)",
                "/properties/a (properties)",
                "/properties/b (properties)",
                " ()"
            ]
        );
    }

    #[test]
    fn depth_is_bounded() {
        let mut schema = json!({});
        for _ in 0..(VISIT_DEPTH + 10) {
            schema = json!({"items": schema});
        }
        let mut count = 0;
        post_order(&mut schema, &mut |_, _, _| count += 1);
        assert_eq!(count, VISIT_DEPTH + 1);
    }

    #[test]
    fn type_lists() {
        let m = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(types(&m(json!({"type": "string"}))), ["string"]);
        assert_eq!(
            types(&m(json!({"type": ["string", 1, "null"]}))),
            ["string", "null"]
        );
        assert!(types(&m(json!({"type": 5}))).is_empty());
        assert!(has_type(&m(json!({"type": ["object", "null"]})), "object"));
    }
}
