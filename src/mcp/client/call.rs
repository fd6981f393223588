//! `tools/call` on a [`Client`]: the params written straight from the checked arguments, the
//! call's timeout, and — when the host wants progress or `resetTimeoutOnProgress` — a
//! `progressToken`, the server's progress forwarded and the timeout restarted on each, up to a
//! hard total (see [`crate::mcp::progress`]). A plain call carries no `_meta` and waits as before.
//! A call within a trace carries its W3C context in `_meta.traceparent` (and `tracestate`), as
//! MCP names them; over HTTP the transport repeats it in the `traceparent` header.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::kind::{Ended, RequestKind, Wait};
use super::session::Client;
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::Reply;
use crate::mcp::progress::{Bound, ProgressPolicy};
use crate::telemetry::Carried;

impl Client {
    /// Calls a tool. The raw reply is returned so the caller can apply its size limit to the bytes
    /// the server actually sent.
    pub async fn call_tool(
        &self,
        tool: &str,
        arguments: Value,
        timeout: Duration,
        trace: Option<&Carried>,
    ) -> Result<Reply> {
        let params = CallParams {
            meta: trace.map(|t| Meta::traced(None, t)),
            arguments: &arguments,
            name: tool,
        };
        let deadline = tokio::time::Instant::now() + timeout;
        self.send_and_wait(RequestKind::CallTool, &params, Wait::Until(deadline))
            .await
            .map_err(|ended| self.call_error(tool, ended, timeout, None))
    }

    /// Calls a tool with a `progressToken`, under `policy` (progress forwarded, timeout restarted
    /// on progress when it says so, never past its total).
    pub async fn call_tool_with(
        &self,
        tool: &str,
        arguments: Value,
        policy: &ProgressPolicy,
        trace: Option<&Carried>,
    ) -> Result<Reply> {
        let watching = self.progress.watch();
        let params = CallParams {
            meta: Some(match trace {
                Some(t) => Meta::traced(Some(watching.token), t),
                None => Meta {
                    progress_token: Some(watching.token),
                    ..Meta::default()
                },
            }),
            arguments: &arguments,
            name: tool,
        };
        let wait = Wait::Progress {
            watching,
            started: tokio::time::Instant::now(),
            policy,
        };
        self.send_and_wait(RequestKind::CallTool, &params, wait)
            .await
            .map_err(|ended| self.call_error(tool, ended, policy.timeout, policy.max_total))
    }

    /// A call's failure; a timeout names the bound that ran out (`timeoutMs`, with progress
    /// restarting it, or `maxTotalTimeoutMs`) and its value.
    pub(super) fn call_error(
        &self,
        tool: &str,
        ended: Ended,
        timeout: Duration,
        max_total: Option<Duration>,
    ) -> Error {
        let (setting, limit, what) = match ended {
            Ended::Failed(e) => return e,
            Ended::TimedOut(Bound::Timeout) => ("timeoutMs", timeout, "did not answer within"),
            Ended::TimedOut(Bound::Total) => (
                "maxTotalTimeoutMs",
                max_total.unwrap_or(timeout),
                "did not finish within its total of",
            ),
        };
        Error::new(
            ErrorCode::ToolTimeout,
            format!(
                "tool `{tool}` on server `{}` {what} {}",
                self.server,
                fmt_duration(limit)
            ),
        )
        .with("server", &*self.server)
        .with("tool", tool)
        .with("setting", setting)
        .with("limit", limit.as_millis() as u64)
    }
}

/// `tools/call` params, serialised straight from the checked arguments (no intermediate object).
/// Members in sorted order, as a `serde_json` object would write them.
#[derive(Serialize)]
struct CallParams<'a> {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Meta<'a>>,
    arguments: &'a Value,
    name: &'a str,
}

#[derive(Serialize, Default)]
struct Meta<'a> {
    #[serde(rename = "progressToken", skip_serializing_if = "Option::is_none")]
    progress_token: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    traceparent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tracestate: Option<&'a str>,
}

impl<'a> Meta<'a> {
    fn traced(progress_token: Option<i64>, trace: &'a Carried) -> Self {
        Self {
            progress_token,
            traceparent: Some(&trace.traceparent),
            tracestate: trace.tracestate.as_deref(),
        }
    }
}

fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plain_call_carries_no_meta_and_one_with_progress_its_token() {
        let args = json!({"a": 1});
        let plain = CallParams {
            meta: None,
            arguments: &args,
            name: "t",
        };
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"arguments":{"a":1},"name":"t"}"#
        );
        let with = CallParams {
            meta: Some(Meta {
                progress_token: Some(7),
                ..Meta::default()
            }),
            arguments: &args,
            name: "t",
        };
        assert_eq!(
            serde_json::to_string(&with).unwrap(),
            r#"{"_meta":{"progressToken":7},"arguments":{"a":1},"name":"t"}"#
        );
    }
}
