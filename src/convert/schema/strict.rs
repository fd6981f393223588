//! OpenAI strict mode (`strict: true`): the model's arguments are then guaranteed to match the
//! schema, but only a subset of JSON Schema is accepted
//! (<https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>):
//!
//! - every object has `additionalProperties: false` and lists every property in `required`; an
//!   optional property is made required and nullable (`type: [T, "null"]`, `null` added to an
//!   `enum`, a `{"type": "null"}` alternative added to an `anyOf`), and the sidecar drops such a
//!   `null` again before calling the tool (see [`crate::convert::arguments`]);
//! - every value has a `type` (or is an `anyOf` or an `enum`); `oneOf` becomes `anyOf`;
//! - keywords outside [`KEYWORDS`] are dropped (e.g. `default`, `minLength`, `uniqueItems`), and
//!   `format` only keeps the documented values;
//! - at most 5000 properties, 10 levels of object nesting and 1000 `enum` values in all.
//!
//! Some schemas cannot be made strict without changing what they mean: a map (an object whose
//! `additionalProperties` is a schema, or `patternProperties`), an object with no declared
//! properties below the top level, a value of any type. Then [`make_strict`] returns why, and the
//! tool is sent non-strict (a `strict-fallback` note carries the reason).

use serde_json::{Map, Value};

use super::notes::{Action, Notes};
use super::walk::{self, child};

/// Keywords strict mode accepts.
pub const KEYWORDS: &[&str] = &[
    "additionalProperties",
    "anyOf",
    "description",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "format",
    "items",
    "maxItems",
    "maximum",
    "minItems",
    "minimum",
    "multipleOf",
    "pattern",
    "properties",
    "required",
    "title",
    "type",
];

/// String formats strict mode accepts.
pub const FORMATS: &[&str] = &[
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "time",
    "uuid",
];

const TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Most properties in one strict schema.
pub const MAX_PROPERTIES: usize = 5000;
/// Most levels of object nesting.
pub const MAX_OBJECT_DEPTH: usize = 10;
/// Most `enum` values in one strict schema.
pub const MAX_ENUM_VALUES: usize = 1000;

/// Makes `schema` strict in place, or says why it cannot be (then `schema` is half-done and must
/// be discarded).
pub fn make_strict(schema: &mut Value, notes: &mut Notes) -> Result<(), String> {
    let mut problem: Option<String> = None;
    // Maps first: their value schemas are often `{}`, which would otherwise be reported instead.
    walk::post_order(schema, &mut |node, path, _| {
        if problem.is_none() {
            problem = map_problem(node, path);
        }
    });
    if let Some(why) = problem {
        return Err(why);
    }
    let mut closed = 0usize;
    let mut properties = 0usize;
    let mut enum_values = 0usize;
    walk::post_order(schema, &mut |node, path, via| {
        if problem.is_some() {
            return;
        }
        match strict_node(node, path, via.is_root(), notes) {
            Ok(facts) => {
                closed += usize::from(facts.closed);
                properties += facts.properties;
                enum_values += facts.enum_values;
            }
            Err(why) => problem = Some(why),
        }
    });
    if let Some(why) = problem {
        return Err(why);
    }
    if properties > MAX_PROPERTIES {
        return Err(format!(
            "{properties} properties in all, over strict mode's {MAX_PROPERTIES}"
        ));
    }
    if enum_values > MAX_ENUM_VALUES {
        return Err(format!(
            "{enum_values} enum values in all, over strict mode's {MAX_ENUM_VALUES}"
        ));
    }
    let depth = object_depth(schema, 0);
    if depth > MAX_OBJECT_DEPTH {
        return Err(format!(
            "objects nested {depth} levels deep, over strict mode's {MAX_OBJECT_DEPTH}"
        ));
    }
    if closed > 0 {
        notes.add(
            "",
            Action::Narrowed,
            format!("set additionalProperties: false on {closed} object(s) (OpenAI strict mode requires it on every object)"),
        );
    }
    Ok(())
}

#[derive(Default)]
struct Facts {
    /// `additionalProperties: false` was added (or replaced `true`).
    closed: bool,
    properties: usize,
    enum_values: usize,
}

fn strict_node(
    node: &mut Map<String, Value>,
    path: &str,
    is_root: bool,
    notes: &mut Notes,
) -> Result<Facts, String> {
    let at = place(path);
    let mut facts = Facts::default();
    one_of_as_any_of(node, path, notes);
    drop_unsupported(node, path, notes);
    infer_type(node, path, notes);
    let types = checked_types(node, path, &at, is_root, notes)?;
    if let Some(Value::Array(values)) = node.get("enum") {
        facts.enum_values = values.len();
    }

    let is_object = types.iter().any(|t| t == "object") || node.contains_key("properties");
    if !is_object {
        return Ok(facts);
    }
    let declared = match node.get("properties") {
        Some(Value::Object(p)) => p.len(),
        Some(_) => return Err(format!("{at}: `properties` is not an object")),
        None => 0,
    };
    if declared == 0 && !is_root && node.get("additionalProperties") != Some(&Value::Bool(false)) {
        return Err(format!("{at}: an object without declared properties (a free-form map) cannot be expressed in strict mode"));
    }
    facts.properties = declared;
    facts.closed = close_object(node, path, notes);
    require_every_property(node, path, notes);
    Ok(facts)
}

/// `oneOf` becomes `anyOf` (strict mode has no `oneOf`), or is dropped next to an `anyOf`.
fn one_of_as_any_of(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    let Some(one_of) = node.remove("oneOf") else {
        return;
    };
    if node.contains_key("anyOf") {
        notes.add(
            &child(path, "oneOf"),
            Action::Widened,
            "strict mode has no `oneOf`; dropped next to an `anyOf`",
        );
    } else {
        node.insert("anyOf".into(), one_of);
        notes.add(&child(path, "oneOf"), Action::Widened, "strict mode has no `oneOf`; its alternatives are sent as `anyOf` (no longer exclusive)");
    }
}

/// Drops the keywords outside [`KEYWORDS`] and a `format` outside [`FORMATS`].
fn drop_unsupported(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    let unknown: Vec<String> = node
        .keys()
        .filter(|k| !KEYWORDS.contains(&k.as_str()))
        .cloned()
        .collect();
    for key in unknown {
        node.remove(&key);
        notes.add(
            &child(path, &key),
            Action::Dropped,
            format!("OpenAI strict mode does not support `{key}`"),
        );
    }
    if let Some(format) = node.get("format") {
        if !format.as_str().is_some_and(|f| FORMATS.contains(&f)) {
            let shown = format.to_string();
            node.remove("format");
            notes.add(
                &child(path, "format"),
                Action::Dropped,
                format!("OpenAI strict mode does not support format {shown}"),
            );
        }
    }
}

/// A node without `type` gets one from its shape (`properties` → object, `items` → array).
fn infer_type(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    if node.contains_key("type") {
        return;
    }
    let inferred = if node.contains_key("properties") {
        Some("object")
    } else if node.contains_key("items") {
        Some("array")
    } else {
        None
    };
    if let Some(t) = inferred {
        node.insert("type".into(), Value::from(t));
        notes.add(
            &child(path, "type"),
            Action::Rewritten,
            format!("`type: \"{t}\"` added from the schema's shape (strict mode needs a type)"),
        );
    }
}

/// The node's types once checked: known names only, and the node says what it accepts (a type,
/// an `anyOf` or an `enum`); an `enum` or `anyOf` that is not a list is dropped on the way.
fn checked_types(
    node: &mut Map<String, Value>,
    path: &str,
    at: &str,
    is_root: bool,
    notes: &mut Notes,
) -> Result<Vec<String>, String> {
    let types: Vec<String> = walk::types(node).into_iter().map(str::to_string).collect();
    if let Some(bad) = types.iter().find(|t| !TYPES.contains(&t.as_str())) {
        return Err(format!("{at}: unknown type {bad:?}"));
    }
    if node
        .get("type")
        .is_some_and(|t| !t.is_string() && !t.is_array())
    {
        return Err(format!(
            "{at}: `type` is neither a name nor a list of names"
        ));
    }
    if node.get("enum").is_some_and(|e| !e.is_array()) {
        node.remove("enum");
        notes.add(
            &child(path, "enum"),
            Action::Dropped,
            "`enum` is not a list",
        );
    }
    if node.get("anyOf").is_some_and(|a| !a.is_array()) {
        node.remove("anyOf");
        notes.add(
            &child(path, "anyOf"),
            Action::Dropped,
            "`anyOf` is not a list",
        );
    }
    let has_enum = node.get("enum").is_some_and(Value::is_array);
    if types.is_empty() && !node.contains_key("anyOf") && !has_enum {
        return Err(format!(
            "{at}: a value of any type (no `type`) cannot be expressed in strict mode"
        ));
    }
    if is_root && node.contains_key("anyOf") {
        return Err("the top level is a union (`anyOf`), which strict mode rejects".into());
    }
    Ok(types)
}

/// Sets `additionalProperties: false`; true when it was not a boolean before (those are counted
/// for the one summary note; a `true` made false gets a note of its own).
fn close_object(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) -> bool {
    match node.get("additionalProperties") {
        Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => {
            notes.add(
                &child(path, "additionalProperties"),
                Action::Narrowed,
                "additionalProperties: true made false (OpenAI strict mode requires it)",
            );
            node.insert("additionalProperties".into(), Value::Bool(false));
            false
        }
        _ => {
            node.insert("additionalProperties".into(), Value::Bool(false));
            true
        }
    }
}

/// Lists every property in `required`; an optional one is made nullable unless it accepts null.
fn require_every_property(node: &mut Map<String, Value>, path: &str, notes: &mut Notes) {
    let required: Vec<String> = match node.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let mut all = Vec::new();
    if let Some(Value::Object(props)) = node.get_mut("properties") {
        for (name, schema) in props.iter_mut() {
            all.push(Value::String(name.clone()));
            if !required.contains(name) {
                let here = child(&child(path, "properties"), name);
                if make_nullable(schema) {
                    notes.add(
                        &here,
                        Action::Rewritten,
                        "optional property made required and nullable (OpenAI strict mode requires every property); a null argument is dropped before the call",
                    );
                } else {
                    notes.add(
                        &here,
                        Action::Rewritten,
                        "optional property made required (OpenAI strict mode requires every property); it already accepts null",
                    );
                }
            }
        }
    }
    node.insert("required".into(), Value::Array(all));
}

fn place(path: &str) -> String {
    if path.is_empty() {
        "the top level".to_string()
    } else {
        path.to_string()
    }
}

/// Why a node that is a map (`patternProperties`, or `additionalProperties` as a schema) cannot be
/// strict.
fn map_problem(node: &Map<String, Value>, path: &str) -> Option<String> {
    let at = place(path);
    if node.contains_key("patternProperties") {
        return Some(format!(
            "{at}: `patternProperties` (a map) cannot be expressed in strict mode"
        ));
    }
    if node
        .get("additionalProperties")
        .is_some_and(Value::is_object)
    {
        return Some(format!(
            "{at}: an object whose additional properties follow a schema (a map) cannot be expressed in strict mode"
        ));
    }
    None
}

/// Lets `schema` also accept `null` (see the module doc); false when it already did.
pub fn make_nullable(schema: &mut Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    let mut changed = false;
    let mut typed = false;
    match map.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            map.insert(
                "type".into(),
                Value::Array(vec![Value::String(t), Value::from("null")]),
            );
            changed = true;
            typed = true;
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(Value::from("null"));
                changed = true;
            }
            typed = true;
        }
        Some(_) => typed = true,
        None => {}
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
            changed = true;
        }
        typed = true;
    }
    if !typed {
        if let Some(Value::Array(alternatives)) = map.get_mut("anyOf") {
            if !alternatives
                .iter()
                .any(|a| a.get("type").and_then(Value::as_str) == Some("null"))
            {
                let mut null = Map::new();
                null.insert("type".into(), Value::from("null"));
                alternatives.push(Value::Object(null));
                changed = true;
            }
        }
    }
    changed
}

/// Levels of object nesting (an object inside an array item counts, the array does not).
fn object_depth(schema: &Value, depth: usize) -> usize {
    let Value::Object(map) = schema else {
        return depth;
    };
    if depth > MAX_OBJECT_DEPTH + 1 {
        return depth;
    }
    let here = if map.contains_key("properties") {
        depth + 1
    } else {
        depth
    };
    let mut deepest = here;
    for (key, value) in map {
        let children: Vec<&Value> = match (key.as_str(), value) {
            ("properties", Value::Object(props)) => props.values().collect(),
            ("items", v) => vec![v],
            ("anyOf", Value::Array(alts)) => alts.iter().collect(),
            _ => Vec::new(),
        };
        for c in children {
            deepest = deepest.max(object_depth(c, here));
        }
    }
    deepest
}

#[cfg(test)]
mod tests;
