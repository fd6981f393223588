//! How a client meets the aggregate: `initialize` (legacy), `server/discover` (modern), both
//! describing the same server, and `logging/setLevel` (legacy).

use serde_json::{json, Value};

use super::era::MODERN_VERSIONS;
use super::legacy::Session;
use crate::aggregate::requests::wire::WireError;
use crate::aggregate::shared::Aggregate;
use crate::limits;
use crate::supervisor::LogLevel;

/// The log levels of MCP (RFC 5424), least severe first.
pub(crate) const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// What the aggregate serves, for both eras.
pub(crate) fn capabilities() -> Value {
    json!({
        "tools": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true},
        "prompts": {"listChanged": true},
        "completions": {},
        "logging": {},
    })
}

/// `initialize`: negotiates the session's revision and describes the aggregate (waiting a little
/// for the config's servers, whose instructions it carries).
pub(crate) async fn initialize(
    aggregate: &Aggregate,
    session: &Session,
    params: Option<&Value>,
) -> Result<Value, WireError> {
    let version = session.initialize(params)?;
    let mut result = describe(aggregate).await;
    result["protocolVersion"] = Value::from(version);
    result["serverInfo"] = aggregate.server_info().clone();
    Ok(result)
}

/// `server/discover`: the revisions served statelessly and what the aggregate serves (the caller
/// adds `resultType`, the server's identity and cache hints).
pub(crate) async fn discover(aggregate: &Aggregate) -> Value {
    let mut result = describe(aggregate).await;
    result["supportedVersions"] = json!(MODERN_VERSIONS);
    result
}

/// What both eras' descriptions share: the capabilities and the servers' instructions, once the
/// servers had a moment to start ([`limits::AGGREGATE_INITIALIZE_WAIT`]).
async fn describe(aggregate: &Aggregate) -> Value {
    aggregate
        .settled_within(limits::AGGREGATE_INITIALIZE_WAIT)
        .await;
    let mut result = json!({ "capabilities": capabilities() });
    if let Some(instructions) = aggregate.instructions() {
        result["instructions"] = Value::from(instructions);
    }
    result
}

/// `logging/setLevel {level}`: `{}` once the servers were asked to log at that level (so the logs
/// after the answer are at it); from then on the session gets the servers' logs at or above it
/// (`logs`). An unknown level is invalid params.
pub(crate) async fn set_level(
    aggregate: &Aggregate,
    session: &Session,
    params: Option<&Value>,
) -> Result<Value, WireError> {
    let level = params.and_then(|p| p.get("level")).and_then(Value::as_str);
    match level.and_then(LogLevel::parse) {
        Some(level) => {
            session.set_log_level(level);
            aggregate.want_logs(level).await;
            Ok(json!({}))
        }
        _ => Err(WireError::invalid_params(format!(
            "`level` must be one of {}",
            LOG_LEVELS.join(", ")
        ))
        .with_data(json!({"field": "level"}))),
    }
}
