//! `x-mcp-header` (2026-07-28, SEP-2243): a tool's input property may ask that its argument be
//! mirrored into an HTTP header `Mcp-Param-{Name}` of every `tools/call`. Pure: which annotations
//! are valid (a tool with an invalid one is left out of a modern server's list), which headers a
//! call of a tool carries, and how a header value is written (as is, or `=?base64?…?=`).

use base64::Engine;
use serde_json::{Map, Value};

/// The annotation's key in a property's schema.
pub const ANNOTATION: &str = "x-mcp-header";
/// The prefix of the headers it names.
pub const PARAM_HEADER_PREFIX: &str = "Mcp-Param-";

/// The largest integer a header may carry (2^53 − 1): what every JSON reader keeps exactly.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// One mirrored argument: the header's name (`{Name}`), and the property path to its value.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamHeader {
    pub name: String,
    pub path: Vec<String>,
}

/// The headers a tool's arguments are mirrored into, or why its annotations are invalid.
/// Annotations count only on properties reached through a chain of `properties` keys.
pub fn param_headers(tool: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    if let Some(schema) = tool.get("inputSchema") {
        walk(schema, &mut Vec::new(), &mut found)?;
    }
    let mut seen = std::collections::BTreeSet::new();
    for header in &found {
        if !seen.insert(header.name.to_ascii_lowercase()) {
            return Err(format!("{ANNOTATION} {:?} is given twice", header.name));
        }
    }
    Ok(found)
}

fn walk(
    schema: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, property) in properties {
        path.push(name.clone());
        if let Some(annotation) = property.get(ANNOTATION) {
            let header = annotation.as_str().filter(|h| is_token(h)).ok_or_else(|| {
                format!("{ANNOTATION} of `{}` is not a header name", path.join("."))
            })?;
            let ty = property.get("type").and_then(Value::as_str);
            if !matches!(ty, Some("string" | "integer" | "boolean")) {
                return Err(format!(
                    "{ANNOTATION} of `{}` is on a property that is not a string, integer or boolean",
                    path.join(".")
                ));
            }
            found.push(ParamHeader {
                name: header.to_owned(),
                path: path.clone(),
            });
        }
        walk(property, path, found)?;
        path.pop();
    }
    Ok(())
}

/// An RFC 9110 token: what a header name may be.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `Mcp-Param-*` headers of a call of a tool with `headers`, from its `arguments`: absent and
/// `null` arguments send no header; a value of the wrong kind sends none either (the server
/// validates arguments).
pub fn call_headers(headers: &[ParamHeader], arguments: &Value) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|h| {
            let mut value = arguments;
            for key in &h.path {
                value = value.get(key)?;
            }
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => {
                    let i = n.as_i64().filter(|i| i.abs() <= MAX_SAFE_INTEGER)?;
                    i.to_string()
                }
                _ => return None,
            };
            Some((
                format!("{PARAM_HEADER_PREFIX}{}", h.name),
                encode_value(&text),
            ))
        })
        .collect()
}

/// A header value as 2026-07-28 writes it: as is when it is visible ASCII (spaces inside allowed)
/// with no whitespace at either end and does not look like the encoding; otherwise
/// `=?base64?{base64 of its UTF-8}?=`.
pub fn encode_value(text: &str) -> String {
    let visible = text.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let looks_encoded = text.starts_with("=?") && text.ends_with("?=");
    let plain = visible && !padded && !looks_encoded;
    if plain {
        text.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
        )
    }
}

/// The standard headers of a modern request: `Mcp-Method`, and `Mcp-Name` for the three methods
/// that name something (`tools/call`, `prompts/get`: `params.name`; `resources/read`: `params.uri`).
pub fn standard_headers(
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Vec<(String, String)> {
    let mut headers = vec![("Mcp-Method".to_owned(), encode_value(method))];
    let name = match method {
        "tools/call" | "prompts/get" => params.and_then(|p| p.get("name")),
        "resources/read" => params.and_then(|p| p.get("uri")),
        _ => None,
    };
    if let Some(Value::String(name)) = name {
        headers.push(("Mcp-Name".to_owned(), encode_value(name)));
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_annotations_give_headers_and_invalid_ones_an_error() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Ignored"}}
        }}});
        let headers = param_headers(&tool).unwrap();
        assert_eq!(headers.len(), 2);
        let args = json!({"region": "eu west", "opts": {"n": 3}});
        let mut sent = call_headers(&headers, &args);
        sent.sort();
        assert_eq!(
            sent,
            vec![
                ("Mcp-Param-N".to_owned(), "3".to_owned()),
                ("Mcp-Param-Region".to_owned(), "eu west".to_owned()),
            ]
        );
        assert!(call_headers(&headers, &json!({"region": null})).is_empty());
        for bad in [
            json!({"a": {"type": "string", "x-mcp-header": ""}}),
            json!({"a": {"type": "string", "x-mcp-header": "has space"}}),
            json!({"a": {"type": "number", "x-mcp-header": "A"}}),
            json!({"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}),
        ] {
            let tool = json!({"inputSchema": {"type": "object", "properties": bad}});
            assert!(param_headers(&tool).is_err(), "{tool}");
        }
    }

    #[test]
    fn values_are_encoded_when_not_plain_visible_ascii() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("a b"), "a b");
        assert_eq!(encode_value(" a"), "=?base64?IGE=?=");
        assert_eq!(encode_value("日本"), "=?base64?5pel5pys?=");
        assert!(encode_value("=?base64?x?=").starts_with("=?base64?"));
        assert!(encode_value("a\nb").starts_with("=?base64?"));
    }

    #[test]
    fn standard_headers_name_the_method_and_what_it_names() {
        let p = json!({"name": "get_weather"});
        assert_eq!(
            standard_headers("tools/call", p.as_object()),
            vec![
                ("Mcp-Method".to_owned(), "tools/call".to_owned()),
                ("Mcp-Name".to_owned(), "get_weather".to_owned()),
            ]
        );
        let p = json!({"uri": "file:///a"});
        assert_eq!(
            standard_headers("resources/read", p.as_object())[1].1,
            "file:///a"
        );
        assert_eq!(standard_headers("tools/list", None).len(), 1);
    }
}
