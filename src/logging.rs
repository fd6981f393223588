//! Logging set-up: every log line goes to stderr through `tracing` (stdout is protocol-only).
//!
//! Two formats, for the two readers of a sidecar's stderr:
//! - [`LogFormat::Text`], for people: one line per event, coloured only when stderr is a terminal
//!   (a sidecar's stderr is nearly always a pipe into its host, where escape codes are noise) and
//!   `NO_COLOR` is unset;
//! - [`LogFormat::Json`], for log pipelines: one JSON object per line (`timestamp`, `level`,
//!   `fields.message` and the event's other fields, `spans`), never coloured.

use std::io::IsTerminal;

/// How log lines are written to stderr (`--log-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// The filter used when neither `--log` nor `MCP_SIDECAR_LOG` gives a valid one.
const DEFAULT_FILTER: &str = "info";

/// Installs the global subscriber. `filter` (from `--log`) wins over `MCP_SIDECAR_LOG`; an invalid
/// filter falls back to [`DEFAULT_FILTER`] rather than failing the start.
pub fn init(filter: Option<&str>, format: LogFormat) {
    let filter = filter
        .map(str::to_owned)
        .or_else(|| std::env::var("MCP_SIDECAR_LOG").ok())
        .unwrap_or_else(|| DEFAULT_FILTER.to_owned());
    let filter = tracing_subscriber::EnvFilter::try_new(&filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_target(false)
        // A host that closed our stderr must not turn a log line into a panic (and a panic into
        // servers that are never stopped): write errors are dropped silently.
        .log_internal_errors(false);
    match format {
        LogFormat::Text => builder.with_ansi(colour_wanted()).init(),
        LogFormat::Json => builder.json().with_ansi(false).init(),
    }
}

/// Colour only for a person at a terminal who did not opt out (<https://no-color.org>).
fn colour_wanted() -> bool {
    let opted_out = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !opted_out && std::io::stderr().is_terminal()
}
