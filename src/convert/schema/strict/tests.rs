//! The tests of strict mode: what each rule does to a schema, the notes it leaves, and the reasons a schema stays non-strict.

use super::*;
use serde_json::json;

fn run(schema: Value) -> Result<(String, String), String> {
    let mut schema = schema;
    let mut notes = Notes::default();
    make_strict(&mut schema, &mut notes)?;
    Ok((
        serde_json::to_string(&schema).unwrap(),
        serde_json::to_string(notes.as_slice()).unwrap(),
    ))
}

#[test]
fn optional_properties_become_nullable() {
    let (schema, notes) = run(json!({
        "type": "object",
        "properties": {
            "q": {"type": "string", "minLength": 1},
            "limit": {"type": "integer", "default": 10},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": ["array"], "items": {"type": "string"}},
            "pick": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
        },
        "required": ["q"]
    }))
    .unwrap();
    assert_eq!(
        schema,
        r#"{"additionalProperties":false,"properties":{"limit":{"type":["integer","null"]},"mode":{"enum":["a","b",null],"type":["string","null"]},"pick":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},"q":{"type":"string"},"tags":{"items":{"type":"string"},"type":["array","null"]}},"required":["limit","mode","pick","q","tags"],"type":"object"}"#
    );
    assert!(notes.contains(r#"{"action":"dropped","path":"/properties/q/minLength","reason":"OpenAI strict mode does not support `minLength`"}"#), "{notes}");
    assert!(notes.contains(r#"{"action":"rewritten","path":"/properties/limit","reason":"optional property made required and nullable"#), "{notes}");
    assert!(notes.contains("set additionalProperties: false on 1 object(s)"));
}

#[test]
fn nested_objects_and_items_are_closed() {
    let (schema, _) = run(json!({"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"], "additionalProperties": true
    }}}, "required": ["rows"], "additionalProperties": false})).unwrap();
    assert_eq!(
        schema,
        r#"{"additionalProperties":false,"properties":{"rows":{"items":{"additionalProperties":false,"properties":{"k":{"type":"string"}},"required":["k"],"type":"object"},"type":"array"}},"required":["rows"],"type":"object"}"#
    );
}

#[test]
fn what_cannot_be_strict_says_why() {
    let cases = [
        (
            json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            "/properties/m: an object whose additional properties follow a schema",
        ),
        (
            json!({"type": "object", "properties": {"m": {"type": "object"}}}),
            "/properties/m: an object without declared properties",
        ),
        (
            json!({"type": "object", "properties": {"v": {"description": "anything"}}}),
            "/properties/v: a value of any type",
        ),
        (
            json!({"type": "object", "patternProperties": {"^x": {}}}),
            "the top level: `patternProperties`",
        ),
        (
            json!({"type": "object", "properties": {"v": {"type": "date"}}}),
            "/properties/v: unknown type \"date\"",
        ),
    ];
    for (schema, expected) in cases {
        let why = run(schema).unwrap_err();
        assert!(why.starts_with(expected), "{why}");
    }
}

#[test]
fn limits() {
    let mut props = Map::new();
    for i in 0..=MAX_PROPERTIES {
        props.insert(format!("p{i}"), json!({"type": "string"}));
    }
    let why = run(json!({"type": "object", "properties": props})).unwrap_err();
    assert_eq!(why, "5001 properties in all, over strict mode's 5000");
    let mut deep = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    for _ in 0..MAX_OBJECT_DEPTH {
        deep = json!({"type": "object", "properties": {"next": deep}});
    }
    assert_eq!(
        run(deep).unwrap_err(),
        "objects nested 11 levels deep, over strict mode's 10"
    );
    let values: Vec<Value> = (0..=MAX_ENUM_VALUES)
        .map(|i| json!(format!("v{i}")))
        .collect();
    let why = run(json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}, "required": ["e"]})).unwrap_err();
    assert_eq!(why, "1001 enum values in all, over strict mode's 1000");
}

#[test]
fn empty_top_level_is_fine() {
    let (schema, _) = run(json!({"type": "object", "properties": {}})).unwrap();
    assert_eq!(
        schema,
        r#"{"additionalProperties":false,"properties":{},"required":[],"type":"object"}"#
    );
}

#[test]
fn formats_and_one_of() {
    let (schema, notes) = run(json!({"type": "object", "properties": {
        "when": {"type": "string", "format": "date-time"},
        "site": {"type": "string", "format": "uri"},
        "v": {"oneOf": [{"type": "string"}, {"type": "number"}]}
    }, "required": ["when", "site", "v"]}))
    .unwrap();
    assert_eq!(
        schema,
        r#"{"additionalProperties":false,"properties":{"site":{"type":"string"},"v":{"anyOf":[{"type":"string"},{"type":"number"}]},"when":{"format":"date-time","type":"string"}},"required":["site","v","when"],"type":"object"}"#
    );
    assert!(notes.contains("format \\\"uri\\\""), "{notes}");
}
