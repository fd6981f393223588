//! `servers/load`: reads a config file, a directory of plugins and projects, or an inline document,
//! and adds every server it defines. Problems are diagnostics in the result, never an error response:
//! one bad server never stops the others.

use std::sync::Arc;

use serde_json::{json, Value};

use super::params::LoadServers;
use crate::config::diagnostics::{Diagnostic, Kind};
use crate::config::expand::process_env;
use crate::config::load::{load, Loaded, Request};
use crate::error::{Error, ErrorCode, Result};
use crate::supervisor::{AddOptions, Registry};

/// `{added: [status], diagnostics: [diagnostic], trustRequired: [trust request]}`.
///
/// Every server starts at once: a slow one never holds up the others, each one's tools are
/// announced (`notifications/tools/changed`) as soon as it is ready, and with `wait` the answer
/// comes once the last has ended. Results keep the file's order.
pub async fn run(registry: &Arc<Registry>, p: LoadServers) -> Result<Value> {
    let loaded = read(&p).await?;
    let mut diagnostics = loaded.diagnostics;
    let adds = loaded.servers.iter().map(|c| {
        let options = AddOptions {
            source: c.source,
            trust: p.trust.get(&c.name).cloned(),
            plugin_root: c.plugin_root.clone(),
        };
        registry.add_with(&c.name, &c.config, p.wait, options)
    });
    let outcomes = futures_util::future::join_all(adds).await;
    let mut added = Vec::new();
    let mut trust_required = Vec::new();
    for (c, outcome) in loaded.servers.iter().zip(outcomes) {
        match outcome {
            Ok(status) => added.push(status),
            Err(e) if e.code == ErrorCode::TrustRequired => {
                let mut request = Value::Object(e.details.clone());
                request["name"] = Value::from(c.name.as_str());
                trust_required.push(request);
            }
            Err(e) => {
                let kind = if e.code == ErrorCode::ServerExists {
                    Kind::Duplicate
                } else {
                    Kind::Invalid
                };
                diagnostics
                    .push(Diagnostic::error(kind, c.path.clone(), e.message).for_server(&c.name));
            }
        }
    }
    Ok(json!({"added": added, "diagnostics": diagnostics, "trustRequired": trust_required}))
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
