//! The sidecar's error type: every failure the host can see carries a JSON-RPC numeric code, a stable
//! string code (`error.data.code`), a message that names the cause, and optional structured details
//! (server, tool, field, limit, stderr tail).

use serde_json::{Map, Value};

/// Stable error codes of host protocol v1. The string form is part of the protocol; never rename one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    ParseError,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    Internal,
    MessageTooLarge,
    NotInitialized,
    AlreadyInitialized,
    ConfigInvalid,
    ServerExists,
    ServerNotFound,
    ServerUnavailable,
    ToolNotFound,
    InvalidArguments,
    ToolTimeout,
    Cancelled,
    ResultTooLarge,
    ResultExpired,
    ProtocolError,
    VersionUnsupported,
    UpstreamError,
    HttpError,
    NetworkError,
    ShuttingDown,
    TrustRequired,
    Overloaded,
    AuthRequired,
    AuthFailed,
    NotSupported,
    SandboxDenied,
    PackageIntegrity,
}

impl ErrorCode {
    /// Every code, for documentation tests.
    pub const ALL: [ErrorCode; 31] = [
        Self::ParseError,
        Self::InvalidRequest,
        Self::MethodNotFound,
        Self::InvalidParams,
        Self::Internal,
        Self::MessageTooLarge,
        Self::NotInitialized,
        Self::AlreadyInitialized,
        Self::ConfigInvalid,
        Self::ServerExists,
        Self::ServerNotFound,
        Self::ServerUnavailable,
        Self::ToolNotFound,
        Self::InvalidArguments,
        Self::ToolTimeout,
        Self::Cancelled,
        Self::ResultTooLarge,
        Self::ResultExpired,
        Self::ProtocolError,
        Self::VersionUnsupported,
        Self::UpstreamError,
        Self::HttpError,
        Self::NetworkError,
        Self::ShuttingDown,
        Self::TrustRequired,
        Self::Overloaded,
        Self::AuthRequired,
        Self::AuthFailed,
        Self::NotSupported,
        Self::SandboxDenied,
        Self::PackageIntegrity,
    ];

    /// The stable string carried in `error.data.code`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ParseError => "PARSE_ERROR",
            Self::InvalidRequest => "INVALID_REQUEST",
            Self::MethodNotFound => "METHOD_NOT_FOUND",
            Self::InvalidParams => "INVALID_PARAMS",
            Self::Internal => "INTERNAL",
            Self::MessageTooLarge => "MESSAGE_TOO_LARGE",
            Self::NotInitialized => "NOT_INITIALIZED",
            Self::AlreadyInitialized => "ALREADY_INITIALIZED",
            Self::ConfigInvalid => "CONFIG_INVALID",
            Self::ServerExists => "SERVER_EXISTS",
            Self::ServerNotFound => "SERVER_NOT_FOUND",
            Self::ServerUnavailable => "SERVER_UNAVAILABLE",
            Self::ToolNotFound => "TOOL_NOT_FOUND",
            Self::InvalidArguments => "INVALID_ARGUMENTS",
            Self::ToolTimeout => "TOOL_TIMEOUT",
            Self::Cancelled => "CANCELLED",
            Self::ResultTooLarge => "RESULT_TOO_LARGE",
            Self::ResultExpired => "RESULT_EXPIRED",
            Self::ProtocolError => "PROTOCOL_ERROR",
            Self::VersionUnsupported => "VERSION_UNSUPPORTED",
            Self::UpstreamError => "UPSTREAM_ERROR",
            Self::HttpError => "HTTP_ERROR",
            Self::NetworkError => "NETWORK_ERROR",
            Self::ShuttingDown => "SHUTTING_DOWN",
            Self::TrustRequired => "TRUST_REQUIRED",
            Self::Overloaded => "OVERLOADED",
            Self::AuthRequired => "AUTH_REQUIRED",
            Self::AuthFailed => "AUTH_FAILED",
            Self::NotSupported => "NOT_SUPPORTED",
            Self::SandboxDenied => "SANDBOX_DENIED",
            Self::PackageIntegrity => "PACKAGE_INTEGRITY",
        }
    }

    /// The JSON-RPC numeric code. Standard codes where JSON-RPC defines one, else the
    /// implementation-defined range -32000..-32099 (and -32800 for cancellation, as LSP does).
    /// Within that range each decade is one family (-3201x servers, -3202x calls, -3203x what a
    /// server did or how reaching it failed, -3204x the sidecar's own state); a number, once given,
    /// is never reused.
    pub fn rpc_code(self) -> i64 {
        match self {
            Self::ParseError => -32700,
            Self::InvalidRequest | Self::MessageTooLarge => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            Self::Internal => -32603,
            Self::NotInitialized => -32002,
            Self::AlreadyInitialized => -32003,
            Self::ConfigInvalid => -32010,
            Self::ServerExists => -32011,
            Self::ServerNotFound => -32012,
            Self::ServerUnavailable => -32013,
            Self::ToolNotFound => -32020,
            Self::InvalidArguments => -32021,
            Self::ToolTimeout => -32022,
            Self::ResultTooLarge => -32023,
            Self::ResultExpired => -32024,
            Self::ProtocolError => -32030,
            Self::VersionUnsupported => -32031,
            Self::UpstreamError => -32032,
            Self::HttpError => -32033,
            Self::NetworkError => -32034,
            Self::Overloaded => -32035,
            Self::AuthRequired => -32036,
            Self::AuthFailed => -32037,
            Self::ShuttingDown => -32040,
            Self::TrustRequired => -32014,
            Self::NotSupported => -32015,
            Self::SandboxDenied => -32016,
            Self::PackageIntegrity => -32017,
            Self::Cancelled => -32800,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error that can be shown to the host as a JSON-RPC error object.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    /// Extra fields of `error.data` besides `code` (e.g. `server`, `tool`, `field`, `limit`, `stderrTail`).
    pub details: Map<String, Value>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Adds one field to `error.data`.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// Adds the server's stderr tail to `error.data.stderrTail` unless it is empty or already there.
    pub fn with_stderr_tail(mut self, tail: &str) -> Self {
        if !tail.is_empty() && !self.details.contains_key("stderrTail") {
            self.details
                .insert("stderrTail".to_owned(), Value::from(tail));
        }
        self
    }

    /// The JSON-RPC `error` object.
    pub fn to_rpc_error(&self) -> Value {
        let mut data = Map::with_capacity(self.details.len() + 1);
        data.insert("code".to_owned(), Value::from(self.code.as_str()));
        for (k, v) in &self.details {
            data.insert(k.clone(), v.clone());
        }
        serde_json::json!({
            "code": self.code.rpc_code(),
            "message": self.message,
            "data": Value::Object(data),
        })
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidParams, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_error_object_has_numeric_and_string_codes() {
        let e = Error::new(ErrorCode::ToolNotFound, "no tool named `x`").with("tool", "x");
        assert_eq!(
            serde_json::to_string(&e.to_rpc_error()).unwrap(),
            r#"{"code":-32020,"data":{"code":"TOOL_NOT_FOUND","tool":"x"},"message":"no tool named `x`"}"#
        );
    }

    #[test]
    fn result_expired() {
        let e = Error::new(ErrorCode::ResultExpired, "gone").with("handle", "r-1");
        assert_eq!(
            serde_json::to_string(&e.to_rpc_error()).unwrap(),
            r#"{"code":-32024,"data":{"code":"RESULT_EXPIRED","handle":"r-1"},"message":"gone"}"#
        );
    }

    #[test]
    fn numeric_codes_are_unique_except_the_shared_invalid_request() {
        let mut seen = std::collections::HashMap::new();
        for c in ErrorCode::ALL {
            if let Some(other) = seen.insert(c.rpc_code(), c) {
                let pair = [other, c];
                assert!(
                    pair.contains(&ErrorCode::InvalidRequest)
                        && pair.contains(&ErrorCode::MessageTooLarge),
                    "{other} and {c} share {}",
                    c.rpc_code()
                );
            }
        }
    }

    #[test]
    fn transport_codes_are_apart_from_upstream_error() {
        assert_eq!(ErrorCode::UpstreamError.rpc_code(), -32032);
        assert_eq!(ErrorCode::HttpError.rpc_code(), -32033);
        assert_eq!(ErrorCode::NetworkError.rpc_code(), -32034);
    }

    #[test]
    fn string_codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {c}");
        }
    }
}
