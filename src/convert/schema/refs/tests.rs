//! The tests of `$ref` inlining: local pointers, cycles, depth and size cuts, and references that are never followed.

use super::*;
use serde_json::json;

fn run(schema: Value) -> (String, String) {
    crate::convert::schema::run_transform(inline, schema)
}

#[test]
fn local_refs_are_inlined_and_defs_removed() {
    let (schema, notes) = run(json!({
        "type": "object",
        "$defs": {"id": {"type": "string", "description": "an id"}, "a/b": {"type": "integer"}},
        "definitions": {"old": {"type": "boolean"}},
        "properties": {
            "x": {"$ref": "#/$defs/id"},
            "y": {"$ref": "#/$defs/id", "description": "sibling wins"},
            "z": {"$ref": "#/$defs/a~1b"},
            "w": {"$ref": "#/definitions/old"},
            "v": {"$ref": "#/$defs/a%7E1b"}
        }
    }));
    assert_eq!(
        schema,
        r#"{"properties":{"v":{"type":"integer"},"w":{"type":"boolean"},"x":{"description":"an id","type":"string"},"y":{"description":"sibling wins","type":"string"},"z":{"type":"integer"}},"type":"object"}"#
    );
    assert_eq!(
        notes,
        r#"[{"action":"dropped","path":"/$defs","reason":"`$defs` removed: its definitions are inlined where used"},{"action":"dropped","path":"/definitions","reason":"`definitions` removed: its definitions are inlined where used"},{"action":"inlined","path":"","reason":"inlined 5 local $ref use(s); providers differ in $ref support, so none is sent"}]"#
    );
}

#[test]
fn recursion_is_cut_at_the_first_repeat() {
    let (schema, notes) = run(json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "description": "a node", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
        }}}
    }));
    assert_eq!(
        schema,
        r#"{"properties":{"root":{"description":"a node","properties":{"children":{"items":{"description":"a node","type":"object"},"type":"array"},"name":{"type":"string"}},"type":"object"}},"type":"object"}"#
    );
    assert!(notes.contains(r##"{"action":"cut","path":"/properties/root/properties/children/items","reason":"recursive $ref \"#/$defs/node\" cut at its first repeat; this branch is permissive"}"##), "{notes}");
}

#[test]
fn root_self_reference_is_cut() {
    let (schema, _) = run(json!({"type": "object", "properties": {"again": {"$ref": "#"}}}));
    assert_eq!(
        schema,
        r#"{"properties":{"again":{"type":"object"}},"type":"object"}"#
    );
}

#[test]
fn remote_anchor_and_dangling_refs_become_permissive() {
    let (schema, notes) = run(json!({"type": "object", "properties": {
        "remote": {"$ref": "https://example.com/schema.json", "description": "kept"},
        "relative": {"$ref": "other.json#/x"},
        "anchor": {"$ref": "#thing"},
        "dangling": {"$ref": "#/$defs/missing"},
        "odd": {"$ref": 5}
    }}));
    assert_eq!(
        schema,
        r#"{"properties":{"anchor":{},"dangling":{},"odd":{},"relative":{},"remote":{"description":"kept"}},"type":"object"}"#
    );
    for needle in [
        "is never fetched",
        "names an anchor",
        "points at nothing",
        "`$ref` is not a string",
    ] {
        assert!(notes.contains(needle), "{needle}: {notes}");
    }
}

#[test]
fn boolean_subschemas() {
    let (schema, _) = run(
        json!({"type": "object", "additionalProperties": false, "properties": {"a": true, "b": false}, "items": [true]}),
    );
    assert_eq!(
        schema,
        r#"{"additionalProperties":false,"items":[{}],"properties":{"a":{},"b":{"not":{}}},"type":"object"}"#
    );
}

#[test]
fn malformed_structure_is_cleaned() {
    let (schema, notes) = run(
        json!({"type": "object", "properties": {"a": 5, "b": {"items": "x", "anyOf": {"type": "string"}, "patternProperties": []}}}),
    );
    assert_eq!(
        schema,
        r#"{"properties":{"a":{},"b":{"items":{}}},"type":"object"}"#
    );
    for needle in [
        "5 is not a schema",
        r#"\"x\" is not a schema"#,
        "`anyOf` is not a list of schemas",
        "`patternProperties` is not an object of schemas",
    ] {
        assert!(notes.contains(needle), "{needle}: {notes}");
    }
}

#[test]
fn exponential_fan_out_is_bounded() {
    // d0 → two uses of d1 → two uses of d2 … : 2^40 nodes if expanded naively.
    let mut defs = Map::new();
    for i in 0..40 {
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {"l": {"$ref": format!("#/$defs/d{}", i + 1)}, "r": {"$ref": format!("#/$defs/d{}", i + 1)}}}),
        );
    }
    defs.insert("d40".into(), json!({"type": "string"}));
    let mut schema =
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
    let mut notes = Notes::default();
    let started = std::time::Instant::now();
    inline(&mut schema, &mut notes);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(serde_json::to_string(&schema).unwrap().len() < 2_000_000);
    assert!(notes.as_slice().iter().any(|n| n.action == Action::Cut));
    assert!(notes.as_slice().len() <= super::super::notes::MAX_NOTES);
}

#[test]
fn deep_nesting_is_cut() {
    let mut schema = json!({"type": "string"});
    for _ in 0..(MAX_SCHEMA_DEPTH + 5) {
        schema = json!({"type": "array", "items": schema});
    }
    let (out, notes) = run(schema);
    assert!(notes.contains("nested deeper than 32 levels"));
    assert_eq!(out.matches("\"items\"").count(), MAX_SCHEMA_DEPTH);
}

#[test]
fn percent_decoding() {
    assert_eq!(percent_decode("/a%20b/%7e0"), "/a b/~0");
    assert_eq!(percent_decode("/bad%zz%4"), "/bad%zz%4");
}
