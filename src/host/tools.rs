//! `tools/list`, `tools/call` and `results/read`: the exposed tools, a call converted for the
//! provider, and the full text of a truncated result.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::params::{CallTool, ListTools, ReadResult};
use crate::convert;
use crate::error::{Error, Result};
use crate::supervisor::Registry;

/// `tools/list`: the tools in the requested format, with the listing's fingerprint.
pub fn list(registry: &Arc<Registry>, p: ListTools) -> Result<Value> {
    let listing = registry.tools(p.format, p.strict, p.servers.as_deref())?;
    Ok(json!({ "tools": *listing.tools, "fingerprint": listing.fingerprint }))
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
    let converted = convert::convert_result(
        p.format.unwrap_or(registry.settings().format),
        &outcome.result,
    );
    let mut result = json!({
        "isError": converted.is_error,
        "content": converted.content,
        "text": converted.text,
        "output": converted.output,
        "server": outcome.server,
        "tool": outcome.tool,
        "durationMs": outcome.duration.as_secs_f64() * 1000.0,
    });
    if let Some(structured) = converted.structured_content {
        result["structuredContent"] = structured;
    }
    if let Some(truncated) = &outcome.truncated {
        result["truncated"] = truncated.to_json();
    }
    Ok(result)
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
