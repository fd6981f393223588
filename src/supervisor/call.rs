//! One tool call on its server: the arguments checked against the tool's own schema, a session
//! acquired (starting a dormant server), the call bounded by its timeout, and the answer held to
//! `maxResultBytes` (an error, or a cut result whose full text the results store keeps).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use tokio::sync::watch;

use super::lifecycle;
use super::roster::Roster;
use super::server::Server;
use super::session::{CallLimits, Session};
use crate::config::ResultPolicy;
use crate::convert;
use crate::error::{Error, ErrorCode, Result};
use crate::limits;
use crate::mcp::{self, Progress, ProgressPolicy};
use crate::store::{Entry, ResultStore, Truncation};

/// How the host wants one call run, beyond its arguments; every field defaults to the server's
/// config.
#[derive(Debug, Default)]
pub struct CallOptions {
    /// The call's timeout (`timeoutMs`), else `toolTimeoutSeconds`.
    pub timeout: Option<Duration>,
    /// Where the server's progress goes (latest wins), when the host wants it.
    pub progress: Option<watch::Sender<Progress>>,
    /// `resetTimeoutOnProgress`, else the config's.
    pub reset_timeout_on_progress: Option<bool>,
    /// `maxTotalTimeoutMs`, else the config's `maxTotalTimeoutSeconds`.
    pub max_total: Option<Duration>,
}

/// A successful tool call.
pub struct CallOutcome {
    pub result: Value,
    pub server: String,
    pub tool: String,
    pub duration: Duration,
    /// Set when the result was over `maxResultBytes` and cut to fit (`resultPolicy: "truncate"`).
    pub truncated: Option<Truncation>,
}

/// The arguments to send for exposed tool `name`: an object (absent means `{}`) that satisfies the
/// tool's input schema. Arguments that fail only because of `null`s for optional properties (what a
/// model in OpenAI strict mode sends for "absent") are sent without those `null`s.
pub(super) fn arguments(name: &str, entry: &Entry, arguments: Option<Value>) -> Result<Value> {
    let arguments = match arguments {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(a @ Value::Object(_)) => a,
        Some(_) => {
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                format!("arguments for tool `{name}` must be an object"),
            )
            .with("name", name)
            .with("server", entry.server.as_str())
            .with("tool", entry.tool.name.as_str()))
        }
    };
    let Err(e) = mcp::tools::check_arguments(&entry.server, &entry.tool, &arguments) else {
        return Ok(arguments);
    };
    let schema = entry.tool.raw.get("inputSchema").unwrap_or(&Value::Null);
    match convert::arguments::drop_optional_nulls(schema, &arguments) {
        Some(cleaned)
            if mcp::tools::check_arguments(&entry.server, &entry.tool, &cleaned).is_ok() =>
        {
            Ok(cleaned)
        }
        _ => Err(e.with("name", name)),
    }
}

/// Calls `entry`'s tool on `server` with checked `arguments` as `options` say (over the server's
/// config). A cut result's full text goes to `results`.
pub(super) async fn call(
    roster: &Arc<Roster>,
    results: &ResultStore,
    server: &Arc<Server>,
    entry: &Entry,
    arguments: Value,
    options: CallOptions,
) -> Result<CallOutcome> {
    let _counted = server
        .calls
        .enter(&server.name, server.spec.max_inflight)
        .map_err(|e| e.with("tool", entry.tool.name.as_str()))?;
    let (session, _in_flight) = lifecycle::acquire(roster, server).await?;
    let tool = entry.tool.name.as_str();
    // A dormant server may have come back with a different tool list.
    if !session.tools().iter().any(|t| t.name == tool) {
        return Err(Error::new(
            ErrorCode::ToolNotFound,
            format!("server `{}` no longer has a tool `{tool}`", entry.server),
        )
        .with("server", entry.server.as_str())
        .with("tool", tool));
    }
    let started = Instant::now();
    let reply = match policy(&session.limits, options) {
        // The plain call: no progress token, one deadline.
        Err(timeout) => session.client.call_tool(tool, arguments, timeout).await,
        Ok(policy) => {
            session
                .client
                .call_tool_with(tool, arguments, &policy)
                .await
        }
    };
    let reply = reply.map_err(|e| {
        e.with("tool", tool)
            .with_stderr_tail(&session.stderr.text())
    })?;
    let duration = started.elapsed();
    let original_bytes = reply.bytes;
    let limits = session.limits;
    let over = original_bytes > limits.max_result_bytes;
    if over && limits.result_policy == ResultPolicy::Error {
        return Err(too_large(entry, limits, original_bytes));
    }
    let mut result = object_result(&session, entry, reply)?;
    // Before the budget: a kept full text (`results/read`) is masked too.
    server.mask_result(&mut result);
    let (result, truncated) = if over {
        let (result, truncation) = results.fit(&result, original_bytes, limits.max_result_bytes);
        tracing::debug!(server = %entry.server, tool, original_bytes, "result truncated to fit maxResultBytes");
        (result, Some(truncation))
    } else {
        (result, None)
    };
    Ok(CallOutcome {
        result,
        server: entry.server.clone(),
        tool: tool.to_owned(),
        duration,
        truncated,
    })
}

/// The progress policy of a call, or (`Err`) just its timeout when neither progress nor a total
/// bound is wanted. Resetting on progress always has a total bound (a default, at least the
/// call's timeout).
fn policy(limits: &CallLimits, options: CallOptions) -> Result<ProgressPolicy, Duration> {
    let timeout = options.timeout.unwrap_or(limits.tool_timeout);
    let reset = options
        .reset_timeout_on_progress
        .unwrap_or(limits.reset_on_progress);
    let max_total = options
        .max_total
        .or(limits.max_total)
        .or_else(|| reset.then(|| limits::DEFAULT_MAX_TOTAL_TOOL_TIMEOUT.max(timeout)));
    if options.progress.is_none() && max_total.is_none() {
        return Err(timeout);
    }
    Ok(ProgressPolicy {
        timeout,
        reset,
        max_total,
        sink: options.progress,
    })
}

/// The reply's result, which must be an object (a JSON-RPC error is UPSTREAM_ERROR).
fn object_result(session: &Session, entry: &Entry, reply: crate::jsonrpc::Reply) -> Result<Value> {
    let tool = entry.tool.name.as_str();
    let result = session
        .client
        .reply_outcome(reply)
        .map_err(|e| e.with("tool", tool))?;
    if !result.is_object() {
        return Err(Error::new(
            ErrorCode::ProtocolError,
            format!(
                "server `{}` answered tools/call `{tool}` with a result that is not an object",
                entry.server
            ),
        )
        .with("server", entry.server.as_str())
        .with("tool", tool));
    }
    Ok(result)
}

/// RESULT_TOO_LARGE (`resultPolicy: "error"`).
fn too_large(entry: &Entry, limits: CallLimits, size: usize) -> Error {
    let tool = entry.tool.name.as_str();
    Error::new(
        ErrorCode::ResultTooLarge,
        format!(
            "result of tool `{tool}` on server `{}` is {size} bytes, over maxResultBytes ({} bytes)",
            entry.server, limits.max_result_bytes
        ),
    )
    .with("server", entry.server.as_str())
    .with("tool", tool)
    .with("setting", "maxResultBytes")
    .with("limit", limits.max_result_bytes as u64)
    .with("size", size as u64)
}

/// SERVER_UNAVAILABLE when exposed name `name` belonged to one of `servers` that is down now.
pub(super) fn withdrawn(servers: &[Arc<Server>], name: &str) -> Option<Error> {
    servers.iter().find_map(|s| {
        let slot = s.slot();
        (slot.exposed_tools().is_none() && slot.last_names.iter().any(|n| n == name))
            .then(|| s.unavailable(&slot).with("name", name))
    })
}
