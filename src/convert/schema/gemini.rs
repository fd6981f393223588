//! Gemini's `Schema`: "a select subset of an OpenAPI 3.0 schema object"
//! (<https://ai.google.dev/api/caching#Schema>). The API parses it as a protobuf message, so any
//! other field is a 400 ("Unknown name … Cannot find field") and several combinations are too.
//! Runs last for Gemini, on a schema already inlined, merged and null-rewritten; per node:
//!
//! - fields outside [`FIELDS`] are dropped (`examples` becomes `example` first; Gemini's own
//!   `propertyOrdering` is not taken from a JSON Schema, where it means nothing);
//! - `type` is one of `STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`, `ARRAY`, `OBJECT` (the enum names
//!   of the API's `Type`). A node without one gets it from its shape (`properties` → `OBJECT`,
//!   `items` → `ARRAY`, `enum` → the type of its values); a node that has none at all and is not a union
//!   (JSON Schema's "any value") becomes `STRING` (narrowed: a string still validates);
//! - `properties`, `required`, `minProperties`, `maxProperties` only on `OBJECT` ("only allowed
//!   for OBJECT type"); `required` only names declared properties; an empty `properties` is left
//!   out ("should be non-empty for OBJECT type");
//! - `items`, `minItems`, `maxItems` only on `ARRAY`, which must have `items` (an array without
//!   one gets `items: {type: STRING}`);
//! - `enum` only as strings on `STRING` (with `format: "enum"`, as documented); any other `enum`
//!   is dropped and its values are listed in the `description` instead;
//! - `format` only where documented: `enum`/`date-time` on `STRING`, `float`/`double` on
//!   `NUMBER`, `int32`/`int64` on `INTEGER`;
//! - `minLength`, `maxLength`, `pattern` only on `STRING`; `minimum`, `maximum` only on numbers;
//!   counts and bounds must be numbers, `nullable` a boolean.

use serde_json::{Map, Value};

use super::notes::{Action, Notes};
use super::walk::{self, child};

/// The fields of Gemini's `Schema`.
pub const FIELDS: &[&str] = &[
    "anyOf",
    "default",
    "description",
    "enum",
    "example",
    "format",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "nullable",
    "pattern",
    "properties",
    "required",
    "title",
    "type",
];

/// Gemini's `Type` names for the JSON Schema types it has.
const TYPES: &[(&str, &str)] = &[
    ("array", "ARRAY"),
    ("boolean", "BOOLEAN"),
    ("integer", "INTEGER"),
    ("number", "NUMBER"),
    ("object", "OBJECT"),
    ("string", "STRING"),
];

/// Gives every `type` of a schema made by [`subset`] back its JSON Schema spelling (`OBJECT` →
/// `object`), for a client that hands Gemini a JSON Schema (an MCP host does) rather than the
/// API's own `Schema`; the rest of the subset is JSON Schema already (`nullable` and Gemini's
/// formats are keywords a validator ignores).
pub fn as_json_schema(schema: &mut Value) {
    walk::post_order(schema, &mut |node, _, _| {
        let ty = node.get("type").and_then(Value::as_str);
        if let Some((json, _)) = TYPES.iter().find(|(_, gemini)| Some(*gemini) == ty) {
            node.insert("type".into(), Value::from(*json));
        }
    });
}

/// Fits every node of `schema` to Gemini's `Schema` (see the module doc).
pub fn subset(schema: &mut Value, notes: &mut Notes) {
    walk::post_order(schema, &mut |node, path, _| fit(node, path, notes));
}

fn fit(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    drop_unknown_fields(node, path, notes);
    let ty = gemini_type(node, path, notes);
    if let Some(ty) = ty {
        node.insert("type".into(), Value::from(ty));
    }
    drop_fields_of_other_types(node, path, ty, notes);
    if ty == Some("OBJECT") {
        object_fields(node, path, notes);
    }
    if ty == Some("ARRAY") && !node.get("items").is_some_and(Value::is_object) {
        let mut items = Map::new();
        items.insert("type".into(), Value::from("STRING"));
        node.insert("items".into(), Value::Object(items));
        notes.add(
            &child(path, "items"),
            Action::Narrowed,
            "Gemini requires `items` on ARRAY; elements sent as STRING",
        );
    }
    enum_values(node, path, ty, notes);
    format_value(node, path, ty, notes);
    drop_ill_typed_values(node, path, notes);
}

/// Drops the fields outside [`FIELDS`], after taking the first of `examples` as `example`.
fn drop_unknown_fields(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    if !node.contains_key("example") {
        if let Some(Value::Array(examples)) = node.get("examples") {
            if let Some(first) = examples.first().cloned() {
                node.insert("example".into(), first);
                notes.add(
                    &child(path, "examples"),
                    Action::Rewritten,
                    "`examples` sent as Gemini's single `example` (the first)",
                );
            }
        }
    }
    let unknown: Vec<String> = node
        .keys()
        .filter(|k| !FIELDS.contains(&k.as_str()))
        .cloned()
        .collect();
    for key in unknown {
        node.remove(&key);
        if key != "examples" {
            notes.add(
                &child(path, &key),
                Action::Dropped,
                format!("Gemini's Schema has no `{key}` field"),
            );
        }
    }
}

/// Drops the fields Gemini allows only for another type than `ty`.
fn drop_fields_of_other_types(
    node: &mut Map<String, Value>,
    path: &str,
    ty: Option<&str>,
    notes: &mut Notes,
) {
    let is = |name: &str| ty == Some(name);
    let groups: [(&[&str], bool, &str); 4] = [
        (
            &["properties", "required", "minProperties", "maxProperties"],
            is("OBJECT"),
            "OBJECT type",
        ),
        (
            &["items", "minItems", "maxItems"],
            is("ARRAY"),
            "ARRAY type",
        ),
        (
            &["minLength", "maxLength", "pattern"],
            is("STRING"),
            "STRING type",
        ),
        (
            &["minimum", "maximum"],
            is("NUMBER") || is("INTEGER"),
            "NUMBER and INTEGER types",
        ),
    ];
    for (keys, allowed, what) in groups {
        if allowed {
            continue;
        }
        for key in keys {
            if node.remove(*key).is_some() {
                notes.add(
                    &child(path, key),
                    Action::Dropped,
                    format!("Gemini allows `{key}` only for {what}"),
                );
            }
        }
    }
}

/// Drops counts and bounds that are not numbers, a `nullable` that is not a boolean, texts that
/// are not strings and an `anyOf` that is not a list (the API would reject each).
fn drop_ill_typed_values(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    for key in [
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minProperties",
        "maxProperties",
        "minimum",
        "maximum",
    ] {
        if node.get(key).is_some_and(|v| !v.is_number()) {
            node.remove(key);
            notes.add(
                &child(path, key),
                Action::Dropped,
                format!("`{key}` is not a number"),
            );
        }
    }
    if node.get("nullable").is_some_and(|v| !v.is_boolean()) {
        node.remove("nullable");
        notes.add(
            &child(path, "nullable"),
            Action::Dropped,
            "`nullable` is not a boolean",
        );
    }
    for key in ["description", "title", "pattern"] {
        if node.get(key).is_some_and(|v| !v.is_string()) {
            node.remove(key);
            notes.add(
                &child(path, key),
                Action::Dropped,
                format!("`{key}` is not a string"),
            );
        }
    }
    if node.get("anyOf").is_some_and(|v| !v.is_array()) {
        node.remove("anyOf");
    }
}

/// The node's Gemini type name, from `type` or inferred (see the module doc); `None` for a union.
fn gemini_type(
    node: &mut Map<String, Value>,
    path: &str,
    notes: &mut Notes,
) -> Option<&'static str> {
    let here = child(path, "type");
    match node.get("type") {
        Some(Value::String(t)) => {
            let lower = t.to_ascii_lowercase();
            if let Some((_, name)) = TYPES.iter().find(|(json, _)| *json == lower) {
                return Some(name);
            }
            notes.add(&here, Action::Dropped, format!("Gemini has no type {t:?}"));
        }
        Some(other) => notes.add(
            &here,
            Action::Dropped,
            format!("type {other} is not one type name"),
        ),
        None => {}
    }
    node.remove("type");
    if node.get("properties").is_some_and(Value::is_object) {
        return Some("OBJECT");
    }
    if node.get("items").is_some_and(Value::is_object) {
        return Some("ARRAY");
    }
    if let Some(Value::Array(values)) = node.get("enum") {
        let all = |f: fn(&Value) -> bool| !values.is_empty() && values.iter().all(f);
        let inferred = if all(Value::is_string) {
            Some("STRING")
        } else if all(Value::is_boolean) {
            Some("BOOLEAN")
        } else if all(|v| v.is_i64() || v.is_u64()) {
            Some("INTEGER")
        } else if all(Value::is_number) {
            Some("NUMBER")
        } else {
            None
        };
        if inferred.is_some() {
            return inferred;
        }
    }
    if node.contains_key("anyOf") {
        return None;
    }
    notes.add(
        &here,
        Action::Narrowed,
        "a value of any type (no `type`); Gemini needs one, so it is sent as STRING",
    );
    Some("STRING")
}

fn object_fields(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    let declared: Vec<String> = match node.get("properties") {
        Some(Value::Object(props)) => props.keys().cloned().collect(),
        Some(_) => {
            node.remove("properties");
            notes.add(
                &child(path, "properties"),
                Action::Dropped,
                "`properties` is not an object",
            );
            Vec::new()
        }
        None => Vec::new(),
    };
    if node
        .get("properties")
        .is_some_and(|p| p.as_object().is_some_and(Map::is_empty))
    {
        node.remove("properties");
    }
    if let Some(required) = node.remove("required") {
        let kept: Vec<Value> = match &required {
            Value::Array(names) => names
                .iter()
                .filter(|n| n.as_str().is_some_and(|n| declared.iter().any(|d| d == n)))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        if Value::Array(kept.clone()) != required {
            notes.add(
                &child(path, "required"),
                Action::Dropped,
                "Gemini's `required` may only name declared properties",
            );
        }
        if !kept.is_empty() {
            node.insert("required".into(), Value::Array(kept));
        }
    }
}

fn enum_values(node: &mut Map<String, Value>, path: &str, ty: Option<&str>, notes: &mut Notes) {
    let Some(values) = node.get("enum") else {
        return;
    };
    let strings = match values {
        Value::Array(v) => v.iter().all(Value::is_string) && !v.is_empty(),
        _ => false,
    };
    if strings && ty == Some("STRING") {
        if !node.contains_key("format") {
            node.insert("format".into(), Value::from("enum"));
        }
        return;
    }
    let listed = match node.remove("enum") {
        Some(Value::Array(v)) => v
            .iter()
            .map(|x| serde_json::to_string(x).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    if !listed.is_empty() {
        let text = format!("Allowed values: {listed}.");
        let description = match node.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d}\n{text}"),
            _ => text,
        };
        node.insert("description".into(), Value::String(description));
    }
    notes.add(&child(path, "enum"), Action::Widened, "Gemini takes `enum` only as strings on STRING; the values are listed in the description instead");
}

fn format_value(node: &mut Map<String, Value>, path: &str, ty: Option<&str>, notes: &mut Notes) {
    let Some(format) = node.get("format") else {
        return;
    };
    let allowed: &[&str] = match ty {
        Some("STRING") => &["enum", "date-time"],
        Some("NUMBER") => &["float", "double"],
        Some("INTEGER") => &["int32", "int64"],
        _ => &[],
    };
    if format.as_str().is_some_and(|f| allowed.contains(&f)) {
        return;
    }
    let shown = format.to_string();
    node.remove("format");
    notes.add(
        &child(path, "format"),
        Action::Dropped,
        format!("Gemini does not take format {shown} here"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: Value) -> (String, String) {
        crate::convert::schema::run_transform(subset, schema)
    }

    #[test]
    fn unknown_fields_dropped_types_named() {
        let (schema, notes) = run(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "n": {"type": "integer", "exclusiveMinimum": 0, "format": "int64", "examples": [3]},
                "s": {"type": "string", "format": "uri", "minLength": 1, "uniqueItems": true}
            },
            "required": ["n", "ghost"]
        }));
        assert_eq!(
            schema,
            r#"{"properties":{"n":{"example":3,"format":"int64","type":"INTEGER"},"s":{"minLength":1,"type":"STRING"}},"required":["n"],"type":"OBJECT"}"#
        );
        for needle in [
            "no `additionalProperties` field",
            "no `exclusiveMinimum` field",
            "no `uniqueItems` field",
            r#"format \"uri\""#,
            "may only name declared properties",
        ] {
            assert!(notes.contains(needle), "{needle}: {notes}");
        }
    }

    #[test]
    fn as_json_schema_gives_types_their_json_schema_spelling() {
        let mut schema = json!({"type": "OBJECT", "properties": {
            "type": {"type": "STRING", "format": "enum", "enum": ["a"]},
            "n": {"type": "ARRAY", "items": {"type": "INTEGER", "nullable": true}}
        }});
        as_json_schema(&mut schema);
        assert_eq!(
            schema.to_string(),
            r#"{"properties":{"n":{"items":{"nullable":true,"type":"integer"},"type":"array"},"type":{"enum":["a"],"format":"enum","type":"string"}},"type":"object"}"#
        );
    }

    #[test]
    fn types_are_inferred_or_narrowed() {
        let (schema, notes) = run(json!({"properties": {
            "any": {"description": "whatever"},
            "list": {"items": {"type": "string"}},
            "pick": {"enum": ["a", "b"]},
            "flag": {"enum": [true]},
            "level": {"enum": [1, 2]},
            "union": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "weird": {"type": "datetime"}
        }}));
        assert_eq!(
            schema,
            r#"{"properties":{"any":{"description":"whatever","type":"STRING"},"flag":{"description":"Allowed values: true.","type":"BOOLEAN"},"level":{"description":"Allowed values: 1, 2.","type":"INTEGER"},"list":{"items":{"type":"STRING"},"type":"ARRAY"},"pick":{"enum":["a","b"],"format":"enum","type":"STRING"},"union":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]},"weird":{"type":"STRING"}},"type":"OBJECT"}"#
        );
        assert!(
            notes.contains(r#"Gemini has no type \"datetime\""#),
            "{notes}"
        );
    }

    #[test]
    fn fields_only_where_their_type_allows() {
        let (schema, _) = run(
            json!({"type": "string", "properties": {"a": {"type": "string"}}, "items": {"type": "string"}, "minimum": 1, "pattern": "^a"}),
        );
        assert_eq!(schema, r#"{"pattern":"^a","type":"STRING"}"#);
        let (schema, notes) = run(json!({"type": "array"}));
        assert_eq!(schema, r#"{"items":{"type":"STRING"},"type":"ARRAY"}"#);
        assert!(notes.contains("requires `items`"));
        let (schema, _) = run(json!({"type": "object", "properties": {}}));
        assert_eq!(schema, r#"{"type":"OBJECT"}"#);
    }

    #[test]
    fn non_string_enums_move_to_the_description() {
        let (schema, _) =
            run(json!({"type": "integer", "enum": [1, 2, 3], "description": "level"}));
        assert_eq!(
            schema,
            r#"{"description":"level\nAllowed values: 1, 2, 3.","type":"INTEGER"}"#
        );
        let (schema, _) = run(json!({"type": "string", "enum": []}));
        assert_eq!(schema, r#"{"type":"STRING"}"#);
    }

    #[test]
    fn malformed_values_are_dropped() {
        let (schema, _) =
            run(json!({"type": "string", "maxLength": "10", "nullable": "yes", "description": 5}));
        assert_eq!(schema, r#"{"type":"STRING"}"#);
    }
}
