//! `tools/list` and `tools/call` of the aggregate. A call goes through the registry like a host's:
//! arguments checked against the tool's own schema, the server started if dormant, the server's
//! timeout and `maxInflight`, the result held to `maxResultBytes` and its secrets masked.
//!
//! Errors, per kind (`docs/mcp-mode.md`): a tool that does not exist is a protocol error
//! (-32602, as MCP servers answer an unknown tool); a server's own JSON-RPC error is passed on with
//! its code; every failure of *running* the tool — invalid arguments, timeout, the server down or
//! overloaded, a result too large, a server that broke the protocol — is a tool result with
//! `isError: true` and the message as its text, so the model sees it and can react, the way MCP
//! asks tool execution errors to be reported. Its stable code rides in
//! `_meta["mcp-sidecar/error"]`.
//!
//! While a call runs, its server's questions (sampling, elicitation, roots) are this client's to
//! answer (`answering`, `asks`, `input`); its server's progress reaches the client when the call
//! carries a `progressToken` (`progress`), and — a 2026-07-28 call that names a log level — its
//! server's log messages at or above that level (`logs`), both on the call's stream.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::sync::watch;

use super::answering::{self, answering, Relay, Step};
use super::input::Running;
use super::listing::Shape;
use super::progress;
use super::request::Request;
use super::wire::WireError;
use crate::aggregate::access::Rules;
use crate::aggregate::session::era::Era;
use crate::aggregate::shared::Aggregate;
use crate::error::{Error, ErrorCode};
use crate::names::ServerName;
use crate::supervisor::{CallOptions, CallOutcome, LogLevel};

/// The `_meta` key of an error result's details (code, server, tool, limit…).
pub(crate) const ERROR_META: &str = "mcp-sidecar/error";
/// The `_meta` key of a truncated result's details (original size, handle…).
pub(crate) const TRUNCATED_META: &str = "mcp-sidecar/truncated";

/// `tools/list`: every tool `rules` allow, in one page or in pages of `--page-size` (`pages`)
/// (with `--wait-for-servers`, once every configured server started or failed), as JSON text in
/// `shape`, cut from the listing kept for this tool set and rule set (`listing`).
pub(crate) async fn list(
    aggregate: &Aggregate,
    rules: Option<&Rules>,
    shape: Shape,
    params: Option<&Value>,
) -> Result<Arc<str>, WireError> {
    let cursor = match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => None,
        Some(Value::String(cursor)) => Some(cursor.as_str()),
        Some(other) => {
            return Err(WireError::invalid_params(format!(
                "`cursor` must be a string, not {other}"
            ))
            .with_data(json!({"field": "cursor"})))
        }
    };
    aggregate.before_listing().await;
    aggregate.listing(rules).answer(
        cursor,
        aggregate.page_size(),
        shape,
        aggregate.server_info(),
    )
}

/// The refusal of a call of `tool` that `rules` do not allow: the same error as a tool that does
/// not exist (-32602, `TOOL_NOT_FOUND`), so a client cannot learn what it may not call. A tool
/// not in the catalog yet (its server still starting) is refused to a client with rules, whose
/// server and name cannot be told yet.
pub(crate) fn refused(aggregate: &Aggregate, rules: &Rules, tool: &str) -> Option<WireError> {
    if rules.allows_everything() {
        return None;
    }
    let catalog = aggregate.registry().catalog();
    let allowed = catalog
        .get(tool)
        .is_some_and(|e| rules.tool(&e.server, &e.tool.name));
    (!allowed).then(|| {
        Error::new(ErrorCode::ToolNotFound, format!("no tool named `{tool}`"))
            .with("name", tool)
            .into()
    })
}

/// The server of exposed tool `tool`, as the catalog knows it.
pub(crate) fn server_of(aggregate: &Aggregate, tool: &str) -> Option<String> {
    aggregate
        .registry()
        .catalog()
        .get(tool)
        .map(|e| e.server.to_string())
}

/// What `tools/call` reads (MCP allows more; the rest is ignored, `task` included: tasks are not
/// offered, so a call runs in place). `requestState` and `inputResponses` continue a call that
/// asked its 2026-07-28 client a question (`input`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    request_state: Option<String>,
    #[serde(default)]
    input_responses: Option<Map<String, Value>>,
}

/// `tools/call`: the server's result (masked, held to its budget), or the failure as above; the
/// server's questions meanwhile are asked of this client, its progress and (2026-07-28) logs
/// passed on (`answering`).
pub(crate) async fn call(r: &Request<'_>, params: Option<Value>) -> Result<Value, WireError> {
    let token = progress::token_of(params.as_ref());
    let p: CallParams = serde_json::from_value(params.unwrap_or_default())
        .map_err(|e| WireError::invalid_params(format!("invalid tools/call params: {e}")))?;
    let log_level = match r.era {
        Era::Modern(modern) => modern.log_level.as_deref().and_then(LogLevel::parse),
        Era::Legacy => None,
    };
    // Subscribed before the call starts, so that none of its server's logs is missed.
    let logs = match log_level {
        Some(level) => {
            r.aggregate.want_logs(level).await;
            Some((r.aggregate.subscribe_logs(), level))
        }
        None => None,
    };
    r.aggregate.registered().await;
    if let Some(refused) = r
        .rules
        .and_then(|rules| refused(r.aggregate, rules, &p.name))
    {
        return Err(refused);
    }
    let running = match (&p.request_state, r.era) {
        (Some(state), Era::Modern(_)) => {
            r.aggregate
                .parked()
                .resume(state, &request_of(&p.name), p.input_responses.as_ref())?
        }
        _ => start(r, p.name, p.arguments, token.is_some()),
    };
    let relay = Relay { token, logs };
    match answering(r, running, relay).await? {
        Step::Done(Ok(result)) => Ok(result),
        Step::Done(Err(e)) if runs_into_result(e.code) => Ok(error_result(&e)),
        Step::Done(Err(e)) => Err(e.into()),
        Step::InputRequired(result) => Ok(result),
    }
}

/// Starts the call (`answering::start`), registered for its server's questions, its progress
/// watched when the client wants it (`resetTimeoutOnProgress` and the total bound are the server's
/// config).
fn start(r: &Request<'_>, tool: String, arguments: Option<Value>, with_progress: bool) -> Running {
    let registry = Arc::clone(r.aggregate.registry());
    // A tool of a server still on its first start is not listed yet: the call waits for that
    // server (the registry sees to it), and its questions come from the server that may name it.
    let server = match registry.catalog().get(&tool) {
        Some(entry) => Some(entry.server.to_string()),
        None => registry.list().into_iter().map(|s| s.name).find(|s| {
            let server = ServerName::from(s.as_str());
            registry.settings().names.may_name(&server, &tool)
        }),
    };
    let mut options = CallOptions {
        trace: r.trace.clone(),
        ..CallOptions::default()
    };
    let progress = with_progress.then(|| {
        let (sink, watched) = watch::channel(None);
        options.progress = Some(sink);
        watched
    });
    let name = tool.clone();
    // The progress sink moves into the call and drops with it: the watch then ends.
    let call = async move {
        registry
            .call_tool_with(&name, arguments, options)
            .await
            .map(result_of)
    };
    answering::start(r, request_of(&tool), server, true, progress, call)
}

/// What a call is for, as its parked state names it.
fn request_of(tool: &str) -> String {
    format!("tool `{tool}`")
}

/// Whether a failure is the tool's (reported to the model as `isError`), not the request's.
fn runs_into_result(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::InvalidArguments
            | ErrorCode::ToolTimeout
            | ErrorCode::ServerUnavailable
            | ErrorCode::Overloaded
            | ErrorCode::ResultTooLarge
            | ErrorCode::ProtocolError
            | ErrorCode::HttpError
            | ErrorCode::NetworkError
            | ErrorCode::VersionUnsupported
            | ErrorCode::TrustRequired
    )
}

fn result_of(outcome: CallOutcome) -> Value {
    let mut result = outcome.result;
    if let (Some(truncated), Value::Object(map)) = (&outcome.truncated, &mut result) {
        crate::era::meta_of(map).insert(TRUNCATED_META.into(), truncated.to_json());
    }
    result
}

/// A failure as a tool result: its message as the text, its code and details in `_meta`.
pub(crate) fn error_result(e: &Error) -> Value {
    let mut map = Map::new();
    map.insert(
        "content".into(),
        json!([{"type": "text", "text": e.message}]),
    );
    map.insert("isError".into(), Value::Bool(true));
    let details = e.to_rpc_error()["data"].take();
    crate::era::meta_of(&mut map).insert(ERROR_META.into(), details);
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_of_the_tool_is_a_result_the_model_sees() {
        let e = Error::new(
            ErrorCode::ToolTimeout,
            "tool `sleep` on server `fx` did not answer within 1 s",
        )
        .with("server", "fx");
        assert!(runs_into_result(e.code));
        assert_eq!(
            error_result(&e).to_string(),
            r#"{"_meta":{"mcp-sidecar/error":{"code":"TOOL_TIMEOUT","server":"fx"}},"content":[{"text":"tool `sleep` on server `fx` did not answer within 1 s","type":"text"}],"isError":true}"#
        );
        for request_errors in [
            ErrorCode::ToolNotFound,
            ErrorCode::UpstreamError,
            ErrorCode::ShuttingDown,
            ErrorCode::InvalidParams,
        ] {
            assert!(!runs_into_result(request_errors), "{request_errors}");
        }
    }
}
