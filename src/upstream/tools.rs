//! `tools/list` and `tools/call` of the aggregate. A call goes through the registry like a host's:
//! arguments checked against the tool's own schema, the server started if dormant, the server's
//! timeout and `maxInflight`, the result held to `maxResultBytes` and its secrets masked.
//!
//! Errors, per kind (README "mcp-sidecar mcp"): a tool that does not exist is a protocol error
//! (-32602, as MCP servers answer an unknown tool); a server's own JSON-RPC error is passed on with
//! its code; every failure of *running* the tool — invalid arguments, timeout, the server down or
//! overloaded, a result too large, a server that broke the protocol — is a tool result with
//! `isError: true` and the message as its text, so the model sees it and can react, the way MCP
//! asks tool execution errors to be reported. Its stable code rides in
//! `_meta["mcp-sidecar/error"]`.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::aggregate::Aggregate;
use super::wire::WireError;
use crate::error::{Error, ErrorCode};
use crate::supervisor::CallOutcome;

/// The `_meta` key of an error result's details (code, server, tool, limit…).
pub const ERROR_META: &str = "mcp-sidecar/error";
/// The `_meta` key of a truncated result's details (original size, handle…).
pub const TRUNCATED_META: &str = "mcp-sidecar/truncated";

/// `tools/list`: every tool, in one page (the first list waits for the config's servers).
pub async fn list(aggregate: &Aggregate, params: Option<&Value>) -> Result<Value, WireError> {
    if let Some(cursor) = params
        .and_then(|p| p.get("cursor"))
        .filter(|c| !c.is_null())
    {
        return Err(WireError::invalid_params(format!(
            "unknown cursor {cursor}: the tool list is one page"
        )));
    }
    aggregate.settled().await;
    Ok(json!({ "tools": *aggregate.tools() }))
}

/// What `tools/call` reads (MCP allows more; the rest is ignored, `task` included: tasks are not
/// offered, so a call runs in place).
#[derive(Deserialize)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
}

/// `tools/call`: the server's result (masked, held to its budget), or the failure as above.
pub async fn call(aggregate: &Aggregate, params: Option<Value>) -> Result<Value, WireError> {
    let p: CallParams = serde_json::from_value(params.unwrap_or_default())
        .map_err(|e| WireError::invalid_params(format!("invalid tools/call params: {e}")))?;
    aggregate.settled().await;
    match aggregate
        .registry()
        .call_tool(&p.name, p.arguments, None)
        .await
    {
        Ok(outcome) => Ok(result_of(outcome)),
        Err(e) if runs_into_result(e.code) => Ok(error_result(&e)),
        Err(e) => Err(e.into()),
    }
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
        meta(map).insert(TRUNCATED_META.into(), truncated.to_json());
    }
    result
}

/// A failure as a tool result: its message as the text, its code and details in `_meta`.
pub fn error_result(e: &Error) -> Value {
    let mut map = Map::new();
    map.insert(
        "content".into(),
        json!([{"type": "text", "text": e.message}]),
    );
    map.insert("isError".into(), Value::Bool(true));
    let details = e.to_rpc_error()["data"].take();
    meta(&mut map).insert(ERROR_META.into(), details);
    Value::Object(map)
}

/// The result's `_meta` object (made one if it is missing or not an object).
fn meta(result: &mut Map<String, Value>) -> &mut Map<String, Value> {
    let slot = result
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(map) => map,
        _ => unreachable!("made an object just above"),
    }
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
