//! `tools/list`, `tools/call`, `tools/accept` and `results/read`: the exposed tools, a call
//! converted for the provider, held definitions accepted, and the full text of a truncated result.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::call_result::call_result;
use super::params::{AcceptTools, CallTool, ListTools, ReadResult};
use super::search;
use crate::convert;
use crate::error::{Error, Result};
use crate::supervisor::Registry;

/// `tools/list`: the tools in the requested format, with the listing's fingerprint, token totals,
/// the instructions of their servers and (when there are some) the tools held by `pinTools`, as
/// the JSON text cached for this tool set.
pub fn list(registry: &Arc<Registry>, p: ListTools) -> Result<Arc<str>> {
    let rendered = registry.tools_answer(p.format, p.strict, p.defer, p.servers.as_deref())?;
    Ok(Arc::clone(&rendered.json))
}

/// `tools/accept`: held definitions let back into the tool set, by hash.
pub fn accept(registry: &Arc<Registry>, p: AcceptTools) -> Result<Value> {
    Ok(registry.accept(&p.tools))
}

/// `tools/call`: the server's result converted to the format (the session's by default). The
/// `search_tools` meta-tool is answered here, by the sidecar itself.
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
    let format = p.format.unwrap_or(registry.settings().format);
    if p.name == registry.catalog().search_tools_name() {
        return search::call_search_tools(registry, &p.name, p.arguments, format);
    }
    let outcome = registry.call_tool(&p.name, p.arguments, timeout).await?;
    // The server's result is given away: its content moves into the answer, nothing is copied.
    let converted = convert::convert_owned(format, outcome.result);
    let mut result = call_result(converted, outcome.server, outcome.tool, outcome.duration);
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
