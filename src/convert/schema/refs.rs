//! Inlining `$ref`: every local reference (`#`, `#/$defs/…`, `#/definitions/…`, any JSON Pointer
//! into the same document) is replaced by the schema it points at, and `$defs`/`definitions` are
//! removed. Providers differ in what `$ref` they resolve (Gemini: none), so no `$ref` leaves here.
//!
//! Never a hang, never a crash:
//! - a reference already being expanded on the current branch (a cycle, e.g. a tree node whose
//!   `children` are nodes) is cut at its first repeat, as is a chain longer than
//!   [`MAX_REF_DEPTH`](super::MAX_REF_DEPTH): the cut becomes a permissive schema (see
//!   [`super::permissive`]) that keeps the target's `type` and `description`;
//! - nesting deeper than [`MAX_SCHEMA_DEPTH`](super::notes::MAX_SCHEMA_DEPTH) is cut the same way;
//! - at most [`MAX_SCHEMA_NODES`](super::MAX_SCHEMA_NODES) nodes are produced; past that every
//!   remaining branch is cut (a DAG of definitions can otherwise grow exponentially);
//! - a `$ref` that is not local (`https://…`, `other.json#…`, `urn:…`) is never fetched: it becomes
//!   a permissive schema, as does an `#anchor` reference or one that resolves to nothing.
//!
//! Keywords next to a `$ref` (2019-09 and later allow them, e.g. a `description`) win over the
//! referenced schema's own. Boolean subschemas are made objects where providers expect objects
//! (`true` → `{}`, `false` → `{"not": {}}`); `additionalProperties: false` and its kin stay booleans.

use serde_json::{Map, Value};

use super::notes::{Action, Notes, MAX_REF_DEPTH, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES};
use super::walk::permissive;
use super::walk::{self, child};

/// Inlines every local `$ref` of `schema` (see the module doc).
pub fn inline(schema: &mut Value, notes: &mut Notes) {
    let root = std::mem::take(schema);
    let mut state = State {
        budget: MAX_SCHEMA_NODES,
        inlined: 0,
        exhausted: false,
        notes,
    };
    let mut stack = vec!["#".to_string()];
    *schema = state.expand(&root, &root, "", 0, &mut stack);
    let inlined = state.inlined;
    if inlined > 0 {
        notes.add(
            "",
            Action::Inlined,
            format!("inlined {inlined} local $ref use(s); providers differ in $ref support, so none is sent"),
        );
    }
}

struct State<'n> {
    budget: usize,
    inlined: usize,
    exhausted: bool,
    notes: &'n mut Notes,
}

impl State<'_> {
    fn expand(
        &mut self,
        root: &Value,
        node: &Value,
        path: &str,
        depth: usize,
        stack: &mut Vec<String>,
    ) -> Value {
        let Value::Object(map) = node else {
            return node.clone();
        };
        if let Some(cut) = self.cut(node, path, depth) {
            return cut;
        }
        let base = match map.get("$ref") {
            None => None,
            Some(Value::String(reference)) => {
                Some(self.resolve(root, reference, path, depth, stack))
            }
            Some(_) => {
                self.notes
                    .add(path, Action::Dropped, "`$ref` is not a string");
                None
            }
        };

        let mut out = Map::new();
        for (key, value) in map {
            if let Some(converted) = self.keyword(root, key, value, path, depth, stack) {
                out.insert(key.clone(), converted);
            }
        }

        match base {
            Some(Value::Object(mut merged)) => {
                // Keywords next to the `$ref` win over the referenced schema's.
                merged.extend(out);
                Value::Object(merged)
            }
            _ => Value::Object(out),
        }
    }

    /// Takes one node from the budget; the permissive schema that replaces the node when the
    /// budget is spent or the nesting too deep.
    fn cut(&mut self, node: &Value, path: &str, depth: usize) -> Option<Value> {
        if self.budget == 0 {
            if !self.exhausted {
                self.exhausted = true;
                self.notes.add(
                    path,
                    Action::Cut,
                    format!("the schema expands to more than {MAX_SCHEMA_NODES} nodes; from here on branches are permissive"),
                );
            }
            return Some(permissive(Some(node)));
        }
        self.budget -= 1;
        if depth >= MAX_SCHEMA_DEPTH {
            self.notes.add(
                path,
                Action::Cut,
                format!("nested deeper than {MAX_SCHEMA_DEPTH} levels; this branch is permissive"),
            );
            return Some(permissive(Some(node)));
        }
        None
    }

    /// One keyword of a node with its subschemas expanded; `None` when it is left out (`$ref`,
    /// `$defs`, a keyword of schemas that holds something else).
    fn keyword(
        &mut self,
        root: &Value,
        key: &str,
        value: &Value,
        path: &str,
        depth: usize,
        stack: &mut Vec<String>,
    ) -> Option<Value> {
        let here = child(path, key);
        if key == "$ref" {
            None
        } else if key == "$defs" || key == "definitions" {
            if value.as_object().is_some_and(|d| !d.is_empty()) {
                self.notes.add(
                    &here,
                    Action::Dropped,
                    format!("`{key}` removed: its definitions are inlined where used"),
                );
            }
            None
        } else if walk::ONE.contains(&key) {
            Some(match value {
                Value::Array(items) if key == "items" => {
                    self.subschemas(root, items, &here, depth, stack)
                }
                _ => self.subschema(
                    root,
                    value,
                    &here,
                    depth,
                    stack,
                    walk::BOOLEAN_OK.contains(&key),
                ),
            })
        } else if walk::MAP.contains(&key) {
            let Value::Object(entries) = value else {
                self.notes.add(
                    &here,
                    Action::Dropped,
                    format!("`{key}` is not an object of schemas"),
                );
                return None;
            };
            let expanded = entries
                .iter()
                .map(|(name, item)| {
                    let at = child(&here, name);
                    (
                        name.clone(),
                        self.subschema(root, item, &at, depth, stack, false),
                    )
                })
                .collect();
            Some(Value::Object(expanded))
        } else if walk::LIST.contains(&key) {
            let Value::Array(items) = value else {
                self.notes.add(
                    &here,
                    Action::Dropped,
                    format!("`{key}` is not a list of schemas"),
                );
                return None;
            };
            Some(self.subschemas(root, items, &here, depth, stack))
        } else {
            Some(value.clone())
        }
    }

    /// The subschemas of a list keyword (`items` as a list, `anyOf`, …), each at its index.
    fn subschemas(
        &mut self,
        root: &Value,
        items: &[Value],
        path: &str,
        depth: usize,
        stack: &mut Vec<String>,
    ) -> Value {
        Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    self.subschema(
                        root,
                        item,
                        &child(path, &i.to_string()),
                        depth,
                        stack,
                        false,
                    )
                })
                .collect(),
        )
    }

    fn subschema(
        &mut self,
        root: &Value,
        value: &Value,
        path: &str,
        depth: usize,
        stack: &mut Vec<String>,
        keep_boolean: bool,
    ) -> Value {
        match value {
            Value::Bool(_) if keep_boolean => value.clone(),
            Value::Bool(true) => {
                self.notes.add(
                    path,
                    Action::Rewritten,
                    "boolean schema `true` written as `{}`",
                );
                Value::Object(Map::new())
            }
            Value::Bool(false) => {
                self.notes.add(
                    path,
                    Action::Rewritten,
                    "boolean schema `false` written as `{\"not\": {}}`",
                );
                let mut out = Map::new();
                out.insert("not".into(), Value::Object(Map::new()));
                Value::Object(out)
            }
            Value::Object(_) => self.expand(root, value, path, depth + 1, stack),
            _ => {
                self.notes.add(
                    path,
                    Action::Rewritten,
                    format!("{value} is not a schema; sent as `{{}}`"),
                );
                Value::Object(Map::new())
            }
        }
    }

    /// The expansion of the schema `reference` points at (always an object).
    fn resolve(
        &mut self,
        root: &Value,
        reference: &str,
        path: &str,
        depth: usize,
        stack: &mut Vec<String>,
    ) -> Value {
        let Some(fragment) = reference.strip_prefix('#') else {
            self.notes.add(
                path,
                Action::Cut,
                format!("$ref {reference:?} is not local and is never fetched; this branch is permissive"),
            );
            return permissive(None);
        };
        let pointer = percent_decode(fragment);
        if !(pointer.is_empty() || pointer.starts_with('/')) {
            self.notes.add(
                path,
                Action::Cut,
                format!("$ref {reference:?} names an anchor, which is not resolved; this branch is permissive"),
            );
            return permissive(None);
        }
        let Some(target) = root.pointer(&pointer) else {
            self.notes.add(
                path,
                Action::Cut,
                format!("$ref {reference:?} points at nothing in this schema; this branch is permissive"),
            );
            return permissive(None);
        };
        if stack.iter().any(|r| r == reference) {
            self.notes.add(
                path,
                Action::Cut,
                format!("recursive $ref {reference:?} cut at its first repeat; this branch is permissive"),
            );
            return permissive(Some(target));
        }
        if stack.len() > MAX_REF_DEPTH {
            self.notes.add(
                path,
                Action::Cut,
                format!("$ref chain longer than {MAX_REF_DEPTH}; this branch is permissive"),
            );
            return permissive(Some(target));
        }
        stack.push(reference.to_string());
        self.inlined += 1;
        let expanded = match target {
            Value::Bool(true) => Value::Object(Map::new()),
            Value::Bool(false) => {
                let mut out = Map::new();
                out.insert("not".into(), Value::Object(Map::new()));
                Value::Object(out)
            }
            Value::Object(_) => self.expand(root, target, path, depth, stack),
            _ => {
                self.notes.add(
                    path,
                    Action::Cut,
                    format!("$ref {reference:?} points at something that is not a schema"),
                );
                permissive(None)
            }
        };
        stack.pop();
        expanded
    }
}

/// `%XX` escapes decoded (URI fragment → JSON Pointer); malformed escapes are kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
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
}
