//! A whole `tools/list` answer, spliced from the tools' rendered pieces: the entries, the token
//! totals, the fingerprint and — when some tools are deferred — the array a host hands its
//! provider (`providerTools`: loaded definitions, deferred ones in the provider's own shape, and a
//! search tool).
//!
//! Which servers are deferred: a listing's `defer: false` defers nothing; `defer: true` defers every
//! server but those configured `defer: false`; otherwise a server's own `defer` decides, and for the
//! rest the session's rule (`defer: true`, or a token budget the listing's total exceeds).
//!
//! The fingerprint is over the definitions (as always) when nothing is deferred, and over
//! `providerTools` when something is: equal fingerprints mean byte-identical arrays to send.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{json, Value};

use super::entry::Entry;
use super::pieces::{Piece, Pieces, Variant};
use crate::canonical::canonical_json;
use crate::convert::{self, defer, fingerprint_canonical, tokens, ToolFormat};

/// The session's deferral rule (`initialize`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeferRule {
    /// `defer: true`: every server's tools are deferred unless its config says `defer: false`.
    pub all: bool,
    /// `deferAboveTokens`: as `all`, once a listing's tools are estimated above this many tokens.
    pub above_tokens: Option<u64>,
}

/// What one server brings to a listing beyond its tools.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerInfo {
    /// The server's `defer` config field.
    pub defer: Option<bool>,
    /// Its `instructions` (the description of its namespace).
    pub instructions: Option<String>,
}

/// One tool as a listing sees it.
pub struct Tool<'a> {
    pub entry: &'a Entry,
    pub pieces: &'a Pieces,
}

/// Everything a listing is rendered from.
pub struct Source<'a> {
    /// In listing order (exposed name).
    pub tools: Vec<Tool<'a>>,
    pub servers: &'a BTreeMap<String, ServerInfo>,
    pub rule: DeferRule,
    /// The exposed name of the `search_tools` meta-tool.
    pub search_tools_name: &'a str,
}

/// A rendered `tools/list` result.
#[derive(Debug)]
pub struct Rendered {
    /// The whole result object, compact JSON (serde_json's own texts, spliced).
    pub json: Arc<str>,
    pub fingerprint: String,
}

/// Renders the result of `tools/list` in `variant`; `defer` is the listing's own override.
pub fn render(source: &Source<'_>, variant: Variant, defer: Option<bool>) -> Rendered {
    let plain: Vec<&Piece> = source
        .tools
        .iter()
        .map(|t| t.pieces.get(t.entry, variant, false))
        .collect();
    let mut per_server: BTreeMap<&str, u64> = BTreeMap::new();
    for (tool, piece) in source.tools.iter().zip(&plain) {
        *per_server.entry(tool.entry.server.as_str()).or_default() += piece.tokens;
    }
    let total: u64 = plain.iter().map(|p| p.tokens).sum();
    let deferred = deferred_servers(source, &per_server, total, defer);
    let mut tokens = json!({"total": total, "servers": per_server});
    if deferred.is_empty() {
        let fingerprint = fingerprint_canonical(plain.iter().map(|p| &*p.definition));
        let entries = plain.iter().map(|p| &*p.entry);
        return assemble(fingerprint, None, &tokens, entries);
    }
    let pieces: Vec<&Piece> = source
        .tools
        .iter()
        .map(|t| {
            let is_deferred = deferred.contains(t.entry.server.as_str());
            t.pieces.get(t.entry, variant, is_deferred)
        })
        .collect();
    let provider = provider_tools(source, variant, &deferred, &pieces);
    tokens["deferred"] = Value::from(
        source
            .tools
            .iter()
            .zip(&plain)
            .filter(|(t, _)| deferred.contains(t.entry.server.as_str()))
            .map(|(_, p)| p.tokens)
            .sum::<u64>(),
    );
    tokens["upfront"] = Value::from(tokens::estimate(provider.upfront_bytes));
    let fingerprint = fingerprint_canonical(provider.items.iter().map(String::as_str));
    let entries = pieces.iter().map(|p| &*p.entry);
    assemble(fingerprint, Some(&provider.items), &tokens, entries)
}

/// The servers whose tools this listing defers.
fn deferred_servers<'a>(
    source: &'a Source<'_>,
    present: &BTreeMap<&'a str, u64>,
    total: u64,
    defer: Option<bool>,
) -> BTreeSet<&'a str> {
    let session = source.rule.all
        || source
            .rule
            .above_tokens
            .is_some_and(|budget| total > budget);
    present
        .keys()
        .copied()
        .filter(|server| {
            let own = source.servers.get(*server).and_then(|s| s.defer);
            match (defer, own) {
                (Some(false), _) => false,
                (Some(true), own) => own != Some(false),
                (None, Some(own)) => own,
                (None, None) => session,
            }
        })
        .collect()
}

/// `providerTools` as canonical JSON texts, and the bytes a model sees of them up front.
struct ProviderTools {
    items: Vec<String>,
    upfront_bytes: usize,
}

fn provider_tools(
    source: &Source<'_>,
    variant: Variant,
    deferred: &BTreeSet<&str>,
    pieces: &[&Piece],
) -> ProviderTools {
    let is_deferred = |i: usize| deferred.contains(source.tools[i].entry.server.as_str());
    let mut items = Vec::new();
    let mut upfront_bytes = 0;
    let mut add = |items: &mut Vec<String>, text: String, seen: usize| {
        upfront_bytes += seen + 1;
        items.push(text);
    };
    match variant.format {
        ToolFormat::OpenaiResponses => {
            for (_, piece) in pieces.iter().enumerate().filter(|(i, _)| !is_deferred(*i)) {
                add(
                    &mut items,
                    piece.definition.to_string(),
                    piece.definition.len(),
                );
            }
            for server in deferred {
                let tools: Vec<&str> = pieces
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| source.tools[*i].entry.server == *server)
                    .map(|(_, p)| &*p.definition)
                    .collect();
                let instructions = source
                    .servers
                    .get(*server)
                    .and_then(|s| s.instructions.as_deref());
                let description = defer::namespace_description(server, instructions);
                let header = defer::namespace_json(server, &description, &[]).len();
                add(
                    &mut items,
                    defer::namespace_json(server, &description, &tools),
                    header,
                );
            }
        }
        ToolFormat::Anthropic => {
            for (i, piece) in pieces.iter().enumerate() {
                let seen = if is_deferred(i) {
                    0
                } else {
                    piece.definition.len()
                };
                add(&mut items, piece.definition.to_string(), seen);
            }
        }
        _ => {
            for (_, piece) in pieces.iter().enumerate().filter(|(i, _)| !is_deferred(*i)) {
                add(
                    &mut items,
                    piece.definition.to_string(),
                    piece.definition.len(),
                );
            }
            let counts: Vec<(&str, usize)> = deferred
                .iter()
                .map(|s| {
                    let n = source.tools.iter().filter(|t| t.entry.server == *s).count();
                    (*s, n)
                })
                .collect();
            let meta = convert::definition(
                variant.format,
                variant.options(),
                source.search_tools_name,
                &defer::search_tools_tool(&counts),
            )
            .definition;
            let text = canonical_json(&meta);
            let len = text.len();
            add(&mut items, text, len);
        }
    }
    if let Some(search) = defer::native_search_tool(variant.format) {
        let text = canonical_json(&search);
        let len = text.len();
        add(&mut items, text, len);
    }
    ProviderTools {
        items,
        upfront_bytes,
    }
}

/// `{"fingerprint", "providerTools"?, "tokens", "tools"}` (sorted keys) as one JSON text.
fn assemble<'a>(
    fingerprint: String,
    provider: Option<&[String]>,
    tokens: &Value,
    entries: impl Iterator<Item = &'a str>,
) -> Rendered {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("{\"fingerprint\":\"");
    out.push_str(&fingerprint);
    out.push('"');
    if let Some(items) = provider {
        out.push_str(",\"providerTools\":[");
        out.push_str(&items.join(","));
        out.push(']');
    }
    out.push_str(",\"tokens\":");
    out.push_str(&canonical_json(tokens));
    out.push_str(",\"tools\":[");
    for (i, entry) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(entry);
    }
    out.push_str("]}");
    Rendered {
        json: Arc::from(out),
        fingerprint,
    }
}
