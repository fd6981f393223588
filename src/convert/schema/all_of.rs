//! Merging `allOf`: `{"allOf": [A, B], ...rest}` becomes one schema with the keywords of `rest`, A
//! and B together. OpenAI strict mode and Gemini have no `allOf`; everywhere else one flat schema
//! is also what a model reads best.
//!
//! How two schemas merge, keyword by keyword, when both have it and the values differ:
//! - `properties`: union; a property in both is merged the same way;
//! - `required`: union;
//! - `type`: the types both allow (when none, the first is kept and noted);
//! - `enum`: the values both allow (when none, the first is kept and noted);
//! - `minimum`, `minLength`, `minItems`, `minProperties`: the larger; the `max…` ones: the smaller;
//! - `additionalProperties`: `false` if either says `false`;
//! - `description`, `title`, `default`, `examples`: the first (the outer schema's own first);
//! - anything else: the first, noted as widened (the original schema still validates arguments).
//!
//! Branches are merged children first, so nested `allOf`s are already flat when their parent's
//! are merged.

use serde_json::{Map, Value};

use super::notes::{Action, Notes};
use super::walk::{self, child};

/// Merges every `allOf` of `schema` (see the module doc).
pub fn merge(schema: &mut Value, notes: &mut Notes) {
    walk::post_order(schema, &mut |node, path, _| {
        let Some(all_of) = node.remove("allOf") else {
            return;
        };
        let here = child(path, "allOf");
        let Value::Array(branches) = all_of else {
            notes.add(&here, Action::Dropped, "`allOf` is not a list of schemas");
            return;
        };
        let count = branches.len();
        for branch in branches {
            match branch {
                Value::Object(branch) => merge_into(node, branch, path, notes),
                Value::Bool(true) => {}
                _ => notes.add(&here, Action::Dropped, "an `allOf` entry is not a schema"),
            }
        }
        notes.add(
            path,
            Action::Merged,
            format!("merged `allOf` of {count} schema(s) into one"),
        );
    });
}

/// Merges `branch` into `target` (see the module doc for the rules).
pub fn merge_into(
    target: &mut Map<String, Value>,
    branch: Map<String, Value>,
    path: &str,
    notes: &mut Notes,
) {
    for (key, value) in branch {
        let Some(existing) = target.get_mut(&key) else {
            target.insert(key, value);
            continue;
        };
        if *existing == value {
            continue;
        }
        match key.as_str() {
            "properties" => merge_properties(existing, value, path, notes),
            "required" => {
                if let (Value::Array(mine), Value::Array(theirs)) = (existing, value) {
                    for name in theirs {
                        if !mine.contains(&name) {
                            mine.push(name);
                        }
                    }
                }
            }
            "type" => merge_type(existing, &value, path, notes),
            "enum" => merge_enum(existing, &value, path, notes),
            "minimum" | "minLength" | "minItems" | "minProperties" | "exclusiveMinimum" => {
                if let (Some(a), Some(b)) = (existing.as_f64(), value.as_f64()) {
                    if b > a {
                        *existing = value;
                    }
                }
            }
            "maximum" | "maxLength" | "maxItems" | "maxProperties" | "exclusiveMaximum" => {
                if let (Some(a), Some(b)) = (existing.as_f64(), value.as_f64()) {
                    if b < a {
                        *existing = value;
                    }
                }
            }
            "additionalProperties" => {
                if value == Value::Bool(false) {
                    *existing = value;
                }
            }
            "description" | "title" | "default" | "examples" | "$comment" => {}
            other => notes.add(
                path,
                Action::Widened,
                format!("conflicting `{other}` in `allOf`; kept the first"),
            ),
        }
    }
}

/// `properties`: the union; a property in both is merged in turn.
fn merge_properties(existing: &mut Value, value: Value, path: &str, notes: &mut Notes) {
    let (Value::Object(mine), Value::Object(theirs)) = (existing, value) else {
        notes.add(
            path,
            Action::Widened,
            "conflicting `properties` in `allOf`; kept the first",
        );
        return;
    };
    let props = child(path, "properties");
    for (name, schema) in theirs {
        match mine.get_mut(&name) {
            None => {
                mine.insert(name, schema);
            }
            Some(Value::Object(m)) => match schema {
                Value::Object(t) => merge_into(m, t, &child(&props, &name), notes),
                _ => notes.add(
                    &child(&props, &name),
                    Action::Widened,
                    "conflicting `allOf` property schemas; kept the first",
                ),
            },
            Some(_) => {}
        }
    }
}

/// `type`: the types both allow; the first when there is none.
fn merge_type(existing: &mut Value, value: &Value, path: &str, notes: &mut Notes) {
    let both = common_types(&type_names(existing), &type_names(value));
    match both.as_slice() {
        [] => notes.add(
            path,
            Action::Widened,
            "`allOf` branches allow no common `type`; kept the first",
        ),
        [one] => *existing = Value::String(one.clone()),
        many => *existing = Value::Array(many.iter().cloned().map(Value::String).collect()),
    }
}

/// `enum`: the values both allow; the first when there is none.
fn merge_enum(existing: &mut Value, value: &Value, path: &str, notes: &mut Notes) {
    let (Value::Array(mine), Value::Array(theirs)) = (&*existing, value) else {
        return;
    };
    let both: Vec<Value> = mine
        .iter()
        .filter(|v| theirs.contains(v))
        .cloned()
        .collect();
    if both.is_empty() {
        notes.add(
            path,
            Action::Widened,
            "`allOf` branches allow no common `enum` value; kept the first",
        );
    } else {
        *existing = Value::Array(both);
    }
}

/// The types allowed by both lists (`number` and `integer` meet at `integer`), in `mine`'s order.
fn common_types(mine: &[String], theirs: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in mine {
        for u in theirs {
            let meet = if t == u {
                t.as_str()
            } else if (t == "number" && u == "integer") || (t == "integer" && u == "number") {
                "integer"
            } else {
                continue;
            };
            if !out.iter().any(|o| o == meet) {
                out.push(meet.to_string());
            }
        }
    }
    out
}

fn type_names(value: &Value) -> Vec<String> {
    match value {
        Value::String(t) => vec![t.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: Value) -> (String, String) {
        crate::convert::schema::run_transform(merge, schema)
    }

    #[test]
    fn objects_merge() {
        let (schema, notes) = run(json!({
            "description": "outer",
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "description": "inner"},
                {"type": "object", "properties": {"b": {"type": "integer", "minimum": 0}, "a": {"maxLength": 5}}, "required": ["b", "a"], "additionalProperties": false},
                true
            ]
        }));
        assert_eq!(
            schema,
            r#"{"additionalProperties":false,"description":"outer","properties":{"a":{"maxLength":5,"type":"string"},"b":{"minimum":0,"type":"integer"}},"required":["a","b"],"type":"object"}"#
        );
        assert_eq!(
            notes,
            r#"[{"action":"merged","path":"","reason":"merged `allOf` of 3 schema(s) into one"}]"#
        );
    }

    #[test]
    fn types_enums_and_bounds_intersect() {
        let (schema, _) = run(json!({"allOf": [
            {"type": ["string", "null"], "enum": ["a", "b", null], "minLength": 1, "maxLength": 9},
            {"type": "string", "enum": ["b", "c"], "minLength": 2, "maxLength": 20}
        ]}));
        assert_eq!(
            schema,
            r#"{"enum":["b"],"maxLength":9,"minLength":2,"type":"string"}"#
        );
        let (schema, _) = run(json!({"allOf": [{"type": "number"}, {"type": "integer"}]}));
        assert_eq!(schema, r#"{"type":"integer"}"#);
    }

    #[test]
    fn conflicts_keep_the_first_and_say_so() {
        let (schema, notes) = run(
            json!({"allOf": [{"type": "string", "pattern": "a"}, {"type": "integer", "pattern": "b"}]}),
        );
        assert_eq!(schema, r#"{"pattern":"a","type":"string"}"#);
        assert!(notes.contains("allow no common `type`"), "{notes}");
        assert!(notes.contains("conflicting `pattern`"), "{notes}");
    }

    #[test]
    fn nested_all_of_is_merged_first() {
        let (schema, _) = run(
            json!({"properties": {"x": {"allOf": [{"allOf": [{"type": "string"}]}, {"format": "date"}]}}}),
        );
        assert_eq!(
            schema,
            r#"{"properties":{"x":{"format":"date","type":"string"}}}"#
        );
    }

    #[test]
    fn malformed_all_of_is_dropped() {
        let (schema, notes) = run(json!({"type": "object", "allOf": {"type": "string"}}));
        assert_eq!(schema, r#"{"type":"object"}"#);
        assert!(notes.contains("not a list of schemas"));
        let (_, notes) = run(json!({"allOf": [3]}));
        assert!(notes.contains("entry is not a schema"));
    }
}
