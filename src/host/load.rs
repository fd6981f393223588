//! `servers/load`: reads a config file, a directory of plugins and projects, or an inline document,
//! and adds every server it defines. Problems are diagnostics in the result, never an error response:
//! one bad server never stops the others.

use std::sync::Arc;

use serde_json::{json, Value};

use super::params::LoadServers;
use crate::config::expand::process_env;
use crate::config::load::{load, Loaded, Request};
use crate::error::{Error, Result};
use crate::supervisor::Registry;

/// `{added: [status], diagnostics: [diagnostic], trustRequired: [trust request]}`.
///
/// Every server starts at once (`Registry::add_loaded`): a slow one never holds up the others,
/// each one's tools are announced (`notifications/tools/changed`) as soon as it is ready, and with
/// `wait` the answer comes once the last has ended. Results keep the file's order.
pub async fn run(registry: &Arc<Registry>, p: LoadServers) -> Result<Value> {
    let loaded = read(&p).await?;
    let outcome = registry.add_loaded(loaded, &p.trust, p.wait).await;
    Ok(json!({
        "added": outcome.added,
        "diagnostics": outcome.diagnostics,
        "trustRequired": outcome.trust_required,
    }))
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
