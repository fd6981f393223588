//! Arguments on their way back: strict mode made every optional property required and nullable
//! (see [`super::schema::strict`]), so a model following it sends `null` for what it means to leave
//! out, and the server's own schema (which validates every call) may well reject that `null`.
//!
//! [`drop_optional_nulls`] removes exactly those: `null` values of properties the *original* schema
//! does not list in `required`, following `properties` and `items` (through local `$ref`s and
//! `allOf`), bounded in depth. The caller only uses the result when the arguments as sent fail
//! validation and the cleaned ones pass, so a server that does accept `null` still gets it.

use serde_json::{Map, Value};

/// How deep into the arguments (and `$ref` chains) the cleaning goes.
const MAX_DEPTH: usize = 32;

/// The arguments without `null` values of optional properties; `None` when there were none.
pub fn drop_optional_nulls(schema: &Value, arguments: &Value) -> Option<Value> {
    let mut cleaned = arguments.clone();
    let mut changed = false;
    clean(schema, schema, &mut cleaned, 0, &mut changed);
    changed.then_some(cleaned)
}

fn clean(root: &Value, schema: &Value, value: &mut Value, depth: usize, changed: &mut bool) {
    if depth > MAX_DEPTH {
        return;
    }
    let schemas = flatten(root, schema, depth);
    match value {
        Value::Object(map) => {
            let required: Vec<&str> = schemas
                .iter()
                .filter_map(|s| s.get("required").and_then(Value::as_array))
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let before = map.len();
            map.retain(|key, v| !v.is_null() || required.contains(&key.as_str()));
            if map.len() != before {
                *changed = true;
            }
            for (key, v) in map.iter_mut() {
                for s in &schemas {
                    if let Some(property) = s.get("properties").and_then(|p| p.get(key)) {
                        clean(root, property, v, depth + 1, changed);
                    }
                }
            }
        }
        Value::Array(items) => {
            for s in &schemas {
                if let Some(item_schema) = s.get("items").filter(|i| i.is_object()) {
                    for item in items.iter_mut() {
                        clean(root, item_schema, item, depth + 1, changed);
                    }
                }
            }
        }
        _ => {}
    }
}

/// `schema` and what it brings in through a local `$ref` and `allOf`, as objects.
fn flatten<'a>(root: &'a Value, schema: &'a Value, depth: usize) -> Vec<&'a Map<String, Value>> {
    let mut out = Vec::new();
    let mut todo = vec![(schema, depth)];
    while let Some((s, d)) = todo.pop() {
        let Value::Object(map) = s else { continue };
        if d > MAX_DEPTH || out.len() > MAX_DEPTH {
            continue;
        }
        out.push(map);
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            todo.push((target, d + 1));
        }
        if let Some(Value::Array(branches)) = map.get("allOf") {
            for b in branches {
                todo.push((b, d + 1));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_nulls_go_required_ones_stay() {
        let schema = json!({
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "limit": {"type": "integer"},
                "filter": {"$ref": "#/$defs/filter"},
                "rows": {"type": "array", "items": {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"]}}
            },
            "required": ["q", "filter"],
            "$defs": {"filter": {"allOf": [{"properties": {"tag": {"type": "string"}, "since": {"type": "string"}}, "required": ["since"]}]}}
        });
        let args = json!({"q": null, "limit": null, "filter": {"tag": null, "since": null}, "rows": [{"a": null, "b": null}, 3]});
        assert_eq!(
            drop_optional_nulls(&schema, &args),
            Some(json!({"q": null, "filter": {"since": null}, "rows": [{"a": null}, 3]}))
        );
        assert_eq!(drop_optional_nulls(&schema, &json!({"q": "x"})), None);
        assert_eq!(
            drop_optional_nulls(&json!(true), &json!({"a": null})),
            Some(json!({}))
        );
    }

    #[test]
    fn recursive_refs_are_bounded() {
        let schema = json!({"$ref": "#"});
        assert_eq!(
            drop_optional_nulls(&schema, &json!({"x": null})),
            Some(json!({}))
        );
        let schema = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
        let mut args = json!({"v": null});
        for _ in 0..10 {
            args = json!({"child": args});
        }
        assert!(drop_optional_nulls(&schema, &args).is_some());
        for _ in 0..100 {
            args = json!({"child": args});
        }
        // Deeper than MAX_DEPTH: left alone, no hang.
        assert_eq!(drop_optional_nulls(&schema, &args), None);
    }
}
