//! A request's trace context and its spans: [`RequestSpan`] (one per client request, the child of
//! the incoming `traceparent`), [`TraceContext`] (what a downstream call needs of it, handed down
//! explicitly) and [`CallSpan`] (one per downstream call, and the `traceparent` its server is
//! told). Names and attributes follow OpenTelemetry's MCP semantic conventions: a span is named
//! `{mcp.method.name} {target}`, the server side of a request is `SERVER`, a call `CLIENT`.

use std::collections::HashMap;
use std::fmt;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{global, Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;

use super::export::enabled;
use crate::names::ServerName;

/// Longest `tracestate` passed on (W3C allows 32 members of up to 256 bytes; 512 is what its
/// propagation section asks a vendor to keep at least).
const TRACESTATE_MAX_BYTES: usize = 512;

/// The W3C trace context a peer sent or is sent: `traceparent`, and `tracestate` if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Carried {
    pub traceparent: String,
    pub tracestate: Option<String>,
}

impl Carried {
    /// From header-like values; `None` without a `traceparent`.
    pub fn new(traceparent: Option<&str>, tracestate: Option<&str>) -> Option<Self> {
        let traceparent = traceparent?.trim();
        // 55 bytes in version 00; later versions may append fields.
        if traceparent.is_empty() || traceparent.len() > 256 {
            return None;
        }
        Some(Self {
            traceparent: traceparent.to_owned(),
            tracestate: tracestate
                .map(str::trim)
                .filter(|s| !s.is_empty() && s.len() <= TRACESTATE_MAX_BYTES)
                .map(str::to_owned),
        })
    }

    /// From a request's `params._meta` (MCP's `traceparent`/`tracestate` keys).
    pub fn from_meta(params: Option<&serde_json::Value>) -> Option<Self> {
        Self::from_meta_object(params?.get("_meta"))
    }

    /// From a `_meta` object itself.
    pub fn from_meta_object(meta: Option<&serde_json::Value>) -> Option<Self> {
        let meta = meta?;
        let text = |key| meta.get(key).and_then(serde_json::Value::as_str);
        Self::new(text("traceparent"), text("tracestate"))
    }

    fn context(&self) -> Option<Context> {
        let mut fields = HashMap::with_capacity(2);
        fields.insert("traceparent".to_owned(), self.traceparent.clone());
        if let Some(state) = &self.tracestate {
            fields.insert("tracestate".to_owned(), state.clone());
        }
        let cx = TraceContextPropagator::new().extract(&fields);
        // An invalid `traceparent` extracts to nothing: the request starts a trace of its own.
        cx.span().span_context().is_valid().then_some(cx)
    }
}

/// What a downstream call needs of its request's trace: the context its span is a child of.
/// Empty when the request carried none and spans are not exported.
#[derive(Clone, Default)]
pub(crate) struct TraceContext(Option<Context>);

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "TraceContext(..)"
        } else {
            "TraceContext(none)"
        })
    }
}

impl TraceContext {}

/// One client request's span (while spans are exported), and the context its calls inherit.
pub(crate) struct RequestSpan {
    cx: TraceContext,
    recording: bool,
}

impl RequestSpan {
    /// Starts the span of request `method` (on `target`, a tool's name, when it has one) as the
    /// child of `incoming`. `attributes` are added as they are (a session id, the protocol
    /// version).
    pub(crate) fn start(
        method: &str,
        target: Option<&str>,
        incoming: Option<&Carried>,
        attributes: impl FnOnce() -> Vec<KeyValue>,
    ) -> Self {
        let parent = incoming.and_then(Carried::context);
        if !enabled() {
            return Self {
                cx: TraceContext(parent),
                recording: false,
            };
        }
        let parent = parent.unwrap_or_default();
        let mut attrs = vec![KeyValue::new("mcp.method.name", method.to_owned())];
        if let Some(tool) = target {
            attrs.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
            attrs.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        attrs.extend(attributes());
        let span = global::tracer("mcp-sidecar")
            .span_builder(span_name(method, target))
            .with_kind(SpanKind::Server)
            .with_attributes(attrs)
            .start_with_context(&global::tracer("mcp-sidecar"), &parent);
        Self {
            cx: TraceContext(Some(parent.with_span(span))),
            recording: true,
        }
    }

    /// The context this request's calls are children of.
    pub(crate) fn context(&self) -> TraceContext {
        self.cx.clone()
    }

    /// Ends the span: `error` names the failure (an error code) when the request failed.
    pub(crate) fn end(self, error: Option<&str>) {
        if let (true, Some(cx)) = (self.recording, &self.cx.0) {
            end(cx, error);
        }
    }
}

/// One downstream call's span, and what the server is told of it.
pub(crate) struct CallSpan {
    cx: Option<Context>,
    recording: bool,
}

impl CallSpan {
    /// Starts the span of `method` on `server` (`tool` for a call) under `parent`; `era` and
    /// `transport` describe the server's session.
    pub(crate) fn start(
        parent: &TraceContext,
        method: &str,
        server: &ServerName,
        tool: Option<&str>,
        era: &str,
        transport: &str,
    ) -> Self {
        if !enabled() {
            return Self {
                cx: parent.0.clone(),
                recording: false,
            };
        }
        let parent = parent.0.clone().unwrap_or_default();
        let mut attrs = vec![
            KeyValue::new("mcp.method.name", method.to_owned()),
            KeyValue::new("mcp.server.name", server.to_string()),
            KeyValue::new("mcp.protocol.era", era.to_owned()),
            KeyValue::new(
                "network.transport",
                if transport == "stdio" { "pipe" } else { "tcp" },
            ),
            KeyValue::new("mcp.transport", transport.to_owned()),
        ];
        if let Some(tool) = tool {
            attrs.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        }
        let tracer = global::tracer("mcp-sidecar");
        let span = tracer
            .span_builder(span_name(method, tool))
            .with_kind(SpanKind::Client)
            .with_attributes(attrs)
            .start_with_context(&tracer, &parent);
        Self {
            cx: Some(parent.with_span(span)),
            recording: true,
        }
    }

    /// The trace context the server is sent (its parent is this span, or — spans not exported —
    /// the request's own parent); `None` when there is no trace to carry.
    pub(crate) fn outgoing(&self) -> Option<Carried> {
        let cx = self.cx.as_ref()?;
        let mut fields: HashMap<String, String> = HashMap::with_capacity(2);
        TraceContextPropagator::new().inject_context(cx, &mut fields);
        Carried::new(
            fields.get("traceparent").map(String::as_str),
            fields.get("tracestate").map(String::as_str),
        )
    }

    /// Ends the span (see [`RequestSpan::end`]).
    pub(crate) fn end(self, error: Option<&str>) {
        if let (true, Some(cx)) = (self.recording, &self.cx) {
            end(cx, error);
        }
    }
}

fn span_name(method: &str, target: Option<&str>) -> String {
    match target {
        Some(target) => format!("{method} {target}"),
        None => method.to_owned(),
    }
}

fn end(cx: &Context, error: Option<&str>) {
    let span = cx.span();
    if let Some(code) = error {
        span.set_attribute(KeyValue::new("error.type", code.to_owned()));
        span.set_status(Status::error(code.to_owned()));
    }
    span.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    #[test]
    fn without_export_a_call_passes_the_incoming_context_on_unchanged() {
        let incoming = Carried::new(Some(PARENT), Some("k=v"));
        let request = RequestSpan::start("tools/call", Some("t"), incoming.as_ref(), Vec::new);
        let call = CallSpan::start(
            &request.context(),
            "tools/call",
            &ServerName::from("s"),
            Some("t"),
            "legacy",
            "stdio",
        );
        assert_eq!(call.outgoing(), incoming);
    }

    #[test]
    fn nothing_is_carried_without_a_context_and_a_malformed_one_is_dropped() {
        let request = RequestSpan::start("tools/call", None, None, Vec::new);
        let call = CallSpan::start(
            &request.context(),
            "tools/call",
            &ServerName::from("s"),
            None,
            "legacy",
            "stdio",
        );
        assert_eq!(call.outgoing(), None);
        let bad = Carried::new(Some("00-zz-b7ad6b7169203331-01"), None);
        assert!(bad.as_ref().and_then(Carried::context).is_none());
    }

    #[test]
    fn meta_keys_are_read() {
        let params = serde_json::json!({"_meta": {"traceparent": PARENT}});
        assert_eq!(
            Carried::from_meta(Some(&params)).map(|c| c.traceparent),
            Some(PARENT.to_owned())
        );
    }
}
