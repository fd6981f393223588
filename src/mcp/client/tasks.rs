//! Tools that must run as a task (MCP 2025-11-25 Tasks), made to look like a plain `tools/call`.
//!
//! A tool whose definition says `execution.taskSupport: "required"`, on a server that declared
//! `tasks.requests.tools.call`, is called with a `task` param; the server answers a
//! `CreateTaskResult` at once, the client polls `tasks/get` (every `pollInterval`, clamped to
//! [`limits::TASK_POLL_INTERVAL_MIN`]..[`limits::TASK_POLL_INTERVAL_MAX`], sooner when a
//! `notifications/tasks/status` for the task arrives) and, once the task is terminal or needs
//! input (`input_required`), asks `tasks/result`, whose answer is the call's answer. The server's
//! own requests of a task that needs input (elicitation, sampling) arrive while `tasks/result`
//! waits and are answered like any other (`crate::mcp::server_requests`). `"optional"` and
//! `"forbidden"` tools, and servers without the capability, are called plainly.
//!
//! The whole exchange runs under the call's own bounds (timeout, progress restarting it, hard
//! total; `crate::mcp::progress`): the `progressToken` of the `tools/call` stays valid for the task's
//! life, so its progress reaches the host as a plain call's does. When the call ends before the
//! task (timeout, the host's cancel, a broken answer), the task is cancelled with `tasks/cancel`.
//! A task the server ends as `cancelled`, or whose `tasks/result` is an error, is UPSTREAM_ERROR
//! naming the server, the tool, the task and its status; a task that `failed` with a tool result
//! (`isError`) gives that result, as the plain call would have.
//!
//! Whether a call runs as a task, the client's `tasks` capability and the routing of status
//! notifications are in [`crate::mcp::task_support`].

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::time::Instant;

use super::kind::{Ended, RequestKind, Wait};
use super::session::Client;
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::{encode_request, Reply, RequestId};
use crate::limits;
use crate::mcp::progress::ProgressPolicy;

/// The `_meta` key that ties a message to its task; `tasks/result` carries it, the host does not
/// need it (the task is the sidecar's business).
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

impl ProgressPolicy {
    /// The bounds of a call that wants neither progress nor a total: `timeout` from the start.
    pub fn within(timeout: Duration) -> Self {
        Self {
            timeout,
            reset: false,
            max_total: None,
            sink: None,
        }
    }
}

/// Where a task stands, as `tasks/get` (or the `CreateTaskResult`) said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// The part of a `Task` the client acts on.
#[derive(Debug)]
struct Task {
    id: String,
    status: Status,
    message: Option<String>,
    poll: Duration,
}

impl Task {
    /// A `Task` object; `Err` says what is wrong with it.
    fn parse(value: &Value) -> std::result::Result<Task, String> {
        let id = match value.get("taskId") {
            Some(Value::String(id)) if !id.is_empty() && id.len() <= limits::TASK_ID_MAX_BYTES => {
                id.clone()
            }
            Some(Value::String(_)) => {
                return Err(format!(
                    "a task id is empty or over {} bytes",
                    limits::TASK_ID_MAX_BYTES
                ))
            }
            _ => return Err("a task has no string `taskId`".into()),
        };
        let status = match value.get("status").and_then(Value::as_str) {
            Some("working") => Status::Working,
            Some("input_required") => Status::InputRequired,
            Some("completed") => Status::Completed,
            Some("failed") => Status::Failed,
            Some("cancelled") => Status::Cancelled,
            other => return Err(format!("task `{id}` has an unknown status {other:?}")),
        };
        let message = value
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(|m| cut(m, limits::TASK_STATUS_MESSAGE_MAX_BYTES).to_owned());
        let poll = value
            .get("pollInterval")
            .and_then(Value::as_u64)
            .map_or(limits::TASK_POLL_INTERVAL_DEFAULT, Duration::from_millis)
            .clamp(
                limits::TASK_POLL_INTERVAL_MIN,
                limits::TASK_POLL_INTERVAL_MAX,
            );
        Ok(Task {
            id,
            status,
            message,
            poll,
        })
    }
}

/// `tools/call` params of a task: the plain call's, plus `task`.
#[derive(Serialize)]
struct TaskCallParams<'a> {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<ProgressMeta>,
    arguments: &'a Value,
    name: &'a str,
    task: TaskParams,
}

#[derive(Serialize)]
struct ProgressMeta {
    #[serde(rename = "progressToken")]
    progress_token: i64,
}

/// `task: {}`: the server keeps the task as long as it sees fit (the call's bounds are the
/// sidecar's, and it cancels the task when they run out).
#[derive(Serialize)]
struct TaskParams {}

/// `{taskId}`: the params of `tasks/get`, `tasks/result` and `tasks/cancel`.
#[derive(Serialize)]
struct TaskRef<'a> {
    #[serde(rename = "taskId")]
    task_id: &'a str,
}

impl Client {
    /// Calls `tool` as a task under `bounds` (a `progressToken` sent when `with_token`), and
    /// returns the reply of its `tasks/result` as the call's reply (or the server's own reply to
    /// `tools/call` when it answered without a task).
    pub async fn call_tool_as_task(
        &self,
        tool: &str,
        arguments: Value,
        bounds: &ProgressPolicy,
        with_token: bool,
    ) -> Result<Reply> {
        let mut watching = self.progress.watch();
        let params = TaskCallParams {
            meta: with_token.then_some(ProgressMeta {
                progress_token: watching.token,
            }),
            arguments: &arguments,
            name: tool,
            task: TaskParams {},
        };
        let cancel = CancelUnfinished {
            client: self,
            task: Mutex::new(None),
        };
        let run = self.run_task(tool, &params, &cancel, bounds);
        match watching.wait(run, Instant::now(), bounds).await {
            Ok(answer) => answer,
            Err(bound) => Err(self.call_error(
                tool,
                Ended::TimedOut(bound),
                bounds.timeout,
                bounds.max_total,
            )),
        }
        // `cancel` drops here: a task still unfinished is cancelled.
    }

    /// Creates the task, polls it until it is terminal or needs input, and fetches its result.
    async fn run_task(
        &self,
        tool: &str,
        params: &TaskCallParams<'_>,
        cancel: &CancelUnfinished<'_>,
        bounds: &ProgressPolicy,
    ) -> Result<Reply> {
        // The call's own bounds end the wait; these only keep each request finite, and run out
        // later than the call's (never first, even within one timer tick), so a timeout is always
        // reported as the call's.
        let longest = bounds.max_total.unwrap_or(bounds.timeout) + limits::TASK_GET_TIMEOUT;
        let reply = self
            .request_until(RequestKind::CallTool, params, Instant::now() + longest)
            .await?;
        let created = match &reply.outcome {
            Ok(result) => match result.get("task") {
                Some(task) => task,
                // A server may run the call directly after all: its answer is the call's.
                None => return Ok(reply),
            },
            Err(_) => return Ok(reply),
        };
        let mut task = Task::parse(created).map_err(|why| self.bad_task(tool, &why))?;
        cancel.set(&task.id);
        let waking = self.tasks.watch(&task.id);
        for _ in 0..limits::TASK_MAX_POLLS {
            match task.status {
                Status::Working => {
                    tokio::select! {
                        () = tokio::time::sleep(task.poll) => {}
                        () = waking.notify.notified() => {}
                    }
                    let reply = self.get_task(tool, &task.id).await?;
                    let value = self
                        .outcome(reply)
                        .map_err(|e| e.with("tool", tool).with("taskId", task.id.as_str()))?;
                    let polled = Task::parse(&value).map_err(|why| self.bad_task(tool, &why))?;
                    if polled.id != task.id {
                        let why = format!(
                            "tasks/get for task `{}` answered task `{}`",
                            task.id, polled.id
                        );
                        return Err(self.bad_task(tool, &why));
                    }
                    task = polled;
                }
                Status::InputRequired | Status::Completed | Status::Failed => {
                    // Answered once the task is terminal; a task that needs input asks its
                    // questions meanwhile (answered by the session like any request).
                    let asked = TaskRef { task_id: &task.id };
                    let reply = self
                        .request_until(RequestKind::TaskResult, &asked, Instant::now() + longest)
                        .await?;
                    cancel.finished();
                    return self.final_reply(tool, &task, reply);
                }
                Status::Cancelled => {
                    cancel.finished();
                    return Err(self.task_ended(tool, &task, None));
                }
            }
        }
        Err(self.bad_task(
            tool,
            &format!(
                "task `{}` was still running after {} polls",
                task.id,
                limits::TASK_MAX_POLLS
            ),
        ))
    }

    /// `tasks/get`, answered within [`limits::TASK_GET_TIMEOUT`] (a status is not work).
    async fn get_task(&self, tool: &str, task_id: &str) -> Result<Reply> {
        let asked = TaskRef { task_id };
        let deadline = Instant::now() + limits::TASK_GET_TIMEOUT;
        let wait = Wait::Until(deadline);
        self.send_and_wait(RequestKind::GetTask, &asked, wait)
            .await
            .map_err(|ended| match ended {
                Ended::Failed(e) => e,
                Ended::TimedOut(_) => Error::new(
                    ErrorCode::ToolTimeout,
                    format!(
                        "tool `{tool}` on server `{}`: the server did not answer `tasks/get` for \
                         task `{task_id}` within {} s",
                        self.server,
                        limits::TASK_GET_TIMEOUT.as_secs()
                    ),
                )
                .with("server", &*self.server)
                .with("tool", tool)
                .with("taskId", task_id),
            })
    }

    /// The reply of `tasks/result` as the call's: its result without the related-task `_meta`,
    /// or its error as the task's.
    fn final_reply(&self, tool: &str, task: &Task, mut reply: Reply) -> Result<Reply> {
        match &mut reply.outcome {
            Ok(Value::Object(result)) => {
                if let Some(Value::Object(meta)) = result.get_mut("_meta") {
                    meta.remove(RELATED_TASK);
                    if meta.is_empty() {
                        result.remove("_meta");
                    }
                }
                Ok(reply)
            }
            // Not an object: the caller reports it like a plain call's.
            Ok(_) => Ok(reply),
            Err(e) => {
                let (code, message, data) = (e.code, e.message.clone(), e.data.take());
                let upstream = format!("server answered tasks/result with error {code}: {message}");
                Err(self
                    .task_ended(tool, task, Some(&upstream))
                    .with("upstreamCode", code)
                    .with("upstreamData", data.unwrap_or(Value::Null)))
            }
        }
    }

    /// UPSTREAM_ERROR of a task that ended without a result: cancelled by the server, or whose
    /// `tasks/result` was an error (`detail`).
    fn task_ended(&self, tool: &str, task: &Task, detail: Option<&str>) -> Error {
        let status = match (task.status, detail) {
            // `tasks/result` is only answered for a terminal task; one that needed input ended
            // without saying how.
            (Status::InputRequired, Some(_)) => "ended",
            (status, _) => status.as_str(),
        };
        let mut message = format!(
            "tool `{tool}` on server `{}` did not finish: its task `{}` {status}",
            self.server, task.id
        );
        if task.status == Status::Cancelled {
            message = format!(
                "tool `{tool}` on server `{}` did not finish: the server cancelled its task `{}`",
                self.server, task.id
            );
        }
        if let Some(text) = &task.message {
            message.push_str(&format!(" ({text})"));
        }
        if let Some(detail) = detail {
            message.push_str(&format!("; {detail}"));
        }
        Error::new(ErrorCode::UpstreamError, message)
            .with("server", &*self.server)
            .with("tool", tool)
            .with("taskId", task.id.as_str())
            .with("taskStatus", task.status.as_str())
    }

    /// PROTOCOL_ERROR of a task exchange the server broke.
    fn bad_task(&self, tool: &str, why: &str) -> Error {
        self.protocol_error(&format!("tool `{tool}` run as a task: {why}"))
            .with("tool", tool)
    }
}

/// Cancels the task of a call that ends before it (timeout, the host's cancel, an error): on drop,
/// a task still unfinished gets `tasks/cancel`, whose answer nobody waits for (it is only read,
/// for at most [`limits::TASK_CANCEL_WAIT`], so that it is not an unknown response).
struct CancelUnfinished<'a> {
    client: &'a Client,
    task: Mutex<Option<String>>,
}

impl CancelUnfinished<'_> {
    fn set(&self, id: &str) {
        *self.task.lock().unwrap_or_else(|p| p.into_inner()) = Some(id.to_owned());
    }

    /// The task is terminal: nothing to cancel.
    fn finished(&self) {
        *self.task.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

impl Drop for CancelUnfinished<'_> {
    fn drop(&mut self) {
        let task = self
            .task
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let Some(task) = task else { return };
        let (pending, sink) = (
            Arc::clone(&self.client.pending),
            Arc::clone(&self.client.sink),
        );
        let server = Arc::clone(&self.client.server);
        // Drop cannot await; the cancel is best-effort by nature (the server may be gone).
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return;
        };
        handle.spawn(async move {
            let Ok((id, answer)) = pending.register() else {
                return;
            };
            let params = TaskRef { task_id: &task };
            let line = encode_request(
                &RequestId::Number(id),
                RequestKind::CancelTask.method(),
                Some(&params),
            );
            if sink.send(line).await.is_ok() {
                let answered = tokio::time::timeout(limits::TASK_CANCEL_WAIT, answer).await;
                tracing::debug!(
                    server = &*server,
                    task,
                    answered = answered.is_ok(),
                    "task cancelled"
                );
            }
            pending.forget(id);
        });
    }
}

/// The start of `text`, at most `max` bytes, cut on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_is_read_with_its_poll_interval_clamped() {
        let task =
            Task::parse(&json!({"taskId": "a", "status": "working", "pollInterval": 0})).unwrap();
        assert_eq!(task.poll, limits::TASK_POLL_INTERVAL_MIN);
        let task = Task::parse(&json!({"taskId": "a", "status": "input_required"})).unwrap();
        assert_eq!(
            (task.status, task.poll),
            (Status::InputRequired, limits::TASK_POLL_INTERVAL_DEFAULT)
        );
        let task =
            Task::parse(&json!({"taskId": "a", "status": "failed", "pollInterval": 86_400_000}))
                .unwrap();
        assert_eq!(task.poll, limits::TASK_POLL_INTERVAL_MAX);
        for bad in [
            json!({"status": "working"}),
            json!({"taskId": 7, "status": "working"}),
            json!({"taskId": "a", "status": "sleeping"}),
            json!({"taskId": "x".repeat(limits::TASK_ID_MAX_BYTES + 1), "status": "working"}),
        ] {
            assert!(Task::parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_task_param_is_sent_with_the_plain_call_params() {
        let args = json!({"a": 1});
        let params = TaskCallParams {
            meta: Some(ProgressMeta { progress_token: 3 }),
            arguments: &args,
            name: "t",
            task: TaskParams {},
        };
        assert_eq!(
            serde_json::to_value(&params).unwrap(),
            json!({"_meta": {"progressToken": 3}, "arguments": {"a": 1}, "name": "t", "task": {}})
        );
    }
}
