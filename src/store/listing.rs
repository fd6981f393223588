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

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{json, Value};

use super::entry::Entry;
use super::pieces::{Piece, Pieces, Variant};
use crate::canonical::canonical_json;
use crate::convert::{self, defer, fingerprint_canonical, tokens, ToolFormat};
use crate::names::ServerName;

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
    /// Its `instructions` (the description of its namespace; `servers` of the listing).
    pub instructions: Option<String>,
    /// Its tools held by `pinTools` until the host accepts them (`withheld` of the listing):
    /// `{server, tool, hash, acceptedHash, definition}` each.
    pub withheld: Vec<Value>,
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
    pub servers: &'a BTreeMap<ServerName, ServerInfo>,
    /// The servers the listing is limited to (`tools/list {servers}`).
    pub only: Option<&'a [String]>,
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
    let extra = per_server_parts(source, &per_server);
    let mut tokens = json!({"total": total, "servers": per_server});
    if deferred.is_empty() {
        let fingerprint = fingerprint_canonical(plain.iter().map(|p| &*p.definition));
        return assemble(fingerprint, None, &extra, &tokens, &plain);
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
    let fingerprint = fingerprint_canonical(provider.items.iter().map(|t| &**t));
    assemble(fingerprint, Some(&provider.items), &extra, &tokens, &pieces)
}

/// What the listing says of its servers besides their tools: `servers` (one member per server
/// with a tool listed: `{instructions?}`) and `withheld` (the held tools of the listing's servers;
/// absent when none), as canonical JSON texts.
struct ServerParts {
    servers: String,
    withheld: Option<String>,
}

fn per_server_parts(source: &Source<'_>, present: &BTreeMap<&str, u64>) -> ServerParts {
    let servers: serde_json::Map<String, Value> = present
        .keys()
        .map(|name| {
            let mut note = serde_json::Map::new();
            let info = source.servers.get(*name);
            if let Some(instructions) = info.and_then(|i| i.instructions.as_deref()) {
                note.insert("instructions".into(), Value::from(instructions));
            }
            ((*name).to_owned(), Value::Object(note))
        })
        .collect();
    let withheld: Vec<&Value> = source
        .servers
        .iter()
        .filter(|(name, _)| {
            source
                .only
                .is_none_or(|only| only.iter().any(|o| *name == o))
        })
        .flat_map(|(_, info)| &info.withheld)
        .collect();
    ServerParts {
        servers: canonical_json(&Value::Object(servers)),
        withheld: (!withheld.is_empty()).then(|| canonical_json(&json!(withheld))),
    }
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

/// `providerTools` as canonical JSON texts (definitions borrowed from their pieces), and the bytes
/// a model sees of them up front.
#[derive(Default)]
struct ProviderTools<'a> {
    items: Vec<Cow<'a, str>>,
    upfront_bytes: usize,
}

impl<'a> ProviderTools<'a> {
    /// Adds one item, of which the model sees `seen` bytes before any search.
    fn push(&mut self, text: Cow<'a, str>, seen: usize) {
        self.upfront_bytes += seen + 1;
        self.items.push(text);
    }

    /// A definition, loaded (seen whole) or deferred (not seen).
    fn definition(&mut self, piece: &'a Piece, loaded: bool) {
        let seen = if loaded { piece.definition.len() } else { 0 };
        self.push(Cow::Borrowed(&piece.definition), seen);
    }
}

fn provider_tools<'a>(
    source: &Source<'_>,
    variant: Variant,
    deferred: &BTreeSet<&str>,
    pieces: &[&'a Piece],
) -> ProviderTools<'a> {
    let server_of = |i: usize| source.tools[i].entry.server.as_str();
    let mut out = ProviderTools::default();
    for (i, piece) in pieces.iter().enumerate() {
        let loaded = !deferred.contains(server_of(i));
        // Anthropic takes deferred definitions in the list itself; the others do not.
        if loaded || variant.format == ToolFormat::Anthropic {
            out.definition(piece, loaded);
        }
    }
    match variant.format {
        ToolFormat::OpenaiResponses => {
            for server in deferred {
                let tools: Vec<&str> = (0..pieces.len())
                    .filter(|i| server_of(*i) == *server)
                    .map(|i| &*pieces[i].definition)
                    .collect();
                let instructions = source
                    .servers
                    .get(*server)
                    .and_then(|s| s.instructions.as_deref());
                let description = defer::namespace_description(server, instructions);
                let header = defer::namespace_json(server, &description, &[]).len();
                let namespace = defer::namespace_json(server, &description, &tools);
                out.push(Cow::Owned(namespace), header);
            }
        }
        ToolFormat::Anthropic => {}
        _ => {
            let counts: Vec<(&str, usize)> = deferred
                .iter()
                .map(|s| {
                    (
                        *s,
                        (0..pieces.len()).filter(|i| server_of(*i) == *s).count(),
                    )
                })
                .collect();
            let meta = convert::definition(
                variant.format,
                variant.options(),
                source.search_tools_name,
                &defer::search_tools_tool(&counts),
            );
            let text = canonical_json(&meta.definition);
            let len = text.len();
            out.push(Cow::Owned(text), len);
        }
    }
    if let Some(search) = defer::native_search_tool(variant.format) {
        let text = canonical_json(&search);
        let len = text.len();
        out.push(Cow::Owned(text), len);
    }
    out
}

/// `{"fingerprint", "providerTools"?, "servers", "tokens", "tools", "withheld"?}` (sorted keys) as
/// one JSON text.
fn assemble(
    fingerprint: String,
    provider: Option<&[Cow<'_, str>]>,
    parts: &ServerParts,
    tokens: &Value,
    entries: &[&Piece],
) -> Rendered {
    let tokens = canonical_json(tokens);
    let size = entries.iter().map(|p| p.entry.len() + 1).sum::<usize>()
        + provider.map_or(0, |items| items.iter().map(|t| t.len() + 1).sum())
        + parts.servers.len()
        + parts.withheld.as_ref().map_or(0, String::len)
        + tokens.len()
        + fingerprint.len()
        + 96;
    let mut out = String::with_capacity(size);
    out.push_str("{\"fingerprint\":\"");
    out.push_str(&fingerprint);
    out.push('"');
    if let Some(items) = provider {
        out.push_str(",\"providerTools\":[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(item);
        }
        out.push(']');
    }
    out.push_str(",\"servers\":");
    out.push_str(&parts.servers);
    out.push_str(",\"tokens\":");
    out.push_str(&tokens);
    out.push_str(",\"tools\":[");
    for (i, piece) in entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&piece.entry);
    }
    out.push(']');
    if let Some(withheld) = &parts.withheld {
        out.push_str(",\"withheld\":");
        out.push_str(withheld);
    }
    out.push('}');
    Rendered {
        json: Arc::from(out),
        fingerprint,
    }
}
