//! One tool call on its server: the arguments checked against the tool's own schema, a session
//! acquired (starting a dormant server), its turn taken in the server's queue when it does not
//! support parallel calls, the call bounded by its timeout, and the answer held to
//! `maxResultBytes` (an error, or a cut result whose full text the results store keeps). A call of
//! one of the resource tools (`resourcesAsTools`) takes the same path to the server's resources.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{watch, Semaphore, SemaphorePermit};

use super::acquire::acquire;
use super::resource_tools;
use super::roster::Roster;
use super::server::Server;
use super::session::{CallLimits, Session};
use crate::config::ResultPolicy;
use crate::convert;
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::Reply;
use crate::limits;
use crate::mcp::{self, Progress, ProgressPolicy, ToolKind};
use crate::names::{ServerName, ToolName};
use crate::store::{Entry, ResultStore, Truncation};
use crate::telemetry::{CallSpan, Carried, TraceContext};

/// How the host wants one call run, beyond its arguments; every field defaults to the server's
/// config.
#[derive(Debug, Default)]
pub(crate) struct CallOptions {
    /// The call's timeout (`timeoutMs`), else `toolTimeoutSeconds`.
    pub timeout: Option<Duration>,
    /// Where the server's progress goes (latest wins), when the host wants it.
    pub progress: Option<watch::Sender<Progress>>,
    /// `resetTimeoutOnProgress`, else the config's.
    pub reset_timeout_on_progress: Option<bool>,
    /// `maxTotalTimeoutMs`, else the config's `maxTotalTimeoutSeconds`.
    pub max_total: Option<Duration>,
    /// The trace the call belongs to: its span's parent, passed on to the server.
    pub trace: TraceContext,
}

/// A successful tool call.
pub(crate) struct CallOutcome {
    pub result: Value,
    pub server: ServerName,
    pub tool: ToolName,
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

/// Calls `entry`'s tool on `server` with checked `arguments`; `timeout` overrides the server's
/// `toolTimeoutSeconds`. A cut result's full text goes to `results`.
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
        .enter(server.name.as_str(), server.spec.max_inflight)
        .map_err(|e| e.with("tool", entry.tool.name.as_str()))?;
    let (session, _in_flight) = acquire(roster, server).await?;
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
    let timeout = options.timeout.unwrap_or(session.limits.tool_timeout);
    // `supportsParallel: false`: the call waits for its turn within its own time. Dropping the
    // wait (a host cancel) or running out of time leaves the queue; the turn ends with the call.
    let (_turn, budget) = match &server.serial {
        None => (None, timeout),
        Some(queue) => {
            let deadline = tokio::time::Instant::now() + timeout;
            let turn = take_turn(queue, entry, timeout, deadline).await?;
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            (Some(turn), left)
        }
    };
    let span = CallSpan::start(
        &options.trace,
        "tools/call",
        &server.name,
        Some(tool),
        session.client.handshake().era.as_str(),
        server
            .spec
            .remote
            .as_ref()
            .map_or("stdio", |r| r.kind.as_str()),
    );
    let trace = span.outgoing();
    let started = Instant::now();
    let failed = |e: Error| {
        // A timeout names the call's whole time, queue included (a hard total names itself).
        let total = e.details.get("setting").and_then(Value::as_str) == Some("maxTotalTimeoutMs");
        let e = if e.code == ErrorCode::ToolTimeout
            && !total
            && (budget != timeout || entry.tool.kind != ToolKind::Server)
        {
            timed_out(entry, timeout)
        } else {
            e
        };
        e.with("tool", tool)
            .with_stderr_tail(&session.stderr.text())
    };
    let answer = ask(&session, entry, arguments, options, budget, trace.as_ref()).await;
    span.end(answer.as_ref().err().map(|e| e.code.as_str()));
    let answer = answer.map_err(failed)?;
    let duration = started.elapsed();
    let (result, truncated) = finish(results, server, &session, entry, answer)?;
    Ok(CallOutcome {
        result,
        server: entry.server.clone(),
        tool: entry.tool.name.clone(),
        duration,
        truncated,
    })
}

/// Asks the server: `tools/call` for a server's own tool (as a task when the tool requires it),
/// the server's resources for a resource tool; within `budget`.
async fn ask(
    session: &Session,
    entry: &Entry,
    arguments: Value,
    options: CallOptions,
    budget: Duration,
    trace: Option<&Carried>,
) -> Result<Answer> {
    let tool = entry.tool.name.as_str();
    if entry.tool.kind != ToolKind::Server {
        return resource_tools::call(session, entry.tool.kind, &arguments, budget)
            .await
            .map(|(value, bytes)| Answer::Built(value, bytes));
    }
    let client = &session.client;
    // A tool that requires task execution runs as one, under the same bounds. The tool list is
    // looked at only for a server that runs tasks at all (the plain call's cost stays one
    // capability lookup).
    let as_task = mcp::task_support::server_runs_tasks(client.handshake())
        && session
            .tools()
            .iter()
            .any(|t| t.name == tool && mcp::task_support::runs_as_task(client.handshake(), &t.raw));
    let reply = match policy(&session.limits, options, budget) {
        // Boxed: the task path's state (polls, waits, a cancel) would otherwise be part of every
        // request's future, so of every request in flight — a ping's too.
        Err(timeout) if as_task => {
            let bounds = ProgressPolicy::within(timeout);
            Box::pin(client.call_tool_as_task(tool, arguments, &bounds, false)).await
        }
        Ok(policy) if as_task => {
            Box::pin(client.call_tool_as_task(tool, arguments, &policy, true)).await
        }
        // The plain call: no progress token, one deadline.
        Err(timeout) => client.call_tool(tool, arguments, timeout, trace).await,
        Ok(policy) => client.call_tool_with(tool, arguments, &policy, trace).await,
    };
    reply.map(Answer::Reply)
}

/// The answer held to `maxResultBytes` (RESULT_TOO_LARGE, or cut with its full text kept in
/// `results`), masked; the result and how it was cut, if it was.
fn finish(
    results: &ResultStore,
    server: &Server,
    session: &Session,
    entry: &Entry,
    answer: Answer,
) -> Result<(Value, Option<Truncation>)> {
    let original_bytes = answer.bytes();
    let limits = session.limits;
    let over = original_bytes > limits.max_result_bytes;
    if over && limits.result_policy == ResultPolicy::Error {
        return Err(too_large(entry, limits, original_bytes));
    }
    let mut result = match answer {
        Answer::Reply(reply) => object_result(session, entry, reply)?,
        Answer::Built(value, _) => value,
    };
    // Before the budget: a kept full text (`results/read`) is masked too.
    server.mask_result(&mut result);
    if !over {
        return Ok((result, None));
    }
    let (result, truncation) = results.fit(&result, original_bytes, limits.max_result_bytes);
    let tool = entry.tool.name.as_str();
    tracing::debug!(server = %entry.server, tool, original_bytes, "result truncated to fit maxResultBytes");
    Ok((result, Some(truncation)))
}

/// What a call got: the server's reply to `tools/call`, or a resource tool's result built from
/// the server's answers (with their bytes).
enum Answer {
    Reply(Reply),
    Built(Value, usize),
}

impl Answer {
    /// Bytes of the server's answer(s): what `maxResultBytes` holds.
    fn bytes(&self) -> usize {
        match self {
            Self::Reply(reply) => reply.bytes,
            Self::Built(_, bytes) => *bytes,
        }
    }
}

/// The progress policy of a call given `budget` (its timeout, less any wait for its turn), or
/// (`Err`) just that budget when neither progress nor a total bound is wanted. Resetting on
/// progress always has a total bound (a default, at least the call's timeout).
fn policy(
    limits: &CallLimits,
    options: CallOptions,
    budget: Duration,
) -> Result<ProgressPolicy, Duration> {
    let reset = options
        .reset_timeout_on_progress
        .unwrap_or(limits.reset_on_progress);
    let max_total = options
        .max_total
        .or(limits.max_total)
        .or_else(|| reset.then(|| limits::DEFAULT_MAX_TOTAL_TOOL_TIMEOUT.max(budget)));
    if options.progress.is_none() && max_total.is_none() {
        return Err(budget);
    }
    Ok(ProgressPolicy {
        timeout: budget,
        reset,
        max_total,
        sink: options.progress,
    })
}

/// Waits for the call's turn in a server's fair queue (`supportsParallel: false`) until
/// `deadline`; TOOL_TIMEOUT when the turn does not come in time.
async fn take_turn<'a>(
    queue: &'a Semaphore,
    entry: &Entry,
    timeout: Duration,
    deadline: tokio::time::Instant,
) -> Result<SemaphorePermit<'a>> {
    match tokio::time::timeout_at(deadline, queue.acquire()).await {
        Ok(Ok(turn)) => Ok(turn),
        // The queue is never closed; a closed one cannot serve either.
        Ok(Err(_)) | Err(_) => Err(timed_out(entry, timeout).with(
            "queued",
            "the call waited for its turn: the server takes one call at a time (supportsParallel: false)",
        )),
    }
}

/// TOOL_TIMEOUT of a call given `timeout` in all.
fn timed_out(entry: &Entry, timeout: Duration) -> Error {
    let tool = entry.tool.name.as_str();
    Error::new(
        ErrorCode::ToolTimeout,
        format!(
            "tool `{tool}` on server `{}` did not answer within {} ms",
            entry.server,
            timeout.as_millis()
        ),
    )
    .with("server", entry.server.as_str())
    .with("tool", tool)
    .with("setting", "timeoutMs")
    .with("limit", timeout.as_millis() as u64)
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
