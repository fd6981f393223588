//! What the client a request comes from is held to before its request runs, and what is written
//! about it after: its rate limit (an empty bucket: 429 with `Retry-After` and a JSON-RPC error
//! `OVERLOADED` naming the client and when to retry), the tools it may not call (refused as if
//! they did not exist, and audited `denied`), and its audit line (`access::Audit`) with the
//! request's outcome and duration.

use std::time::{Duration, Instant};

use hyper::header::{HeaderValue, RETRY_AFTER};
use hyper::{Response, StatusCode};
use serde_json::{json, Value};

use super::body::{json, Out};
use crate::aggregate::access::{Audit, AuditLine, Caller, Outcome};
use crate::aggregate::requests::answer::Answer;
use crate::aggregate::requests::tools::{self, ERROR_META};
use crate::aggregate::requests::wire::WireError;
use crate::aggregate::shared::Aggregate;
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::{encode_response, RequestId};

/// What the audit line of one request needs, taken before the request runs.
pub(super) struct Audited {
    pub client: std::sync::Arc<str>,
    pub session: Option<String>,
    pub method: String,
    pub server: Option<String>,
    pub tool: Option<String>,
    pub arguments: Option<Value>,
    pub started: Instant,
}

impl Audited {
    pub(super) fn new(
        aggregate: &Aggregate,
        caller: &Caller,
        session: Option<String>,
        method: &str,
        params: Option<&Value>,
    ) -> Audited {
        let (mut tool, mut server, mut arguments) = (None, None, None);
        if matches!(method, "tools/call" | "prompts/get") {
            let name = params
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            if method == "tools/call" {
                server = name.as_deref().and_then(|n| tools::server_of(aggregate, n));
            }
            tool = name;
            arguments = params.and_then(|p| p.get("arguments")).cloned();
        }
        Audited {
            client: std::sync::Arc::clone(&caller.name),
            session,
            method: method.to_owned(),
            server,
            tool,
            arguments,
            started: Instant::now(),
        }
    }

    /// Writes the line for `outcome` (`None`: cancelled by the client).
    pub(super) fn finish(&self, audit: &Audit, outcome: Option<&Result<Answer, WireError>>) {
        let (outcome, code) = match outcome {
            Some(Ok(answer)) if answer.is_error_result() => {
                let code = answer
                    .value()
                    .and_then(|r| {
                        r.pointer(&format!("/_meta/{}/code", ERROR_META.replace('/', "~1")))
                    })
                    .cloned();
                (Outcome::Error, code)
            }
            Some(Ok(_)) => (Outcome::Ok, None),
            Some(Err(e)) => (Outcome::Error, Some(json!(e.code))),
            None => (Outcome::Error, Some(json!(ErrorCode::Cancelled.as_str()))),
        };
        self.write(audit, outcome, code);
    }

    pub(super) fn write(&self, audit: &Audit, outcome: Outcome, code: Option<Value>) {
        audit.write(&AuditLine {
            client: &self.client,
            session: self.session.as_deref(),
            method: &self.method,
            server: self.server.as_deref(),
            tool: self.tool.as_deref(),
            outcome,
            code,
            duration: self.started.elapsed(),
            arguments: self.arguments.as_ref(),
        });
    }
}

/// The answer to a client over its rate limit: 429, `Retry-After` in whole seconds (rounded up),
/// and a JSON-RPC error for the request.
pub(super) fn too_many(id: &RequestId, caller: &Caller, wait: Duration) -> Response<Out> {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let per_minute = caller.bucket.as_ref().map(|b| b.limit().per_minute);
    let e = Error::new(
        ErrorCode::Overloaded,
        format!(
            "client `{}` is over its rate limit (rateLimit.perMinute {}); retry in {seconds} s",
            caller.name,
            per_minute.unwrap_or_default()
        ),
    )
    .with("client", &*caller.name)
    .with("limit", "rateLimit")
    .with("retryAfterSeconds", seconds);
    let line = encode_response::<Value>(Some(id), Err(&e.to_rpc_error()));
    let mut response = json(StatusCode::TOO_MANY_REQUESTS, line);
    if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(RETRY_AFTER, value);
    }
    response
}

/// The refusal of a `tools/call` the client may not make (`None` when it may, or it is no call).
pub(super) async fn refused_call(
    aggregate: &Aggregate,
    caller: &Caller,
    method: &str,
    params: Option<&Value>,
) -> Option<WireError> {
    if method != "tools/call" || caller.rules.allows_everything() {
        return None;
    }
    let name = params?.get("name")?.as_str()?;
    // The catalog is complete once every server's first start is over.
    aggregate.registered().await;
    tools::refused(aggregate, &caller.rules, name)
}
