//! The servers' log messages for MCP clients. A server's `notifications/message` (masked and cut by
//! the registry) reaches a client as the aggregate's own `notifications/message`: `level` and
//! `data` the server's, `logger` the server's name (`server/logger` when it named one), and the
//! server in `_meta["mcp-sidecar/server"]`.
//!
//! Who gets which: a legacy session none until it sets a level with `logging/setLevel`, then
//! those at or above it, every server's, on its change stream (stdout; an HTTP session's `GET`
//! stream). A 2026-07-28 `tools/call` whose `_meta` names `io.modelcontextprotocol/logLevel` gets
//! those of its own server at or above that level while it runs, on the call's stream; a request
//! without it none (as the revision requires).
//!
//! The servers are asked for the most verbose level any client asked for
//! ([`crate::aggregate::shared::Aggregate::want_logs`]); each client filters for itself.

use serde_json::{json, Value};

use crate::jsonrpc::encode_notification;
use crate::supervisor::{LogLevel, ServerLog};

/// Whether a client that asked for `min` (`None`: nothing) gets `log`.
pub(crate) fn admits(min: Option<LogLevel>, log: &ServerLog) -> bool {
    min.is_some_and(|min| log.level >= min)
}

/// The `notifications/message` line of `log`.
pub(crate) fn message(log: &ServerLog) -> Vec<u8> {
    let logger = match &log.logger {
        Some(theirs) => format!("{}/{theirs}", log.server),
        None => log.server.clone(),
    };
    let params = json!({
        "level": log.level.as_str(),
        "logger": logger,
        "data": log.data,
        "_meta": {"mcp-sidecar/server": log.server},
    });
    encode_notification::<Value>("notifications/message", Some(&params))
}

/// The warning that stands for `count` messages of `server` (`*`: of any server) dropped because
/// they were not taken in time.
pub(crate) fn dropped(server: &str, count: u64) -> ServerLog {
    let whose = match server {
        "*" => "the servers".to_owned(),
        name => format!("server `{name}`"),
    };
    ServerLog {
        server: server.to_owned(),
        level: LogLevel::Warning,
        logger: Some("mcp-sidecar".into()),
        data: Value::String(format!(
            "{count} log messages of {whose} were dropped: the client was not reading"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(level: LogLevel, logger: Option<&str>) -> ServerLog {
        ServerLog {
            server: "fx".into(),
            level,
            logger: logger.map(str::to_owned),
            data: json!({"a": 1}),
        }
    }

    #[test]
    fn a_client_gets_what_is_at_or_above_its_level_and_nothing_before_it_sets_one() {
        assert!(!admits(None, &log(LogLevel::Emergency, None)));
        assert!(admits(Some(LogLevel::Info), &log(LogLevel::Info, None)));
        assert!(admits(Some(LogLevel::Info), &log(LogLevel::Error, None)));
        assert!(!admits(Some(LogLevel::Info), &log(LogLevel::Debug, None)));
    }

    #[test]
    fn the_server_is_named_in_the_logger_and_in_meta() {
        let sent: Value =
            serde_json::from_slice(&message(&log(LogLevel::Warning, Some("db")))).unwrap();
        assert_eq!(
            sent,
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {
                "level": "warning", "logger": "fx/db", "data": {"a": 1},
                "_meta": {"mcp-sidecar/server": "fx"}}})
        );
        let plain: Value = serde_json::from_slice(&message(&log(LogLevel::Info, None))).unwrap();
        assert_eq!(plain["params"]["logger"], "fx");
    }
}
