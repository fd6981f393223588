//! Errors as the aggregate's MCP client sees them: a JSON-RPC error object with MCP's codes, never the
//! host protocol's own numbers (MCP reserves -32020..-32099 since 2026-07-28, where the host
//! protocol has `TOOL_NOT_FOUND` and friends). The sidecar's stable string code stays in
//! `data.code`, so a person reading a log still sees `SERVER_UNAVAILABLE`.
//!
//! | sidecar error | MCP error |
//! |---|---|
//! | `PARSE_ERROR` | -32700 |
//! | `INVALID_REQUEST`, `MESSAGE_TOO_LARGE` | -32600 |
//! | `METHOD_NOT_FOUND` | -32601 |
//! | `INVALID_PARAMS`, `TOOL_NOT_FOUND` | -32602 |
//! | `UPSTREAM_ERROR` (a server's own error) | the server's code, message naming it, its `data` |
//! | anything else | -32603, `data.code` naming it |
//!
//! (A tool call turns most failures into an `isError` result instead: `tools::call`.)

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorCode};

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;
// The 2026-07-28 codes (-32020 header mismatch, -32021 missing client capability, -32022
// unsupported protocol version) are shared with the downstream client.
pub(crate) use crate::era::{
    HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION,
};

/// One JSON-RPC error for the aggregate's client.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WireError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl WireError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(INVALID_REQUEST, message)
    }

    pub(crate) fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("method not found: {method}"))
            .with_data(json!({ "method": method }))
    }

    /// The JSON-RPC `error` member.
    pub(crate) fn to_json(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), Value::from(self.code));
        error.insert("message".into(), Value::from(self.message.as_str()));
        if let Some(data) = &self.data {
            error.insert("data".into(), data.clone());
        }
        Value::Object(error)
    }

    /// The HTTP status a 2026-07-28 response carries with this error: 400 for a malformed or
    /// unacceptable request, 404 for an unknown method, 200 for a failure while serving it.
    pub(crate) fn http_status(&self) -> u16 {
        match self.code {
            METHOD_NOT_FOUND => 404,
            PARSE_ERROR
            | INVALID_REQUEST
            | INVALID_PARAMS
            | HEADER_MISMATCH
            | MISSING_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION => 400,
            _ => 200,
        }
    }
}

impl From<Error> for WireError {
    fn from(e: Error) -> Self {
        if e.code == ErrorCode::UpstreamError {
            return upstream(e);
        }
        let code = match e.code {
            ErrorCode::ParseError => PARSE_ERROR,
            ErrorCode::InvalidRequest | ErrorCode::MessageTooLarge => INVALID_REQUEST,
            ErrorCode::MethodNotFound => METHOD_NOT_FOUND,
            ErrorCode::InvalidParams | ErrorCode::ToolNotFound => INVALID_PARAMS,
            _ => INTERNAL_ERROR,
        };
        let data = e.to_rpc_error()["data"].take();
        WireError::new(code, e.message).with_data(data)
    }
}

/// A server's own JSON-RPC error, passed on with its code and data (a `-32042` keeps the
/// elicitations its client needs), the message naming the server.
fn upstream(e: Error) -> WireError {
    let code = e
        .details
        .get("upstreamCode")
        .and_then(Value::as_i64)
        .unwrap_or(INTERNAL_ERROR);
    let server = e.details.get("server").cloned().unwrap_or(Value::Null);
    let data = match e.details.get("upstreamData") {
        Some(Value::Object(theirs)) => {
            let mut data = theirs.clone();
            data.entry("server").or_insert(server);
            Value::Object(data)
        }
        Some(Value::Null) | None => {
            json!({ "code": ErrorCode::UpstreamError.as_str(), "server": server })
        }
        Some(other) => {
            json!({ "code": ErrorCode::UpstreamError.as_str(), "server": server, "upstreamData": other })
        }
    };
    WireError::new(code, e.message).with_data(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_protocol_numbers_never_reach_an_mcp_client() {
        for code in ErrorCode::ALL {
            let wire = WireError::from(Error::new(code, "x"));
            assert!(
                matches!(wire.code, -32700 | -32600 | -32601 | -32602 | -32603),
                "{code} became {}",
                wire.code
            );
            assert_eq!(wire.data.as_ref().unwrap()["code"], code.as_str(), "{code}");
        }
    }

    #[test]
    fn a_servers_own_error_keeps_its_code_and_data() {
        let e = Error::new(
            ErrorCode::UpstreamError,
            "server `gh` answered with error -32042: go",
        )
        .with("server", "gh")
        .with("upstreamCode", -32042)
        .with(
            "upstreamData",
            json!({"elicitations": [{"url": "https://x"}]}),
        );
        let wire = WireError::from(e);
        assert_eq!(wire.code, -32042);
        assert_eq!(
            wire.to_json().to_string(),
            r#"{"code":-32042,"data":{"elicitations":[{"url":"https://x"}],"server":"gh"},"message":"server `gh` answered with error -32042: go"}"#
        );
        let bare = Error::new(ErrorCode::UpstreamError, "m").with("upstreamCode", -32000);
        assert_eq!(
            WireError::from(bare).to_json().to_string(),
            r#"{"code":-32000,"data":{"code":"UPSTREAM_ERROR","server":null},"message":"m"}"#
        );
    }

    #[test]
    fn http_status_follows_the_2026_transport() {
        assert_eq!(WireError::method_not_found("x").http_status(), 404);
        assert_eq!(WireError::new(HEADER_MISMATCH, "h").http_status(), 400);
        assert_eq!(WireError::new(INTERNAL_ERROR, "i").http_status(), 200);
    }
}
