//! The 2026-07-28 wire over Streamable HTTP, derived from each message's body: the headers every
//! modern POST carries (`MCP-Protocol-Version` equal to the body's `_meta` revision, `Mcp-Method`,
//! `Mcp-Name`, and `Mcp-Param-*` mirrored from the arguments of a tool whose schema asks for them
//! with `x-mcp-header`, learnt from the server's own `tools/list` answers), and a modern answer
//! that arrives as an HTTP 4xx carrying a JSON-RPC error, which is that request's answer.

use reqwest::{RequestBuilder, Response};
use serde_json::Value;

use super::answer::Answer;
use super::shared::Shared;
use crate::limits;
use crate::mcp::tool_headers::{call_headers, param_headers, standard_headers};
use crate::mcp::transport::http_common::{self as common, Outgoing, VERSION_HEADER};
use crate::mcp::transport::TransportError;

/// `req` with the headers of modern message `msg`.
pub(super) fn with_modern_headers(
    shared: &Shared,
    msg: &Outgoing,
    mut req: RequestBuilder,
) -> RequestBuilder {
    let Some((version, params)) = &msg.modern else {
        return req;
    };
    let method = msg.method.as_deref().unwrap_or_default();
    req = req.header(VERSION_HEADER, version.as_str());
    for (name, value) in standard_headers(method, params.as_object()) {
        req = req.header(name, value);
    }
    if method == "tools/call" {
        let tool = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mirrored = shared
            .lock()
            .tool_headers
            .get(tool)
            .map(|headers| call_headers(headers, &params["arguments"]))
            .unwrap_or_default();
        for (name, value) in mirrored {
            req = req.header(name, value);
        }
    }
    req
}

/// Learns the `x-mcp-header` annotations of the tools in a modern `tools/list` answer (a first
/// page, without a cursor, starts the table afresh). Tools whose annotations are invalid are left
/// out of the table; the session leaves them out of its list too.
pub(super) fn learn_tools(shared: &Shared, msg: &Outgoing, reply: &[u8]) {
    let Some((_, params)) = &msg.modern else {
        return;
    };
    if msg.method.as_deref() != Some("tools/list") {
        return;
    }
    let Ok(reply) = serde_json::from_slice::<Value>(reply) else {
        return;
    };
    let Some(tools) = reply.pointer("/result/tools").and_then(Value::as_array) else {
        return;
    };
    let mut state = shared.lock();
    if params.get("cursor").is_none() {
        state.tool_headers.clear();
    }
    for tool in tools {
        let (Some(name), Ok(headers)) = (
            tool.get("name").and_then(Value::as_str),
            param_headers(tool),
        ) else {
            continue;
        };
        if !headers.is_empty() {
            state.tool_headers.insert(name.to_owned(), headers);
        }
    }
}

/// A modern request refused with a 4xx: its body, when it is a JSON-RPC error answering `id`, is
/// the request's answer (a modern server says -32022, -32020, -32602 or -32601 that way);
/// anything else is an HTTP failure of the request, as before.
pub(super) async fn refused(
    resp: Response,
    id: &Value,
    during: &'static str,
) -> Result<Answer, TransportError> {
    let status = resp.status();
    let body = common::read_body(resp, limits::HTTP_ERROR_EXCERPT_BYTES * 8)
        .await
        .unwrap_or_default();
    let answers = serde_json::from_slice::<Value>(&body)
        .ok()
        .is_some_and(|v| {
            v.get("error").is_some_and(Value::is_object)
                && (v.get("id") == Some(id) || v.get("id") == Some(&Value::Null))
        });
    if answers {
        // A null id is this request's: the server could not read it, and only this one was sent.
        let mut v: Value = serde_json::from_slice(&body).unwrap_or_default();
        v["id"] = id.clone();
        return Ok(Answer::Reply(serde_json::to_vec(&v).unwrap_or_default()));
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(limits::HTTP_ERROR_EXCERPT_BYTES)]);
    Ok(Answer::Failed(TransportError::Http {
        during,
        status,
        body_snippet: text.trim().to_owned(),
    }))
}
