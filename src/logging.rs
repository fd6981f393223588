//! Logging set-up: every log line goes to stderr through `tracing` (stdout is protocol-only).
//!
//! Two formats, for the two readers of a sidecar's stderr:
//! - [`LogFormat::Text`], for people: one line per event, coloured only when stderr is a terminal
//!   (a sidecar's stderr is nearly always a pipe into its host, where escape codes are noise) and
//!   `NO_COLOR` is unset;
//! - [`LogFormat::Json`], for log pipelines: one flat JSON object per line (`timestamp`, `level`,
//!   `target`, `message`, the event's other fields and its spans' fields at the top level:
//!   [`flat_json`]), never coloured.
//!
//! Every line passes through [`MaskingStderr`] on its way out: the process-wide, append-only set of
//! secret values ([`register_secrets`], fed whenever a server's secrets are collected) is replaced
//! by `***` in each formatted event, at every level. Call sites mask too (they know their server's
//! secrets); this is the net under all of them — a `Debug` of a spec, a server's stderr at debug
//! level, an HTTP error body. With no secret registered the writer is a plain stderr write.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};

mod flat_json;
pub(crate) use flat_json::FlatJson;

/// What a secret becomes in any output (`trust::secrets` uses this same mask).
pub const MASK: &str = "***";

/// Most bytes of distinct secret values the log net holds. Hosts add servers (and their secrets)
/// at will, so the append-only set needs a bound of its own; past it, new values are still masked
/// by every call site that knows its server's secrets, only not by this last net (warned once).
/// (Here rather than in `limits`: both stand on the lowest floor.)
pub(crate) const LOG_SECRETS_MAX_BYTES: usize = 1024 * 1024;

/// The values masked in every log line, and their matcher (`None` until one is registered).
struct Registry {
    values: Mutex<Known>,
    matcher: RwLock<Option<Arc<AhoCorasick>>>,
}

/// The distinct values registered (`None` until the first: a `HashSet` cannot be built in a
/// `static`), and their total size.
struct Known {
    values: Option<HashSet<String>>,
    bytes: usize,
    full: bool,
}

impl Known {
    /// Adds `v` unless it is empty, known, or would take the set past `max_bytes` (then `full`).
    fn add(&mut self, v: &str, max_bytes: usize) {
        let values = self.values.get_or_insert_with(HashSet::new);
        if v.is_empty() || values.contains(v) {
            return;
        }
        if self.bytes + v.len() > max_bytes {
            self.full = true;
            return;
        }
        values.insert(v.to_owned());
        self.bytes += v.len();
    }
}

static REGISTRY: Registry = Registry {
    values: Mutex::new(Known {
        values: None,
        bytes: 0,
        full: false,
    }),
    matcher: RwLock::new(None),
};

/// Whether any secret was ever registered: until then a log line costs one atomic load more.
static ANY_SECRET: AtomicBool = AtomicBool::new(false);

/// Adds secret values to the set masked in every log line. Append-only: a value stays masked for
/// the life of the process (a removed server's secret is still a secret). Empty values are ignored.
pub(crate) fn register_secrets<'a>(values: impl IntoIterator<Item = &'a str>) {
    let mut guard = REGISTRY.values.lock().unwrap_or_else(|p| p.into_inner());
    let known = &mut *guard;
    let before = known.bytes;
    let was_full = known.full;
    for v in values {
        known.add(v, LOG_SECRETS_MAX_BYTES);
    }
    let newly_full = known.full && !was_full;
    if known.bytes != before {
        // Leftmost-longest: a value that contains another is masked whole.
        if let Ok(matcher) = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(known.values.iter().flatten())
        {
            *REGISTRY.matcher.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(matcher));
            ANY_SECRET.store(true, Ordering::Release);
        }
    }
    drop(guard);
    if newly_full {
        tracing::warn!(
            "the log's secret set is full ({LOG_SECRETS_MAX_BYTES} bytes); secrets of servers added from now on are masked where they are known, not by the log's last net"
        );
    }
}

/// `text` with every registered secret replaced by `***` (borrowed when there is none in it).
pub(crate) fn mask_registered(text: &str) -> std::borrow::Cow<'_, str> {
    match current_matcher() {
        Some(m) if m.is_match(text) => m.replace_all(text, &vec![MASK; m.patterns_len()]).into(),
        _ => text.into(),
    }
}

fn current_matcher() -> Option<Arc<AhoCorasick>> {
    if !ANY_SECRET.load(Ordering::Acquire) {
        return None;
    }
    REGISTRY
        .matcher
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

/// The log's `MakeWriter`: stderr, through the registered secrets' mask.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MaskingStderr;

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for MaskingStderr {
    type Writer = MaskingWriter;

    fn make_writer(&'a self) -> Self::Writer {
        MaskingWriter {
            matcher: current_matcher(),
        }
    }
}

/// One event's writer. The formatter hands it each event whole, in one `write_all` (one `write`
/// here, which consumes everything), so a secret is never split across two calls. A failed write
/// (a reader that closed our stderr: EPIPE) is swallowed: a log line is never worth a panic, nor
/// an error that could reach a caller that treats it as one.
pub(crate) struct MaskingWriter {
    matcher: Option<Arc<AhoCorasick>>,
}

impl Write for MaskingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut err = std::io::stderr().lock();
        let _ = match &self.matcher {
            Some(m) if m.is_match(buf) => {
                let masked = m.replace_all_bytes(buf, &vec![MASK.as_bytes(); m.patterns_len()]);
                err.write_all(&masked)
            }
            _ => err.write_all(buf),
        };
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

/// How log lines are written to stderr (`--log-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
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
pub(crate) fn init(filter: Option<&str>, format: LogFormat) {
    let filter = filter
        .map(str::to_owned)
        .or_else(|| std::env::var("MCP_SIDECAR_LOG").ok())
        .unwrap_or_else(|| DEFAULT_FILTER.to_owned());
    let filter = tracing_subscriber::EnvFilter::try_new(&filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_writer(MaskingStderr)
        .with_env_filter(filter)
        .with_target(false)
        // A host that closed our stderr must not turn a log line into a panic (and a panic into
        // servers that are never stopped): write errors are dropped silently.
        .log_internal_errors(false);
    match format {
        LogFormat::Text => builder.with_ansi(colour_wanted()).init(),
        LogFormat::Json => builder
            .with_ansi(false)
            .fmt_fields(tracing_subscriber::fmt::format::JsonFields::new())
            .event_format(FlatJson)
            .init(),
    }
}

/// Writes one line to stderr for a person (a refusal before logging matters, a last word before
/// exit), through the secrets' mask, ignoring a closed stderr: `eprintln!` would panic there.
pub(crate) fn say(line: std::fmt::Arguments<'_>) {
    // Whole, in one write: a secret is never split across two.
    let _ = MaskingStderr
        .make_writer_now()
        .write_all(format!("{line}\n").as_bytes());
}

impl MaskingStderr {
    /// The writer of one line, outside any subscriber.
    fn make_writer_now(&self) -> MaskingWriter {
        MaskingWriter {
            matcher: current_matcher(),
        }
    }
}

/// Colour only for a person at a terminal who did not opt out (<https://no-color.org>).
fn colour_wanted() -> bool {
    let opted_out = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !opted_out && std::io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::fmt::MakeWriter;

    /// The set is bounded: distinct values only, and none past the byte bound.
    #[test]
    fn the_secret_set_is_bounded() {
        let mut known = Known {
            values: None,
            bytes: 0,
            full: false,
        };
        for v in ["abcd", "abcd", "", "efgh", "ijkl"] {
            known.add(v, 10);
        }
        let mut values: Vec<_> = known.values.iter().flatten().map(String::as_str).collect();
        values.sort_unstable();
        assert_eq!(values, ["abcd", "efgh"]);
        assert_eq!(known.bytes, 8);
        assert!(known.full);
    }

    #[test]
    fn registered_values_are_masked_longest_first() {
        assert_eq!(
            mask_registered("nothing-registered-here"),
            "nothing-registered-here"
        );
        register_secrets(["log-secret-1234", "log-secret-1234-and-more", ""]);
        register_secrets(["log-secret-1234"]);
        assert_eq!(
            mask_registered("a log-secret-1234-and-more b log-secret-1234 c"),
            "a *** b *** c"
        );
        let mut w = MaskingStderr.make_writer();
        assert_eq!(w.write(b"x log-secret-1234\n").unwrap(), 18);
    }
}
