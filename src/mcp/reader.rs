//! The session's only reader: routes responses to their waiters, answers the server's requests,
//! reports notifications, and on any fatal condition closes the pending table with the reason.
//! Like `client`, it sees only the [`super::transport`] trait, never what carries the lines.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc;

use super::log_level::LogLevel;
use super::progress::ProgressTable;
use super::server_requests::ServerRequests;
use super::task_support::TaskWakers;
use super::traffic::Traffic;
use super::transport::{escaped_start, Inbound, MessageSource, TransportError, EXCERPT_BYTES};
use super::watched::ListenAcks;
use crate::error::{Error, ErrorCode};
use crate::jsonrpc::{Incoming, Pending, Reply, RequestId, NULL_ID_ERROR};
use crate::limits;
use crate::trust::secrets::Secrets;

/// Something the server did that its owner should know about.
#[derive(Debug)]
pub enum ClientEvent {
    /// The session ended without being asked to: the error says why (exit, bad output, oversize line).
    Closed { error: Error },
    /// The server announced `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated` for `uri` (at most [`limits::RESOURCE_URI_MAX_BYTES`]).
    ResourceUpdated { uri: String },
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/message`, its secret values masked and its `data` held to
    /// [`limits::SERVER_LOG_MAX_BYTES`].
    Log {
        level: LogLevel,
        logger: Option<String>,
        data: Value,
    },
}

/// What the reader needs of its session.
pub(super) struct Reader {
    pub server: Arc<str>,
    pub secrets: Secrets,
    pub source: Box<dyn MessageSource>,
    pub pending: Arc<Pending<Error>>,
    /// The server's own requests (answered here, or asked of the session's owner).
    pub requests: ServerRequests,
    /// Where the server's progress goes, by token.
    pub progress: Arc<ProgressTable>,
    /// Where the server's task status notifications go, by task id.
    pub tasks: Arc<TaskWakers>,
    /// Resource listen streams waiting for their acknowledgement.
    pub acks: Arc<ListenAcks>,
    pub events: mpsc::UnboundedSender<ClientEvent>,
    /// Where the bytes of every message read are counted.
    pub traffic: Arc<Traffic>,
}

/// Reads until the session ends, then fails every pending request with the reason and reports it.
pub(super) async fn read_loop(mut r: Reader) {
    let error = loop {
        let line = match r.source.recv().await {
            Ok(Some(Inbound::Message(line))) => {
                r.traffic.received(&line);
                line
            }
            Ok(Some(Inbound::Failed { id, error })) => {
                r.request_failed(id, error);
                continue;
            }
            Ok(None) => {
                break Error::new(
                    ErrorCode::ServerUnavailable,
                    format!(
                        "server `{}` closed its output (it exited or crashed)",
                        r.server
                    ),
                )
            }
            Err(e) => break e.for_server(&r.server),
        };
        if let Err(error) = r.route(&line) {
            break error;
        }
    };
    let error = error.with("server", &*r.server);
    r.requests.end();
    r.pending.close(error.clone());
    r.tasks.wake_all();
    let _ = r.events.send(ClientEvent::Closed { error });
}

impl Reader {
    /// One request failed in the transport (an HTTP status, say); the session goes on.
    fn request_failed(&self, id: Value, error: TransportError) {
        let error = error.for_server(&self.server);
        let delivered = serde_json::from_value::<RequestId>(id)
            .is_ok_and(|id| self.pending.fail(&id, error.clone()));
        if !delivered {
            tracing::debug!(
                server = &*self.server,
                "a request nobody waits for failed: {}",
                error.message
            );
        }
    }

    /// Routes one message; `Err` when it ends the session (not JSON, not JSON-RPC). Only a stdio
    /// server's output gets here unchecked: the HTTP transports fail a request whose answer is not
    /// JSON-RPC and drop such an event on a stream that answers no request, so "stdout" is right.
    /// A stdio server that writes anything else on its protocol stream is broken (often logging to
    /// stdout, which will recur) and is restarted.
    fn route(&self, line: &[u8]) -> Result<(), Error> {
        let server = &*self.server;
        match Incoming::parse(line) {
            Ok(Ok(Incoming::Response { id, result })) => {
                let reply = Reply {
                    outcome: result,
                    bytes: line.len(),
                };
                if !self.pending.complete(&id, reply) {
                    tracing::debug!(server, %id, "dropped a response nobody waits for (late or unknown id)");
                }
                Ok(())
            }
            Ok(Ok(Incoming::Request { id, method, params })) => {
                self.requests.handle(id, method, params);
                Ok(())
            }
            Ok(Ok(Incoming::Notification { method, params })) => {
                self.notification(&method, params);
                Ok(())
            }
            Ok(Err(not_rpc)) if not_rpc.reason == NULL_ID_ERROR => {
                tracing::debug!(
                    server,
                    "dropped an error response with a null id: {}",
                    excerpt(line)
                );
                Ok(())
            }
            Ok(Err(not_rpc)) => Err(Error::new(
                ErrorCode::ProtocolError,
                format!(
                    "server `{server}` wrote a JSON value that is not JSON-RPC 2.0 ({}): {}",
                    not_rpc.reason,
                    excerpt(line)
                ),
            )
            .with("excerpt", escaped_start(line))),
            Err(_) => Err(Error::new(
                ErrorCode::ProtocolError,
                format!(
                    "server `{server}` wrote non-JSON to stdout: {}",
                    excerpt(line)
                ),
            )
            .with("excerpt", escaped_start(line))),
        }
    }

    fn notification(&self, method: &str, params: Option<Value>) {
        let server = &*self.server;
        let event = match method {
            "notifications/tools/list_changed" => ClientEvent::ToolsListChanged,
            "notifications/resources/list_changed" => ClientEvent::ResourcesListChanged,
            "notifications/prompts/list_changed" => ClientEvent::PromptsListChanged,
            "notifications/resources/updated" => {
                match params
                    .as_ref()
                    .and_then(|p| p.get("uri"))
                    .and_then(Value::as_str)
                {
                    Some(uri) if uri.len() <= limits::RESOURCE_URI_MAX_BYTES => {
                        ClientEvent::ResourceUpdated {
                            uri: uri.to_owned(),
                        }
                    }
                    _ => {
                        tracing::debug!(server, "dropped a resources/updated without a usable uri");
                        return;
                    }
                }
            }
            "notifications/cancelled" => {
                self.requests.cancelled(params.as_ref());
                return;
            }
            "notifications/progress" => {
                if !self.progress.route(params, &self.secrets) {
                    tracing::trace!(server, "dropped progress nobody waits for");
                }
                return;
            }
            "notifications/subscriptions/acknowledged" => {
                if !self.acks.route(params.as_ref()) {
                    tracing::trace!(server, "a listen stream acknowledged");
                }
                return;
            }
            "notifications/tasks/status" => {
                if !self.tasks.route(params.as_ref()) {
                    tracing::trace!(server, "dropped a task status nobody polls");
                }
                return;
            }
            "notifications/message" => {
                let mut message = params.unwrap_or_default();
                self.secrets.mask_json(&mut message);
                tracing::info!(server, %message, "server log");
                match log_event(message) {
                    Some(event) => event,
                    None => return,
                }
            }
            _ => {
                tracing::trace!(server, method, "ignored notification");
                return;
            }
        };
        let _ = self.events.send(event);
    }
}

/// A (masked) `notifications/message` as an event: `None` without a known `level`. `data` longer
/// than [`limits::SERVER_LOG_MAX_BYTES`] as compact JSON becomes the start of that text.
fn log_event(mut message: Value) -> Option<ClientEvent> {
    let level = LogLevel::parse(message.get("level")?.as_str()?)?;
    let logger = message
        .get("logger")
        .and_then(Value::as_str)
        .map(|l| cut(l, limits::SERVER_LOG_MAX_BYTES).to_owned());
    let data = message
        .get_mut("data")
        .map(Value::take)
        .unwrap_or(Value::Null);
    let text = match &data {
        Value::String(s) => (s.len() > limits::SERVER_LOG_MAX_BYTES).then(|| s.clone()),
        other => {
            let compact = serde_json::to_string(other).unwrap_or_default();
            (compact.len() > limits::SERVER_LOG_MAX_BYTES).then_some(compact)
        }
    };
    let data = match text {
        Some(long) => Value::String(format!(
            "{}… ({} bytes, cut)",
            cut(&long, limits::SERVER_LOG_MAX_BYTES),
            long.len()
        )),
        None => data,
    };
    Some(ClientEvent::Log {
        level,
        logger,
        data,
    })
}

/// The longest start of `text` of at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The start of a line, for error messages.
fn excerpt(line: &[u8]) -> String {
    const MAX: usize = EXCERPT_BYTES;
    let text = String::from_utf8_lossy(&line[..line.len().min(MAX)]);
    if line.len() > MAX {
        format!("{text:?}…")
    } else {
        format!("{text:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_log_message_becomes_an_event_with_its_data_bounded() {
        let event = log_event(json!({"level": "warning", "logger": "db", "data": {"a": 1}}));
        assert!(matches!(
            event,
            Some(ClientEvent::Log { level: LogLevel::Warning, logger: Some(l), data }) if l == "db" && data == json!({"a": 1})
        ));
        assert!(log_event(json!({"level": "loud", "data": 1})).is_none());
        assert!(log_event(json!({"data": 1})).is_none());
        let long = "é".repeat(limits::SERVER_LOG_MAX_BYTES);
        match log_event(json!({"level": "info", "data": long})) {
            Some(ClientEvent::Log {
                data: Value::String(s),
                logger: None,
                ..
            }) => {
                assert!(s.len() < limits::SERVER_LOG_MAX_BYTES + 64, "{}", s.len());
                assert!(s.ends_with(&format!(
                    "({} bytes, cut)",
                    2 * limits::SERVER_LOG_MAX_BYTES
                )));
            }
            other => panic!("{other:?}"),
        }
    }
}
