//! The schema converters, every format, and the tool definitions built on them.
//!
//! Input: a JSON text, used as a tool's `inputSchema`. Beyond "no panic", for every format:
//! - the converted schema serialises to JSON that parses back to the same value, and converting
//!   twice gives the same result (no hidden state);
//! - the definition carries the exposed name where its provider reads it;
//! - for a converted format the parameters are an object schema of `type: object` with
//!   `properties`, at most `MAX_NOTES` notes are reported and the tree stays bounded;
//! - OpenAI strict (when it did not fall back): every object lists all its properties in
//!   `required`, has `additionalProperties: false`, and only strict-mode keywords remain;
//! - Gemini: only fields of Gemini's `Schema` remain, `type` is one of its enum names, `required`
//!   names only declared properties.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_sidecar::convert::schema::{self, gemini, strict, MAX_NOTES, MAX_SCHEMA_NODES};
use mcp_sidecar::convert::{definition, Options, ToolFormat};
use serde_json::{json, Map, Value};

const EXPOSED: &str = "mcp__fuzz__tool";

fuzz_target!(|data: &[u8]| {
    let Ok(input) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for format in ToolFormat::ALL {
        for strict_mode in [false, true] {
            check(format, strict_mode, &input);
        }
    }
});

fn check(format: ToolFormat, strict_mode: bool, input: &Value) {
    let converted = schema::convert(format, strict_mode, Some(input));
    let text = serde_json::to_string(&converted.schema).expect("a converted schema serialises");
    let back: Value = serde_json::from_str(&text).expect("a converted schema is valid JSON");
    assert_eq!(
        back, converted.schema,
        "{format}: JSON round trip changed the schema"
    );
    let again = schema::convert(format, strict_mode, Some(input));
    assert_eq!(
        again.schema, converted.schema,
        "{format}: not deterministic"
    );
    assert_eq!(again.strict, converted.strict);

    let tool = json!({"name": "tool", "description": "d", "inputSchema": input});
    let def = definition(
        format,
        Options {
            strict: strict_mode,
        },
        EXPOSED,
        &tool,
    )
    .definition;
    let name = match format {
        ToolFormat::Openai => def.pointer("/function/name"),
        _ => def.get("name"),
    };
    assert_eq!(
        name.and_then(Value::as_str),
        Some(EXPOSED),
        "{format}: {def}"
    );

    if format == ToolFormat::Mcp {
        assert_eq!(
            &converted.schema, input,
            "mcp: the schema is the server's own"
        );
        return;
    }
    assert!(converted.notes.len() <= MAX_NOTES);
    let Value::Object(root) = &converted.schema else {
        panic!("{format}: parameters are not an object: {text}");
    };
    let object_type = if format == ToolFormat::Gemini {
        "OBJECT"
    } else {
        "object"
    };
    assert_eq!(
        root.get("type").and_then(Value::as_str),
        Some(object_type),
        "{format}: root type: {text}"
    );
    if format != ToolFormat::Gemini {
        assert!(
            root.get("properties").is_some_and(Value::is_object),
            "{format}: root without properties: {text}"
        );
    }
    // Generous: the inliner caps what it produces at MAX_SCHEMA_NODES; later transforms add at
    // most a few nodes per node (a `null` alternative, a default `items`).
    let nodes = count(&converted.schema);
    assert!(
        nodes <= 16 * MAX_SCHEMA_NODES + 16 * count(input),
        "{format}: {nodes} nodes"
    );
    match format {
        ToolFormat::Openai | ToolFormat::OpenaiResponses if converted.strict == Some(true) => {
            each_schema(&converted.schema, &mut |node| check_strict(node, &text));
        }
        ToolFormat::Gemini => each_schema(&converted.schema, &mut |node| check_gemini(node, &text)),
        _ => {}
    }
}

fn count(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count).sum(),
        Value::Object(map) => map.values().map(count).sum(),
        _ => 0,
    }
}

/// Visits every schema of the tree: the root and what `properties`, `items`, `anyOf` and an
/// object `additionalProperties` hold (the only places a converted schema nests schemas).
fn each_schema(schema: &Value, f: &mut dyn FnMut(&Map<String, Value>)) {
    let Value::Object(map) = schema else { return };
    f(map);
    if let Some(Value::Object(props)) = map.get("properties") {
        props.values().for_each(|s| each_schema(s, f));
    }
    match map.get("items") {
        Some(Value::Array(items)) => items.iter().for_each(|s| each_schema(s, f)),
        Some(items) => each_schema(items, f),
        None => {}
    }
    if let Some(Value::Array(alternatives)) = map.get("anyOf") {
        alternatives.iter().for_each(|s| each_schema(s, f));
    }
    if let Some(extra @ Value::Object(_)) = map.get("additionalProperties") {
        each_schema(extra, f);
    }
}

fn check_strict(node: &Map<String, Value>, text: &str) {
    for key in node.keys() {
        assert!(
            strict::KEYWORDS.contains(&key.as_str()),
            "strict: `{key}` kept: {text}"
        );
    }
    if let Some(Value::Object(props)) = node.get("properties") {
        assert_eq!(
            node.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "strict: an object allows extra properties: {text}"
        );
        let mut required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        required.sort_unstable();
        let declared: Vec<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(
            required, declared,
            "strict: not every property required: {text}"
        );
    }
}

fn check_gemini(node: &Map<String, Value>, text: &str) {
    for key in node.keys() {
        assert!(
            gemini::FIELDS.contains(&key.as_str()),
            "gemini: `{key}` kept: {text}"
        );
    }
    if let Some(t) = node.get("type") {
        assert!(
            matches!(
                t.as_str(),
                Some("STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT")
            ),
            "gemini: type {t}: {text}"
        );
    }
    if let Some(required) = node.get("required") {
        let props = node.get("properties").and_then(Value::as_object);
        for name in required.as_array().into_iter().flatten() {
            let declared = name
                .as_str()
                .is_some_and(|n| props.is_some_and(|p| p.contains_key(n)));
            assert!(declared, "gemini: required {name} is not declared: {text}");
        }
    }
}
