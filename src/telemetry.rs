//! OpenTelemetry traces and the W3C trace context (`traceparent`, `tracestate`).
//!
//! Spans are exported over OTLP/HTTP only when an endpoint is configured (`--otlp-endpoint`,
//! `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: [`export`]); otherwise no
//! span is built and a request that carries no trace context costs one atomic load.
//!
//! The context itself travels whether or not spans are exported ([`context`]): a request's incoming
//! `traceparent` (an HTTP header, `params._meta.traceparent`, or the host protocol's `tools/call`
//! param) is the parent of its request span; each downstream call gets a span of its own (or,
//! without export, the incoming context unchanged), and that is what the server is told — in
//! `params._meta.traceparent` on every transport, and in the `traceparent` header on HTTP.
//!
//! Plain OpenTelemetry API calls rather than `tracing-opentelemetry`: the context has to be handed
//! explicitly from a request to its downstream call anyway (the call runs in another task, often
//! in another era's envelope), and the stderr log layer stays as it is.

mod context;
mod export;

pub(crate) use context::{CallSpan, Carried, RequestSpan, TraceContext};
pub(crate) use export::init;
/// A span attribute (re-exported so that callers need not name the crate).
pub(crate) use opentelemetry::KeyValue;
