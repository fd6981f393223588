//! A tool's parameters as one line a person reads at a glance, from the server's own JSON Schema:
//! `search(query: string, limit?: integer = 10, tags?: string[], mode?: "fast" | "exact")`.
//!
//! Each parameter shows its type (array item shapes kept: `string[]`,
//! `{id: integer, name?: string}[]`; nested objects with their properties), whether it is required
//! (`?` when not), its enum or const values (`"a" | "b"`) and its default (`= 3`). Local `$ref`s
//! (`#/$defs/…`, `#/definitions/…`) are resolved; a reference cycle, or nesting deeper than
//! [`MAX_DEPTH`], is cut short as `object`/`…`.

use serde_json::{Map, Value};

/// Deepest nesting of object and array shapes written out in full.
const MAX_DEPTH: usize = 4;

/// `name(param: type, optional?: type = default, …)`.
pub(crate) fn signature(name: &str, schema: &Value) -> String {
    let params: Vec<String> = properties(schema, schema, 0).unwrap_or_default();
    format!("{name}({})", params.join(", "))
}

/// The properties of an object schema as `name?: type = default`: the required ones first, in the
/// order `required` lists them, then the optional ones by name (a schema's own property order does
/// not survive its parsing); `None` when it is no object with properties.
fn properties(root: &Value, schema: &Value, depth: usize) -> Option<Vec<String>> {
    let schema = resolve(root, schema);
    let props = schema.get("properties")?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut ordered: Vec<(&String, &Value)> = required
        .iter()
        .filter_map(|r| props.get_key_value(*r))
        .collect();
    ordered.extend(
        props
            .iter()
            .filter(|(n, _)| !required.contains(&n.as_str())),
    );
    Some(
        ordered
            .into_iter()
            .map(|(name, prop)| {
                let mark = if required.contains(&name.as_str()) {
                    ""
                } else {
                    "?"
                };
                let prop_resolved = resolve(root, prop);
                let default = prop
                    .get("default")
                    .or_else(|| prop_resolved.get("default"))
                    .map(|d| format!(" = {}", compact(d)))
                    .unwrap_or_default();
                format!(
                    "{}{mark}: {}{default}",
                    key(name),
                    type_of(root, prop, depth)
                )
            })
            .collect(),
    )
}

/// The type of a schema, as a person reads it.
fn type_of(root: &Value, schema: &Value, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return "…".to_owned();
    }
    let Some(obj) = schema.as_object() else {
        // `true` (anything) or `false` (nothing).
        return if schema == &Value::Bool(false) {
            "never"
        } else {
            "any"
        }
        .to_owned();
    };
    if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
        return match lookup(root, reference) {
            // A reference inside its own target (a tree of nodes) would never end.
            Some(target) if depth < MAX_DEPTH => type_of(root, target, depth + 1),
            Some(_) => "object".to_owned(),
            None => reference.rsplit('/').next().unwrap_or(reference).to_owned(),
        };
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        return values.iter().map(compact).collect::<Vec<_>>().join(" | ");
    }
    if let Some(value) = obj.get("const") {
        return compact(value);
    }
    for (key, joiner) in [("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")] {
        if let Some(branches) = obj.get(key).and_then(Value::as_array) {
            let mut each: Vec<String> = Vec::new();
            for b in branches {
                let t = type_of(root, b, depth + 1);
                if !each.contains(&t) {
                    each.push(t);
                }
            }
            return each.join(joiner);
        }
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if obj.contains_key("properties") => vec!["object"],
        _ if obj.contains_key("items") => vec!["array"],
        _ => vec![],
    };
    if types.is_empty() {
        return "any".to_owned();
    }
    types
        .iter()
        .map(|t| match *t {
            "array" => array_of(root, obj, depth),
            "object" => object_of(root, obj, depth),
            other => other.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `T[]`, with `T` in parentheses when it is a union; a tuple (`prefixItems`) as `[A, B]`.
fn array_of(root: &Value, obj: &Map<String, Value>, depth: usize) -> String {
    if let Some(tuple) = obj.get("prefixItems").and_then(Value::as_array) {
        let items: Vec<String> = tuple.iter().map(|t| type_of(root, t, depth + 1)).collect();
        return format!("[{}]", items.join(", "));
    }
    let item = match obj.get("items") {
        Some(Value::Array(tuple)) => {
            let items: Vec<String> = tuple.iter().map(|t| type_of(root, t, depth + 1)).collect();
            return format!("[{}]", items.join(", "));
        }
        Some(items) => type_of(root, items, depth + 1),
        None => "any".to_owned(),
    };
    if item.contains(" | ") || item.contains(" & ") {
        format!("({item})[]")
    } else {
        format!("{item}[]")
    }
}

/// `{a: T, b?: U}`; a map (`additionalProperties` alone) as `{[key]: T}`; `object` otherwise.
fn object_of(root: &Value, obj: &Map<String, Value>, depth: usize) -> String {
    let schema = Value::Object(obj.clone());
    match properties(root, &schema, depth + 1) {
        Some(props) if !props.is_empty() => format!("{{{}}}", props.join(", ")),
        _ => match obj.get("additionalProperties") {
            Some(v @ Value::Object(_)) => format!("{{[key]: {}}}", type_of(root, v, depth + 1)),
            _ => "object".to_owned(),
        },
    }
}

/// `schema` itself, or its `$ref`'s target when it is only a reference (so that its properties
/// and `required` can be read).
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut current = schema;
    // A chain of references is followed a few steps, never round a cycle.
    for _ in 0..MAX_DEPTH {
        match current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| lookup(root, r))
        {
            Some(target) => current = target,
            None => break,
        }
    }
    current
}

/// A local reference (`#/$defs/Item`) in `root`; `None` for any other.
fn lookup<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// A property name, quoted when it is not a plain identifier.
fn key(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$');
    if plain {
        name.to_owned()
    } else {
        compact(&Value::String(name.to_owned()))
    }
}

/// A value as compact JSON (`"a"`, `3`, `["x"]`).
fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn server_everything_shaped_tools() {
        // `echo` and `add` of @modelcontextprotocol/server-everything (zod-to-json-schema output).
        let echo = json!({"type": "object", "properties": {"message": {"type": "string",
            "description": "Message to echo"}}, "required": ["message"],
            "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"});
        assert_eq!(signature("echo", &echo), "echo(message: string)");
        let sample = json!({"type": "object", "properties": {
            "prompt": {"type": "string"},
            "maxTokens": {"type": "number", "default": 100},
            "level": {"type": "string", "enum": ["debug", "info", "error"]},
            "includeImage": {"type": "boolean", "default": false}},
            "required": ["prompt"]});
        assert_eq!(
            signature("sampleLLM", &sample),
            r#"sampleLLM(prompt: string, includeImage?: boolean = false, level?: "debug" | "info" | "error", maxTokens?: number = 100)"#
        );
    }

    #[test]
    fn server_filesystem_shaped_tools_keep_array_item_shapes() {
        // `edit_file` and `read_multiple_files` of @modelcontextprotocol/server-filesystem.
        let edit = json!({"type": "object", "properties": {
            "path": {"type": "string"},
            "edits": {"type": "array", "items": {"type": "object", "properties": {
                "oldText": {"type": "string"}, "newText": {"type": "string"}},
                "required": ["oldText", "newText"], "additionalProperties": false}},
            "dryRun": {"type": "boolean", "default": false}},
            "required": ["path", "edits"]});
        // Required first, in `required`'s order; `edits` items keep their own shape.
        assert_eq!(
            signature("edit_file", &edit),
            "edit_file(path: string, edits: {oldText: string, newText: string}[], dryRun?: boolean = false)"
        );
        let read = json!({"type": "object", "properties": {"paths": {"type": "array",
            "items": {"type": "string"}}}, "required": ["paths"]});
        assert_eq!(
            signature("read_multiple_files", &read),
            "read_multiple_files(paths: string[])"
        );
    }

    #[test]
    fn refs_unions_nullables_and_maps() {
        let schema = json!({
            "type": "object",
            "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "integer"},
                "name": {"type": "string"}}, "required": ["id"]},
                      "Mode": {"enum": ["a", "b"]}},
            "properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "mode": {"$ref": "#/$defs/Mode", "default": "a"},
                "limit": {"type": ["integer", "null"]},
                "either": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "modes": {"type": "array", "items": {"enum": ["x", "y"]}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
                "anything": {},
                "odd key": {"const": 1}
            },
            "required": ["items"]
        });
        assert_eq!(
            signature("t", &schema),
            r#"t(items: {id: integer, name?: string}[], anything?: any, either?: string | number, labels?: {[key]: string}, limit?: integer | null, mode?: "a" | "b" = "a", modes?: ("x" | "y")[], "odd key"?: 1, pair?: [string, number])"#
        );
    }

    #[test]
    fn a_reference_cycle_and_deep_nesting_end() {
        let tree = json!({"type": "object", "$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
            "properties": {"root": {"$ref": "#/$defs/Node"}}});
        let s = signature("tree", &tree);
        assert!(s.starts_with("tree(root?: {children?: {children?: "), "{s}");
        assert!(s.len() < 200, "{s}");
        assert_eq!(signature("none", &json!({"type": "object"})), "none()");
        assert_eq!(
            signature(
                "unknown_ref",
                &json!({"properties": {"x": {"$ref": "other.json#/Thing"}}})
            ),
            "unknown_ref(x?: Thing)"
        );
    }
}
