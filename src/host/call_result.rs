//! The fields every `tools/call` result has (§10), whoever answered the call: a server, or the
//! sidecar itself for the `search_tools` meta-tool.

use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::convert::CallOutput;
use crate::names::{ServerName, ToolName};

/// The fields of every `tools/call` result.
pub(super) fn call_result(
    converted: CallOutput,
    server: &ServerName,
    tool: &ToolName,
    duration: Duration,
) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("isError".into(), Value::Bool(converted.is_error));
    result.insert("content".into(), converted.content);
    result.insert("text".into(), Value::String(converted.text));
    result.insert("output".into(), converted.output);
    result.insert("server".into(), Value::from(server.as_str()));
    result.insert("tool".into(), Value::from(tool.as_str()));
    result.insert("durationMs".into(), json!(duration.as_secs_f64() * 1000.0));
    if let Some(structured) = converted.structured_content {
        result.insert("structuredContent".into(), structured);
    }
    result
}
