//! What each provider documents about tool definitions, written down independently of the code
//! under test (nothing here imports the conversion's own keyword lists), so a converted
//! definition can be checked against it. Each check returns every violation as
//! `"<json pointer>: <rule>"`; an empty list means the definition is acceptable.
//!
//! Sources:
//! - OpenAI function calling: <https://platform.openai.com/docs/guides/function-calling>
//!   (name: "a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64"), and
//!   the API's own 400s for a non-object top level, a top-level `anyOf`/`oneOf`/`allOf`/`enum`/`not`,
//!   "object schema missing properties" and "array schema missing items".
//! - OpenAI strict mode: <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>
//!   (`additionalProperties: false` and every property `required` on every object; types string,
//!   number, boolean, integer, object, array, enum, anyOf; the supported keywords and formats;
//!   root not `anyOf`; up to 5000 properties, 10 levels of nesting, 1000 enum values).
//! - Anthropic tool use: <https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use>
//!   (name `^[a-zA-Z0-9_-]{1,64}$`; `input_schema` a JSON Schema object; the API's 400 "input_schema
//!   does not support oneOf, allOf, or anyOf at the top level").
//! - Gemini: <https://ai.google.dev/api/caching#FunctionDeclaration> (name: "Must start with a
//!   letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and
//!   dashes, with a maximum length of 64") and <https://ai.google.dev/api/caching#Schema> (the
//!   fields of `Schema`, `Type` enum names, formats per type, enum "of the element of Type.STRING"),
//!   plus the API's 400s: unknown fields, a `type` list, "properties: only allowed for OBJECT
//!   type", "should be non-empty for OBJECT type", an array's `items` missing or not typed.

#![allow(dead_code)]

use serde_json::{Map, Value};

/// The definition's name, checked against every provider's name rule at once.
pub(crate) fn name_ok_everywhere(name: &str) -> bool {
    let first_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    first_ok && rest_ok && name.len() <= 64
}

fn openai_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn gemini_name_ok(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c))
}

/// Checks one converted definition in `format` ("openai", "openai-responses", "anthropic",
/// "gemini"); `strict` applies to the OpenAI formats when the definition says `strict: true`.
pub(crate) fn check(format: &str, definition: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    match format {
        "openai" => {
            expect_keys(definition, "", &["type", "function"], &[], &mut errors);
            let function = &definition["function"];
            expect_keys(
                function,
                "/function",
                &["name", "parameters"],
                &["description", "strict"],
                &mut errors,
            );
            check_name(function, "/function", openai_name_ok, &mut errors);
            let strict = function.get("strict") == Some(&Value::Bool(true));
            openai_parameters(
                &function["parameters"],
                "/function/parameters",
                strict,
                &mut errors,
            );
        }
        "openai-responses" => {
            expect_keys(
                definition,
                "",
                &["type", "name", "parameters", "strict"],
                &["description"],
                &mut errors,
            );
            check_name(definition, "", openai_name_ok, &mut errors);
            let strict = definition.get("strict") == Some(&Value::Bool(true));
            openai_parameters(
                &definition["parameters"],
                "/parameters",
                strict,
                &mut errors,
            );
        }
        "anthropic" => {
            expect_keys(
                definition,
                "",
                &["name", "input_schema"],
                &["description"],
                &mut errors,
            );
            check_name(definition, "", openai_name_ok, &mut errors);
            let schema = &definition["input_schema"];
            top_level_object(schema, "/input_schema", &mut errors);
            no_references(schema, "/input_schema", &mut errors);
        }
        "gemini" => {
            expect_keys(
                definition,
                "",
                &["name"],
                &["description", "parameters"],
                &mut errors,
            );
            check_name(definition, "", gemini_name_ok, &mut errors);
            if let Some(parameters) = definition.get("parameters") {
                if parameters.get("type") != Some(&Value::from("OBJECT")) {
                    errors.push("/parameters: must be of type OBJECT".into());
                }
                if parameters
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_none_or(|p| p.is_empty())
                {
                    errors
                        .push("/parameters/properties: should be non-empty for OBJECT type".into());
                }
                gemini_schema(parameters, "/parameters", None, &mut errors);
            }
        }
        other => errors.push(format!("unknown format {other}")),
    }
    errors
}

fn expect_keys(
    value: &Value,
    at: &str,
    required: &[&str],
    optional: &[&str],
    errors: &mut Vec<String>,
) {
    let Some(map) = value.as_object() else {
        errors.push(format!("{at}: not an object"));
        return;
    };
    for key in required {
        if !map.contains_key(*key) {
            errors.push(format!("{at}: missing `{key}`"));
        }
    }
    for key in map.keys() {
        if !required.contains(&key.as_str()) && !optional.contains(&key.as_str()) {
            errors.push(format!("{at}: unexpected `{key}`"));
        }
    }
    if let Some(d) = map.get("description") {
        if !d.is_string() {
            errors.push(format!("{at}/description: not a string"));
        }
    }
}

fn check_name(value: &Value, at: &str, ok: fn(&str) -> bool, errors: &mut Vec<String>) {
    match value.get("name").and_then(Value::as_str) {
        Some(name) if ok(name) => {}
        other => errors.push(format!(
            "{at}/name: {other:?} breaks the provider's name rule"
        )),
    }
}

fn top_level_object(schema: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        errors.push(format!("{at}: not an object"));
        return;
    };
    if map.get("type") != Some(&Value::from("object")) {
        errors.push(format!("{at}: top level must be type \"object\""));
    }
    if !map.get("properties").is_some_and(Value::is_object) {
        errors.push(format!("{at}: object schema missing properties"));
    }
    for key in ["anyOf", "oneOf", "allOf", "enum", "not"] {
        if map.contains_key(key) {
            errors.push(format!("{at}: `{key}` at the top level"));
        }
    }
}

/// Visits every schema node (following properties, items, anyOf, oneOf, allOf, additionalProperties
/// and the other subschema keywords), with its pointer and the keyword it hangs under.
type Visit<'f> = dyn FnMut(&Map<String, Value>, &str, &str) + 'f;

fn each_node(schema: &Value, at: &str, via: &str, f: &mut Visit<'_>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    f(map, at, via);
    for (key, value) in map {
        let here = format!("{at}/{key}");
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Some(entries) = value.as_object() {
                    for (name, s) in entries {
                        each_node(s, &format!("{here}/{name}"), key, f);
                    }
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Some(items) = value.as_array() {
                    for (i, s) in items.iter().enumerate() {
                        each_node(s, &format!("{here}/{i}"), key, f);
                    }
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "contains"
            | "propertyNames"
            | "if"
            | "then"
            | "else" => each_node(value, &here, key, f),
            _ => {}
        }
    }
}

fn no_references(schema: &Value, at: &str, errors: &mut Vec<String>) {
    each_node(schema, at, "", &mut |map, path, _| {
        for key in ["$ref", "$defs", "definitions", "$schema", "$id"] {
            if map.contains_key(key) {
                errors.push(format!("{path}: `{key}` left in a converted schema"));
            }
        }
    });
}

fn openai_parameters(schema: &Value, at: &str, strict: bool, errors: &mut Vec<String>) {
    top_level_object(schema, at, errors);
    no_references(schema, at, errors);
    each_node(schema, at, "", &mut |map, path, _| {
        let is_array = match map.get("type") {
            Some(Value::String(t)) => t == "array",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
            _ => false,
        };
        if is_array && !map.get("items").is_some_and(Value::is_object) {
            errors.push(format!("{path}: array schema missing items"));
        }
    });
    if strict {
        openai_strict(schema, at, errors);
    }
}

const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
const JSON_TYPES: &[&str] = &[
    "string", "number", "boolean", "integer", "object", "array", "null",
];

fn openai_strict(schema: &Value, at: &str, errors: &mut Vec<String>) {
    let mut properties = 0;
    let mut enum_values = 0;
    each_node(schema, at, "", &mut |map, path, via| {
        if via == "additionalProperties" {
            errors.push(format!(
                "{path}: additionalProperties must be false, not a schema"
            ));
            return;
        }
        for key in map.keys() {
            if !STRICT_KEYWORDS.contains(&key.as_str()) {
                errors.push(format!("{path}: `{key}` is not supported in strict mode"));
            }
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            Some(_) => {
                errors.push(format!("{path}: `type` is not a name or a list of names"));
                Vec::new()
            }
            None => Vec::new(),
        };
        for t in &types {
            if !JSON_TYPES.contains(t) {
                errors.push(format!("{path}: unknown type {t}"));
            }
        }
        if types.is_empty() && !map.contains_key("anyOf") && !map.contains_key("enum") {
            errors.push(format!(
                "{path}: every schema needs a type (or anyOf / enum)"
            ));
        }
        if let Some(format) = map.get("format") {
            if !format.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f)) {
                errors.push(format!("{path}: format {format} is not supported"));
            }
        }
        if let Some(values) = map.get("enum") {
            match values.as_array() {
                Some(v) => enum_values += v.len(),
                None => errors.push(format!("{path}: enum is not a list")),
            }
        }
        if types.contains(&"object") || map.contains_key("properties") {
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                errors.push(format!("{path}: additionalProperties must be false"));
            }
            let declared: Vec<&str> = map
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            properties += declared.len();
            let mut required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            required.sort_unstable();
            let mut all = declared.clone();
            all.sort_unstable();
            if required != all {
                errors.push(format!("{path}: every property must be required"));
            }
        }
    });
    if schema.get("anyOf").is_some() {
        errors.push(format!("{at}: the root must not be anyOf"));
    }
    if properties > 5000 {
        errors.push(format!("{at}: more than 5000 properties"));
    }
    if enum_values > 1000 {
        errors.push(format!("{at}: more than 1000 enum values"));
    }
    if object_depth(schema) > 10 {
        errors.push(format!("{at}: more than 10 levels of nesting"));
    }
}

fn object_depth(schema: &Value) -> usize {
    let Some(map) = schema.as_object() else {
        return 0;
    };
    let own = usize::from(map.contains_key("properties"));
    let mut deepest = 0;
    if let Some(props) = map.get("properties").and_then(Value::as_object) {
        deepest = deepest.max(props.values().map(object_depth).max().unwrap_or(0));
    }
    if let Some(items) = map.get("items") {
        deepest = deepest.max(object_depth(items));
    }
    if let Some(alts) = map.get("anyOf").and_then(Value::as_array) {
        deepest = deepest.max(alts.iter().map(object_depth).max().unwrap_or(0));
    }
    own + deepest
}

const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];
const GEMINI_TYPES: &[&str] = &["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"];

fn gemini_schema(schema: &Value, at: &str, _via: Option<&str>, errors: &mut Vec<String>) {
    each_node(schema, at, "", &mut |map, path, via| {
        for key in map.keys() {
            if !GEMINI_FIELDS.contains(&key.as_str()) {
                errors.push(format!("{path}: Unknown name \"{key}\": Cannot find field"));
            }
        }
        let ty = match map.get("type") {
            Some(Value::String(t)) if GEMINI_TYPES.contains(&t.as_str()) => Some(t.as_str()),
            Some(other) => {
                errors.push(format!("{path}: invalid type {other}"));
                None
            }
            None => None,
        };
        if ty.is_none() && !map.contains_key("anyOf") {
            errors.push(format!("{path}: no type"));
        }
        if via == "items" && ty.is_none() {
            errors.push(format!(
                "{path}: an array's items must have a type (anyOf is rejected there)"
            ));
        }
        for key in ["properties", "required", "minProperties", "maxProperties"] {
            if map.contains_key(key) && ty != Some("OBJECT") {
                errors.push(format!("{path}/{key}: only allowed for OBJECT type"));
            }
        }
        for key in ["items", "minItems", "maxItems"] {
            if map.contains_key(key) && ty != Some("ARRAY") {
                errors.push(format!("{path}/{key}: only allowed for ARRAY type"));
            }
        }
        if ty == Some("ARRAY") && !map.get("items").is_some_and(Value::is_object) {
            errors.push(format!("{path}/items: missing field"));
        }
        if let Some(props) = map.get("properties") {
            match props.as_object() {
                Some(p) if p.is_empty() => errors.push(format!(
                    "{path}/properties: should be non-empty for OBJECT type"
                )),
                Some(_) => {}
                None => errors.push(format!("{path}/properties: not an object")),
            }
        }
        if let Some(required) = map.get("required") {
            let declared = map.get("properties").and_then(Value::as_object);
            match required.as_array() {
                Some(names) => {
                    for n in names {
                        if !n
                            .as_str()
                            .is_some_and(|n| declared.is_some_and(|d| d.contains_key(n)))
                        {
                            errors.push(format!("{path}/required: {n} is not a declared property"));
                        }
                    }
                }
                None => errors.push(format!("{path}/required: not a list")),
            }
        }
        if let Some(values) = map.get("enum") {
            if ty != Some("STRING")
                || !values
                    .as_array()
                    .is_some_and(|v| v.iter().all(Value::is_string))
            {
                errors.push(format!("{path}/enum: only strings, on STRING"));
            }
        }
        if let Some(format) = map.get("format") {
            let allowed: &[&str] = match ty {
                Some("STRING") => &["enum", "date-time"],
                Some("NUMBER") => &["float", "double"],
                Some("INTEGER") => &["int32", "int64"],
                _ => &[],
            };
            if !format.as_str().is_some_and(|f| allowed.contains(&f)) {
                errors.push(format!("{path}/format: {format} not supported for {ty:?}"));
            }
        }
        if map.get("nullable").is_some_and(|n| !n.is_boolean()) {
            errors.push(format!("{path}/nullable: not a boolean"));
        }
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
            if map.get(key).is_some_and(|v| !v.is_number()) {
                errors.push(format!("{path}/{key}: not a number"));
            }
        }
        for key in ["description", "title", "pattern"] {
            if map.get(key).is_some_and(|v| !v.is_string()) {
                errors.push(format!("{path}/{key}: not a string"));
            }
        }
        if map.get("anyOf").is_some_and(|a| !a.is_array()) {
            errors.push(format!("{path}/anyOf: not a list"));
        }
    });
}
