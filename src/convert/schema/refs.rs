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
mod tests;
