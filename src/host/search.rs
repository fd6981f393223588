//! Finding tools: `tools/search` (ranked entries with scores, for a host) and the `search_tools`
//! meta-tool (for a model whose provider has no tool search of its own: its call result carries
//! the matching definitions, which the host adds to its next request).

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::call_result::{call_result, CallAnswer};
use super::params::SearchTools;
use crate::convert::{self, defer, ToolFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::limits::{SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_QUERY_MAX_BYTES};
use crate::names::{ServerName, ToolName};
use crate::supervisor::Registry;

/// `tools/search`: `{tools: [entry + score (+ exact)], total}` as JSON text.
pub(super) fn search(registry: &Arc<Registry>, p: SearchTools) -> Result<Arc<str>> {
    check_query(&p.query).map_err(|why| Error::invalid_params(why).with("field", "query"))?;
    let limit = match p.limit {
        None => SEARCH_DEFAULT_LIMIT,
        Some(n) if (1..=SEARCH_MAX_LIMIT).contains(&n) => n,
        Some(n) => {
            return Err(Error::invalid_params(format!(
                "limit {n} is out of range; expected 1..={SEARCH_MAX_LIMIT}"
            ))
            .with("field", "limit"))
        }
    };
    registry.check_servers(p.servers.as_deref())?;
    registry.relist_expired();
    let (format, options) = registry.format_options(p.format, p.strict);
    let catalog = registry.catalog();
    let (found, total) = catalog.search(&p.query, limit, p.servers.as_deref(), format, options);
    let mut out = String::from("{\"tools\":[");
    for (i, hit) in found.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        // The entry's own object with the match's fields spliced in front.
        out.push('{');
        if hit.exact {
            out.push_str("\"exact\":true,");
        }
        out.push_str("\"score\":");
        out.push_str(&json!(rounded(hit.score)).to_string());
        out.push(',');
        out.push_str(&hit.json[1..]);
    }
    out.push_str("],\"total\":");
    out.push_str(&total.to_string());
    out.push('}');
    Ok(Arc::from(out))
}

/// A `tools/call` of the `search_tools` meta-tool: the matching tools' definitions in the
/// session's format, as a tool result (`structuredContent.tools`, and as text for the model).
pub(super) fn call_search_tools(
    registry: &Arc<Registry>,
    name: &str,
    arguments: Option<Value>,
    output_format: ToolFormat,
) -> Result<CallAnswer> {
    let started = Instant::now();
    let (query, limit) = meta_arguments(name, arguments.as_ref())?;
    registry.relist_expired();
    let (format, options) = registry.format_options(None, None);
    let catalog = registry.catalog();
    let (found, _) = catalog.search(&query, limit, None, format, options);
    let definitions: Vec<Value> = found
        .iter()
        .filter_map(|hit| serde_json::from_str(hit.definition).ok())
        .collect();
    let text = if definitions.is_empty() {
        format!("No tool matches {query:?}. Try other words, or a tool's exact name.")
    } else {
        let names: Vec<&str> = found.iter().map(|hit| hit.entry.name.as_str()).collect();
        let plural = if names.len() == 1 { "" } else { "s" };
        format!(
            "Loaded {} tool{plural}: {}. They can be called now. Definitions: {}",
            names.len(),
            names.join(", "),
            Value::from(definitions.clone())
        )
    };
    let result = json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"tools": definitions},
    });
    let converted = convert::convert_owned(output_format, result);
    Ok(call_result(
        converted,
        ServerName::from(defer::SEARCH_TOOLS_SERVER),
        ToolName::from(defer::SEARCH_TOOLS),
        started.elapsed(),
    ))
}

/// `{query, limit?}` of a meta-tool call; INVALID_ARGUMENTS naming the problem otherwise.
fn meta_arguments(name: &str, arguments: Option<&Value>) -> Result<(String, usize)> {
    let bad = |message: String| {
        Error::new(
            ErrorCode::InvalidArguments,
            format!("arguments for tool `{name}`: {message}"),
        )
        .with("name", name)
        .with("server", defer::SEARCH_TOOLS_SERVER)
        .with("tool", defer::SEARCH_TOOLS)
    };
    let empty = serde_json::Map::new();
    let args = match arguments {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(args)) => args,
        Some(_) => return Err(bad("must be an object".into())),
    };
    if let Some(unknown) = args.keys().find(|k| *k != "query" && *k != "limit") {
        return Err(bad(format!("unknown argument `{unknown}`")));
    }
    let query = match args.get("query") {
        Some(Value::String(q)) => q.clone(),
        _ => return Err(bad("`query` (a string) is required".into())),
    };
    check_query(&query).map_err(bad)?;
    let limit = match args.get("limit") {
        None | Some(Value::Null) => defer::SEARCH_TOOLS_DEFAULT_LIMIT,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| (1..=defer::SEARCH_TOOLS_MAX_LIMIT).contains(n))
            .ok_or_else(|| {
                bad(format!(
                    "`limit` must be an integer in 1..={}",
                    defer::SEARCH_TOOLS_MAX_LIMIT
                ))
            })?,
    };
    Ok((query, limit))
}

/// A query must say something, within [`SEARCH_QUERY_MAX_BYTES`].
fn check_query(query: &str) -> std::result::Result<(), String> {
    if query.trim().is_empty() {
        return Err("query must not be empty".into());
    }
    if query.len() > SEARCH_QUERY_MAX_BYTES {
        return Err(format!(
            "query is {} bytes; at most {SEARCH_QUERY_MAX_BYTES} are searched",
            query.len()
        ));
    }
    Ok(())
}

/// Scores to 4 decimals: enough to order, short on the wire.
fn rounded(score: f64) -> f64 {
    (score * 10_000.0).round() / 10_000.0
}
