//! `tools/list`, `tools/call`, `tools/accept` and `results/read`: the exposed tools, a call
//! converted for the provider, held definitions accepted, and the full text of a truncated result.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::params::{AcceptTools, CallTool, ListTools, ReadResult};
use crate::convert;
use crate::error::{Error, Result};
use crate::supervisor::Registry;

/// `tools/list`: the tools in the requested format, with the listing's fingerprint, the
/// instructions of their servers, and (when there are some) the tools held by `pinTools`.
pub fn list(registry: &Arc<Registry>, p: ListTools) -> Result<Value> {
    let listing = registry.tools(p.format, p.strict, p.servers.as_deref())?;
    let servers = registry.server_notes(
        listing
            .tools
            .iter()
            .filter_map(|t| t.get("server").and_then(Value::as_str)),
    );
    let mut result = json!({
        "tools": *listing.tools,
        "fingerprint": listing.fingerprint,
        "servers": servers,
    });
    let withheld = registry.withheld(p.servers.as_deref());
    if !withheld.is_empty() {
        result["withheld"] = Value::Array(withheld);
    }
    Ok(result)
}

/// `tools/accept`: held definitions let back into the tool set, by hash.
pub fn accept(registry: &Arc<Registry>, p: AcceptTools) -> Result<Value> {
    Ok(registry.accept(&p.tools))
}

/// `tools/call`: the server's result converted to the format (the session's by default).
pub async fn call(registry: &Arc<Registry>, p: CallTool) -> Result<Value> {
    let timeout = match p.timeout_ms {
        Some(0) => {
            return Err(
                Error::invalid_params("timeoutMs must be positive").with("field", "timeoutMs")
            )
        }
        Some(ms) => Some(Duration::from_millis(ms)),
        None => None,
    };
    let outcome = registry.call_tool(&p.name, p.arguments, timeout).await?;
    let format = p.format.unwrap_or(registry.settings().format);
    // The server's result is given away: its content moves into the answer, nothing is copied.
    let converted = convert::convert_owned(format, outcome.result);
    let mut result = Map::new();
    result.insert("isError".into(), Value::Bool(converted.is_error));
    result.insert("content".into(), converted.content);
    result.insert("text".into(), Value::String(converted.text));
    result.insert("output".into(), converted.output);
    result.insert("server".into(), Value::String(outcome.server));
    result.insert("tool".into(), Value::String(outcome.tool));
    result.insert(
        "durationMs".into(),
        json!(outcome.duration.as_secs_f64() * 1000.0),
    );
    if let Some(structured) = converted.structured_content {
        result.insert("structuredContent".into(), structured);
    }
    if let Some(truncated) = &outcome.truncated {
        result.insert("truncated".into(), truncated.to_json());
    }
    Ok(Value::Object(result))
}

/// `results/read`: a slice of a truncated result's full text.
pub fn read_result(registry: &Arc<Registry>, p: ReadResult) -> Result<Value> {
    if p.length == Some(0) {
        return Err(Error::invalid_params("length must be positive").with("field", "length"));
    }
    let read = registry.read_result(&p.handle, p.offset, p.length)?;
    Ok(json!({
        "text": read.text,
        "offset": read.offset,
        "length": read.length,
        "totalBytes": read.total_bytes,
        "eof": read.eof,
    }))
}
