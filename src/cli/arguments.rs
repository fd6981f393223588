//! The arguments of `mcp-sidecar call`: one JSON object (`--json '{…}'`) and `--arg` pairs over it.
//!
//! `--arg KEY=VALUE` is typed by the tool's own input schema where that is unambiguous: a property
//! of one type (`integer`, `number`, `boolean`, `string`, `array`, `object`; `null` besides it
//! too, then the text `null` is null) gets a value of that type, and text that is not one is an
//! error naming the property and its type. Anywhere else (no such property, several types, a
//! `$ref`) the value stays a string. `--arg KEY:=JSON` gives the value as JSON, untyped (as
//! HTTPie does). The server's schema still validates the result before the call.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Why the arguments could not be built (a usage error).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ArgumentsError {
    #[error("`--json` must be one JSON object of arguments: {0}")]
    NotAnObject(String),
    #[error("`--arg {0}` is not KEY=VALUE (or KEY:=JSON)")]
    NotAPair(String),
    #[error("`--arg {key}:=…`: the value is not JSON: {why}")]
    BadJson { key: String, why: String },
    #[error("`--arg {key}={value}`: the tool's schema wants {expected} for `{key}`{hint}")]
    WrongType {
        key: String,
        value: String,
        expected: &'static str,
        hint: &'static str,
    },
}

/// The arguments object: `json` (if given) with every `--arg` pair applied in order.
pub(crate) fn build(
    json: Option<&str>,
    pairs: &[String],
    schema: &Value,
) -> Result<Value, ArgumentsError> {
    let mut arguments = match json {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                return Err(ArgumentsError::NotAnObject(format!(
                    "got {}",
                    kind_of(&other)
                )))
            }
            Err(e) => return Err(ArgumentsError::NotAnObject(e.to_string())),
        },
    };
    for pair in pairs {
        let (key, value) = one(pair, schema)?;
        arguments.insert(key, value);
    }
    Ok(Value::Object(arguments))
}

/// One `--arg`.
fn one(pair: &str, schema: &Value) -> Result<(String, Value), ArgumentsError> {
    let Some((key, text)) = pair.split_once('=') else {
        return Err(ArgumentsError::NotAPair(pair.to_owned()));
    };
    if let Some(key) = key.strip_suffix(':') {
        let value = serde_json::from_str(text).map_err(|e| ArgumentsError::BadJson {
            key: key.to_owned(),
            why: e.to_string(),
        })?;
        return Ok((key.to_owned(), value));
    }
    if key.is_empty() {
        return Err(ArgumentsError::NotAPair(pair.to_owned()));
    }
    let property = schema.get("properties").and_then(|p| p.get(key));
    let value = typed(key, text, property.map(types_of).unwrap_or_default())?;
    Ok((key.to_owned(), value))
}

/// The value of `text` for a property of `types` (empty: unknown or ambiguous).
fn typed(
    key: &str,
    text: &str,
    mut types: BTreeSet<&'static str>,
) -> Result<Value, ArgumentsError> {
    if types.remove("null") && text == "null" {
        return Ok(Value::Null);
    }
    // Every integer is a number: a property that takes both takes any number.
    if types.contains("number") {
        types.remove("integer");
    }
    let wrong = |expected: &'static str, hint: &'static str| ArgumentsError::WrongType {
        key: key.to_owned(),
        value: text.to_owned(),
        expected,
        hint,
    };
    let only = if types.len() == 1 {
        types.first().copied()
    } else {
        None
    };
    match only {
        Some("integer") => match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Number(_)) if v.is_i64() || v.is_u64() => Ok(v),
            _ => Err(wrong("an integer", "")),
        },
        Some("number") => match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Number(_)) => Ok(v),
            _ => Err(wrong("a number", "")),
        },
        Some("boolean") => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(wrong("a boolean", " (true or false)")),
        },
        Some("array") => match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Array(_)) => Ok(v),
            _ => Err(wrong("an array", " (as JSON, e.g. [\"a\", \"b\"])")),
        },
        Some("object") => match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err(wrong("an object", " (as JSON, e.g. {\"k\": 1})")),
        },
        _ => Ok(Value::String(text.to_owned())),
    }
}

/// The JSON types a property schema allows, when it says so plainly: `type` (one or a list), the
/// values of `enum`/`const`, or the branches of `anyOf`/`oneOf` that each say so. Empty when it
/// does not (a `$ref`, no type at all).
fn types_of(schema: &Value) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    match schema.get("type") {
        Some(Value::String(t)) => out.extend(known(t)),
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str).filter_map(known)),
        _ => {}
    }
    if !out.is_empty() {
        return out;
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().map(kind_of).collect();
    }
    if let Some(value) = schema.get("const") {
        return std::iter::once(kind_of(value)).collect();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let each: Vec<BTreeSet<&'static str>> = branches.iter().map(types_of).collect();
            if each.iter().all(|t| !t.is_empty()) {
                return each.into_iter().flatten().collect();
            }
        }
    }
    out
}

fn known(t: &str) -> Option<&'static str> {
    [
        "string", "integer", "number", "boolean", "array", "object", "null",
    ]
    .into_iter()
    .find(|k| *k == t)
}

/// The JSON type of a value, as a schema names it.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "message": {"type": "string"},
            "ms": {"type": "integer"},
            "ratio": {"type": ["number", "integer"]},
            "loud": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "options": {"type": "object"},
            "limit": {"type": ["integer", "null"]},
            "mode": {"enum": ["fast", "slow"]},
            "level": {"enum": [1, 2, 3]},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "linked": {"$ref": "#/$defs/x"}
        }})
    }

    fn args(pairs: &[&str]) -> Result<Value, ArgumentsError> {
        let pairs: Vec<String> = pairs.iter().map(|s| (*s).to_owned()).collect();
        build(None, &pairs, &schema())
    }

    #[test]
    fn values_take_the_type_of_their_property() {
        assert_eq!(
            args(&[
                "message=123",
                "ms=250",
                "ratio=0.5",
                "loud=true",
                "tags=[\"a\"]",
                "options={\"k\":1}",
                "limit=null",
                "mode=fast",
                "level=2",
                "maybe=null",
            ])
            .unwrap(),
            json!({"message": "123", "ms": 250, "ratio": 0.5, "loud": true, "tags": ["a"],
                   "options": {"k": 1}, "limit": null, "mode": "fast", "level": 2, "maybe": null})
        );
    }

    #[test]
    fn where_the_schema_is_ambiguous_a_value_stays_text() {
        assert_eq!(
            args(&["either=7", "linked=7", "unknown=true", "maybe=x"]).unwrap(),
            json!({"either": "7", "linked": "7", "unknown": "true", "maybe": "x"})
        );
    }

    #[test]
    fn json_values_are_given_with_colon_equals() {
        assert_eq!(
            args(&["either:=7", "unknown:={\"a\":[1]}", "message:=\"x=y\""]).unwrap(),
            json!({"either": 7, "unknown": {"a": [1]}, "message": "x=y"})
        );
        assert!(matches!(
            args(&["x:=nope"]),
            Err(ArgumentsError::BadJson { .. })
        ));
    }

    #[test]
    fn a_value_of_the_wrong_type_names_the_property() {
        let e = args(&["ms=soon"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "`--arg ms=soon`: the tool's schema wants an integer for `ms`"
        );
        assert!(matches!(
            args(&["ms=1.5"]),
            Err(ArgumentsError::WrongType { .. })
        ));
        assert!(matches!(
            args(&["loud=yes"]),
            Err(ArgumentsError::WrongType { .. })
        ));
        assert!(matches!(
            args(&["tags=a,b"]),
            Err(ArgumentsError::WrongType { .. })
        ));
        assert!(matches!(
            args(&["noequals"]),
            Err(ArgumentsError::NotAPair(_))
        ));
        assert!(matches!(args(&["=x"]), Err(ArgumentsError::NotAPair(_))));
    }

    #[test]
    fn pairs_apply_over_the_json_object() {
        let pairs = vec!["ms=5".to_owned()];
        assert_eq!(
            build(Some(r#"{"ms": 1, "message": "hi"}"#), &pairs, &schema()).unwrap(),
            json!({"ms": 5, "message": "hi"})
        );
        assert!(matches!(
            build(Some("[1]"), &[], &schema()),
            Err(ArgumentsError::NotAnObject(_))
        ));
    }
}
