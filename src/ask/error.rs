//! [`AskError`]: why a question got no answer, and the JSON-RPC error a server gets for it.

use std::time::Duration;

use serde_json::{json, Value};

/// Why a question got no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AskError {
    /// The owner did not declare the capability the method needs.
    #[error("`{method}` is not supported: the client did not declare the capability it needs")]
    NotDeclared { method: String },
    /// The method is declared, but not the mode or feature this question needs.
    #[error("{reason}")]
    Unsupported { reason: String },
    /// The owner answered with a JSON-RPC error of its own (relayed as it is).
    #[error("the client answered with error {code}: {message}")]
    Refused {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    /// The owner's answer is not a result object.
    #[error("the client's answer is not valid: {reason}")]
    InvalidAnswer { reason: String },
    /// No answer within the owner's bound.
    #[error("the client did not answer within {} ms", after.as_millis())]
    TimedOut { after: Duration },
    /// Too many questions already wait for the owner.
    #[error("the client already has {limit} requests to answer; try again later")]
    Busy { limit: usize },
    /// The questions already waiting for the owner hold too many bytes for this one too.
    #[error("{reason}; try again later")]
    Crowded { reason: String },
    /// The owner is gone or stopping.
    #[error("the client cannot answer: {reason}")]
    Gone { reason: String },
}

impl AskError {
    /// The JSON-RPC code an MCP server gets for this outcome: -32601 and -32602 as MCP asks for
    /// an undeclared capability or mode, the owner's own code for its error, -32001 (the code
    /// MCP SDKs use for a request timeout) when it did not answer in time, -32603 for an answer
    /// that is not one, -32000 when it cannot answer at all.
    pub fn rpc_code(&self) -> i64 {
        match self {
            Self::NotDeclared { .. } => -32601,
            Self::Unsupported { .. } => -32602,
            Self::Refused { code, .. } => *code,
            Self::InvalidAnswer { .. } => -32603,
            Self::TimedOut { .. } => -32001,
            Self::Busy { .. } | Self::Crowded { .. } | Self::Gone { .. } => -32000,
        }
    }

    /// The JSON-RPC `error` object for a server: the owner's own message and data for its error,
    /// this error's text otherwise.
    pub fn to_rpc_error(&self) -> Value {
        match self {
            Self::Refused {
                code,
                message,
                data: Some(data),
            } => json!({"code": code, "message": message, "data": data}),
            Self::Refused { code, message, .. } => json!({"code": code, "message": message}),
            other => json!({"code": other.rpc_code(), "message": other.to_string()}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_gets_the_codes_mcp_names() {
        let not_declared = AskError::NotDeclared {
            method: "roots/list".into(),
        };
        assert_eq!(
            not_declared.to_rpc_error(),
            json!({"code": -32601, "message": "`roots/list` is not supported: the client did not declare the capability it needs"})
        );
        let refused = AskError::Refused {
            code: -1,
            message: "User rejected sampling request".into(),
            data: Some(json!({"why": "no"})),
        };
        assert_eq!(
            refused.to_rpc_error(),
            json!({"code": -1, "message": "User rejected sampling request", "data": {"why": "no"}})
        );
        let timed_out = AskError::TimedOut {
            after: Duration::from_millis(1500),
        };
        assert_eq!(timed_out.rpc_code(), -32001);
        assert!(timed_out.to_string().contains("1500 ms"));
    }
}
