//! The OTLP/HTTP exporter, set up once at start when an endpoint is configured: a batch span
//! processor on a thread of its own (the blocking reqwest client runs there, never on the
//! runtime), `service.name` `mcp-sidecar` unless `OTEL_SERVICE_NAME` says otherwise, protobuf or
//! JSON as `OTEL_EXPORTER_OTLP_PROTOCOL` says (`http/protobuf` by default, as OTLP specifies).

use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::global;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;

/// Whether spans are built and exported.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Whether spans are exported (an endpoint was configured and the exporter built).
pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The exporter while it runs; [`Exporting::shutdown`] sends what is queued before the process
/// ends.
pub(crate) struct Exporting {
    provider: SdkTracerProvider,
}

impl Exporting {
    /// Exports the spans still queued and stops the exporter (blocking: call it off the runtime
    /// or at the very end).
    pub(crate) fn shutdown(self) {
        ENABLED.store(false, Ordering::Relaxed);
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!("OpenTelemetry: the last spans were not exported: {e}");
        }
    }
}

/// Starts exporting spans when `endpoint` (else the environment's `OTEL_EXPORTER_OTLP_ENDPOINT`
/// or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names a collector; `None` when nothing is configured.
/// An endpoint that cannot be used is an error naming it.
pub(crate) fn init(endpoint: Option<&str>) -> Result<Option<Exporting>, String> {
    let configured = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    if endpoint.is_none()
        && !configured("OTEL_EXPORTER_OTLP_ENDPOINT")
        && !configured("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    {
        return Ok(None);
    }
    // Headers for the collector often carry its API key: masked in every log line.
    for name in [
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    ] {
        let value = std::env::var(name).unwrap_or_default();
        let values: Vec<&str> = value
            .split(',')
            .filter_map(|pair| pair.split_once('=').map(|(_, v)| v.trim()))
            .collect();
        crate::logging::register_secrets(values);
    }
    let protocol = match std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL").as_deref() {
        Ok("http/json") => Protocol::HttpJson,
        Ok("http/protobuf") | Err(_) => Protocol::HttpBinary,
        Ok(other) => {
            return Err(format!(
                "OTEL_EXPORTER_OTLP_PROTOCOL `{other}` is not supported: http/protobuf or http/json"
            ))
        }
    };
    let mut builder = SpanExporter::builder().with_http().with_protocol(protocol);
    if let Some(endpoint) = endpoint {
        // As the environment variable means it: the collector's base URL, traces under /v1/traces.
        builder = builder.with_endpoint(format!("{}/v1/traces", endpoint.trim_end_matches('/')));
    }
    let exporter = builder
        .build()
        .map_err(|e| format!("the OTLP endpoint cannot be used: {e}"))?;
    let resource = Resource::builder()
        .with_service_name(
            std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| "mcp-sidecar".to_owned()),
        )
        .build();
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build();
    global::set_tracer_provider(provider.clone());
    ENABLED.store(true, Ordering::Relaxed);
    Ok(Some(Exporting { provider }))
}
