//! Prometheus metrics (`/metrics`): what the sidecar counts as it serves — requests by method and
//! outcome, failed calls by stable error code, call durations per server and tool — in one
//! process-wide set of families ([`global`]), and the exposition that adds, at each scrape, what
//! the supervisor already keeps per server (states, restarts, calls in flight, bytes) and the
//! front end's sessions ([`exposition`]). Nothing here is recorded twice: the per-server counts
//! come from the supervisor's own statistics when scraped.
//!
//! Label cardinality is bounded: `method` is one of the protocol's methods or `_other`; `code` is
//! one of [`crate::error::ErrorCode`]'s; `server` is a configured server (at most
//! [`limits::METRICS_SERVERS_MAX`], then `_other`); `tool` is one of the first
//! [`limits::METRICS_TOOLS_PER_SERVER`] tool names a server was called with, then `_other`.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use prometheus_client::encoding::text::{encode_eof, encode_registry};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use crate::limits;
use crate::names::{ServerName, ToolName};

mod labels;
pub(crate) use labels::{method_label, OTHER};

/// The prefix of every metric name.
const PREFIX: &str = "mcp_sidecar";
/// The exposition's media type (OpenMetrics text, which Prometheus scrapes as it does its own).
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

type Labels = Vec<(&'static str, String)>;
/// Label sets of fixed names and values: counted without an allocation.
type Fixed<const N: usize> = [(&'static str, &'static str); N];

/// What a request's answer was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A result.
    Ok,
    /// A result that reports a failure (`isError: true`, the tool's or the sidecar's).
    ToolError,
    /// A JSON-RPC error.
    Error,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::ToolError => "tool_error",
            Self::Error => "error",
        }
    }
}

/// The families recorded as the sidecar serves.
pub(crate) struct Metrics {
    requests: Family<Fixed<2>, Counter>,
    errors: Family<Fixed<1>, Counter>,
    durations: Family<Labels, Histogram, fn() -> Histogram>,
    /// Each server's histograms by tool name (bounded as the module doc says), so that a call
    /// finds its series without building its labels.
    servers: Mutex<HashMap<String, Tools>>,
    registry: Registry,
}

/// One server's call-duration series.
#[derive(Default)]
struct Tools {
    named: HashMap<String, Histogram>,
    /// `tool="_other"`, once the names are used up.
    other: Option<Histogram>,
}

/// The process-wide metrics.
pub(crate) fn global() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(Metrics::new)
}

fn duration_histogram() -> Histogram {
    // 1 ms to ~65 s, doubling.
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

impl Metrics {
    fn new() -> Self {
        let requests = Family::<Fixed<2>, Counter>::default();
        let errors = Family::<Fixed<1>, Counter>::default();
        let durations = Family::<Labels, Histogram, fn() -> Histogram>::new_with_constructor(
            duration_histogram,
        );
        let mut registry = Registry::with_prefix(PREFIX);
        registry.register(
            "requests",
            "Requests served, by method and outcome (ok, tool_error, error)",
            requests.clone(),
        );
        registry.register(
            "errors",
            "Tool calls that failed, by the sidecar's stable error code",
            errors.clone(),
        );
        registry.register(
            "call_duration_seconds",
            "Duration of tool calls on their server, by server and tool",
            durations.clone(),
        );
        Self {
            requests,
            errors,
            durations,
            servers: Mutex::default(),
            registry,
        }
    }

    /// One request answered.
    pub(crate) fn request(&self, method: &str, outcome: Outcome) {
        let labels = [
            ("method", method_label(method)),
            ("outcome", outcome.as_str()),
        ];
        self.requests.get_or_create(&labels).inc();
    }

    /// One tool call ended: the server and tool it called, and its duration, when it succeeded;
    /// else its error code.
    pub(crate) fn call(&self, outcome: Result<(&ServerName, &ToolName, Duration), &'static str>) {
        match outcome {
            Ok((server, tool, duration)) => self
                .histogram(server.as_str(), tool.as_str())
                .observe(duration.as_secs_f64()),
            Err(code) => {
                self.errors.get_or_create(&[("code", code)]).inc();
            }
        }
    }

    /// The series of `(server, tool)`, each name past its bound replaced by [`OTHER`].
    fn histogram(&self, server: &str, tool: &str) -> Histogram {
        let mut servers = self.servers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = servers.get(server).and_then(|t| t.named.get(tool)) {
            return found.clone();
        }
        let server = if servers.contains_key(server) || servers.len() < limits::METRICS_SERVERS_MAX
        {
            server
        } else {
            OTHER
        };
        let series = |tool: &str| {
            let labels = vec![("server", server.to_owned()), ("tool", tool.to_owned())];
            self.durations.get_or_create_owned(&labels)
        };
        let tools = servers.entry(server.to_owned()).or_default();
        if tools.named.len() < limits::METRICS_TOOLS_PER_SERVER {
            let histogram = series(tool);
            tools.named.insert(tool.to_owned(), histogram.clone());
            return histogram;
        }
        tools.other.get_or_insert_with(|| series(OTHER)).clone()
    }
}

/// One server as a scrape sees it, from the supervisor's own statistics.
pub(crate) struct ServerSample {
    pub name: String,
    pub state: &'static str,
    pub restarts: u64,
    pub in_flight: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

/// The whole exposition: the recorded families, then `servers` (every state in `states` gets a
/// series, zero included, so a state's series never vanishes) and `sessions` (open sessions per
/// era).
pub(crate) fn exposition(
    servers: &[ServerSample],
    states: &[&'static str],
    sessions: &[(&'static str, u64)],
) -> String {
    let mut scrape = Registry::with_prefix(PREFIX);
    let by_state = Family::<Labels, Gauge>::default();
    for state in states {
        let count = servers.iter().filter(|s| s.state == *state).count();
        by_state
            .get_or_create(&vec![("state", (*state).to_owned())])
            .set(count as i64);
    }
    scrape.register("servers", "Configured servers, by state", by_state);
    let restarts = Family::<Labels, Counter>::default();
    let in_flight = Family::<Labels, Gauge>::default();
    let bytes = Family::<Labels, Counter>::default();
    for s in servers.iter().take(limits::METRICS_SERVERS_MAX) {
        let server = || ("server", s.name.clone());
        restarts.get_or_create(&vec![server()]).inc_by(s.restarts);
        in_flight
            .get_or_create(&vec![server()])
            .set(i64::try_from(s.in_flight).unwrap_or(i64::MAX));
        bytes
            .get_or_create(&vec![("direction", "in".to_owned()), server()])
            .inc_by(s.bytes_in);
        bytes
            .get_or_create(&vec![("direction", "out".to_owned()), server()])
            .inc_by(s.bytes_out);
    }
    scrape.register(
        "restarts",
        "Automatic restarts of a server after failures",
        restarts,
    );
    scrape.register(
        "calls_in_flight",
        "Tool calls in flight on a server",
        in_flight,
    );
    scrape.register(
        "bytes",
        "Bytes of JSON-RPC messages read from (in) and written to (out) a server",
        bytes,
    );
    let open = Family::<Labels, Gauge>::default();
    for (era, count) in sessions {
        open.get_or_create(&vec![("era", (*era).to_owned())])
            .set(i64::try_from(*count).unwrap_or(i64::MAX));
    }
    scrape.register("sessions", "Client sessions open, by protocol era", open);
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = encode_registry(&mut text, &global().registry);
    let _ = encode_registry(&mut text, &scrape);
    let _ = encode_eof(&mut text);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_labels_stop_growing_at_the_bound() {
        let m = Metrics::new();
        let server = ServerName::from("s");
        for i in 0..1000 {
            let tool = ToolName::from(format!("tool{i}"));
            m.call(Ok((&server, &tool, Duration::from_millis(1))));
        }
        m.call(Ok((
            &server,
            &ToolName::from("tool0"),
            Duration::from_millis(1),
        )));
        let mut text = String::new();
        encode_registry(&mut text, &m.registry).unwrap();
        let series: std::collections::HashSet<&str> = text
            .lines()
            .filter(|l| l.starts_with("mcp_sidecar_call_duration_seconds_count"))
            .collect();
        assert_eq!(series.len(), limits::METRICS_TOOLS_PER_SERVER + 1);
        assert!(
            text.contains(
                r#"mcp_sidecar_call_duration_seconds_count{server="s",tool="_other"} 900"#
            ),
            "{text}"
        );
        assert!(
            text.contains(r#"mcp_sidecar_call_duration_seconds_count{server="s",tool="tool0"} 2"#),
            "{text}"
        );
    }
}
