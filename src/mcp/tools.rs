//! Validation of a server's tool list, all or nothing, and argument validation against each tool's own
//! `inputSchema` (always the server's original schema, never a converted one).
//!
//! Schemas are compiled once per discovery. jsonschema is built without its resolver features, so a
//! remote `$ref` can never be fetched, and patterns use the linear-time `regex` engine so a hostile
//! `pattern` cannot stall a call. A tool whose schema refers outside itself (a `$ref` that is not
//! `#…`) is left out of the list with a warning, the rest kept: its arguments cannot be validated
//! without fetching, which MCP forbids (SEP-2106: such schemas are rejected, not treated as
//! permissive), and one such tool is no reason to refuse a server's others.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use crate::canonical::{canonical_json, sha256_tagged};
use crate::error::{Error, ErrorCode, Result};
use crate::names::{ServerName, ToolName};

/// A validated tool: its name, the object exactly as the server listed it, and its compiled schema.
#[derive(Clone)]
pub struct ToolDef {
    pub name: ToolName,
    pub raw: Value,
    pub validator: Arc<jsonschema::Validator>,
    /// The permission the server's tools policy read from the tool's `_meta` (see
    /// `config::policy`); shown on the tool entry for the host's permission manager.
    pub permission: Option<String>,
    /// `sha256:<hex>` of the canonical JSON of `raw`: what the server says this tool is. A change
    /// under the same name (a "rug pull") changes it.
    pub hash: String,
    /// A tool of the server's own, or one the sidecar serves in front of its resources.
    pub kind: ToolKind,
}

/// Where a tool comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToolKind {
    /// Listed by the server's `tools/list`; a call is its `tools/call`.
    #[default]
    Server,
    /// `list_resources` (`resourcesAsTools`): a call lists the server's resources.
    ListResources,
    /// `read_resource` (`resourcesAsTools`): a call reads one resource.
    ReadResource,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Most violations listed in one INVALID_ARGUMENTS error.
const MAX_REPORTED_VIOLATIONS: usize = 20;

/// Validates every tool; the first problem rejects the whole list.
pub fn validate_tools(server: &str, raw: Vec<Value>) -> Result<Vec<ToolDef>> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(raw.len());
    for (index, tool) in raw.into_iter().enumerate() {
        let bad = |name: Option<&str>, why: String| {
            let what = name.map_or_else(|| format!("tool #{index}"), |n| format!("tool `{n}`"));
            let mut e = Error::new(
                ErrorCode::ProtocolError,
                format!("server `{server}`: {what} is invalid: {why}"),
            )
            .with("server", server);
            if let Some(n) = name {
                e = e.with("tool", n);
            }
            e
        };
        let name = match tool.get("name") {
            Some(Value::String(n)) if !n.is_empty() => n.clone(),
            _ => return Err(bad(None, "`name` is missing, empty or not a string".into())),
        };
        if !seen.insert(name.clone()) {
            return Err(bad(Some(&name), "the name is listed twice".into()));
        }
        let schema = tool
            .get("inputSchema")
            .ok_or_else(|| bad(Some(&name), "`inputSchema` is missing".into()))?;
        if let Some(target) = external_ref(schema) {
            tracing::warn!(server, tool = %name, target, "tool left out: its inputSchema refers to a schema outside itself, which is never fetched");
            continue;
        }
        let validator = compile_input_schema(schema).map_err(|why| bad(Some(&name), why))?;
        out.push(ToolDef {
            name: ToolName::from(name),
            hash: definition_hash(&tool),
            raw: tool,
            validator: Arc::new(validator),
            permission: None,
            kind: ToolKind::Server,
        });
    }
    Ok(out)
}

/// The first `$ref` of `schema` that points outside the schema itself (not `#…`), if any.
fn external_ref(schema: &Value) -> Option<&str> {
    match schema {
        Value::Object(map) => map
            .get("$ref")
            .and_then(Value::as_str)
            .filter(|r| !r.starts_with('#'))
            .or_else(|| map.values().find_map(external_ref)),
        Value::Array(items) => items.iter().find_map(external_ref),
        _ => None,
    }
}

/// `sha256:<hex>` of a tool object's canonical JSON (keys sorted, compact).
pub fn definition_hash(tool: &Value) -> String {
    sha256_tagged(canonical_json(tool).as_bytes())
}

/// Compiles an `inputSchema`: an object schema of `"type": "object"`, valid against its dialect's
/// meta-schema (2020-12 when `$schema` is absent).
// The `String` is only the reason, wrapped into PROTOCOL_ERROR by the caller in this file.
fn compile_input_schema(schema: &Value) -> std::result::Result<jsonschema::Validator, String> {
    let Value::Object(map) = schema else {
        return Err("`inputSchema` is not an object".into());
    };
    if map.get("type").and_then(Value::as_str) != Some("object") {
        return Err("`inputSchema.type` must be \"object\"".into());
    }
    // Guard against the library panicking on an unknown `$schema` dialect.
    let meta =
        std::panic::catch_unwind(|| jsonschema::meta::validate(schema).map_err(|e| e.to_string()))
            .unwrap_or_else(|_| Err("unsupported `$schema` dialect".into()));
    meta.map_err(|e| format!("`inputSchema` is not a valid JSON Schema: {e}"))?;
    jsonschema::options()
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .map_err(|e| format!("`inputSchema` cannot be compiled: {e}"))
}

/// Checks arguments against the tool's schema; INVALID_ARGUMENTS lists each violation with its path.
pub fn check_arguments(server: &ServerName, tool: &ToolDef, arguments: &Value) -> Result<()> {
    // The common case allocates nothing; errors are collected only for invalid arguments.
    if tool.validator.is_valid(arguments) {
        return Ok(());
    }
    let violations: Vec<Value> = tool
        .validator
        .iter_errors(arguments)
        .take(MAX_REPORTED_VIOLATIONS)
        .map(|e| {
            let path = e.instance_path().to_string();
            serde_json::json!({ "path": if path.is_empty() { "/".to_owned() } else { path }, "message": e.to_string() })
        })
        .collect();
    if violations.is_empty() {
        return Ok(());
    }
    let summary = violations
        .iter()
        .map(|v| {
            format!(
                "{}: {}",
                v["path"].as_str().unwrap_or("/"),
                v["message"].as_str().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Err(Error::new(
        ErrorCode::InvalidArguments,
        format!(
            "arguments for tool `{}` on server `{server}` do not match its inputSchema: {summary}",
            tool.name
        ),
    )
    .with("server", server.as_str())
    .with("tool", tool.name.as_str())
    .with("violations", violations))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Value) -> Value {
        json!({"name": name, "inputSchema": schema})
    }

    #[test]
    fn valid_tools_compile() {
        let tools = validate_tools(
            "s",
            vec![tool("a", json!({"type": "object", "properties": {"x": {"type": "string", "pattern": "^a+$"}}}))],
        )
        .unwrap();
        assert!(check_arguments(&"s".into(), &tools[0], &json!({"x": "aaa"})).is_ok());
        let e = check_arguments(&"s".into(), &tools[0], &json!({"x": 5})).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        assert_eq!(e.details["violations"][0]["path"], "/x");
    }

    #[test]
    fn one_bad_tool_rejects_all() {
        let cases = [
            vec![json!({"inputSchema": {"type": "object"}})],
            vec![
                tool("a", json!({"type": "object"})),
                tool("a", json!({"type": "object"})),
            ],
            vec![tool("a", json!({"type": "string"}))],
            vec![tool(
                "a",
                json!({"type": "object", "properties": {"x": {"type": "not-a-type"}}}),
            )],
            vec![tool(
                "a",
                json!({"type": "object", "$schema": "https://example.com/unknown"}),
            )],
            vec![json!({"name": "a"})],
        ];
        for tools in cases {
            let text = serde_json::to_string(&tools).unwrap();
            let e = validate_tools("s", tools).unwrap_err();
            assert_eq!(e.code, ErrorCode::ProtocolError, "{text}");
        }
    }

    /// A schema that refers outside itself is never fetched: that tool is left out, the others
    /// kept (a same-document `$ref` is fine).
    #[test]
    fn a_tool_with_an_external_ref_is_left_out_alone() {
        let tools = vec![
            tool(
                "local",
                json!({"type": "object", "$defs": {"id": {"type": "string"}},
                "properties": {"id": {"$ref": "#/$defs/id"}}}),
            ),
            tool(
                "remote",
                json!({"type": "object",
                "properties": {"p": {"$ref": "https://example.com/schema.json"}}}),
            ),
        ];
        let kept = validate_tools("s", tools).unwrap();
        assert_eq!(
            kept.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["local"]
        );
    }

    #[test]
    fn the_hash_follows_the_whole_definition_not_its_key_order() {
        let a = json!({"name": "a", "description": "d", "inputSchema": {"type": "object"}});
        let b: Value = serde_json::from_str(
            r#"{"inputSchema": {"type": "object"}, "description": "d", "name": "a"}"#,
        )
        .unwrap();
        let tools = validate_tools("s", vec![a.clone()]).unwrap();
        assert_eq!(tools[0].hash, definition_hash(&b));
        assert!(tools[0].hash.starts_with("sha256:") && tools[0].hash.len() == 71);
        let mut changed = a;
        changed["annotations"] = json!({"readOnlyHint": false});
        assert_ne!(definition_hash(&changed), tools[0].hash);
    }

    #[test]
    fn draft_07_schemas_are_accepted() {
        let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let tools = validate_tools("s", vec![tool("a", schema)]).unwrap();
        assert!(check_arguments(&"s".into(), &tools[0], &json!({})).is_err());
    }
}
