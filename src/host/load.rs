//! `servers/load`: reads a config file, a directory of plugins and projects, or an inline document,
//! and adds every server it defines. Problems are diagnostics in the result, never an error response:
//! one bad server never stops the others. The answer is bounded
//! ([`limits::SERVERS_LOAD_ANSWER_MAX_BYTES`]): what does not fit is counted, not sent.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::Notify;

use super::params::LoadServers;
use crate::config::diagnostics::{Diagnostic, Kind};
use crate::config::expand::process_env;
use crate::config::load::{load, Loaded, Request};
use crate::error::{Error, Result};
use crate::limits;
use crate::supervisor::{watch_config_files, ConfigFiles, LoadOutcome, Registry};

/// `{added: [status], diagnostics: [diagnostic], trustRequired: [trust request]}`.
///
/// Every server starts at once (`Registry::add_loaded`): a slow one never holds up the others,
/// each one's tools are announced (`notifications/tools/changed`) as soon as it is ready, and with
/// `wait` the answer comes once the last has ended. Results keep the file's order.
///
/// With `watch` (a `path` only), the file is kept in force afterwards: each edit reloads it, and
/// exactly the servers whose entries changed are added, restarted or removed
/// (`supervisor::ConfigFiles`), the trust gate applied as at this load.
pub(super) async fn run(registry: &Arc<Registry>, p: LoadServers) -> Result<Value> {
    let watched = match (&p.path, p.watch) {
        (_, false) => None,
        (Some(path), true) => Some(path.clone()),
        (None, true) => {
            return Err(
                Error::invalid_params("`watch` needs a `path`: a document cannot change")
                    .with("field", "watch"),
            )
        }
    };
    let loaded = read(&p).await?;
    let candidates = watched.as_ref().map(|_| loaded.servers.clone());
    let outcome = registry.add_loaded(loaded, &p.trust, p.wait).await;
    if let (Some(path), Some(candidates)) = (watched, candidates) {
        let files =
            ConfigFiles::new(vec![path], p.trust.clone()).reading_as(p.dialect, p.inputs.clone());
        let added: BTreeSet<&str> = outcome.added.iter().map(|s| s.name.as_str()).collect();
        files.adopt(
            candidates
                .iter()
                .filter(|c| added.contains(c.name.as_str())),
        );
        keep_in_force(registry, files);
    }
    Ok(answer(outcome, limits::SERVERS_LOAD_ANSWER_MAX_BYTES))
}

/// Watches the files of `files` and reloads them on each edit for as long as the registry lives.
fn keep_in_force(registry: &Arc<Registry>, files: ConfigFiles) {
    let wake = Arc::new(Notify::new());
    let watching = watch_config_files(files.paths(), Arc::clone(&wake));
    let registry = Arc::downgrade(registry);
    tokio::spawn(async move {
        let _watching = watching;
        // The host hears of each change through the registry's own notifications.
        files.keep_in_force(registry, wake, |_| {}).await;
    });
}

/// The answer within `max` bytes: statuses first, then trust requests, then diagnostics, each kept
/// while it fits. What is left out is counted in one last error diagnostic, so a host learns that
/// it did not see everything (the servers' statuses are in `servers/list`; a trust request comes
/// again with a load of fewer files).
fn answer(outcome: LoadOutcome, max: usize) -> Value {
    // Room kept for the counting diagnostic and the object around the lists.
    let mut room = max.saturating_sub(1024);
    let (added, added_out) = fit(to_values(outcome.added), &mut room);
    let (trust, trust_out) = fit(outcome.trust_required, &mut room);
    let (mut diagnostics, diags_out) = fit(to_values(outcome.diagnostics), &mut room);
    if added_out + trust_out + diags_out > 0 {
        let note = Diagnostic::error(
            Kind::TooLarge,
            "",
            format!(
                "the answer may hold {max} bytes: {added_out} statuses, {trust_out} trust requests and {diags_out} diagnostics are left out; load fewer files at once"
            ),
        );
        diagnostics.push(serde_json::to_value(note).unwrap_or_default());
    }
    json!({
        "added": added,
        "diagnostics": diagnostics,
        "trustRequired": trust,
    })
}

fn to_values<T: serde::Serialize>(items: Vec<T>) -> Vec<Value> {
    items
        .into_iter()
        .map(|i| serde_json::to_value(i).unwrap_or_default())
        .collect()
}

/// The first `items` whose JSON fits in `room` (which shrinks by what they take), and how many
/// did not fit.
fn fit(items: Vec<Value>, room: &mut usize) -> (Vec<Value>, usize) {
    let total = items.len();
    let mut kept = Vec::new();
    for item in items {
        let size = json_len(&item) + 1;
        if size > *room {
            break;
        }
        *room -= size;
        kept.push(item);
    }
    let left_out = total - kept.len();
    (kept, left_out)
}

/// Bytes of `v` as compact JSON, counted without building the text.
fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, v);
    count.0
}

/// Reads the configuration; the file-system work runs on the blocking pool.
async fn read(p: &LoadServers) -> Result<Loaded> {
    let request = match (&p.path, &p.json, &p.text) {
        (Some(path), None, None) => Request::Path(path.clone()),
        (None, Some(doc), None) => Request::Document(doc.clone()),
        (None, None, Some(text)) => Request::Document(Value::from(text.as_str())),
        _ => {
            return Err(Error::invalid_params(
                "servers/load takes exactly one of `path`, `json` or `text`",
            )
            .with("field", "path"))
        }
    };
    Ok(load(request, p.dialect, p.inputs.clone(), process_env).await)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the bound, items are left out in order and one diagnostic counts them.
    #[test]
    fn the_answer_keeps_what_fits_and_counts_the_rest() {
        let big = json!({"name": "s", "args": ["x".repeat(600)]});
        let outcome = LoadOutcome {
            trust_required: vec![big.clone(), big.clone(), big],
            diagnostics: vec![Diagnostic::warning(Kind::Invalid, "p", "m")],
            ..LoadOutcome::default()
        };
        let a = answer(outcome, 2400);
        assert_eq!(a["trustRequired"].as_array().unwrap().len(), 2, "{a}");
        let diags = a["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 2, "the small diagnostic still fits: {a}");
        let last = &diags[diags.len() - 1];
        assert_eq!(last["kind"], "too-large");
        assert!(
            last["message"]
                .as_str()
                .unwrap()
                .contains("0 statuses, 1 trust requests and 0 diagnostics are left out"),
            "{last}"
        );
        assert!(json_len(&a) <= 2400, "{}", json_len(&a));
        let small = answer(LoadOutcome::default(), 2400);
        assert_eq!(small["diagnostics"], json!([]));
    }
}
