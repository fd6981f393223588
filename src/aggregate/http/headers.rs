//! The standard request headers of a 2026-07-28 POST (SEP-2243), checked against the body they
//! mirror; any disagreement is `HeaderMismatch` (-32020, HTTP 400):
//!
//! - `Mcp-Method`: the body's `method`, always;
//! - `Mcp-Name`: `params.name` (`tools/call`, `prompts/get`) or `params.uri` (`resources/read`);
//! - `Mcp-Param-{Name}`: for `tools/call`, each argument whose property (reached through a chain of
//!   `properties`) carries `"x-mcp-header": "{Name}"` in the tool's listed schema — present exactly
//!   when the argument is (not `null`), equal to its value.
//!
//! Values are compared after trimming the whitespace HTTP allows around them; a value of the form
//! `=?base64?…?=` is the base64 (standard alphabet, padded) of the UTF-8 text, and one that does not
//! decode is a mismatch; anything else is literal.

use base64::Engine;
use hyper::HeaderMap;
use serde_json::Value;

use crate::aggregate::requests::wire::{WireError, HEADER_MISMATCH};

/// Deepest `properties` chain followed for `x-mcp-header` (a schema is a peer's data).
const MAX_DEPTH: usize = 8;

/// Checks the standard headers of request `method` against its `params`; `input_schema` is the
/// listed schema of the tool a `tools/call` names (when it is listed).
pub(crate) fn check(
    headers: &HeaderMap,
    method: &str,
    params: Option<&Value>,
    input_schema: Option<&Value>,
) -> Result<(), WireError> {
    expect(headers, "mcp-method", Some(method), "Mcp-Method")?;
    let name_key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(key) = name_key {
        let body = params.and_then(|p| p.get(key)).and_then(Value::as_str);
        expect(headers, "mcp-name", body, "Mcp-Name")?;
    }
    if let (Some(schema), "tools/call") = (input_schema, method) {
        let arguments = params.and_then(|p| p.get("arguments"));
        check_params(headers, schema, arguments, 0)?;
    }
    Ok(())
}

/// Every `x-mcp-header` property of `schema` (and of its nested `properties`) against `arguments`.
fn check_params(
    headers: &HeaderMap,
    schema: &Value,
    arguments: Option<&Value>,
    depth: usize,
) -> Result<(), WireError> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, property) in properties {
        let argument = arguments.and_then(|a| a.get(name)).filter(|v| !v.is_null());
        if let Some(header) = property.get("x-mcp-header").and_then(Value::as_str) {
            let text = argument.and_then(header_text);
            let label = format!("Mcp-Param-{header}");
            expect(
                headers,
                &label.to_ascii_lowercase(),
                text.as_deref(),
                &label,
            )?;
        }
        if depth < MAX_DEPTH {
            check_params(headers, property, argument, depth + 1)?;
        }
    }
    Ok(())
}

/// How an argument is written in its header: a string as is, a number or boolean as JSON.
fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Header `name` must be present exactly when `body` is, and say the same.
fn expect(
    headers: &HeaderMap,
    name: &str,
    body: Option<&str>,
    label: &str,
) -> Result<(), WireError> {
    let header = headers.get(name).map(|v| decode(v.as_bytes()));
    match (header, body) {
        (None, None) => Ok(()),
        (Some(Some(h)), Some(b)) if h == b => Ok(()),
        (None, Some(b)) => Err(mismatch(format!(
            "the {label} header is missing (the body says {b:?})"
        ))),
        (Some(None), _) => Err(mismatch(format!(
            "the {label} header is not valid (bad base64 or not UTF-8)"
        ))),
        (Some(Some(h)), Some(b)) => Err(mismatch(format!(
            "the {label} header says {h:?}, the body {b:?}"
        ))),
        (Some(Some(h)), None) => Err(mismatch(format!(
            "the {label} header says {h:?}, the body has no such value"
        ))),
    }
}

/// A header's value: trimmed, base64-decoded when it is `=?base64?…?=`; `None` when that does not
/// decode to UTF-8 (or the value is not text).
fn decode(raw: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(raw).ok()?.trim();
    match text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(text.to_owned()),
    }
}

fn mismatch(message: String) -> WireError {
    WireError::new(HEADER_MISMATCH, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::aggregate::http::state::header_map as headers;

    fn code(
        pairs: &[(&'static str, &str)],
        method: &str,
        params: Value,
        schema: Option<Value>,
    ) -> i64 {
        match check(&headers(pairs), method, Some(&params), schema.as_ref()) {
            Ok(()) => 0,
            Err(e) => e.code,
        }
    }

    #[test]
    fn method_and_name_mirror_the_body() {
        let call = json!({"name": "s__echo", "arguments": {}});
        assert_eq!(
            code(
                &[("mcp-method", "tools/list")],
                "tools/list",
                json!({}),
                None
            ),
            0
        );
        assert_eq!(
            code(
                &[("mcp-method", "TOOLS/LIST")],
                "tools/list",
                json!({}),
                None
            ),
            HEADER_MISMATCH
        );
        assert_eq!(code(&[], "tools/list", json!({}), None), HEADER_MISMATCH);
        assert_eq!(
            code(
                &[("mcp-method", "tools/call"), ("mcp-name", "  s__echo ")],
                "tools/call",
                call.clone(),
                None
            ),
            0
        );
        assert_eq!(
            code(
                &[("mcp-method", "tools/call"), ("mcp-name", "wrong")],
                "tools/call",
                call.clone(),
                None
            ),
            HEADER_MISMATCH
        );
        assert_eq!(
            code(&[("mcp-method", "tools/call")], "tools/call", call, None),
            HEADER_MISMATCH
        );
        let read = json!({"uri": "file:///a b"});
        let encoded = format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode("file:///a b")
        );
        assert_eq!(
            code(
                &[("mcp-method", "resources/read"), ("mcp-name", &encoded)],
                "resources/read",
                read,
                None
            ),
            0
        );
    }

    #[test]
    fn param_headers_follow_x_mcp_header_and_base64() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "nested": {"type": "object", "properties": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}}}
        }});
        let base = [("mcp-method", "tools/call"), ("mcp-name", "t")];
        let call = |args: Value| json!({"name": "t", "arguments": args});
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut all = base.to_vec();
            all.extend_from_slice(extra);
            all
        };
        assert_eq!(
            code(
                &with(&[]),
                "tools/call",
                call(json!({})),
                Some(schema.clone())
            ),
            0
        );
        let args = json!({"region": "Hello", "n": 3, "nested": {"flag": true}});
        let all = with(&[
            ("mcp-param-region", "=?base64?SGVsbG8=?="),
            ("mcp-param-n", "3"),
            ("mcp-param-flag", "true"),
        ]);
        assert_eq!(
            code(&all, "tools/call", call(args.clone()), Some(schema.clone())),
            0
        );
        let bad_padding = with(&[
            ("mcp-param-region", "=?base64?SGVsbG8?="),
            ("mcp-param-n", "3"),
            ("mcp-param-flag", "true"),
        ]);
        assert_eq!(
            code(
                &bad_padding,
                "tools/call",
                call(args.clone()),
                Some(schema.clone())
            ),
            HEADER_MISMATCH
        );
        let missing = with(&[("mcp-param-n", "3"), ("mcp-param-flag", "true")]);
        assert_eq!(
            code(&missing, "tools/call", call(args), Some(schema.clone())),
            HEADER_MISMATCH
        );
        let literal = json!({"region": "=?base64?SGVsbG8="});
        assert_eq!(
            code(
                &with(&[("mcp-param-region", "=?base64?SGVsbG8=")]),
                "tools/call",
                call(literal),
                Some(schema.clone())
            ),
            0
        );
        let extra = with(&[("mcp-param-region", "x")]);
        assert_eq!(
            code(&extra, "tools/call", call(json!({})), Some(schema)),
            HEADER_MISMATCH
        );
    }
}
