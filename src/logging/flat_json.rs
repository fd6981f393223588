//! The `--log-format json` line: one flat JSON object per event, the shape log pipelines expect —
//! `timestamp`, `level`, `target` and `message` at the top level, next to the event's own fields
//! and the fields of every span it happened in (outermost first, an inner span's or the event's
//! own field winning a name they share). tracing-subscriber's JSON formatter nests the message and
//! fields under `fields` and span fields under `span`/`spans`, so the line is built here.

use std::fmt;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::{JsonFields, Writer};
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// The event formatter of `--log-format json` (its span fields are recorded by [`JsonFields`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FlatJson;

impl<S> FormatEvent<S, JsonFields> for FlatJson
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, JsonFields>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut line = Map::new();
        let mut span_names = Vec::new();
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                span_names.push(Value::from(span.name()));
                let extensions = span.extensions();
                let Some(fields) = extensions.get::<FormattedFields<JsonFields>>() else {
                    continue;
                };
                if let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(fields.as_str()) {
                    line.extend(fields);
                }
            }
        }
        event.record(&mut Fields(&mut line));
        let meta = event.metadata();
        let mut timestamp = String::new();
        SystemTime.format_time(&mut Writer::new(&mut timestamp))?;
        line.insert("timestamp".into(), Value::String(timestamp));
        line.insert("level".into(), Value::from(meta.level().as_str()));
        line.insert("target".into(), Value::from(meta.target()));
        if !span_names.is_empty() {
            line.insert("spans".into(), Value::Array(span_names));
        }
        writeln!(writer, "{}", Value::Object(line))
    }
}

/// An event's fields as JSON values: numbers and booleans as such, everything else as text.
struct Fields<'a>(&'a mut Map<String, Value>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().into(), Value::String(format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), Value::from(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().into(), Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().into(), Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().into(), Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().into(), Value::from(value));
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// Lines written by a subscriber set up as `init` sets up `--log-format json`.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn message_fields_and_span_fields_are_at_the_top_level() {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .fmt_fields(JsonFields::new())
            .event_format(FlatJson)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let outer = tracing::info_span!("session", client = "claude", n = 1);
            let _outer = outer.enter();
            let inner = tracing::info_span!("call", server = "Time Server", n = 2);
            let _inner = inner.enter();
            tracing::warn!(
                tool = "now",
                ms = 12u64,
                ok = true,
                "the call took {}",
                "long"
            );
        });
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line: Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(line["message"], "the call took long", "{line}");
        assert_eq!(line["level"], "WARN");
        assert!(line["target"].as_str().unwrap().contains("flat_json"));
        assert!(line["timestamp"].as_str().unwrap().contains('T'));
        assert_eq!(line["tool"], "now");
        assert_eq!(line["ms"], 12);
        assert_eq!(line["ok"], true);
        assert_eq!(line["client"], "claude", "an outer span's field");
        assert_eq!(line["server"], "Time Server", "an inner span's field");
        assert_eq!(line["n"], 2, "the inner span wins a shared name");
        assert_eq!(line["spans"], serde_json::json!(["session", "call"]));
        assert!(line.get("fields").is_none() && line.get("span").is_none());
    }
}
