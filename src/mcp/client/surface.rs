//! The MCP client surface beyond tools: the paginated lists (resources, resource templates,
//! prompts), `resources/read`, `resources/subscribe` / `unsubscribe`, `prompts/get`,
//! `completion/complete` and `logging/setLevel`.
//!
//! Each method sends exactly what it is asked to: whether the server declared the capability is
//! the caller's question ([`crate::mcp::Handshake::declares`]). A list that the server answers with
//! "method not found" is empty (seed 003: some servers declare a capability they do not
//! implement, and "no resources" is closer to the truth than a failure). Every request is bounded
//! by the timeout it is given (`toolTimeoutSeconds`, like a call).

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::kind::RequestKind;
use super::session::Client;
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::Reply;
use crate::limits;
use crate::mcp::log_level::LogLevel;

/// JSON-RPC "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// A paginated list of the surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SurfaceList {
    Resources,
    ResourceTemplates,
    Prompts,
}

impl SurfaceList {
    fn kind(self) -> RequestKind {
        match self {
            Self::Resources => RequestKind::ListResources,
            Self::ResourceTemplates => RequestKind::ListResourceTemplates,
            Self::Prompts => RequestKind::ListPrompts,
        }
    }

    /// The method that lists it.
    pub fn method(self) -> &'static str {
        self.kind().method()
    }

    /// The member of a page (and of the host's result) that holds the items.
    pub fn items_key(self) -> &'static str {
        match self {
            Self::Resources => "resources",
            Self::ResourceTemplates => "resourceTemplates",
            Self::Prompts => "prompts",
        }
    }

    /// The members every item must have, as non-empty strings.
    fn required(self) -> &'static [&'static str] {
        match self {
            Self::Resources => &["uri", "name"],
            Self::ResourceTemplates => &["uriTemplate", "name"],
            Self::Prompts => &["name"],
        }
    }
}

/// One page of a list.
#[derive(Debug, Default)]
pub struct ListPage {
    pub items: Vec<Value>,
    /// The server's `nextCursor`: `None` at the end.
    pub next: Option<String>,
    /// Bytes of the server's answer.
    pub bytes: usize,
}

impl Client {
    /// One page of `list` from `cursor` (the first page when `None`).
    pub async fn list_page(
        &self,
        list: SurfaceList,
        cursor: Option<&str>,
        timeout: Duration,
    ) -> Result<ListPage> {
        let params = match cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let reply = self.request_for_host(list.kind(), &params, timeout).await?;
        let bytes = reply.bytes;
        let mut page = match self.outcome(reply) {
            Ok(page) => page,
            Err(e) if upstream_code(&e) == Some(METHOD_NOT_FOUND) => {
                return Ok(ListPage {
                    bytes,
                    ..ListPage::default()
                })
            }
            Err(e) => return Err(e),
        };
        let method = list.method();
        let key = list.items_key();
        let items = match page.get_mut(key).map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => return Err(self.protocol_error(&format!("{method} result has no `{key}` array"))),
        };
        if let Some(index) = items.iter().position(|item| {
            !list.required().iter().all(|field| {
                item.get(field)
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty())
            })
        }) {
            return Err(self.protocol_error(&format!(
                "{method} item #{index} lacks a non-empty string {}",
                list.required().join(" or ")
            )));
        }
        let next = match page.get("nextCursor") {
            Some(Value::String(next)) => Some(next.clone()),
            None | Some(Value::Null) => None,
            Some(_) => {
                return Err(self.protocol_error(&format!("{method} nextCursor is not a string")))
            }
        };
        Ok(ListPage { items, next, bytes })
    }

    /// `resources/read {uri}`: the raw reply, so the caller can hold its bytes to a budget.
    pub async fn read_resource(&self, uri: &str, timeout: Duration) -> Result<Reply> {
        self.request_for_host(RequestKind::ReadResource, &json!({ "uri": uri }), timeout)
            .await
    }

    /// `resources/subscribe` (`on`) or `resources/unsubscribe` for `uri` (2026-07-28: through
    /// `subscriptions/listen`).
    pub async fn subscribe(&self, uri: &str, on: bool, timeout: Duration) -> Result<()> {
        if self.modern.is_some() {
            return self.watch_resource(uri, on, timeout).await;
        }
        let kind = if on {
            RequestKind::Subscribe
        } else {
            RequestKind::Unsubscribe
        };
        let reply = self
            .request_for_host(kind, &json!({ "uri": uri }), timeout)
            .await?;
        self.outcome(reply).map(|_| ())
    }

    /// `prompts/get {name, arguments}`: the raw reply.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        timeout: Duration,
    ) -> Result<Reply> {
        let params = json!({ "name": name, "arguments": arguments });
        self.request_for_host(RequestKind::GetPrompt, &params, timeout)
            .await
    }

    /// `completion/complete` with `params` (`ref`, `argument`, `context?`): the `completion`
    /// object, at most [`limits::COMPLETION_MAX_VALUES`] string values (`hasMore` set when cut).
    /// "Method not found" is no completion.
    pub async fn complete(&self, params: &Value, timeout: Duration) -> Result<Value> {
        let reply = self
            .request_for_host(RequestKind::Complete, params, timeout)
            .await?;
        let result = match self.outcome(reply) {
            Ok(result) => result,
            Err(e) if upstream_code(&e) == Some(METHOD_NOT_FOUND) => return Ok(no_completion()),
            Err(e) => return Err(e),
        };
        let Some(Value::Object(completion)) = result.get("completion") else {
            return Err(
                self.protocol_error("completion/complete result has no `completion` object")
            );
        };
        let Some(Value::Array(values)) = completion.get("values") else {
            return Err(self.protocol_error("completion/complete result has no `values` array"));
        };
        if values.iter().any(|v| !v.is_string()) {
            return Err(self.protocol_error("completion/complete values must be strings"));
        }
        let mut out = Map::new();
        let cut = values.len() > limits::COMPLETION_MAX_VALUES;
        out.insert(
            "values".into(),
            Value::Array(
                values
                    .iter()
                    .take(limits::COMPLETION_MAX_VALUES)
                    .cloned()
                    .collect(),
            ),
        );
        if let Some(total) = completion.get("total").filter(|t| t.is_u64()) {
            out.insert("total".into(), total.clone());
        }
        let has_more = completion.get("hasMore").and_then(Value::as_bool) == Some(true);
        if has_more || cut {
            out.insert("hasMore".into(), Value::Bool(true));
        }
        Ok(Value::Object(out))
    }

    /// `logging/setLevel {level}`.
    pub async fn set_log_level(&self, level: LogLevel, timeout: Duration) -> Result<()> {
        // 2026-07-28 has no `logging/setLevel`: the level rides in every later request's `_meta`.
        if self.modern.is_some() {
            *self.log_level.lock().unwrap_or_else(|p| p.into_inner()) = Some(level.as_str());
            return Ok(());
        }
        let reply = self
            .request_for_host(
                RequestKind::SetLogLevel,
                &json!({ "level": level.as_str() }),
                timeout,
            )
            .await?;
        self.outcome(reply).map(|_| ())
    }

    /// A request made for the host, bounded by `timeout`; running out of it is TOOL_TIMEOUT
    /// naming the method, the setting and the limit.
    async fn request_for_host(
        &self,
        kind: RequestKind,
        params: &Value,
        timeout: Duration,
    ) -> Result<Reply> {
        let deadline = tokio::time::Instant::now() + timeout;
        self.request_until(kind, params, deadline)
            .await
            .map_err(|e| {
                if e.code != ErrorCode::ToolTimeout {
                    return e;
                }
                Error::new(
                    ErrorCode::ToolTimeout,
                    format!(
                        "server `{}` did not answer `{}` within {} ms (toolTimeoutSeconds)",
                        self.server_name(),
                        kind.method(),
                        timeout.as_millis()
                    ),
                )
                .with("server", self.server_name())
                .with("setting", "toolTimeoutSeconds")
                .with("limit", timeout.as_millis() as u64)
            })
    }
}

/// `{values: []}`: what a server without completions completes to.
pub fn no_completion() -> Value {
    json!({ "values": [] })
}

/// The server's own JSON-RPC error code, for an UPSTREAM_ERROR.
pub fn upstream_code(e: &Error) -> Option<i64> {
    (e.code == ErrorCode::UpstreamError)
        .then(|| e.details.get("upstreamCode").and_then(Value::as_i64))
        .flatten()
}
