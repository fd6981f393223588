//! `tools/list`, `tools/call`, `tools/accept` and `results/read`: the exposed tools, a call
//! converted for the provider, held definitions accepted, and the full text of a truncated result.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use tokio::sync::watch;

use super::call_result::{call_result, CallAnswer};
use super::params::{AcceptTools, CallTool, ListTools, ReadResult};
use super::search;
use crate::convert;
use crate::error::{Error, Result};
use crate::jsonrpc::{encode_notification, RequestId};
use crate::serving::Outbox;
use crate::supervisor::{CallOptions, Progress, Registry};
use crate::telemetry::{Carried, RequestSpan, TraceContext};

/// `tools/list`: the tools in the requested format, with the listing's fingerprint, token totals,
/// the instructions of their servers and (when there are some) the tools held by `pinTools`, as
/// the JSON text cached for this tool set.
pub(super) fn list(registry: &Arc<Registry>, p: ListTools) -> Result<Arc<str>> {
    let rendered = registry.tools_answer(p.format, p.strict, p.defer, p.servers.as_deref())?;
    Ok(Arc::clone(&rendered.json))
}

/// `tools/accept`: held definitions let back into the tool set, by hash.
pub(super) fn accept(registry: &Arc<Registry>, p: AcceptTools) -> Result<Value> {
    Ok(registry.accept(&p.tools))
}

/// `tools/call`: the server's result converted to the format (the session's by default). The
/// `search_tools` meta-tool is answered here, by the sidecar itself. With `progress`, the
/// server's progress reaches the host as `notifications/progress` tagged with the call's id
/// `to.1`, each before the answer.
pub(super) async fn call(
    registry: &Arc<Registry>,
    p: CallTool,
    to: (&Outbox, &RequestId),
) -> Result<CallAnswer> {
    let format = p.format.unwrap_or(registry.settings().format);
    if p.name == registry.catalog().search_tools_name() {
        return search::call_search_tools(registry, &p.name, p.arguments, format);
    }
    // The top-level fields win over `_meta`'s: they are the host protocol's own.
    let incoming = Carried::new(p.traceparent.as_deref(), p.tracestate.as_deref())
        .or_else(|| Carried::from_meta_object(p.meta.as_ref()));
    let span = RequestSpan::start("tools/call", Some(&p.name), incoming.as_ref(), Vec::new);
    let answer = call_traced(registry, p, format, to, span.context()).await;
    span.end(answer.as_ref().err().map(|e| e.code.as_str()));
    answer
}

async fn call_traced(
    registry: &Arc<Registry>,
    p: CallTool,
    format: convert::ToolFormat,
    to: (&Outbox, &RequestId),
    trace: TraceContext,
) -> Result<CallAnswer> {
    let mut options = CallOptions {
        timeout: milliseconds(p.timeout_ms, "timeoutMs")?,
        reset_timeout_on_progress: p.reset_timeout_on_progress,
        max_total: milliseconds(p.max_total_timeout_ms, "maxTotalTimeoutMs")?,
        progress: None,
        trace,
    };
    let outcome = if p.progress {
        let (sink, watched) = watch::channel(None);
        options.progress = Some(sink);
        // Both in this one future: a cancelled call stops its progress with it, and the answer
        // waits until the last progress is queued (the sink drops when the call ends). Boxed,
        // so that a plain call's future does not grow by it.
        let (outcome, ()) = Box::pin(async {
            tokio::join!(
                registry.call_tool_with(&p.name, p.arguments, options),
                forward_progress(watched, to.0, to.1)
            )
        })
        .await;
        outcome?
    } else {
        registry
            .call_tool_with(&p.name, p.arguments, options)
            .await?
    };
    // The server's result is given away: its content moves into the answer, nothing is copied.
    let converted = convert::convert_owned(format, outcome.result);
    let truncated = outcome.truncated.as_ref().map(|t| t.to_json());
    let mut result = call_result(converted, outcome.server, outcome.tool, outcome.duration);
    result.truncated = truncated;
    Ok(result)
}

/// A positive number of milliseconds of field `field`.
fn milliseconds(ms: Option<u64>, field: &str) -> Result<Option<Duration>> {
    match ms {
        Some(0) => {
            Err(Error::invalid_params(format!("{field} must be positive")).with("field", field))
        }
        Some(ms) => Ok(Some(Duration::from_millis(ms))),
        None => Ok(None),
    }
}

/// Sends the host the latest progress of call `id` each time it changes, until the call ends
/// (its sink dropped). A host that reads slowly sees the newest progress, never a backlog.
async fn forward_progress(mut watched: watch::Receiver<Progress>, outbox: &Outbox, id: &RequestId) {
    while watched.changed().await.is_ok() {
        let Some(Value::Object(mut params)) = watched.borrow_and_update().clone() else {
            continue;
        };
        params.insert("requestId".into(), json!(id));
        let line = encode_notification("notifications/progress", Some(&params));
        outbox.send(line).await;
    }
}

/// `results/read`: a slice of a truncated result's full text.
pub(super) fn read_result(registry: &Arc<Registry>, p: ReadResult) -> Result<Value> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// A host that reads late sees the latest progress of a call, never a backlog: a thousand
    /// progress updates made while the forwarder could not run reach it as one notification.
    #[tokio::test]
    async fn a_slow_host_gets_the_latest_progress_not_a_backlog() {
        let (ours, mut theirs) = tokio::io::duplex(1 << 20);
        let (outbox, writer) =
            crate::serving::writer::spawn(ours, tokio_util::sync::CancellationToken::new());
        let (sink, watched) = watch::channel(None);
        let id = RequestId::Number(7);
        let forwarding = forward_progress(watched, &outbox, &id);
        let updates = async move {
            for step in 1..=1000 {
                sink.send_replace(Some(json!({"progress": step, "total": 1000})));
            }
        };
        tokio::join!(forwarding, updates);
        drop(outbox);
        let _ = writer.await;
        let mut written = String::new();
        theirs.read_to_string(&mut written).await.unwrap();
        let lines: Vec<Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            lines,
            vec![json!({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"requestId": 7, "progress": 1000, "total": 1000}})]
        );
    }
}
